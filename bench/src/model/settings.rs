//! The suites and the sizes and choices of one run, as recorded in results.json.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::model::{
    ClientName, ConnectionsSettings, FanoutSettings, FaultsSettings, LoadSettings, Protocol,
};

/// A suite, as named on the command line and in results.json.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    clap::ValueEnum,
    Serialize,
    Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum SuiteName {
    /// Each adapter through the port, sequential calls: time, allocations, connections.
    Latency,
    /// A new connection per call (full and resumed TLS handshakes), and a client built per
    /// call, against the pooled call: time, CPU, allocations, connections, handshakes; and what
    /// building a client costs.
    Connections,
    /// The Free Forex body decoded five ways: time and allocations per decode.
    Decode,
    /// The payment service at a constant request rate (open model), per scenario: latency
    /// percentiles from the intended send time, failures, CPU and memory; then a closed-model
    /// capacity step.
    Load,
    /// Groups of payments through the api's batch endpoint, sequential vs concurrent, against
    /// an upstream with added latency: wall time, ideal, efficiency.
    Fanout,
    /// Every mock fault x every client through the api: error kind, status, time to fail,
    /// recovery; a fault storm with the api's file descriptors counted before and after.
    Faults,
}

impl SuiteName {
    /// Every suite, in the order a default run takes them.
    pub const ALL: [SuiteName; 6] = [
        SuiteName::Latency,
        SuiteName::Connections,
        SuiteName::Decode,
        SuiteName::Load,
        SuiteName::Fanout,
        SuiteName::Faults,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SuiteName::Latency => "latency",
            SuiteName::Connections => "connections",
            SuiteName::Decode => "decode",
            SuiteName::Load => "load",
            SuiteName::Fanout => "fanout",
            SuiteName::Faults => "faults",
        }
    }

    /// Whether the suite calls mock-rates over HTTP.
    pub fn needs_mock(self) -> bool {
        match self {
            SuiteName::Latency
            | SuiteName::Connections
            | SuiteName::Load
            | SuiteName::Fanout
            | SuiteName::Faults => true,
            SuiteName::Decode => false,
        }
    }

    /// Whether the suite drives the payment service over HTTP (and so needs it started).
    pub fn needs_api(self) -> bool {
        match self {
            SuiteName::Latency | SuiteName::Connections | SuiteName::Decode => false,
            SuiteName::Load | SuiteName::Fanout | SuiteName::Faults => true,
        }
    }
}

impl fmt::Display for SuiteName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Runs recorded before the protocol dimension were plain HTTP.
fn http_only() -> Vec<Protocol> {
    vec![Protocol::Http]
}

/// The sizes and choices of one run, as recorded in results.json.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSettings {
    pub suites: Vec<SuiteName>,
    pub clients: Vec<ClientName>,
    /// latency and connections: the protocols each client is measured over.
    #[serde(default = "http_only")]
    pub protocols: Vec<Protocol>,
    pub quick: bool,
    /// latency: un-timed calls per client before its first sample.
    pub warmup_calls: u32,
    /// Samples per latency client and per decode path and body.
    pub samples: u32,
    /// latency: calls per sample.
    pub calls_per_sample: u32,
    /// decode: the time one sample aims to take; the decodes per sample follow from a pilot.
    pub decode_sample_ms: u32,
    /// Where mock-rates ran: "child process" or the URL given.
    pub mock: String,
    /// Where the payment service ran: "child process" or the URL given.
    pub api: String,
    /// latency and connections: the CPU the suite ran on (with its own mock-rates when the
    /// bench starts it); `None` when not pinned.
    pub latency_cpu: Option<usize>,
    /// fanout: upstream latency, group sizes, repetitions.
    #[serde(default)]
    pub fanout: FanoutSettings,
    /// faults: the faults injected, the service's timeout, the storm's size.
    #[serde(default)]
    pub faults: FaultsSettings,
    /// load: rate, duration, warm-up, capacity levels.
    #[serde(default)]
    pub load: LoadSettings,
    /// connections: samples and their sizes.
    #[serde(default)]
    pub connections: ConnectionsSettings,
}
