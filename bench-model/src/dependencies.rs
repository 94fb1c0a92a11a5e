//! The dependencies suite's rows: each client's probe tree, read with `cargo metadata` and
//! never built, so that a default run has the crate counts the adoption suite would take
//! minutes of clean builds to give.

use serde::{Deserialize, Serialize};

use crate::{ClientName, DependenciesSkipped};

/// One client and TLS backend's probe tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DependencyRow {
    pub client: ClientName,
    /// Crates in the probe's tree for the host, the probe itself not counted.
    pub crates: u32,
    /// Crates over the probe with no HTTP client.
    pub added_crates: i64,
}

/// Everything the suite read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DependenciesResults {
    /// Crates in the tree of the probe with no HTTP client.
    pub base_crates: Option<u32>,
    pub rows: Vec<DependencyRow>,
    /// Why the suite, or a client of it, could not be read.
    #[serde(
        default,
        deserialize_with = "crate::reasons::list",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub skipped: Vec<DependenciesSkipped>,
}

impl DependenciesResults {
    pub fn is_empty(&self) -> bool {
        self.base_crates.is_none() && self.rows.is_empty() && self.skipped.is_empty()
    }
}
