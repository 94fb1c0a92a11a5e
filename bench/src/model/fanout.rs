//! The fanout suite's settings, modes and rows.

use serde::{Deserialize, Serialize};

use crate::model::{ClientName, NegotiatedTls, Protocol};

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
}

impl FanoutSettings {
    /// Times each group of `mode` is sent.
    pub fn repetitions_of(&self, mode: FanoutMode) -> u32 {
        match mode {
            FanoutMode::Sequential => self.sequential_repetitions,
            FanoutMode::Concurrent => self.repetitions,
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
    /// The api's `rates.max_connections` for this client (per worker), from `GET /clients`.
    pub max_connections: Option<u64>,
    /// The api's `rates.blocking_threads` for a blocking client (ureq), from `GET /clients`.
    pub blocking_threads: Option<u64>,
    /// Each fully successful batch's `wall_time_ms`, in the order sent.
    pub wall_ms: Vec<f64>,
    /// Each fully successful batch's request time, in the order sent.
    pub request_ms: Vec<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
}

/// A client over a protocol: a column of the fanout tables, a line of its charts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FanoutSeries {
    pub client: ClientName,
    pub protocol: Protocol,
}

impl FanoutSeries {
    /// `hyper` over http, `hyper over https` over https.
    pub fn label(self) -> String {
        self.protocol.qualify(self.client)
    }
}

impl FanoutRow {
    pub fn series(&self) -> FanoutSeries {
        FanoutSeries {
            client: self.client,
            protocol: self.protocol,
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
            max_connections,
            blocking_threads,
            wall_ms: Vec::new(),
            request_ms: Vec::new(),
            first_error: None,
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
