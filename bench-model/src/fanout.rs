//! The fanout suite's settings, modes and rows.

use serde::{Deserialize, Serialize};

use crate::{ClientName, NegotiatedTls, Protocol, Unchecked};

/// The fanout choices of one run, as recorded in results.json (`settings.fanout`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FanoutSettings {
    /// Latency mock-rates added to every upstream call.
    pub upstream_latency_ms: u64,
    /// Extra latency per call, uniform in 0..=jitter.
    pub upstream_jitter_ms: u64,
    /// Group sizes, ascending, each once.
    pub group_sizes: Vec<u32>,
    /// Times each concurrent group was sent.
    pub repetitions: u32,
    /// Times each sequential group was sent.
    pub sequential_repetitions: u32,
    /// The sizes sent in sequence; `None`: every group size (the runs before 2026-12-07).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequential_group_sizes: Option<Vec<u32>>,
    /// Over h2, the concurrent groups are sent again through a mock-rates whose HTTP/2
    /// connections allow this many streams at once; `None`: not sent (or a run from before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub h2_stream_limit: Option<u32>,
}

impl FanoutSettings {
    /// Times each group of `mode` is sent.
    pub fn repetitions_of(&self, mode: FanoutMode) -> u32 {
        match mode {
            FanoutMode::Sequential => self.sequential_repetitions,
            FanoutMode::Concurrent => self.repetitions,
        }
    }

    /// The group sizes sent in `mode`: every size concurrently; in sequence those recorded,
    /// else every size.
    pub fn sizes_of(&self, mode: FanoutMode) -> Vec<u32> {
        match (mode, &self.sequential_group_sizes) {
            (FanoutMode::Sequential, Some(sizes)) => sizes.clone(),
            _ => self.group_sizes.clone(),
        }
    }
}

/// How the api runs the payments of a batch (the batch endpoint's `mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FanoutMode {
    /// One after another, each awaited before the next.
    Sequential,
    /// All at once (no concurrency limit in the request).
    Concurrent,
}

impl FanoutMode {
    /// The table order: the reference's sequential column first.
    pub const ALL: [FanoutMode; 2] = [FanoutMode::Sequential, FanoutMode::Concurrent];

    pub fn as_str(self) -> &'static str {
        match self {
            FanoutMode::Sequential => "sequential",
            FanoutMode::Concurrent => "concurrent",
        }
    }
}

/// One client, mode and group size. Times in milliseconds; medians are over the batches in
/// which every payment succeeded (null when none did).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FanoutRow {
    pub client: ClientName,
    /// What the service's client spoke to mock-rates.
    #[serde(default)]
    pub protocol: Protocol,
    /// Over h2, the mock's stream limit (SETTINGS_MAX_CONCURRENT_STREAMS) when it sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_limit: Option<u32>,
    /// Over `https`: the TLS mock-rates counted for this client, from its warm-up group on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<NegotiatedTls>,
    pub mode: FanoutMode,
    pub group_size: u32,
    /// Batches sent (timed), whatever their outcome.
    pub repetitions: u32,
    /// Median of the api's `wall_time_ms`: first upstream call started to last one finished.
    pub wall_ms_median: Option<f64>,
    /// Median of the bench's time around the HTTP exchange with the api (request sent to
    /// response body read).
    pub request_ms_median: Option<f64>,
    /// What the group would take with no overhead: N upstream latencies in sequence, or one
    /// (the slowest of N draws, with jitter) when they all overlap.
    pub ideal_ms: f64,
    /// `ideal_ms / wall_ms_median`: 1 is perfect; for concurrent groups its inverse is the
    /// wall time in upstream latencies.
    pub efficiency: Option<f64>,
    /// Payments that failed, over every repetition (a batch that failed as a whole counts all
    /// its payments).
    pub failures: u64,
    /// `/api/live` requests mock-rates received during these batches: one per payment.
    pub upstream_calls: Option<u64>,
    /// TCP connections mock-rates accepted during these batches.
    pub connections_opened: Option<u64>,
    /// Over h2: how the calls spread over HTTP/2 connections and streams, as mock-rates
    /// counted them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub h2: Option<H2Spread>,
    /// The TCP connections the client's un-timed warm-up group opened (the largest size, all
    /// at once, from a pool idle for longer than its idle timeout): what a cold burst opens.
    /// The same on every row of the client's series.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_up_connections: Option<u64>,
    /// The api's `rates.max_connections` for this client (per worker), from `GET /clients`.
    pub max_connections: Option<u64>,
    /// The api's `rates.blocking_threads` for a blocking client (ureq), from `GET /clients`.
    pub blocking_threads: Option<u64>,
    /// Why the row could not be checked (over TLS: what mock-rates counted did not show the
    /// TLS or HTTP version the row claims); not ranked then.
    #[serde(
        default,
        deserialize_with = "crate::reasons::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub unchecked: Option<Unchecked>,
    /// Each fully successful batch's `wall_time_ms`, in the order sent.
    pub wall_ms: Vec<f64>,
    /// Each fully successful batch's request time, in the order sent.
    pub request_ms: Vec<f64>,
    /// The first failed call's error as the library (or the server) gave it: evidence, quoted
    /// as it came, not a reason the bench wrote (those are values: [`crate::reasons`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
}

/// How a row's calls over h2 spread over connections and streams, as mock-rates counted them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct H2Spread {
    /// HTTP/2 streams during the row's batches: one per call.
    pub streams: u64,
    /// The most HTTP/2 connections with a stream open at once during a batch, the most of
    /// any batch (mock-rates' peak, reset before each batch).
    pub peak_connections: u64,
    /// The most streams open at once on one connection during a batch, likewise.
    pub peak_streams: u64,
}

/// A client over a protocol (and over h2, a stream limit or none): a column of the fanout
/// tables, a line of its charts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FanoutSeries {
    pub client: ClientName,
    pub protocol: Protocol,
    pub stream_limit: Option<u32>,
}

impl FanoutSeries {
    /// `hyper` over http, `hyper over https` over https, `hyper over h2 (10 streams)` against
    /// a mock with a stream limit.
    pub fn label(self) -> String {
        let label = self.protocol.qualify(self.client);
        match self.stream_limit {
            Some(limit) => format!("{label} ({limit} streams)"),
            None => label,
        }
    }
}

impl FanoutRow {
    pub fn series(&self) -> FanoutSeries {
        FanoutSeries {
            client: self.client,
            protocol: self.protocol,
            stream_limit: self.stream_limit,
        }
    }

    /// Most upstream calls of this client that can overlap on one api worker.
    pub fn overlap_cap(&self) -> Option<u64> {
        match (self.max_connections, self.blocking_threads) {
            (Some(connections), Some(threads)) => Some(connections.min(threads)),
            (connections, threads) => connections.or(threads),
        }
    }

    /// Whether the group is larger than the client's overlap cap, so that its calls need more
    /// than one round of upstream latencies.
    pub fn over_cap(&self) -> bool {
        self.mode == FanoutMode::Concurrent
            && self
                .overlap_cap()
                .is_some_and(|cap| u64::from(self.group_size) > cap)
    }
}

/// The group sizes present in `rows`, ascending, each once.
pub fn group_sizes(rows: &[FanoutRow]) -> Vec<u32> {
    let mut sizes: Vec<u32> = rows.iter().map(|row| row.group_size).collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(max_connections: Option<u64>, blocking_threads: Option<u64>) -> FanoutRow {
        FanoutRow {
            client: ClientName::Ureq,
            protocol: Protocol::Http,
            stream_limit: None,
            tls: None,
            mode: FanoutMode::Concurrent,
            group_size: 70,
            repetitions: 1,
            wall_ms_median: None,
            request_ms_median: None,
            ideal_ms: 50.0,
            efficiency: None,
            failures: 0,
            upstream_calls: None,
            connections_opened: None,
            h2: None,
            warm_up_connections: None,
            max_connections,
            blocking_threads,
            wall_ms: Vec::new(),
            request_ms: Vec::new(),
            first_error: None,
            unchecked: None,
        }
    }

    #[test]
    fn overlap_cap_is_the_smaller_of_both_settings() {
        assert_eq!(row(Some(100), Some(64)).overlap_cap(), Some(64));
        assert!(row(Some(100), Some(64)).over_cap());
        assert_eq!(row(Some(100), None).overlap_cap(), Some(100));
        assert!(!row(Some(100), None).over_cap());
        assert_eq!(row(None, None).overlap_cap(), None);
    }
}
