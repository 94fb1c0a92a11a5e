//! results.json: the versioned record of one run.

use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::BenchError;
use crate::baseline::BaselineComparison;
use crate::cli::RunSettings;
use crate::env::Environment;
use crate::suites::decode::DecodeRow;
use crate::suites::latency::LatencyRow;

/// Bumped whenever a field changes meaning or goes away; new fields keep the version.
pub const SCHEMA_VERSION: u32 = 1;

/// Everything one run measured. A suite that did not run leaves its list empty.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Results {
    pub schema_version: u32,
    pub environment: Environment,
    pub settings: RunSettings,
    #[serde(default)]
    pub latency: Vec<LatencyRow>,
    #[serde(default)]
    pub decode: Vec<DecodeRow>,
    #[serde(default)]
    pub fanout: Vec<crate::suites::fanout::FanoutRow>,
    #[serde(default)]
    pub faults: Vec<crate::suites::faults::FaultRow>,
    /// The load suite's open-model runs, one row per scenario.
    #[serde(default)]
    pub load: Vec<crate::suites::load::LoadRow>,
    /// The load suite's capacity step, one row per scenario.
    #[serde(default)]
    pub capacity: Vec<crate::suites::load::CapacityRow>,
    /// The api's open file descriptors around the fault storm (the faults suite).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fd_check: Option<crate::suites::faults::FdCheck>,
    /// The change against `--baseline`, when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineComparison>,
}

impl Results {
    pub fn new(environment: Environment, settings: RunSettings) -> Self {
        Self {
            schema_version: SCHEMA_VERSION,
            environment,
            settings,
            latency: Vec::new(),
            decode: Vec::new(),
            fanout: Vec::new(),
            faults: Vec::new(),
            load: Vec::new(),
            capacity: Vec::new(),
            fd_check: None,
            baseline: None,
        }
    }
}

pub fn write(results: &Results, path: &Path) -> Result<(), BenchError> {
    let mut text = serde_json::to_string_pretty(results).map_err(BenchError::Json)?;
    text.push('\n');
    fs::write(path, text).map_err(|source| BenchError::io(path, source))
}
