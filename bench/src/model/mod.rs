//! The record of a run: every row, every setting and the `Results` that hold them, typed and
//! serde. It imports nothing else of the bench: suites write it, reports read it, and
//! `results.json` is its serialization.

mod baseline;
mod client;
mod connections;
mod cost;
mod decode;
mod environment;
mod fanout;
mod faults;
mod latency;
mod load;
mod machine;
mod noise;
mod protocol;
mod resilience;
mod results;
mod settings;

pub use baseline::{
    BaselineComparison, Both, CapacityChange, Change, FanoutChange, FaultChange, FaultOutcome,
    Judged, LoadChange,
};
pub use client::ClientName;
pub use connections::{
    ClientTrust, ConnectionMode, ConnectionsRow, ConnectionsSettings, ConstructionRow,
};
pub use cost::{CostRow, CostSettings};
pub use decode::{DecodeBody, DecodeMethod, DecodeRow};
pub use environment::{CrateVersion, Environment};
pub use fanout::{FanoutMode, FanoutRow, FanoutSeries, FanoutSettings, H2Spread, group_sizes};
pub use faults::{
    FaultCase, FaultRow, FaultsSettings, FdCheck, PaymentOutcome, REUSE_PAYMENTS, StaleConnections,
};
pub use latency::{BareFigures, LatencyRow, NegotiatedTls};
pub use load::{
    CapacityLevel, CapacityRow, CurvePoint, FailureCounts, FailureKind, GeneratorCheck,
    LatencySummary, LoadRow, LoadSettings, Scenario, SecondPoint, StatusCount,
};
pub use machine::MachineLoad;
pub use noise::Noise;
pub use protocol::Protocol;
pub use resilience::{
    ClientCapacity, OverloadRow, PhaseCounts, RampStep, ResilienceResults, ResilienceSettings,
    RestartRow, SlowClientsRow, SlowConnections, SoakRow, SoakSample, millis,
};
pub use results::{Results, SCHEMA_VERSION};
pub use settings::{RunSettings, SuiteName};
