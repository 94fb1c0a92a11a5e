//! A run's change against an earlier one (`--baseline`).

use serde::{Deserialize, Serialize};

use crate::{
    ClientName, FanoutMode, FaultCase, NotCompared, PaymentOutcome, Protocol, Scenario, SuiteName,
};

/// Every row present in both runs, with its change: latency, decode and cost rows in `changes`
/// (a mean and its noise each); load, fanout and faults rows in lists of their own,
/// since what each compares differs. Results written before those lists existed have none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BaselineComparison {
    pub file: String,
    pub baseline_started_utc: Option<String>,
    pub changes: Vec<Change>,
    #[serde(default)]
    pub load: Vec<LoadChange>,
    #[serde(default)]
    pub fanout: Vec<FanoutChange>,
    #[serde(default)]
    pub faults: Vec<FaultChange>,
    /// The releases suite's figures, matched by library, release, figure and protocol.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub releases: Vec<ReleaseChange>,
    /// What was left out and why: a suite the baseline lacks, rows without a match.
    #[serde(
        default,
        deserialize_with = "crate::reasons::list",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub not_compared: Vec<NotCompared>,
}

/// One row's change.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub suite: SuiteName,
    /// The client, or "method / body".
    pub row: String,
    /// "us", "ns", or "instructions" (cost).
    pub unit: String,
    pub baseline_mean: f64,
    pub mean: f64,
    /// mean / baseline_mean: below 1 is faster now.
    pub ratio: f64,
    /// sqrt(Error_then^2 + Error_now^2); `None` when either run had a single sample.
    pub combined_error: Option<f64>,
    /// Whether |mean - baseline_mean| exceeds `combined_error`.
    pub significant: Option<bool>,
    pub baseline_allocs_per_op: f64,
    pub allocs_per_op: f64,
}

impl Change {
    /// A word for the table.
    pub fn verdict(&self) -> &'static str {
        let counted = self.suite == SuiteName::Cost;
        match self.significant {
            Some(true) if self.mean < self.baseline_mean && counted => "fewer instructions",
            Some(true) if counted => "more instructions",
            Some(false) if counted => "same (within 1.4%)",
            Some(true) if self.mean < self.baseline_mean => "faster",
            Some(true) => "slower",
            Some(false) => "same (within Error)",
            None => "unknown (no Error)",
        }
    }
}

/// A figure of a row in both runs, shown but not judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Both<T> {
    pub baseline: T,
    pub now: T,
}

/// A figure of a row in both runs, and what one rule made of the difference.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Judged<T> {
    pub baseline: T,
    pub now: T,
    /// Whether the difference is beyond the rule's noise; `None` when the rule cannot tell
    /// (a figure missing, too few samples: `rule` says which).
    pub significant: Option<bool>,
    /// The test that decided, with its figures ("|+41.2| > 13.1 us (3.29 SE)").
    pub rule: String,
}

impl<T> Judged<T> {
    pub fn changed(&self) -> bool {
        self.significant == Some(true)
    }
}

/// One figure of one release in both runs (the releases suite), judged by the rule the
/// suite judges it by between releases.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReleaseChange {
    /// `hyper 1.8.0`.
    pub release: String,
    /// `per-call latency, http`.
    pub figure: String,
    /// `us`, `ms`, `B`, `s`, or empty for a count.
    pub unit: String,
    pub value: Judged<f64>,
}

/// One load scenario's open-model run in both runs, matched by scenario and protocol.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadChange {
    #[serde(flatten)]
    pub scenario: Scenario,
    pub protocol: Protocol,
    /// The upstream answer's size, when it was not the ordinary one (as in both runs' rows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_bytes: Option<u64>,
    pub target_rps: Both<u32>,
    /// Mean latency from the intended send time, in microseconds.
    pub mean_us: Judged<Option<f64>>,
    pub p99_us: Both<Option<f64>>,
    /// Requests that failed or were never sent (too many in flight).
    pub failures: Judged<u64>,
}

/// One fanout group in both runs, matched by client, protocol, mode and group size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FanoutChange {
    pub client: ClientName,
    pub protocol: Protocol,
    /// Over h2, the mock's stream limit of the rows compared, if it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_limit: Option<u32>,
    pub mode: FanoutMode,
    pub group_size: u32,
    /// Fully successful batches behind each median.
    pub batches: Both<usize>,
    /// The median of the api's wall time, in milliseconds.
    pub wall_ms_median: Judged<Option<f64>>,
    /// Payments that failed.
    pub failures: Judged<u64>,
    /// TCP connections mock-rates accepted during the group's batches.
    pub connections_opened: Judged<Option<u64>>,
}

/// What one payment under one fault came back as.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultOutcome {
    pub kind: PaymentOutcome,
    pub status: Option<u16>,
    pub next_ok: bool,
    pub hung: bool,
}

/// One cell of the fault matrix in both runs, matched by client and fault.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FaultChange {
    pub client: ClientName,
    pub fault: FaultCase,
    /// Kind, status, recovery and hang, compared exactly: any change is significant.
    pub outcome: Judged<FaultOutcome>,
    /// The time to answer, judged only against each run's timeout.
    pub elapsed_ms: Judged<f64>,
    pub timeout_ms: Both<u64>,
}
