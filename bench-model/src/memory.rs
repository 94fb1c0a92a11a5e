//! The memory suite's rows: what a client costs its process in memory, built, with one pooled
//! connection, and with its pool warm after a burst of concurrent calls, measured in a process
//! of its own per client and round.

use serde::{Deserialize, Serialize};

use crate::stats::quantile::median_of;
use crate::{ClientName, Protocol, RoundFailed};

/// The suite's sizes, as recorded in results.json.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemorySettings {
    /// Concurrent calls of the burst that warms the pool (as many connections over HTTP/1.1
    /// as the library opens for them; one over h2).
    pub burst: u32,
    /// Processes per client and protocol, interleaved: every client's first, then every
    /// client's second, ...
    pub rounds: u32,
    /// How long the process waits after the last answer before it reads its memory, so that
    /// work a call left behind (a connection handed back to its pool) is done (ms).
    pub settle_ms: u64,
}

impl Default for MemorySettings {
    fn default() -> Self {
        Self {
            burst: 8,
            rounds: 3,
            settle_ms: 200,
        }
    }
}

/// What one process read of its own memory at one point.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryPoint {
    /// Anonymous resident memory (`RssAnon`): heap, thread stacks and every other page the
    /// process wrote, as a container's memory limit counts it (KiB).
    pub rss_anon_kib: u64,
    /// Bytes the C allocator has handed out and not had back (`mallinfo2`'s `uordblks +
    /// hblkhd`): the Rust heap and libcurl's alike.
    pub heap_bytes: u64,
    /// The process's threads.
    pub threads: u64,
    /// Its TCP connections to the upstream, established (read from /proc/net).
    pub connections: u64,
}

/// One process: its memory before the client was built, once built, after one call (one
/// pooled connection), and after the burst (the pool warm).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryRound {
    pub before: MemoryPoint,
    pub built: MemoryPoint,
    pub one_call: MemoryPoint,
    pub warm: MemoryPoint,
}

impl MemoryRound {
    /// What the client holds with its pool warm, beyond the process before it was built (KiB
    /// of anonymous resident memory).
    pub fn held_kib(&self) -> f64 {
        grown(self.warm.rss_anon_kib, self.before.rss_anon_kib)
    }

    /// Heap the client holds with its pool warm, beyond the process before it was built.
    pub fn held_heap_bytes(&self) -> f64 {
        grown(self.warm.heap_bytes, self.before.heap_bytes)
    }

    /// Heap the built client holds before any call.
    pub fn built_heap_bytes(&self) -> f64 {
        grown(self.built.heap_bytes, self.before.heap_bytes)
    }

    /// Heap the client holds with one pooled connection.
    pub fn one_call_heap_bytes(&self) -> f64 {
        grown(self.one_call.heap_bytes, self.before.heap_bytes)
    }

    /// Heap per pooled connection the burst added: `None` when it added none (h2, or a pool
    /// that keeps one connection).
    pub fn heap_per_connection(&self) -> Option<f64> {
        let added = self
            .warm
            .connections
            .checked_sub(self.one_call.connections)?;
        (added > 0)
            .then(|| (self.warm.heap_bytes as f64 - self.one_call.heap_bytes as f64) / added as f64)
    }

    /// Threads the client started and still has with its pool warm.
    pub fn threads_started(&self) -> f64 {
        grown(self.warm.threads, self.before.threads)
    }
}

/// How far a reading moved from `before` to `after` (negative when it fell).
fn grown(after: u64, before: u64) -> f64 {
    after as f64 - before as f64
}

/// One client over one protocol.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryRow {
    pub client: ClientName,
    pub protocol: Protocol,
    /// Every process's readings, in the order they ran.
    pub rounds: Vec<MemoryRound>,
    /// Why a round gave no reading (a call failed, the process did not report), when one did
    /// not: the row then holds the rounds that did.
    #[serde(
        default,
        deserialize_with = "crate::reasons::list",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub failed: Vec<RoundFailed>,
}

impl MemoryRow {
    /// The median of `figure` over the rounds; `None` without rounds.
    pub fn median(&self, figure: impl Fn(&MemoryRound) -> f64) -> Option<f64> {
        let values: Vec<f64> = self.rounds.iter().map(figure).collect();
        median_of(&values)
    }

    /// Memory held with the pool warm, per round (KiB of anonymous resident memory).
    pub fn held_kib_rounds(&self) -> Vec<f64> {
        self.rounds.iter().map(MemoryRound::held_kib).collect()
    }

    /// Heap per pooled connection, the median over the rounds that opened more than one.
    pub fn heap_per_connection(&self) -> Option<f64> {
        let values: Vec<f64> = self
            .rounds
            .iter()
            .filter_map(MemoryRound::heap_per_connection)
            .collect();
        median_of(&values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(rss_anon_kib: u64, heap_bytes: u64, threads: u64, connections: u64) -> MemoryPoint {
        MemoryPoint {
            rss_anon_kib,
            heap_bytes,
            threads,
            connections,
        }
    }

    #[test]
    #[allow(clippy::float_cmp)] // whole numbers, exact in f64
    fn what_a_round_holds_is_measured_from_before_the_client_was_built() {
        let round = MemoryRound {
            before: point(1_000, 50_000, 3, 0),
            built: point(1_100, 80_000, 4, 0),
            one_call: point(1_200, 120_000, 4, 1),
            warm: point(1_500, 190_000, 5, 8),
        };
        let figures = [
            round.held_kib(),
            round.held_heap_bytes(),
            round.built_heap_bytes(),
            round.one_call_heap_bytes(),
            round.threads_started(),
        ];
        assert_eq!(figures, [500.0, 140_000.0, 30_000.0, 70_000.0, 2.0]);
        assert_eq!(round.heap_per_connection(), Some(10_000.0));
    }

    #[test]
    fn a_burst_that_added_no_connection_has_no_figure_per_connection() {
        let round = MemoryRound {
            one_call: point(0, 100, 1, 1),
            warm: point(0, 900, 1, 1),
            ..MemoryRound::default()
        };
        assert_eq!(round.heap_per_connection(), None);
    }

    #[test]
    fn the_row_takes_the_median_round() {
        let held = |kib| MemoryRound {
            warm: point(kib, 0, 0, 0),
            ..MemoryRound::default()
        };
        let row = MemoryRow {
            client: ClientName::Hyper,
            protocol: Protocol::Http,
            rounds: vec![held(300), held(100), held(200)],
            failed: Vec::new(),
        };
        assert_eq!(row.median(MemoryRound::held_kib), Some(200.0));
        assert_eq!(row.held_kib_rounds(), [300.0, 100.0, 200.0]);
        assert_eq!(row.heap_per_connection(), None);
    }
}
