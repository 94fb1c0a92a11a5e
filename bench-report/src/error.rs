//! Why a report could not be read or written.

use std::io;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
    #[error("cannot write results.json: {0}")]
    Json(#[source] serde_json::Error),
    #[error("baseline: {0}")]
    Baseline(String),
    #[error("report: {0}")]
    Report(String),
    #[error("cannot draw chart {0}")]
    Chart(String),
}

impl ReportError {
    pub fn io(path: &Path, source: io::Error) -> Self {
        Self::Io {
            path: path.display().to_string(),
            source,
        }
    }
}
