//! The connections suite's settings, modes and rows.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::{ClientName, NotCounted, Protocol, Withheld};

/// The connections choices of one run, as recorded in results.json (`settings.connections`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectionsSettings {
    /// Samples per client and mode, and per client and build.
    pub samples: u32,
    /// Most calls (or builds) per client and mode before its first sample, untimed: the first,
    /// then the others for about `sample_ms` at most; the mean of those is the pilot that
    /// sizes the samples.
    pub warmup_calls: u32,
    /// The time one sample aims to take: calls per sample = this / the pilot's mean.
    pub sample_ms: u32,
    /// Most calls in one sample, for the fast modes.
    pub max_calls_per_sample: u32,
}

/// How a client meets its connections, call after call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConnectionMode {
    /// One client built once, its pool kept: the connection is opened in the warm-up and
    /// every call reuses it. The baseline of each client's Ratio.
    Pooled,
    /// One client built once, keeping no idle connection (`max_idle_per_host = 0`): each call
    /// opens a connection of its own; over https against a server that allows resumption, so
    /// a client that keeps TLS sessions resumes them.
    NewConnection,
    /// As `NewConnection`, over https against a server with session resumption off: every
    /// handshake is a full one.
    NewConnectionFull,
    /// A client built for each call, one call, then dropped: the .NET seed's new `HttpClient`
    /// per request. Built with the system's roots and the mock's CA over https.
    BuiltPerCall,
}

impl ConnectionMode {
    /// Table order: the baseline first.
    pub const ALL: [Self; 4] = [
        Self::Pooled,
        Self::NewConnection,
        Self::NewConnectionFull,
        Self::BuiltPerCall,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pooled => "pooled",
            Self::NewConnection => "new_connection",
            Self::NewConnectionFull => "new_connection_full",
            Self::BuiltPerCall => "built_per_call",
        }
    }

    /// What the mode is, in a line.
    pub fn description(self) -> &'static str {
        match self {
            Self::Pooled => {
                "one client, its pool kept: the connection (and handshake) is made in the \
                 warm-up and every call reuses it; the baseline of Ratio"
            }
            Self::NewConnection => {
                "one client keeping no idle connection (max_idle_per_host = 0): every call \
                 opens a connection of its own; over https the server allows resumption, so a \
                 client that keeps its TLS sessions resumes them"
            }
            Self::NewConnectionFull => {
                "as new_connection, against a server with TLS session resumption off: every \
                 handshake is a full one"
            }
            Self::BuiltPerCall => {
                "a client built for every call (over https with the system's roots and the \
                 mock's CA), one call, then dropped: build, call and drop all timed"
            }
        }
    }

    /// Why the mode is left out over `protocol`, when it is.
    pub fn left_out_over(self, protocol: Protocol) -> Option<&'static str> {
        match (self, protocol) {
            (Self::NewConnectionFull, Protocol::Http) => Some(
                "plain HTTP has no handshake to resume, so full and resumed are one mode \
                 (new_connection)",
            ),
            _ => None,
        }
    }

    /// Whether each call must open a connection of its own (and the suite checks that it did).
    pub fn connection_per_call(self) -> bool {
        self != Self::Pooled
    }
}

impl fmt::Display for ConnectionMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One client, protocol and mode. Times in microseconds, per call; `None` (JSON null) where a
/// figure cannot be computed, and for every figure of a row whose counts disagree with its
/// mode (see `withheld`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConnectionsRow {
    pub client: ClientName,
    pub protocol: Protocol,
    pub mode: ConnectionMode,
    /// Over https: the TLS versions mock-rates counted during the row's calls ("TLSv1.3").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_version: Option<String>,
    /// Untimed calls before the first sample.
    pub warmup_calls: u64,
    /// Calls per sample, from the warm-up's mean.
    pub calls_per_sample: u32,
    /// Timed calls, failed ones included.
    pub calls: u64,
    pub failures: u64,
    /// Mean of the sample means.
    pub mean_us: Option<f64>,
    /// Half-width of the 99.9% confidence interval of `mean_us`.
    pub error_us: Option<f64>,
    pub stddev_us: Option<f64>,
    /// Mean of the per-sample ratios to the same client's `pooled` sample of the same index
    /// over the same protocol (1 for `pooled` itself).
    pub ratio_to_pooled: Option<f64>,
    pub ratio_sd: Option<f64>,
    /// CPU time of the bench process (every thread) per call; mock-rates is not in it.
    pub cpu_user_us_per_call: Option<f64>,
    pub cpu_system_us_per_call: Option<f64>,
    /// Rust heap allocations and bytes per call, on all threads.
    pub allocs_per_op: Option<f64>,
    pub bytes_per_op: Option<f64>,
    /// TCP connections mock-rates accepted during the warm-up and the samples.
    pub connections_opened: Option<u64>,
    /// Connections, full handshakes and resumed handshakes mock-rates counted per timed call.
    pub connections_per_call: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_handshakes_per_call: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumed_handshakes_per_call: Option<f64>,
    /// Each sample's mean, in sample order.
    pub sample_means_us: Vec<Option<f64>>,
    /// The mean of each round (a block of consecutive samples, every client's taken side by
    /// side): what the figure moved between rounds is its noise in the verdict.
    #[serde(default)]
    pub round_means_us: Vec<f64>,
    /// Why the row's figures are not given: what mock-rates counted contradicts the mode (a
    /// call that should have opened a connection reused one; TLS that was not negotiated).
    #[serde(
        default,
        deserialize_with = "crate::reasons::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub withheld: Option<Withheld>,
    /// The first failed call's error as the library (or the server) gave it: evidence, quoted
    /// as it came, not a reason the bench wrote (those are values: [`crate::reasons`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
    /// What of the row was not measured, and why: against a server the bench did not start
    /// (`--upstream-url`), what only mock-rates counts (connections opened, handshakes,
    /// the TLS version), and why the mode's one connection per call is then not checked, and what was checked on the client's
    /// side instead. Those figures are absent, not replaced; the row's own are figures.
    #[serde(
        default,
        deserialize_with = "crate::reasons::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub not_measured: Option<NotCounted>,
}

/// What a client is built to trust, in the construction rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientTrust {
    /// An `http://` upstream: no TLS is set up, no roots are read.
    Plain,
    /// An `https://` upstream, the system's roots only (`extra_ca_pem` none).
    SystemRoots,
    /// An `https://` upstream, the system's roots and one extra CA (the mock's).
    SystemRootsAndCa,
}

impl ClientTrust {
    pub const ALL: [Self; 3] = [Self::Plain, Self::SystemRoots, Self::SystemRootsAndCa];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Plain => "http (no roots)",
            Self::SystemRoots => "https, system roots",
            Self::SystemRootsAndCa => "https, system roots + 1 CA",
        }
    }

    /// The builds measured over `protocol`.
    pub fn over(protocol: Protocol) -> &'static [Self] {
        match protocol {
            Protocol::Http => &[Self::Plain],
            // Never measured over h2 (`SuiteName::runs_over`): its builds are https's.
            Protocol::Https | Protocol::H2 => &[Self::SystemRoots, Self::SystemRootsAndCa],
        }
    }
}

impl fmt::Display for ClientTrust {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Building one client, no call made. Times in microseconds, per build; the client is dropped
/// after the clock stops.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConstructionRow {
    pub client: ClientName,
    pub trust: ClientTrust,
    pub builds_per_sample: u32,
    /// Timed builds, failed ones included.
    pub builds: u64,
    pub failures: u64,
    pub mean_us: Option<f64>,
    pub error_us: Option<f64>,
    pub stddev_us: Option<f64>,
    pub cpu_user_us_per_build: Option<f64>,
    pub cpu_system_us_per_build: Option<f64>,
    pub allocs_per_build: f64,
    pub bytes_per_build: f64,
    pub sample_means_us: Vec<Option<f64>>,
    /// The mean of each round (a block of consecutive samples).
    #[serde(default)]
    pub round_means_us: Vec<f64>,
    /// The first failed call's error as the library (or the server) gave it: evidence, quoted
    /// as it came, not a reason the bench wrote (those are values: [`crate::reasons`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
}
