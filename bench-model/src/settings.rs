//! The suites and the sizes and choices of one run, as recorded in results.json.

use serde::{Deserialize, Serialize};

use crate::{
    ClientName, ConnectionsSettings, CostSettings, FanoutSettings, FaultsSettings, ForeignUpstream,
    IdleSettings, LoadSettings, MachineAbilities, MemorySettings, Protocol, ResilienceSettings,
    ResolutionSettings, SuiteName, WanSettings,
};

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
    /// wan: the link profiles, the payments' rate and stretch, the batch, the calibration.
    #[serde(default)]
    pub wan: WanSettings,
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
