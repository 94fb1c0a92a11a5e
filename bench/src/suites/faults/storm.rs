//! The fault storm around the descriptor check: payments from every client at once under
//! rotating faults, the idle spell after it, and the clean payments that make the pools look
//! at what they hold.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::ProgressBar;

use crate::clients::FaultsGuard;
use crate::error::BenchError;
use crate::measure::process::{FdReading, read_fds};
use crate::suites::faults::driver::{self, Driver, Payment};
use crate::suites::faults::settings::mock_faults;
use bench_model::{ClientName, FaultCase, PaymentOutcome, REUSE_PAYMENTS, StaleConnections};

/// Storm payments in flight at once per client; more are queued behind them.
const STORM_CONCURRENCY: u32 = 25;
/// How often the descriptor count is read while idle.
const IDLE_POLL: Duration = Duration::from_millis(250);

/// Runs `pay` for every client at the same time, one thread each; answers in client order.
pub fn at_once(
    clients: &[(ClientName, u64)],
    pay: impl Fn(ClientName) -> Payment + Sync,
    bar: &ProgressBar,
) -> Vec<Payment> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = clients
            .iter()
            .map(|&(name, _)| {
                let pay = &pay;
                scope.spawn(move || {
                    let answer = pay(name);
                    bar.inc(1);
                    answer
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// The storm's tally.
#[derive(Debug, Default)]
pub struct StormTally {
    pub requests: u64,
    pub unexpected: u64,
    pub hung: u64,
}

/// `per_client` payments from every client, spread over the faults in turn (one round per
/// fault, a round's payments all in flight at once, up to [`STORM_CONCURRENCY`] per client).
/// The clean round, if any, comes last: it leaves the api's pools full of idle connections,
/// which the idle spell after the storm must see closed.
pub fn storm(
    driver: &Driver,
    faults: &FaultsGuard<'_>,
    clients: &[(ClientName, u64)],
    cases: &[FaultCase],
    per_client: u32,
    timeout_ms: u64,
    bar: &ProgressBar,
) -> Result<StormTally, BenchError> {
    let rounds = u32::try_from(cases.len()).unwrap_or(u32::MAX).max(1);
    let requests = AtomicU64::new(0);
    let unexpected = AtomicU64::new(0);
    let hung = AtomicU64::new(0);
    let order = cases
        .iter()
        .filter(|&&case| case != FaultCase::None)
        .chain(cases.iter().filter(|&&case| case == FaultCase::None));
    for (round, &case) in (0..rounds).zip(order) {
        let in_round = per_client / rounds + u32::from(round < per_client % rounds);
        if in_round == 0 {
            continue;
        }
        faults.change(&mock_faults(case, timeout_ms))?;
        let (expected, _) = driver::expected(case);
        // Payments each client has yet to start in this round.
        let left: Vec<AtomicU32> = clients.iter().map(|_| AtomicU32::new(in_round)).collect();
        std::thread::scope(|scope| {
            for (&(name, _), left) in clients.iter().zip(&left) {
                for _ in 0..in_round.min(STORM_CONCURRENCY) {
                    let (requests, unexpected, hung) = (&requests, &unexpected, &hung);
                    let expected = &expected;
                    scope.spawn(move || {
                        while left
                            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                                n.checked_sub(1)
                            })
                            .is_ok()
                        {
                            let answer = driver.pay(name);
                            requests.fetch_add(1, Ordering::Relaxed);
                            if answer.outcome != *expected {
                                unexpected.fetch_add(1, Ordering::Relaxed);
                            }
                            if answer.hung {
                                hung.fetch_add(1, Ordering::Relaxed);
                            }
                            bar.inc(1);
                        }
                    });
                }
            }
        });
    }
    Ok(StormTally {
        requests: requests.into_inner(),
        unexpected: unexpected.into_inner(),
        hung: hung.into_inner(),
    })
}

/// Reads the descriptors until their count is back to `before` or `limit` has passed; the
/// last reading.
pub fn wait_for_idle(pid: u32, before: u64, limit: Duration) -> Option<FdReading> {
    let deadline = Instant::now() + limit;
    loop {
        let reading = read_fds(pid)?;
        if reading.open <= before || Instant::now() >= deadline {
            return Some(reading);
        }
        std::thread::sleep(IDLE_POLL);
    }
}

/// What the clean payments after the idle spell showed.
#[derive(Debug, Default)]
pub struct Reuse {
    pub after: Option<FdReading>,
    pub failures: u64,
    pub stale_by_client: Vec<StaleConnections>,
}

/// [`REUSE_PAYMENTS`] clean payments per client, one client after another, with the CLOSE_WAIT
/// sockets counted around each client's: those its payments cleared were its pools' stale.
pub fn reuse(driver: &Driver, clients: &[(ClientName, u64)], pid: Option<u32>) -> Reuse {
    let mut reuse = Reuse::default();
    let mut last = pid.and_then(read_fds);
    for &(name, _) in clients {
        for _ in 0..REUSE_PAYMENTS {
            if driver.pay(name).outcome != PaymentOutcome::Ok {
                reuse.failures += 1;
            }
        }
        let now = pid.and_then(read_fds);
        if let (Some(last), Some(now)) = (last, now) {
            reuse.stale_by_client.push(StaleConnections {
                client: name,
                dropped: last.close_wait.saturating_sub(now.close_wait),
            });
        }
        last = now;
    }
    reuse.after = last;
    reuse
}
