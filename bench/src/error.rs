//! Why a run stopped.

use std::io;
use std::path::Path;

use crate::clients::MockError;
use crate::servers::child::ChildError;
use bench_model::SuiteName;

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(transparent)]
    Mock(#[from] MockError),
    #[error("the {0} suite needs mock-rates, and none was started")]
    NoMock(SuiteName),
    #[error("the {0} suite needs the payment service, and none was started")]
    NoApi(SuiteName),
    #[error("--api-url must be an http:// URL, got {0:?}")]
    ApiUrl(String),
    #[error(transparent)]
    Child(#[from] ChildError),
    #[error("--mock-url must be an http:// URL, got {0:?}")]
    MockUrl(String),
    #[error(transparent)]
    Upstream(#[from] crate::upstream::target::UpstreamError),
    #[error(transparent)]
    Build(#[from] rates_common::BuildError),
    #[error(transparent)]
    Reporting(#[from] bench_report::ReportError),
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
    #[error("JSON: {0}")]
    Json(#[source] serde_json::Error),
    #[error("latency suite: {0}")]
    Latency(String),
    #[error("decode suite: {0}")]
    Decode(String),
    #[error("cost suite: {0}")]
    Cost(String),
    #[error("faults suite: {0}")]
    Faults(String),
    #[error("load suite: {0}")]
    Load(String),
    #[error("resilience suite: {0}")]
    Resilience(String),
    #[error("idle suite: {0}")]
    Idle(String),
    #[error("memory suite: {0}")]
    Memory(String),
    #[error("resolution suite: {0}")]
    Resolution(String),
    #[error("adoption suite: {0}")]
    Adoption(String),
    #[error("wan suite: {0}")]
    Wan(String),
}

impl BenchError {
    pub fn io(path: &Path, source: io::Error) -> Self {
        Self::Io {
            path: path.display().to_string(),
            source,
        }
    }
}

/// The bench's own executable, which the suites run again as child servers and tools.
///
/// # Errors
/// The running executable's path cannot be read.
pub fn bench_executable() -> Result<std::path::PathBuf, BenchError> {
    std::env::current_exe()
        .map_err(|source| BenchError::io(Path::new("the bench executable"), source))
}
