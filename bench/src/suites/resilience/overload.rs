//! Overload: an open model at half the client's measured capacity, then at twice it (by
//! default), then at half again, with `GET /health/live` sent alongside at a low rate. A
//! service that sheds answers the excess with fast 503s and keeps its health check answering;
//! one that queues lets latency grow into the generator's timeout. Every request is counted by
//! how it ended; those the generator could not send (too many in flight) are counted apart.

use std::sync::Arc;

use crate::error::BenchError;
use crate::suites::load::http::{LoadClient, ReadyScenario};
use crate::suites::load::open;
use crate::suites::load::schedule::{Phases, Schedule, Timetable as _};
use crate::suites::load::timeline::{Timeline, counts};
use crate::suites::resilience::servers::ClientOverProtocol;
use crate::suites::resilience::timeline::recovered_after;
use bench_model::{OverloadRow, ResilienceSettings, millis};

/// A rate of `percent` % of `capacity_rps`, at least 1.
pub fn share_of(capacity_rps: f64, percent: u32) -> u32 {
    (capacity_rps * f64::from(percent) / 100.0).round().max(1.0) as u32
}

pub fn run(
    runtime: &tokio::runtime::Runtime,
    client: &Arc<LoadClient>,
    who: ClientOverProtocol,
    target: &Arc<ReadyScenario>,
    health: &Arc<ReadyScenario>,
    sizes: &ResilienceSettings,
    capacity_rps: f64,
) -> Result<OverloadRow, BenchError> {
    let normal_rps = share_of(capacity_rps, 50);
    let overload_rps = share_of(capacity_rps, sizes.overload_percent);
    let phases = Phases([
        Schedule::new(normal_rps, millis(sizes.overload_before_ms)),
        Schedule::new(overload_rps, millis(sizes.overload_ms)),
        Schedule::new(normal_rps, millis(sizes.overload_after_ms)),
    ]);
    let health_schedule = Schedule::new(sizes.health_rps, phases.span());
    let expected = usize::try_from(phases.count()).unwrap_or(0);
    let (payments, checks) = std::thread::scope(|scope| {
        let checks = scope.spawn(|| {
            open::run_into(runtime, client, health, health_schedule, |start| {
                Timeline::new(start, 0)
            })
        });
        let payments = open::run_into(runtime, client, target, phases, move |start| {
            Timeline::new(start, expected)
        });
        let checks = checks
            .join()
            .map_err(|_| BenchError::Resilience("the health-check thread panicked".to_owned()));
        (payments, checks)
    });
    let (payments, skipped) = payments?;
    let (checks, _) = checks??;
    let (overload_from, overload_to) = (phases.start_of(1), phases.start_of(2));
    let before = counts(payments.due_in(std::time::Duration::ZERO, overload_from));
    // The health checks due during the overload, on their own run's clock.
    let health_from = (payments.start + overload_from).saturating_duration_since(checks.start);
    let health_to = (payments.start + overload_to).saturating_duration_since(checks.start);
    let recovered = before
        .ok_p99_ms
        .and_then(|normal| recovered_after(&payments, overload_to, phases.span(), normal));
    Ok(OverloadRow {
        client: who.client,
        protocol: who.protocol,
        capacity_rps,
        normal_rps,
        overload_rps,
        before,
        overload: counts(payments.due_in(overload_from, overload_to)),
        after: counts(payments.due_in(overload_to, phases.span())),
        skipped,
        scheduled: phases.count(),
        health: counts(checks.due_in(health_from, health_to)),
        recovered_after_ms: recovered,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_of_the_capacity() {
        assert_eq!(share_of(1_000.0, 50), 500);
        assert_eq!(share_of(1_001.0, 200), 2_002);
        assert_eq!(share_of(0.0, 200), 1);
    }
}
