//! `--baseline FILE`: the change of every row against an earlier results.json.
//!
//! A difference counts as real when it exceeds the combined Error of the two runs,
//! sqrt(Error_then^2 + Error_now^2): each Error is the half-width of a 99.9% confidence
//! interval, and for independent means the half-widths add in quadrature. Instruction counts
//! (the cost suite) have no samples: each run's count is taken as good to
//! [`COST_REPEATABILITY`], what two runs of one build gave on this project's machine.

use std::fs;
use std::path::Path;

use serde::Deserialize;

use crate::error::BenchError;
use crate::model::{
    BaselineComparison, Change, CostRow, DecodeRow, LatencyRow, SCHEMA_VERSION, SuiteName,
};

/// How far apart two runs of one build put a row's instructions per call: within 0.1% over
/// http and about 1% over https here. A change beyond the two runs' combined repeatability
/// (about 1.4%) is taken as real.
pub const COST_REPEATABILITY: f64 = 0.01;

/// The parts of an earlier results.json that a comparison reads; anything else is ignored, so
/// files with fields added since still load.
#[derive(Debug, Deserialize)]
struct Document {
    schema_version: u32,
    #[serde(default)]
    environment: Option<serde_json::Value>,
    #[serde(default)]
    latency: Vec<LatencyRow>,
    #[serde(default)]
    decode: Vec<DecodeRow>,
    #[serde(default)]
    cost: Vec<CostRow>,
}

/// An earlier run, loaded.
#[derive(Debug)]
pub struct Baseline {
    pub file: String,
    pub started_utc: Option<String>,
    latency: Vec<LatencyRow>,
    decode: Vec<DecodeRow>,
    cost: Vec<CostRow>,
}

/// Reads and checks an earlier results.json.
pub fn load(path: &Path) -> Result<Baseline, BenchError> {
    let text = fs::read_to_string(path).map_err(|source| BenchError::io(path, source))?;
    parse(&text, &path.display().to_string())
}

fn parse(text: &str, file: &str) -> Result<Baseline, BenchError> {
    let document: Document = serde_json::from_str(text)
        .map_err(|error| BenchError::Baseline(format!("{file} is not a results.json: {error}")))?;
    if document.schema_version != SCHEMA_VERSION {
        return Err(BenchError::Baseline(format!(
            "{file} has schema_version {}, this bench reads {SCHEMA_VERSION}",
            document.schema_version
        )));
    }
    Ok(Baseline {
        file: file.to_owned(),
        started_utc: document
            .environment
            .as_ref()
            .and_then(|environment| environment.get("started_utc"))
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned),
        latency: document.latency,
        decode: document.decode,
        cost: document.cost,
    })
}

struct Figures {
    mean: Option<f64>,
    error: Option<f64>,
    allocs_per_op: f64,
}

fn change(
    suite: SuiteName,
    row: String,
    unit: &str,
    then: &Figures,
    now: &Figures,
) -> Option<Change> {
    let (baseline_mean, mean) = (then.mean?, now.mean?);
    if baseline_mean <= 0.0 {
        return None;
    }
    let combined_error = then.error.zip(now.error).map(|(a, b)| a.hypot(b));
    Some(Change {
        suite,
        row,
        unit: unit.to_owned(),
        baseline_mean,
        mean,
        ratio: mean / baseline_mean,
        combined_error,
        significant: combined_error.map(|error| (mean - baseline_mean).abs() > error),
        baseline_allocs_per_op: then.allocs_per_op,
        allocs_per_op: now.allocs_per_op,
    })
}

impl Baseline {
    /// Compares this run's rows with the baseline's, matching latency and cost rows by client
    /// and protocol and decode rows by method and body; rows in only one run are left out.
    pub fn compare(
        &self,
        latency: &[LatencyRow],
        decode: &[DecodeRow],
        cost: &[CostRow],
    ) -> BaselineComparison {
        let latency_figures = |row: &LatencyRow| Figures {
            mean: row.mean_us,
            error: row.error_us,
            allocs_per_op: row.allocs_per_op,
        };
        let decode_figures = |row: &DecodeRow| Figures {
            mean: row.mean_ns,
            error: row.error_ns,
            allocs_per_op: row.allocs_per_op,
        };
        let mut changes = Vec::new();
        for now in latency {
            if let Some(then) = self
                .latency
                .iter()
                .find(|then| then.client == now.client && then.protocol == now.protocol)
            {
                changes.extend(change(
                    SuiteName::Latency,
                    format!("{} {}", now.client, now.protocol),
                    "us",
                    &latency_figures(then),
                    &latency_figures(now),
                ));
            }
        }
        for now in decode {
            if let Some(then) = self
                .decode
                .iter()
                .find(|then| then.method == now.method && then.body == now.body)
            {
                changes.extend(change(
                    SuiteName::Decode,
                    format!("{} / {}", now.method, now.body),
                    "ns",
                    &decode_figures(then),
                    &decode_figures(now),
                ));
            }
        }
        let cost_figures = |row: &CostRow| Figures {
            mean: Some(row.instructions_per_call),
            error: Some(row.instructions_per_call * COST_REPEATABILITY),
            allocs_per_op: row.allocs_per_call,
        };
        for now in cost {
            if let Some(then) = self
                .cost
                .iter()
                .find(|then| then.client == now.client && then.protocol == now.protocol)
            {
                changes.extend(change(
                    SuiteName::Cost,
                    format!("{} {}", now.client, now.protocol),
                    "instructions",
                    &cost_figures(then),
                    &cost_figures(now),
                ));
            }
        }
        BaselineComparison {
            file: self.file.clone(),
            baseline_started_utc: self.started_utc.clone(),
            changes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ClientName;

    fn latency_row(client: ClientName, mean: f64, error: Option<f64>, allocs: f64) -> LatencyRow {
        LatencyRow {
            client,
            protocol: crate::model::Protocol::Http,
            tls: None,
            calls: 100,
            failures: 0,
            mean_us: Some(mean),
            error_us: error,
            stddev_us: Some(1.0),
            median_us: Some(mean),
            p99_us: Some(mean * 2.0),
            ratio: Some(1.0),
            ratio_sd: Some(0.0),
            allocs_per_op: allocs,
            bytes_per_op: 100.0,
            connections_opened: Some(1),
            sample_means_us: vec![Some(mean)],
            first_error: None,
            noise: None,
            bare: None,
        }
    }

    fn baseline_with(latency: &[LatencyRow]) -> Baseline {
        let text = serde_json::json!({
            "schema_version": 1,
            "environment": {"started_utc": "2026-01-01T00:00:00Z", "added_later": true},
            "latency": latency,
        })
        .to_string();
        parse(&text, "then.json").unwrap()
    }

    #[test]
    fn flags_changes_beyond_the_combined_error() {
        let baseline = baseline_with(&[
            latency_row(ClientName::Hyper, 100.0, Some(3.0), 19.0),
            latency_row(ClientName::Awc, 100.0, Some(3.0), 28.0),
            latency_row(ClientName::Ureq, 100.0, None, 41.0),
            latency_row(ClientName::Isahc, 100.0, Some(1.0), 1.0),
        ]);
        assert_eq!(
            baseline.started_utc.as_deref(),
            Some("2026-01-01T00:00:00Z")
        );
        let now = [
            // 10 us faster, combined Error sqrt(9 + 16) = 5: a real change.
            latency_row(ClientName::Hyper, 90.0, Some(4.0), 19.0),
            // 4 us slower, within the same 5.
            latency_row(ClientName::Awc, 104.0, Some(4.0), 30.0),
            // No Error then: cannot tell.
            latency_row(ClientName::Ureq, 50.0, Some(1.0), 41.0),
            latency_row(ClientName::Reqwest, 10.0, Some(1.0), 1.0),
        ];
        let comparison = baseline.compare(&now, &[], &[]);
        assert_eq!(comparison.changes.len(), 3);
        let hyper = &comparison.changes[0];
        assert_eq!(hyper.row, "hyper http");
        assert!((hyper.ratio - 0.9).abs() < 1e-12);
        assert!((hyper.combined_error.unwrap() - 5.0).abs() < 1e-12);
        assert_eq!((hyper.significant, hyper.verdict()), (Some(true), "faster"));
        let awc = &comparison.changes[1];
        assert!((awc.ratio - 1.04).abs() < 1e-12);
        assert_eq!(awc.significant, Some(false));
        assert_eq!(
            (awc.baseline_allocs_per_op, awc.allocs_per_op),
            (28.0, 30.0)
        );
        let ureq = &comparison.changes[2];
        assert_eq!((ureq.significant, ureq.combined_error), (None, None));
    }

    #[test]
    fn refuses_other_schema_versions_and_other_files() {
        let newer = r#"{"schema_version": 2, "latency": []}"#;
        assert!(
            matches!(parse(newer, "x"), Err(BenchError::Baseline(message)) if message.contains("schema_version 2"))
        );
        for other in ["{}", "not json", r#"{"schema_version": 1, "latency": 3}"#] {
            assert!(
                matches!(parse(other, "x"), Err(BenchError::Baseline(_))),
                "{other}"
            );
        }
    }

    fn cost_row(client: ClientName, instructions_per_call: f64) -> CostRow {
        CostRow {
            client,
            protocol: crate::model::Protocol::Https,
            tls: None,
            calls: (100, 2100),
            instructions: (
                450_000_000,
                450_000_000 + instructions_per_call as u64 * 2000,
            ),
            instructions_per_call,
            allocs_per_call: 25.0,
            bytes_per_call: 14_000.0,
            ratio: None,
        }
    }

    #[test]
    fn instruction_counts_change_beyond_their_repeatability() {
        let text = serde_json::json!({
            "schema_version": 1,
            "cost": [cost_row(ClientName::Hyper, 47_769.0), cost_row(ClientName::Isahc, 172_905.0)],
        })
        .to_string();
        let baseline = parse(&text, "then.json").unwrap();
        // Two runs of one build here: hyper 47 769 then 47 349 (0.9%), within 1.4%; isahc
        // 172 905 then 180 000 (4.1%) is a real change.
        let now = [
            cost_row(ClientName::Hyper, 47_349.0),
            cost_row(ClientName::Isahc, 180_000.0),
        ];
        let comparison = baseline.compare(&[], &[], &now);
        let verdicts: Vec<(&str, &str)> = comparison
            .changes
            .iter()
            .map(|change| (change.row.as_str(), change.verdict()))
            .collect();
        assert_eq!(
            verdicts,
            [
                ("hyper https", "same (within 1.4%)"),
                ("isahc https", "more instructions")
            ]
        );
        assert_eq!(comparison.changes[0].unit, "instructions");
        assert_eq!(comparison.changes[0].suite, SuiteName::Cost);
    }
}
