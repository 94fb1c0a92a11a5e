//! The capacity step: a closed model at rising concurrency. `c` workers each send a request,
//! await and check its response, and send the next at once, for a fixed time; the throughput
//! is what the service sustained with `c` requests always in flight. Per scenario the step
//! reports the best level without a single failure.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::runtime::Runtime;

use crate::error::BenchError;
use crate::model::{CapacityLevel, CapacityRow, Protocol, Scenario};
use crate::suites::load::connection::Dedicated;
use crate::suites::load::http::Target;
use crate::suites::load::schedule::achieved_rps;
use crate::suites::load::tally::{RequestRecord, Tally};

/// Runs `concurrency` workers against `target` for `duration`, each on a connection of its own
/// (see [`crate::suites::load::connection`]); requests still in flight at the end are awaited
/// (each is bounded by [`crate::suites::load::http::REQUEST_TIMEOUT`]) and counted.
pub fn run_level(
    runtime: &Runtime,
    target: &Arc<Target>,
    concurrency: u32,
    duration: Duration,
) -> Result<CapacityLevel, BenchError> {
    let start = Instant::now();
    let deadline = start + duration;
    // One counter for all workers, so the payment mix stays round-robin overall.
    let next_index = Arc::new(AtomicU64::new(0));
    // Each worker tallies its own requests, merged at the end: a record sent to a collector
    // would cost a wake-up per request.
    let expected_per_worker = (1 << 16) / concurrency.max(1) as usize;
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let (target, next_index) = (Arc::clone(target), Arc::clone(&next_index));
            runtime.spawn(async move {
                let mut tally = Tally::new(start, expected_per_worker);
                let mut connection = Dedicated::default();
                while Instant::now() < deadline {
                    let index = next_index.fetch_add(1, Ordering::Relaxed);
                    let sent = Instant::now();
                    let exchange = connection.exchange(&target, index).await;
                    tally.add(RequestRecord {
                        due: sent,
                        sent,
                        done: Instant::now(),
                        exchange,
                    });
                }
                (tally, connection.opened)
            })
        })
        .collect();
    let mut tally = Tally::new(start, 0);
    let mut connections = 0;
    for worker in workers {
        let (worker_tally, opened) = runtime
            .block_on(worker)
            .map_err(|error| BenchError::Load(format!("a capacity worker failed: {error}")))?;
        tally.merge(worker_tally);
        connections += opened;
    }
    let summary = tally.latencies.summary();
    Ok(CapacityLevel {
        concurrency,
        ok: tally.ok,
        fail: tally.failures.total(),
        failures: tally.failures,
        rps: achieved_rps(tally.ok, duration, tally.last_done),
        p50_us: summary.p50_us,
        p99_us: summary.p99_us,
        connections,
        first_error: tally.first_error,
    })
}

/// A scenario's step: its levels, and the best of them.
pub fn capacity_row(
    scenario: Scenario,
    protocol: Protocol,
    levels: Vec<CapacityLevel>,
) -> CapacityRow {
    let best = best_level(&levels);
    CapacityRow {
        scenario,
        protocol,
        max_rps: best.map(|level| level.rps),
        at_concurrency: best.map(|level| level.concurrency),
        p99_us: best.and_then(|level| level.p99_us),
        levels,
    }
}

/// The level with the highest throughput and no failure; the first of equals.
pub fn best_level(levels: &[CapacityLevel]) -> Option<&CapacityLevel> {
    levels
        .iter()
        .filter(|level| level.fail == 0 && level.ok > 0)
        .fold(None, |best: Option<&CapacityLevel>, level| match best {
            Some(best) if best.rps >= level.rps => Some(best),
            _ => Some(level),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::FailureCounts;

    fn level(concurrency: u32, rps: f64, fail: u64) -> CapacityLevel {
        CapacityLevel {
            concurrency,
            ok: 100,
            fail,
            failures: FailureCounts::default(),
            rps,
            p50_us: Some(100.0),
            p99_us: Some(f64::from(concurrency) * 10.0),
            connections: u64::from(concurrency),
            first_error: None,
        }
    }

    #[test]
    fn the_best_level_has_the_highest_rate_and_no_failure() {
        let levels = [
            level(1, 5_000.0, 0),
            level(4, 12_000.0, 0),
            level(16, 15_000.0, 3),
            level(64, 11_000.0, 0),
        ];
        let best = best_level(&levels).unwrap();
        assert_eq!((best.concurrency, best.p99_us), (4, Some(40.0)));
        // Equal rates: the lower concurrency wins.
        let tied = [level(4, 9_000.0, 0), level(16, 9_000.0, 0)];
        assert_eq!(best_level(&tied).unwrap().concurrency, 4);
        assert!(best_level(&[level(1, 5_000.0, 1)]).is_none());
        assert!(best_level(&[]).is_none());
    }
}
