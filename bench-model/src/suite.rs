//! The suites, as named on the command line and in results.json, and what each needs.

use std::fmt;

use serde::{Deserialize, Serialize};

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
    /// Each client through the api to a mock-rates across an emulated WAN link (a relay
    /// between two network namespaces of the bench's own, root only), per link profile and
    /// protocol: the link calibrated, a cold payment in round trips, payments on a timetable,
    /// a concurrent batch, and recovery after a partition or a middlebox that forgot a flow.
    /// Minutes, so only when asked for (`--suite wan`).
    Wan,
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
            SuiteName::Wan => "wan",
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
            // (resolution, wan), or its own three (releases).
            SuiteName::Decode
            | SuiteName::Idle
            | SuiteName::Resilience
            | SuiteName::Resolution
            | SuiteName::Dependencies
            | SuiteName::Releases
            | SuiteName::Wan => false,
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
            | SuiteName::Resilience
            | SuiteName::Wan => false,
            SuiteName::Load | SuiteName::Fanout | SuiteName::Faults => true,
        }
    }
}

impl fmt::Display for SuiteName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
