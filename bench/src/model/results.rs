//! results.json: the versioned record of one run.

use serde::{Deserialize, Serialize};

use crate::model::{
    BaselineComparison, CapacityRow, ClientName, ConnectionsRow, ConstructionRow, DecodeRow,
    Environment, FanoutRow, FaultRow, FdCheck, LatencyRow, LoadRow, RunSettings,
};

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
    /// The connections suite's calls, one row per protocol, mode and client.
    #[serde(default)]
    pub connections: Vec<ConnectionsRow>,
    /// The connections suite's client builds, one row per client and trust.
    #[serde(default)]
    pub construction: Vec<ConstructionRow>,
    #[serde(default)]
    pub decode: Vec<DecodeRow>,
    #[serde(default)]
    pub fanout: Vec<FanoutRow>,
    #[serde(default)]
    pub faults: Vec<FaultRow>,
    /// The load suite's open-model runs, one row per scenario.
    #[serde(default)]
    pub load: Vec<LoadRow>,
    /// The load suite's capacity step, one row per scenario.
    #[serde(default)]
    pub capacity: Vec<CapacityRow>,
    /// The api's open file descriptors around the fault storm (the faults suite).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fd_check: Option<FdCheck>,
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
            connections: Vec::new(),
            construction: Vec::new(),
            decode: Vec::new(),
            fanout: Vec::new(),
            faults: Vec::new(),
            load: Vec::new(),
            capacity: Vec::new(),
            fd_check: None,
            baseline: None,
        }
    }

    /// The run's clients that have fanout rows, in the run's order.
    pub fn fanout_clients(&self) -> Vec<ClientName> {
        self.settings
            .clients
            .iter()
            .copied()
            .filter(|client| self.fanout.iter().any(|row| row.client == *client))
            .collect()
    }
}
