//! A run's change against an earlier one (`--baseline`).

use serde::{Deserialize, Serialize};

use crate::model::SuiteName;

/// Every row present in both runs, with its change.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BaselineComparison {
    pub file: String,
    pub baseline_started_utc: Option<String>,
    pub changes: Vec<Change>,
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
