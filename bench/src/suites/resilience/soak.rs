//! Soak: a steady share of the client's capacity for minutes (full size), the service's
//! resident memory and open descriptors read from /proc all along; growth is counted from the
//! end of a warm-up, when pools and caches have filled.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::error::BenchError;
use crate::measure::process::{Status, read_fds};
use crate::suites::load::http::{LoadClient, ReadyScenario};
use crate::suites::load::open;
use crate::suites::load::schedule::Schedule;
use crate::suites::load::timeline::{Timeline, counts};
use crate::suites::resilience::capacity;
use crate::suites::resilience::overload::share_of;
use crate::suites::resilience::servers::ClientOverProtocol;
use bench_model::{Refuted, ResilienceSettings, SoakRow, SoakSample, millis};

fn sample(pid: u32, at: Duration) -> Option<SoakSample> {
    let status = Status::read(pid).ok()?;
    Some(SoakSample {
        at_ms: u64::try_from(at.as_millis()).unwrap_or(u64::MAX),
        rss_kib: status.rss_kib?,
        fds: read_fds(pid)?.open,
    })
}

pub fn run(
    runtime: &tokio::runtime::Runtime,
    client: &Arc<LoadClient>,
    who: ClientOverProtocol,
    target: &Arc<ReadyScenario>,
    sizes: &ResilienceSettings,
    capacity_rps: f64,
    pid: u32,
) -> Result<SoakRow, BenchError> {
    let schedule = Schedule::new(
        share_of(capacity_rps, sizes.soak_percent),
        millis(sizes.soak_ms),
    );
    let expected = usize::try_from(schedule.count()).unwrap_or(0);
    let every = millis(sizes.soak_sample_ms.max(1));
    let done = AtomicBool::new(false);
    let (run, samples) = std::thread::scope(|scope| {
        let sampler = scope.spawn(|| {
            let started = Instant::now();
            let mut samples = Vec::new();
            while !done.load(Ordering::Relaxed) {
                samples.extend(sample(pid, started.elapsed()));
                std::thread::sleep(every);
            }
            samples.extend(sample(pid, started.elapsed()));
            samples
        });
        let run = open::run_into(runtime, client, target, schedule, move |start| {
            Timeline::new(start, expected)
        });
        done.store(true, Ordering::Relaxed);
        (run, sampler.join().unwrap_or_default())
    });
    let (timeline, _) = run?;
    Ok(soak_row(
        who,
        schedule,
        sizes.soak_warmup_ms,
        counts(&timeline.records),
        samples,
    ))
}

fn soak_row(
    who: ClientOverProtocol,
    schedule: Schedule,
    warmup_ms: u64,
    requests: bench_model::PhaseCounts,
    samples: Vec<SoakSample>,
) -> SoakRow {
    let after_warmup = samples.iter().find(|sample| sample.at_ms >= warmup_ms);
    let end = samples.last().filter(|end| end.at_ms >= warmup_ms);
    SoakRow {
        client: who.client,
        protocol: who.protocol,
        rps: schedule.rate(),
        duration_ms: u64::try_from(schedule.span().as_millis()).unwrap_or(u64::MAX),
        requests,
        rss_after_warmup_kib: after_warmup.map(|sample| sample.rss_kib),
        rss_end_kib: end.map(|sample| sample.rss_kib),
        fds_after_warmup: after_warmup.map(|sample| sample.fds),
        fds_end: end.map(|sample| sample.fds),
        samples,
    }
}

/// Why a soak at `percent` % of the capacity refutes it: a failure, a request never sent, or
/// a p99 past the capacity's objective; `None` when the soak held.
pub fn refuted_by(soak: &SoakRow, percent: u32) -> Option<Refuted> {
    let requests = &soak.requests;
    let objective_ms = capacity::LATENCY_OBJECTIVE.as_secs_f64() * 1_000.0;
    let scheduled = Schedule::new(soak.rps, millis(soak.duration_ms)).count();
    let failed = requests.sent - requests.ok;
    let unsent = scheduled.saturating_sub(requests.sent);
    let p99 = requests.ok_p99_ms;
    if failed == 0 && unsent == 0 && p99.is_some_and(|p99| p99 <= objective_ms) {
        return None;
    }
    Some(Refuted::Soak {
        percent,
        rps: soak.rps,
        failed,
        unsent,
        scheduled,
        p99_ms: p99,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::{ClientName, PhaseCounts, Protocol};

    const HYPER: ClientOverProtocol = ClientOverProtocol {
        client: ClientName::BASELINE,
        protocol: Protocol::Https,
    };

    fn at(at_ms: u64, rss_kib: u64, fds: u64) -> SoakSample {
        SoakSample {
            at_ms,
            rss_kib,
            fds,
        }
    }

    #[test]
    fn growth_is_counted_from_the_first_reading_after_the_warm_up() {
        let samples = vec![
            at(0, 10_000, 20),
            at(500, 18_000, 31),
            at(1_000, 20_000, 32),
            at(1_500, 20_400, 32),
            at(2_000, 20_200, 33),
        ];
        let row = soak_row(
            HYPER,
            Schedule::new(100, Duration::from_secs(2)),
            1_000,
            PhaseCounts::default(),
            samples,
        );
        assert_eq!(
            (row.rss_after_warmup_kib, row.rss_end_kib),
            (Some(20_000), Some(20_200))
        );
        assert_eq!(row.rss_growth_percent(), Some(1.0));
        assert_eq!(row.fd_growth(), Some(1));
        assert_eq!(row.duration_ms, 2_000);
        assert_eq!(row.label(), "hyper over https");
        // Without a reading after the warm-up there is no growth to tell.
        let early = soak_row(
            HYPER,
            Schedule::new(100, Duration::from_secs(2)),
            5_000,
            PhaseCounts::default(),
            vec![at(0, 10_000, 20)],
        );
        assert_eq!(early.rss_growth_percent(), None);
    }
}
