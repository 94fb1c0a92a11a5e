//! `--baseline FILE`: the change of every row against an earlier results.json, each suite's
//! rows judged by the noise test that fits what they hold.
//!
//! - latency, decode, cost (`means`): a mean against the two runs' combined Error (cost: each
//!   run's count taken as good to 1%);
//! - load (`load`): the mean latency against the rows' standard errors (a lower bound on the
//!   noise), failures as counts;
//! - fanout (`fanout`): the median wall time by a rank test of the repetitions, failures and
//!   new connections as counts;
//! - faults (`faults`): the outcome exactly, the time only against the timeout.
//!
//! The connections suite and the resilience suite's capacity are not compared (`bench verdict
//! A.json B.json` holds capacities and every verdict criterion across runs). Rows in only one run are left out, and a suite the
//! baseline lacks is named in the comparison's `not_compared`.

mod fanout;
mod faults;
mod load;
mod means;
mod rules;

use std::fs;
use std::path::Path;

use serde::Deserialize;

use crate::ReportError;
use bench_model::{
    BaselineComparison, CostRow, DecodeRow, FanoutRow, FaultRow, LatencyRow, LoadRow, NotCompared,
    ReleasesResults, Results, SCHEMA_VERSION, SuiteName,
};

pub use bench_model::stats::rank::{
    LEVEL as RANK_TEST_LEVEL, values_needed as rank_test_values_needed,
};
pub use faults::LATE_AFTER_TIMEOUT;
pub use means::COST_REPEATABILITY;

/// The rows of an earlier results.json that a comparison reads; anything else is ignored, so
/// files with fields added since still load, and a suite missing from them is not compared.
#[derive(Debug, Default, Deserialize)]
struct Rows {
    #[serde(default)]
    latency: Vec<LatencyRow>,
    #[serde(default)]
    decode: Vec<DecodeRow>,
    #[serde(default)]
    cost: Vec<CostRow>,
    #[serde(default)]
    load: Vec<LoadRow>,
    #[serde(default)]
    fanout: Vec<FanoutRow>,
    #[serde(default)]
    faults: Vec<FaultRow>,
    #[serde(default)]
    releases: ReleasesResults,
}

#[derive(Debug, Deserialize)]
struct Document {
    schema_version: u32,
    #[serde(default)]
    environment: Option<serde_json::Value>,
    #[serde(flatten)]
    rows: Rows,
}

/// An earlier run, loaded.
#[derive(Debug)]
pub struct Baseline {
    pub file: String,
    pub started_utc: Option<String>,
    rows: Rows,
}

/// Reads and checks an earlier results.json.
pub fn load(path: &Path) -> Result<Baseline, ReportError> {
    let text = fs::read_to_string(path).map_err(|source| ReportError::io(path, source))?;
    parse(&text, &path.display().to_string())
}

fn parse(text: &str, file: &str) -> Result<Baseline, ReportError> {
    let document: Document = serde_json::from_str(text)
        .map_err(|error| ReportError::Baseline(format!("{file} is not a results.json: {error}")))?;
    // Version 2 took away the load suite's closed-model capacity, which is not compared; the
    // rows compared mean what they meant in version 1.
    if !(1..=SCHEMA_VERSION).contains(&document.schema_version) {
        return Err(ReportError::Baseline(format!(
            "{file} has schema_version {}, this bench reads 1 to {SCHEMA_VERSION}",
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
        rows: document.rows,
    })
}

impl Baseline {
    /// Compares this run's rows with the baseline's: latency and cost rows matched by client
    /// and protocol, decode rows by method and body, load rows by scenario and protocol, fanout rows by client, protocol, mode and group size, faults by client and
    /// fault.
    pub fn compare(&self, results: &Results) -> BaselineComparison {
        let then = &self.rows;
        let mut changes = means::latency(&then.latency, &results.latency);
        changes.extend(means::decode(&then.decode, &results.decode));
        changes.extend(means::cost(&then.cost, &results.cost));
        let comparison = BaselineComparison {
            file: self.file.clone(),
            baseline_started_utc: self.started_utc.clone(),
            changes,
            load: load::load(&then.load, &results.load),
            fanout: fanout::fanout(&then.fanout, &results.fanout),
            faults: faults::faults(&then.faults, &results.faults),
            releases: crate::releases::against_baseline(&then.releases, &results.releases),
            not_compared: Vec::new(),
        };
        let not_compared = not_compared(then, results, &comparison);
        BaselineComparison {
            not_compared,
            ..comparison
        }
    }
}

/// The releases suite's figures, and the build figures of each release that built.
fn figures(releases: &ReleasesResults) -> usize {
    releases
        .rows
        .iter()
        .map(|row| {
            row.figures
                .iter()
                .filter(|figure| figure.value().is_some())
                .count()
                + row.build.as_ref().map_or(0, |_| 3)
        })
        .sum()
}

/// A line for each suite of this run whose rows were not all compared.
fn not_compared(then: &Rows, now: &Results, comparison: &BaselineComparison) -> Vec<NotCompared> {
    let changes_of = |suite: SuiteName| {
        comparison
            .changes
            .iter()
            .filter(|change| change.suite == suite)
            .count()
    };
    // (suite, rows then, rows now, rows compared)
    let suites = [
        (
            SuiteName::Latency,
            then.latency.len(),
            now.latency.len(),
            changes_of(SuiteName::Latency),
        ),
        (
            SuiteName::Decode,
            then.decode.len(),
            now.decode.len(),
            changes_of(SuiteName::Decode),
        ),
        (
            SuiteName::Cost,
            then.cost.len(),
            now.cost.len(),
            changes_of(SuiteName::Cost),
        ),
        (
            SuiteName::Load,
            then.load.len(),
            now.load.len(),
            comparison.load.len(),
        ),
        (
            SuiteName::Fanout,
            then.fanout.len(),
            now.fanout.len(),
            comparison.fanout.len(),
        ),
        (
            SuiteName::Faults,
            then.faults.len(),
            now.faults.len(),
            comparison.faults.len(),
        ),
        (
            SuiteName::Releases,
            figures(&then.releases),
            figures(&now.releases),
            comparison.releases.len(),
        ),
    ];
    let mut lines: Vec<NotCompared> = suites
        .into_iter()
        .filter_map(|(suite, then, now, compared)| match (then, now) {
            (_, 0) => None,
            (0, _) => Some(NotCompared::NoRows { suite }),
            _ if compared < now => Some(NotCompared::Unmatched {
                suite,
                unmatched: now - compared,
                rows: now,
            }),
            _ => None,
        })
        .collect();
    if !now.connections.is_empty() || !now.construction.is_empty() {
        lines.push(NotCompared::Connections);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_other_schema_versions_and_other_files() {
        let newer = format!(
            r#"{{"schema_version": {}, "latency": []}}"#,
            SCHEMA_VERSION + 1
        );
        let refused = format!("schema_version {}", SCHEMA_VERSION + 1);
        assert!(
            matches!(parse(&newer, "x"), Err(ReportError::Baseline(message)) if message.contains(&refused))
        );
        assert!(parse(r#"{"schema_version": 1, "latency": []}"#, "x").is_ok());
        for other in [
            "{}",
            "not json",
            r#"{"schema_version": 1, "latency": 3}"#,
            r#"{"schema_version": 1, "faults": [{"client": "hyper"}]}"#,
        ] {
            assert!(
                matches!(parse(other, "x"), Err(ReportError::Baseline(_))),
                "{other}"
            );
        }
    }

    #[test]
    fn a_baseline_without_a_suite_loads_and_that_suite_is_not_compared() {
        let text = serde_json::json!({
            "schema_version": 1,
            "environment": {"started_utc": "2026-01-01T00:00:00Z", "added_later": true},
            "latency": [],
            "a_suite_from_later": [1, 2, 3],
        })
        .to_string();
        let baseline = parse(&text, "then.json").unwrap();
        assert_eq!(
            baseline.started_utc.as_deref(),
            Some("2026-01-01T00:00:00Z")
        );
        let settings = bench_model::test_rows::default_settings();
        let mut now = Results::new(bench_model::test_rows::environment("now"), settings);
        now.faults = serde_json::from_value(serde_json::json!([{
            "client": "hyper", "fault": "reset", "expected_kind": "connect",
            "kind": "connect", "expected_status": 502, "status": 502, "elapsed_ms": 2.0,
            "timeout_ms": 2000, "next_ok": true, "hung": false
        }]))
        .unwrap();
        let comparison = baseline.compare(&now);
        assert!(comparison.changes.is_empty() && comparison.faults.is_empty());
        assert_eq!(
            comparison.not_compared,
            [NotCompared::NoRows {
                suite: SuiteName::Faults
            }]
        );
        // A comparison written before the suites' own lists existed still reads.
        let older: BaselineComparison = serde_json::from_value(serde_json::json!({
            "file": "then.json", "baseline_started_utc": null, "changes": [],
        }))
        .unwrap();
        assert!(older.load.is_empty() && older.not_compared.is_empty());
    }
}
