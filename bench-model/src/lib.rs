//! The record of a run: every row, every setting and the `Results` that hold them, typed and
//! serde, and the pure statistics and noise checks the figures are made with. It depends on no
//! HTTP client: the runner (`bench`) writes it, the reports (`bench-report`) read it, and
//! `results.json` is its serialization.

mod adoption;
mod baseline;
mod client;
mod connections;
mod cost;
mod decode;
mod dependencies;
mod environment;
mod fanout;
mod faults;
mod idle;
mod latency;
mod load;
mod machine;
mod memory;
pub mod noise;
pub mod plan;
mod protocol;
pub mod reasons;
mod releases;
mod resilience;
mod resolution;
mod results;
mod run;
mod servers;
mod settings;
pub mod stats;
mod suite;
mod upstream;
mod wan;

pub use adoption::{
    AdoptionInputs, AdoptionResults, AdoptionRow, AdoptionSettings, HOW_TO_RUN_ADOPTION,
    ProbeBuild, StoredAdoption, StoredFrom,
};
pub use baseline::{
    BaselineComparison, Both, Change, FanoutChange, FaultChange, FaultOutcome, Judged, LoadChange,
    ReleaseChange,
};
pub use client::{ClientName, ClientProtocols};
pub use connections::{
    ClientTrust, ConnectionMode, ConnectionsRow, ConnectionsSettings, ConstructionRow,
};
pub use cost::{CostRow, CostSettings, ServiceCostRow, ServiceCostSettings};
pub use decode::{DecodeBody, DecodeMethod, DecodeRow};
pub use dependencies::{DependenciesResults, DependencyRow};
pub use environment::{CrateVersion, Environment};
pub use fanout::{FanoutMode, FanoutRow, FanoutSeries, FanoutSettings, H2Spread, group_sizes};
pub use faults::{
    FaultCase, FaultRow, FaultsSettings, FdCheck, PaymentOutcome, REUSE_PAYMENTS, StaleConnections,
};
pub use idle::{IdleError, IdleRow, IdleSettings, ServerClose};
pub use latency::{BareFigures, CalibrationRow, Decode, LatencyRow, NegotiatedTls, size_name};
pub use load::{
    CurvePoint, FailureCounts, FailureKind, LargeBody, LatencySummary, LoadRound, LoadRow,
    LoadSettings, Scenario, SecondPoint, StatusCount,
};
pub use machine::{MachineAbilities, MachineLoad};
pub use memory::{MemoryPoint, MemoryRound, MemoryRow, MemorySettings};
pub use noise::Noise;
pub use plan::{LeftOut, ProtocolPlan, RunPlan, SuitePlan, SuiteSkip, Tool};
pub use protocol::Protocol;
pub use reasons::{
    ChildFailure, DependenciesSkipped, FigureNotMeasured, GeneratorNotMeasured, NotCompared,
    NotCounted, Refuted, ReleaseFailure, ReleasesSkipped, RoundFailed, Toolchain, Unchecked,
    Withheld,
};
pub use releases::{
    ReleaseBuild, ReleaseFigure, ReleaseMeasure, ReleaseRow, ReleasesResults, ReleasesSettings,
    ResolvedCrate, compare_versions,
};
pub use resilience::{
    BUDGET_PERIOD_US, Beside, CapacityRound, ClientCapacity, CpuBeside, GeneratorRow, OverloadRow,
    PhaseCounts, RampStep, ResilienceResults, ResilienceSettings, RestartRow, SlowClientsRow,
    SlowConnections, SoakRow, SoakSample, StepDown, StretchCpu, millis,
};
pub use resolution::{ResolutionRow, ResolutionSettings, resolution_cost_us};
pub use results::{NotRun, NotRunWhy, Results, SCHEMA_VERSION, SCHEMA_VERSIONS_READ, SuitePart};
pub use run::Run;
pub use servers::{Origin, Server, Servers, TlsRole, TlsServer};
pub use settings::{ClientInfo, RunSettings};
pub use suite::SuiteName;
pub use upstream::{ForeignUpstream, UpstreamProbe};
pub use wan::{
    WanBatch, WanCheck, WanEvent, WanLink, WanRecovery, WanResults, WanRow, WanSettings,
};

/// Rows for tests, with every figure filled in.
#[cfg(any(test, feature = "fixtures"))]
pub mod test_rows;
