//! The latency suite's rows.

use serde::{Deserialize, Serialize};

use crate::{ClientName, Noise, NotCounted, Protocol, Unchecked};

/// How a client decoded the answer (the adapters' `rates_common::BodyDecode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decode {
    /// Read whole into one buffer, then decoded from it.
    #[default]
    Whole,
    /// Decoded from the body as the client received it, never held whole.
    Streamed,
}

impl Decode {
    pub fn is_whole(&self) -> bool {
        *self == Decode::Whole
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Decode::Whole => "whole",
            Decode::Streamed => "streamed",
        }
    }
}

/// One client's figures. Times in microseconds; `None` (JSON null) where a figure cannot be
/// computed: Error and StdDev need two samples, Ratio needs hyper in the run, connection counts
/// need the mock's admin endpoint, and every time needs at least one successful call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatencyRow {
    pub client: ClientName,
    /// What the calls went over.
    #[serde(default)]
    pub protocol: Protocol,
    /// The answer's size in bytes, when it was not the ordinary one (about 120 bytes for the
    /// two pairs): mock-rates' `/size/N`, the same pairs with a history of points.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_bytes: Option<u64>,
    /// How the client decoded a larger answer: whole (absent in results.json), or streamed.
    #[serde(default, skip_serializing_if = "Decode::is_whole")]
    pub decode: Decode,
    /// For `https`: what mock-rates counted of the TLS the client negotiated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<NegotiatedTls>,
    /// Timed calls (warm-up excluded), failed ones included.
    pub calls: u64,
    /// Calls that returned an error or lacked a pair; never timed.
    pub failures: u64,
    /// Mean of the sample means.
    pub mean_us: Option<f64>,
    /// Half-width of the 99.9% confidence interval of `mean_us`.
    pub error_us: Option<f64>,
    /// Standard deviation of the sample means.
    pub stddev_us: Option<f64>,
    /// Median of every successful call.
    pub median_us: Option<f64>,
    /// 99th percentile (nearest rank) of every successful call.
    pub p99_us: Option<f64>,
    /// Mean of the per-sample ratios to hyper's sample of the same index.
    pub ratio: Option<f64>,
    pub ratio_sd: Option<f64>,
    /// Rust heap allocations per call, on all threads, during the samples.
    pub allocs_per_op: f64,
    /// Rust heap bytes allocated per call.
    pub bytes_per_op: f64,
    /// TCP connections the mock accepted during this client's warm-up and samples.
    pub connections_opened: Option<u64>,
    /// Each sample's mean in sample order (null for a sample without a successful call): the
    /// raw observations behind Mean, Error and Ratio.
    pub sample_means_us: Vec<Option<f64>>,
    /// The first failure's message, when there was one.
    /// Evidence, quoted as the library gave it, not a reason the bench wrote (those are
    /// values: [`crate::reasons`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
    /// The noise checks of the sample means (times in us); absent from older results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<Noise>,
    /// The same client called bare, sample for sample; absent from older results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bare: Option<BareFigures>,
    /// The mean per call of each round: the suite's samples are taken in rounds spread over
    /// the suite (every protocol's round 1, then every protocol's round 2, ...), and what the
    /// figure moved between rounds is its noise in the verdict.
    #[serde(default)]
    pub round_means_us: Vec<f64>,
    /// Rust heap allocations per call, round by round.
    #[serde(default)]
    pub round_allocs_per_op: Vec<f64>,
    /// mock-rates' own CPU time per call during this client's calls (its threads, read from
    /// /proc): the part of the call's time that is the upstream's, on a pinned CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mock_cpu_us: Option<f64>,
    /// With a larger answer: the most Rust heap a sample's calls held at once beyond what was
    /// live before it (bytes), the median over the samples; one call at a time, so the peak of
    /// a call. `None` for the ordinary answer, and for rows of earlier runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_bytes: Option<f64>,
    /// Why the row could not be checked (over TLS: what mock-rates counted did not show the
    /// TLS or HTTP version the row claims): its figures are no figures, and the verdict does
    /// not rank it.
    #[serde(
        default,
        deserialize_with = "crate::reasons::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub unchecked: Option<Unchecked>,
    /// What of the row was not measured, and why: against a server the bench did not start
    /// (`--upstream-url`), what only mock-rates counts (the TLS and HTTP versions it
    /// negotiated, handshakes, connections, its CPU), and what was checked on the client's
    /// side instead. Those figures are absent, not replaced; the row's own are figures.
    #[serde(
        default,
        deserialize_with = "crate::reasons::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub not_measured: Option<NotCounted>,
}

/// The instrument's own cost: mock-rates called by a minimal client of the bench's (a
/// request written by hand on a socket, or the h2 crate alone), the same decode, over one
/// protocol, sample beside sample with the clients. What a client's row takes beyond this is
/// the client's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CalibrationRow {
    pub protocol: Protocol,
    pub calls: u64,
    pub failures: u64,
    pub mean_us: Option<f64>,
    /// Half-width of the 99.9% confidence interval of `mean_us`.
    pub error_us: Option<f64>,
    pub round_means_us: Vec<f64>,
    /// mock-rates' own CPU time per call, from /proc (its threads).
    pub mock_cpu_us: Option<f64>,
    /// The first failed call's error as the library (or the server) gave it: evidence, quoted
    /// as it came, not a reason the bench wrote (those are values: [`crate::reasons`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
}

/// A client called bare: the library's own request for the same URL and the same decode, on
/// the client its adapter built, without the port or the adapter's frame (and for ureq without
/// the hop to the blocking pool). Each of its samples was taken beside the same index's sample
/// through the port.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BareFigures {
    pub calls: u64,
    pub failures: u64,
    pub mean_us: Option<f64>,
    /// Half-width of the 99.9% confidence interval of `mean_us`.
    pub error_us: Option<f64>,
    /// Mean of the per-sample ratios of the call through the port to the bare call of the same
    /// sample: what the port and the adapter cost, as a factor.
    pub overhead: Option<f64>,
    pub overhead_sd: Option<f64>,
    pub allocs_per_op: f64,
    pub bytes_per_op: f64,
    /// TCP connections the mock accepted from the bare calls' own client.
    pub connections_opened: Option<u64>,
    pub sample_means_us: Vec<Option<f64>>,
    /// The first failed call's error as the library (or the server) gave it: evidence, quoted
    /// as it came, not a reason the bench wrote (those are values: [`crate::reasons`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
}

/// The TLS a client negotiated with mock-rates during its warm-up and samples, as the server
/// counted it (not as the client claims).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NegotiatedTls {
    /// The client's TLS library ("rustls", "native-tls", "openssl", "libcurl"), as its adapter
    /// states it; empty in results written before it was recorded.
    #[serde(default)]
    pub backend: String,
    /// The crypto under it ("aws-lc-rs", "ring", "OpenSSL (system)").
    #[serde(default)]
    pub provider: String,
    /// "TLSv1.3", "TLSv1.2", or both when the client used both: what mock-rates counted.
    pub version: String,
    /// Handshakes, full or resumed: one per connection.
    pub handshakes: u64,
    /// "HTTP/2" or "HTTP/1.1": what every one of those connections spoke, by mock-rates'
    /// count of its HTTP/2 connections; empty in results written before it was recorded.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub http_version: String,
}

impl NegotiatedTls {
    /// `rustls (aws-lc-rs) TLSv1.3, HTTP/2`: the backend, its crypto, and the TLS and HTTP
    /// versions counted.
    pub fn describe(&self) -> String {
        let mut text = if self.backend.is_empty() {
            self.version.clone()
        } else {
            format!("{} ({}) {}", self.backend, self.provider, self.version)
        };
        if !self.http_version.is_empty() {
            text.push_str(", ");
            text.push_str(&self.http_version);
        }
        text
    }
}

/// `16 KiB`, `1 MiB`, or bytes when not a whole number of either.
pub fn size_name(bytes: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} B")
    }
}
