//! results.json: the versioned record of one run.

use serde::{Deserialize, Serialize};

use crate::{
    AdoptionResults, BaselineComparison, CalibrationRow, ClientName, ConnectionsRow,
    ConstructionRow, CostRow, DecodeRow, DependenciesResults, Environment, FanoutRow, FanoutSeries,
    FaultRow, FdCheck, IdleRow, LatencyRow, LoadRow, MachineLoad, MemoryRow, Protocol,
    ReleasesResults, ResilienceResults, ResolutionRow, Run, Servers, ServiceCostRow, SuiteName,
    SuiteSkip, Toolchain, WanResults,
};

/// Bumped whenever a field changes meaning or goes away; new fields keep the version.
///
/// 3: the rows' reasons (`unchecked`, `not_measured`, `withheld`, `refuted`, a release's
/// `failed`, ...) are values ([`crate::reasons`]) where 2 had the sentences the runner wrote;
/// the servers a run started are `servers`, no longer lines in the settings; why a suite did
/// not run is `not_run`, no longer a sentence in `<suite>_skipped`; the machine's abilities
/// are `settings.machine`. A version 2 file reads as 3: its rows' sentences mapped to the
/// values, its new fields absent, its dropped ones ignored.
pub const SCHEMA_VERSION: u32 = 3;

/// The schema versions a report reads.
pub const SCHEMA_VERSIONS_READ: std::ops::RangeInclusive<u32> = 2..=SCHEMA_VERSION;

/// A suite, or a part of one, that did not run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotRun {
    pub suite: SuiteName,
    /// The part of the suite, when the rest of it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<SuitePart>,
    pub why: NotRunWhy,
}

/// A part of a suite that can fail to run while the rest runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "part")]
pub enum SuitePart {
    /// The cost suite's payment service under callgrind.
    ServiceCost,
    /// One client's probe (the adoption suite).
    Probe { client: ClientName },
    /// The figures an earlier adoption run stored on this machine.
    StoredAdoption,
    /// The resilience suite's service held to its CPU budget (`--service-cpus`): it then
    /// shared the machine.
    ServiceBudget,
    /// The resilience suite's capacities under a CPU quota (`--cpu-quota`).
    CpuQuota,
}

/// Why a suite or part did not run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum NotRunWhy {
    /// Decided with the run's plan, before anything was measured.
    Planned { skip: SuiteSkip },
    /// It could not run on this machine: the error met, as the system or tool gave it (evidence
    /// for the reader, not a reason the bench words).
    Failed { error: String },
    /// The toolchain its probes are built with could not be run.
    Toolchain { toolchain: Toolchain },
}

/// Everything one run measured. A suite that did not run leaves its list empty.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Results {
    pub schema_version: u32,
    pub environment: Environment,
    /// The settings, and the plan made from them once (results.json: the settings).
    pub settings: Run,
    /// Where the servers of the suites ran (runs before schema 3: in the settings' lines).
    #[serde(default, skip_serializing_if = "Servers::is_empty")]
    pub servers: Servers,
    #[serde(default)]
    pub latency: Vec<LatencyRow>,
    /// The latency suite's minimal client against the same mock-rates, per protocol: the
    /// instrument's own cost.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calibration: Vec<CalibrationRow>,
    /// The latency suite's clients over http once more, nothing pinned: whether the ranks
    /// hold without the pinning.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub latency_unpinned: Vec<LatencyRow>,
    /// The latency suite's clients over http with larger answers
    /// (`settings.latency_body_sizes`), one row per client and size; results.json's key is
    /// `latency_bodies`.
    #[serde(
        default,
        rename = "latency_bodies",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub latency_by_body: Vec<LatencyRow>,
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
    /// The cost suite: the service's instructions per payment under callgrind.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub service_cost: Vec<ServiceCostRow>,
    #[serde(default)]
    pub fanout: Vec<FanoutRow>,
    #[serde(default)]
    pub faults: Vec<FaultRow>,
    /// The load suite's open-model runs, one row per scenario.
    #[serde(default)]
    pub load: Vec<LoadRow>,
    /// The idle suite: calls meeting connections the server closes for idleness.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub idle: Vec<IdleRow>,
    /// The memory suite: what each client holds, built and with its pool warm.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory: Vec<MemoryRow>,
    /// The resolution suite: new connections by address and by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resolution: Vec<ResolutionRow>,
    /// The api's open file descriptors around the fault storm (the faults suite).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fd_check: Option<FdCheck>,
    /// The resilience suite: restart, overload, slow clients, soak.
    #[serde(default, skip_serializing_if = "ResilienceResults::is_empty")]
    pub resilience: ResilienceResults,
    /// The adoption suite: each client's probe built alone, and its dependency tree.
    #[serde(default, skip_serializing_if = "AdoptionResults::is_empty")]
    pub adoption: AdoptionResults,
    /// The dependencies suite: each client's probe tree read without a build.
    #[serde(default, skip_serializing_if = "DependenciesResults::is_empty")]
    pub dependencies: DependenciesResults,
    /// The releases suite: each library across its own releases, each built as a probe of
    /// its own and measured the same way.
    #[serde(default, skip_serializing_if = "ReleasesResults::is_empty")]
    pub releases: ReleasesResults,
    /// The WAN suite: each profile's link calibrated, and the payments across it.
    #[serde(default, skip_serializing_if = "WanResults::is_empty")]
    pub wan: WanResults,
    /// Each suite, or part of one, that did not run, with why (runs before schema 3 kept a
    /// sentence per suite in `<suite>_skipped`, no longer read).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_run: Vec<NotRun>,
    /// What the machine was doing during each suite: busy share, CPU steal, load average.
    #[serde(default)]
    pub machine: Vec<MachineLoad>,
    /// The change against `--baseline`, when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineComparison>,
}

impl Results {
    pub fn new(environment: Environment, settings: impl Into<Run>) -> Self {
        Self {
            schema_version: SCHEMA_VERSION,
            environment,
            settings: settings.into(),
            servers: Servers::default(),
            latency: Vec::new(),
            calibration: Vec::new(),
            latency_unpinned: Vec::new(),
            latency_by_body: Vec::new(),
            connections: Vec::new(),
            construction: Vec::new(),
            decode: Vec::new(),
            cost: Vec::new(),
            service_cost: Vec::new(),
            fanout: Vec::new(),
            faults: Vec::new(),
            load: Vec::new(),
            idle: Vec::new(),
            memory: Vec::new(),
            resolution: Vec::new(),
            fd_check: None,
            resilience: ResilienceResults::default(),
            adoption: AdoptionResults::default(),
            dependencies: DependenciesResults::default(),
            releases: ReleasesResults::default(),
            wan: WanResults::default(),
            not_run: Vec::new(),
            machine: Vec::new(),
            baseline: None,
        }
    }

    /// The run without its rows that could not be checked (over TLS, what mock-rates counted
    /// did not show the TLS or HTTP version a row claims): what the suites' tables and charts
    /// show. Such a row is never a figure.
    #[must_use]
    pub fn checked(&self) -> Self {
        let mut checked = self.clone();
        checked.latency.retain(|row| row.unchecked.is_none());
        checked
            .latency_by_body
            .retain(|row| row.unchecked.is_none());
        checked.cost.retain(|row| row.unchecked.is_none());
        checked.load.retain(|row| row.unchecked.is_none());
        checked.fanout.retain(|row| row.unchecked.is_none());
        checked
    }

    /// Why `suite` (its whole, not a part of it) did not run, when it did not.
    pub fn not_run(&self, suite: SuiteName) -> Option<&NotRunWhy> {
        self.not_run
            .iter()
            .find(|not_run| not_run.suite == suite && not_run.part.is_none())
            .map(|not_run| &not_run.why)
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
