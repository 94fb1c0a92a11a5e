//! The suites and the sizes and choices of one run, as recorded in results.json.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::{
    ClientName, ConnectionsSettings, CostSettings, FanoutSettings, FaultsSettings, ForeignUpstream,
    IdleSettings, LoadSettings, MachineAbilities, MemorySettings, Protocol, ResilienceSettings,
    ResolutionSettings,
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
    /// Each adapter's CPU instructions and allocations per call, counted under valgrind's
    /// callgrind: a figure that holds across machines, where times do not.
    Cost,
    /// The payment service at a constant request rate (open model), per scenario, in rounds:
    /// latency percentiles from the intended send time, failures, CPU and memory.
    Load,
    /// Groups of payments through the api's batch endpoint, sequential vs concurrent, against
    /// an upstream with added latency: wall time, ideal, efficiency.
    Fanout,
    /// Every mock fault x every client through the api: error kind, status, time to fail,
    /// recovery; a fault storm with the api's file descriptors counted before and after.
    Faults,
    /// Through the api per client: mock-rates killed and restarted under load, overload at
    /// twice the capacity with `/health/live` alongside, a thousand slow connections, and a
    /// soak with the service's memory and descriptors sampled.
    Resilience,
    /// Each adapter through the port against a mock-rates that closes connections idle for
    /// 250 ms, calls spaced just under, at and just over that: the calls that met a closing
    /// connection, failed or were sent again, with the client's idle timeout above and below
    /// the server's.
    Idle,
    /// Each adapter in a process of its own, per protocol and round: the memory it holds once
    /// built, with one pooled connection, and with its pool warm after a burst of concurrent
    /// calls (anonymous resident memory, heap, threads, connections).
    Memory,
    /// Each adapter through the port, a new connection per call, to the upstream by address
    /// and by a host name that a DNS server of the bench's own answers after a delay, inside
    /// a network namespace whose `resolv.conf` points at it (root only): what resolving adds
    /// to a new connection, and whether the client keeps the answer.
    Resolution,
    /// What adopting each client costs: a minimal probe per client and TLS backend built
    /// clean (build time, stripped size, crates, C toolchain and system libraries), its
    /// declared MSRV, TLS, HTTP/2, compression and runtime, and its adapter's lines. Minutes
    /// of builds, so only when asked for (`--suite adoption`, or `--adoption` beside the rest).
    Adoption,
    /// Each client's probe tree read with `cargo metadata`, nothing built: the crates each
    /// client adds, in seconds, so that a default run has them.
    Dependencies,
    /// Each library of the run's clients across its own releases: a probe per release built
    /// clean with its own lock file (crates.io reached), measured against mock-rates of its
    /// own over http, https and h2, judged release against newest. Tens of minutes of builds,
    /// so only when asked for (`--suite releases`).
    Releases,
}

impl SuiteName {
    /// Every suite a default run takes, in its order: all but the adoption suite.
    pub const ALL: [SuiteName; 12] = [
        SuiteName::Dependencies,
        SuiteName::Latency,
        SuiteName::Connections,
        SuiteName::Memory,
        SuiteName::Idle,
        SuiteName::Resolution,
        SuiteName::Decode,
        SuiteName::Cost,
        SuiteName::Load,
        SuiteName::Fanout,
        SuiteName::Faults,
        SuiteName::Resilience,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SuiteName::Latency => "latency",
            SuiteName::Connections => "connections",
            SuiteName::Decode => "decode",
            SuiteName::Cost => "cost",
            SuiteName::Load => "load",
            SuiteName::Fanout => "fanout",
            SuiteName::Faults => "faults",
            SuiteName::Resilience => "resilience",
            SuiteName::Idle => "idle",
            SuiteName::Memory => "memory",
            SuiteName::Resolution => "resolution",
            SuiteName::Adoption => "adoption",
            SuiteName::Dependencies => "dependencies",
            SuiteName::Releases => "releases",
        }
    }

    /// Whether the suite runs against a server given with `--upstream-url`: the latency,
    /// connections and load suites do; the others need mock-rates' admin endpoint, its
    /// process, or no upstream at all.
    pub fn measures_a_given_upstream(self) -> bool {
        matches!(
            self,
            SuiteName::Latency | SuiteName::Connections | SuiteName::Load
        )
    }

    /// Whether the suite calls mock-rates over HTTP.
    pub fn needs_mock(self) -> bool {
        match self {
            SuiteName::Latency
            | SuiteName::Cost
            | SuiteName::Connections
            | SuiteName::Load
            | SuiteName::Fanout
            | SuiteName::Faults
            | SuiteName::Memory
            | SuiteName::Adoption => true,
            // It starts its own (idle, resilience), inside its network namespace
            // (resolution), or its own three (releases).
            SuiteName::Decode
            | SuiteName::Idle
            | SuiteName::Resilience
            | SuiteName::Resolution
            | SuiteName::Dependencies
            | SuiteName::Releases => false,
        }
    }

    /// Whether the suite drives the run's payment service over HTTP (and so needs it started;
    /// the resilience suite starts its own).
    pub fn needs_api(self) -> bool {
        match self {
            SuiteName::Latency
            | SuiteName::Connections
            | SuiteName::Decode
            | SuiteName::Cost
            | SuiteName::Idle
            | SuiteName::Memory
            | SuiteName::Resolution
            | SuiteName::Adoption
            | SuiteName::Dependencies
            | SuiteName::Releases
            | SuiteName::Resilience => false,
            SuiteName::Load | SuiteName::Fanout | SuiteName::Faults => true,
        }
    }
}

impl fmt::Display for SuiteName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What `mock` and `api` say of a server the bench starts itself.
pub const CHILD_PROCESS: &str = "child process";

/// Runs recorded before rounds took every figure once.
fn one_round() -> u32 {
    1
}

/// Runs recorded before the protocol dimension were plain HTTP.
fn http_only() -> Vec<Protocol> {
    vec![Protocol::Http]
}

/// One (client, TLS backend) pair as the run's catalogue described it: what the tables and the
/// verdict need to know of a client without building it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientInfo {
    pub name: ClientName,
    /// Its library's pair with the library's default backend (`reqwest` for
    /// `reqwest-native-tls`): what its rows are compared with.
    pub library: ClientName,
    /// The library that does its TLS handshakes, and the crypto under it.
    pub tls_backend: String,
    pub tls_provider: String,
    /// The HTTP versions it speaks, as `rates.http_version` names them ("1.1", "2").
    pub http_versions: Vec<String>,
    /// Whether each call blocks a thread (ureq, on the blocking pool).
    pub blocking: bool,
    /// Whether Ratio columns divide by it.
    pub baseline: bool,
    /// The protocols a run measures it over when `--clients` does not name the clients.
    pub measured_over: Vec<Protocol>,
}

/// The sizes and choices of one run, as recorded in results.json.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSettings {
    pub suites: Vec<SuiteName>,
    /// Every pair the bench knew, in table order, with what the report needs of each.
    #[serde(default)]
    pub catalogue: Vec<ClientInfo>,
    pub clients: Vec<ClientName>,
    /// Whether `clients` was named with `--clients`: then every one is measured over every
    /// protocol (see [`RunSettings::clients_over`]).
    #[serde(default)]
    pub clients_named: bool,
    /// latency, connections, cost, load and fanout: the protocols each client is measured over.
    #[serde(default = "http_only")]
    pub protocols: Vec<Protocol>,
    pub quick: bool,
    /// latency: un-timed calls per client before its first sample.
    pub warmup_calls: u32,
    /// Samples per latency client and per decode path and body.
    pub samples: u32,
    /// latency: calls per sample.
    pub calls_per_sample: u32,
    /// latency: the larger answers (bytes) each client is also called for over http, beside
    /// the ordinary one; empty in runs from before, and with `--bodies none`.
    /// results.json's key is `latency_bodies`.
    #[serde(default, rename = "latency_bodies")]
    pub latency_body_sizes: Vec<u64>,
    /// decode: at most this many more rounds of samples when a row is noisy.
    #[serde(default)]
    pub remeasure: u32,
    /// latency, connections and load: the rounds each figure is measured in, spread over the
    /// suite (every client's round 1, then every client's round 2, ...); resilience's
    /// capacity has its own (`resilience.capacity_rounds`). What a figure moves between rounds
    /// is its noise in the verdict.
    #[serde(default = "one_round")]
    pub rounds: u32,
    /// decode: the time one sample aims to take; the decodes per sample follow from a pilot.
    pub decode_sample_ms: u32,
    /// Where the run asked for mock-rates: "child process" (the bench starts it), the URL
    /// given (`--mock-url`), or none, against `--upstream-url`. Where it listened is
    /// [`crate::Servers`].
    pub mock: String,
    /// Where the run asked for the payment service: "child process" or the URL given.
    pub api: String,
    /// Runs before schema 3: the header's line on the servers over TLS (now
    /// [`crate::Servers`]); read, never written.
    #[serde(default, skip_serializing)]
    pub https_servers: Option<String>,
    /// With `--upstream-url`: the server every figure is against, which the bench did not
    /// start, and what could not be measured against it; absent from every other run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foreign_upstream: Option<ForeignUpstream>,
    /// latency and connections: the CPU the suite ran on (with its own mock-rates when the
    /// bench starts it); `None` when not pinned.
    pub latency_cpu: Option<usize>,
    /// cost: the calls of each client's two runs under callgrind.
    #[serde(default)]
    pub cost: CostSettings,
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
    /// resilience: the sizes of its four parts.
    #[serde(default)]
    pub resilience: ResilienceSettings,
    /// idle: the server's idle timeout, the gaps, the calls.
    #[serde(default)]
    pub idle: IdleSettings,
    /// memory: the burst that warms the pool, the rounds.
    #[serde(default)]
    pub memory: MemorySettings,
    /// resolution: the DNS server's delays, the calls.
    #[serde(default)]
    pub resolution: ResolutionSettings,
    /// What the machine could do that a suite needs, read while the run was decided; `None`
    /// in runs before schema 3 (their plan skips nothing for the machine's sake).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<MachineAbilities>,
    /// releases: the releases named with `--releases` (`ureq@2.12.1`), or none for every
    /// release the suite knows of the run's libraries.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub releases: Vec<String>,
}

impl RunSettings {
    /// Whether mock-rates or the payment service was given by URL (`--mock-url`,
    /// `--api-url`): servers over plain HTTP, so the suites that drive the service have no
    /// servers over TLS.
    pub fn servers_given(&self) -> bool {
        self.foreign_upstream.is_none()
            && !(self.mock.starts_with(CHILD_PROCESS) && self.api.starts_with(CHILD_PROCESS))
    }

    /// Leaves out the run's protocols that `keep` refuses, keeping the others in their order;
    /// the protocols left out. While the run is decided (before [`crate::Run`] freezes the
    /// settings), this is the one way they change: an upstream given by URL allows only its
    /// scheme's, and only those the bench's own handshake reached.
    pub fn leave_out_protocols(&mut self, keep: impl Fn(Protocol) -> bool) -> Vec<Protocol> {
        let (kept, left_out) = self.protocols.iter().partition(|&&protocol| keep(protocol));
        self.protocols = kept;
        left_out
    }
}
