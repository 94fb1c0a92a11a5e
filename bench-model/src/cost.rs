//! The cost suite's rows: CPU instructions per call, counted, not timed.

use serde::{Deserialize, Serialize};

use crate::{ClientName, NegotiatedTls, Protocol};

/// One client over one protocol: two runs of its calls under callgrind, the difference
/// divided by the difference in calls, so that everything but the calls (start-up, building
/// the client, the first connection) cancels.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostRow {
    pub client: ClientName,
    pub protocol: Protocol,
    /// For `https`: what mock-rates counted of the TLS the runs negotiated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<NegotiatedTls>,
    /// The calls of the shorter and of the longer run.
    pub calls: (u32, u32),
    /// The instructions callgrind counted in each run, every thread of the process.
    pub instructions: (u64, u64),
    /// (longer - shorter) / (calls difference).
    pub instructions_per_call: f64,
    /// The same per-call figure from each pair of consecutive runs (the suite runs the client
    /// at `CostSettings::counts` calls): what it moved between them is its noise.
    #[serde(default)]
    pub round_instructions_per_call: Vec<f64>,
    /// Why the row could not be checked (TLS mock-rates did not count); not ranked then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unchecked: Option<String>,
    /// Rust heap allocations and bytes per call, from the same runs.
    pub allocs_per_call: f64,
    pub bytes_per_call: f64,
    /// `instructions_per_call` over hyper's over the same protocol.
    pub ratio: Option<f64>,
}

/// The cost suite's sizes, as recorded in results.json.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CostSettings {
    /// Calls in the shorter and in the longer run of each client.
    pub calls: (u32, u32),
}
