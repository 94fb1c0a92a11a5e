//! `--baseline FILE`: the change of every row against an earlier results.json.
//!
//! A difference counts as real when it exceeds the combined Error of the two runs,
//! sqrt(Error_then^2 + Error_now^2): each Error is the half-width of a 99.9% confidence
//! interval, and for independent means the half-widths add in quadrature.

use std::fs;
use std::path::Path;

use serde::Deserialize;

use crate::error::BenchError;
use crate::model::{BaselineComparison, Change, DecodeRow, LatencyRow, SCHEMA_VERSION, SuiteName};

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
}

/// An earlier run, loaded.
#[derive(Debug)]
pub struct Baseline {
    pub file: String,
    pub started_utc: Option<String>,
    latency: Vec<LatencyRow>,
    decode: Vec<DecodeRow>,
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
    /// Compares this run's rows with the baseline's, matching latency rows by client and
    /// protocol and decode rows by method and body; rows in only one run are left out.
    pub fn compare(&self, latency: &[LatencyRow], decode: &[DecodeRow]) -> BaselineComparison {
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
        let comparison = baseline.compare(&now, &[]);
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
}
