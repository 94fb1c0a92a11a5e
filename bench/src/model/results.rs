//! results.json: the versioned record of one run.

use serde::{Deserialize, Serialize};

use crate::model::{
    AdoptionResults, BaselineComparison, CapacityRow, ConnectionsRow, ConstructionRow, CostRow,
    DecodeRow, Environment, FanoutRow, FanoutSeries, FaultRow, FdCheck, GeneratorCheck, LatencyRow,
    LoadRow, MachineLoad, Protocol, ResilienceResults, RunSettings,
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
    /// The cost suite: instructions per call under callgrind.
    #[serde(default)]
    pub cost: Vec<CostRow>,
    /// Why the cost suite was skipped (no valgrind), when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_skipped: Option<String>,
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
    /// The capacity step's generator against `wrk`, when wrk is on PATH.
    #[serde(default)]
    pub generator: Vec<GeneratorCheck>,
    /// Why that check did not run, when the load suite ran without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator_skipped: Option<String>,
    /// The api's open file descriptors around the fault storm (the faults suite).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fd_check: Option<FdCheck>,
    /// The resilience suite: restart, overload, slow clients, soak.
    #[serde(default, skip_serializing_if = "ResilienceResults::is_empty")]
    pub resilience: ResilienceResults,
    /// Why the resilience suite was skipped (servers given by URL), when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resilience_skipped: Option<String>,
    /// The adoption suite: each client's probe built alone, and its dependency tree.
    #[serde(default, skip_serializing_if = "AdoptionResults::is_empty")]
    pub adoption: AdoptionResults,
    /// Why the adoption suite, or a row of it, could not be measured, when it could not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub adoption_skipped: Vec<String>,
    /// What the machine was doing during each suite: busy share, CPU steal, load average.
    #[serde(default)]
    pub machine: Vec<MachineLoad>,
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
            cost: Vec::new(),
            cost_skipped: None,
            fanout: Vec::new(),
            faults: Vec::new(),
            load: Vec::new(),
            capacity: Vec::new(),
            generator: Vec::new(),
            generator_skipped: None,
            fd_check: None,
            resilience: ResilienceResults::default(),
            resilience_skipped: None,
            adoption: AdoptionResults::default(),
            adoption_skipped: Vec::new(),
            machine: Vec::new(),
            baseline: None,
        }
    }

    /// The clients over each protocol that have fanout rows: protocol by protocol (over h2,
    /// without a stream limit first), each in the run's client order.
    pub fn fanout_series(&self) -> Vec<FanoutSeries> {
        let limits = [None, self.settings.fanout.h2_stream_limit];
        Protocol::ALL
            .into_iter()
            .flat_map(|protocol| limits.into_iter().map(move |limit| (protocol, limit)))
            .flat_map(|(protocol, stream_limit)| {
                self.settings
                    .clients
                    .iter()
                    .map(move |&client| FanoutSeries {
                        client,
                        protocol,
                        stream_limit,
                    })
            })
            .filter(|series| self.fanout.iter().any(|row| row.series() == *series))
            .collect()
    }
}
