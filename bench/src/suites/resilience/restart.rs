//! Upstream restart under load: at a steady open-model rate through the service, mock-rates is
//! killed (SIGKILL, as a crash or an OOM kill ends it) and, after the outage, started again on
//! the same port. The requests are split by their due time into before, during and after, and
//! after the restart the figures are the failed calls and the time to the first success (a
//! client whose pool keeps the dead connections fails on them first). Over TLS the new
//! mock-rates serves the same certificate from an empty session cache: a client that tries to
//! resume gets a full handshake.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::BenchError;
use crate::servers::MockEndpoint;
use crate::suites::load::http::{LoadClient, ReadyScenario};
use crate::suites::load::open;
use crate::suites::load::schedule::Schedule;
use crate::suites::load::timeline::{Timeline, counts};
use crate::suites::resilience::servers::{ClientOverProtocol, Servers};
use crate::suites::resilience::timeline::{first_success_after, last_failure_after};
use bench_model::{ResilienceSettings, RestartRow, millis};

/// What the restarting thread hands back: the new mock-rates, when the old one was killed and
/// when the new one listened.
struct Restarted {
    mock: MockEndpoint,
    stopped: Instant,
    ready: Instant,
}

/// Runs the restart for `target`'s client. The servers' mock is the service's upstream: it
/// is replaced by the restarted one, and left `None` if that could not start.
pub fn run(
    runtime: &tokio::runtime::Runtime,
    client: &Arc<LoadClient>,
    who: ClientOverProtocol,
    target: &Arc<ReadyScenario>,
    sizes: &ResilienceSettings,
    servers: &mut Servers,
) -> Result<RestartRow, BenchError> {
    let (exe, identity) = (servers.exe.as_path(), servers.identity.as_ref());
    let running = servers
        .mock
        .take()
        .ok_or_else(|| BenchError::Resilience("mock-rates is not running".to_owned()))?;
    let address = running.address().ok_or_else(|| {
        BenchError::Resilience(format!("cannot read the address of {}", running.base_url()))
    })?;
    let (before, outage, after) = (
        millis(sizes.restart_before_ms),
        millis(sizes.restart_outage_ms),
        millis(sizes.restart_after_ms),
    );
    let schedule = Schedule::new(sizes.restart_rps, before + outage + after);
    let expected = usize::try_from(schedule.count()).unwrap_or(0);
    let kill_at = Instant::now() + before;
    // The generator keeps its timetable on a thread of its own, and this thread restarts the
    // mock: a child is killed when the thread that started it ends (PR_SET_PDEATHSIG), so the
    // new mock-rates must be started by a thread that outlives it.
    let (run, restarted) = std::thread::scope(|scope| {
        let generator = scope.spawn(move || {
            open::run_into(runtime, client, target, schedule, move |start| {
                Timeline::new(start, expected)
            })
        });
        sleep_until(kill_at);
        let stopped = Instant::now();
        // Dropping the guard kills the child and reaps it: its sockets are closed by then.
        drop(running);
        sleep_until(stopped + outage);
        let restarted = MockEndpoint::spawn_at(exe, address, identity).map(|mock| Restarted {
            mock,
            stopped,
            ready: Instant::now(),
        });
        let run = generator
            .join()
            .map_err(|_| BenchError::Resilience("the generator thread panicked".to_owned()));
        (run, restarted)
    });
    let restarted = restarted?;
    let (timeline, skipped) = run??;
    let stopped = timeline.offset(restarted.stopped);
    let ready = timeline.offset(restarted.ready);
    servers.mock = Some(restarted.mock);
    Ok(RestartRow {
        client: who.client,
        protocol: who.protocol,
        rps: schedule.rate(),
        outage_ms: ready.saturating_sub(stopped).as_secs_f64() * 1_000.0,
        before: counts(timeline.due_in(Duration::ZERO, stopped)),
        outage: counts(timeline.due_in(stopped, ready)),
        after: counts(timeline.due_in(ready, Duration::MAX)),
        first_success_ms: first_success_after(&timeline, ready),
        last_failure_ms: last_failure_after(&timeline, ready),
        skipped,
        first_error: timeline.first_error,
    })
}

fn sleep_until(at: Instant) {
    let left = at.saturating_duration_since(Instant::now());
    if !left.is_zero() {
        std::thread::sleep(left);
    }
}
