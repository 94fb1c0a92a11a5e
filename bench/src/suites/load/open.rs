//! The open model: requests leave on a fixed timetable whatever the server does, as wrk2 and
//! NBomber's `inject` send them, so a slow response delays no later request.
//!
//! The timetable is kept by the calling thread, not by a tokio timer (whose 1 ms resolution
//! would add up to a millisecond to every request): it sleeps until shortly before each due
//! time and spins the rest, then hands the request to the runtime as a task of its own. The
//! task notes when it really starts sending; the request's latency is measured from its due
//! time (corrected for coordinated omission) and from that start (uncorrected).

use std::fs;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::runtime::Runtime;
use tokio::sync::{Semaphore, mpsc};

use crate::error::BenchError;
use crate::suites::load::http::{self, LoadClient, ReadyScenario};
use crate::suites::load::schedule::Timetable;
use crate::suites::load::tally::{RequestRecord, Tally};

/// Most requests in flight at once; one more is skipped (and counted), not queued. Each one in
/// flight holds a connection and a file descriptor, so this is the generator's connection cap.
pub const MAX_IN_FLIGHT: usize = 1024;
/// The first request is due this long after the run is set up, so it is not late by set-up.
const LEAD: Duration = Duration::from_millis(2);
/// The last stretch before a due time is spun, not slept: a sleep can overshoot by tens of
/// microseconds.
const SPIN: Duration = Duration::from_micros(100);
/// Requests due closer together than this are not spun for: above 1000 RPS spinning would keep
/// a CPU busy between sends, which on a small machine is a CPU taken from the service.
const SPIN_FROM_GAP: Duration = Duration::from_millis(1);

/// Where an open-model run's records go: a [`Tally`], or a suite's own timeline.
pub trait Collector: Send + 'static {
    fn add(&mut self, record: RequestRecord);
}

impl Collector for Tally {
    fn add(&mut self, record: RequestRecord) {
        Tally::add(self, record);
    }
}

/// Sends `schedule` to `target` and tallies every request once all have completed (each is
/// bounded by [`http::REQUEST_TIMEOUT`]).
pub fn run(
    runtime: &Runtime,
    client: &Arc<LoadClient>,
    target: &Arc<ReadyScenario>,
    schedule: impl Timetable,
) -> Result<Tally, BenchError> {
    let expected = usize::try_from(schedule.count()).unwrap_or(usize::MAX);
    let (mut tally, skipped) = run_into(runtime, client, target, schedule, move |start| {
        Tally::new(start, expected.min(1 << 20))
    })?;
    tally.skipped = skipped;
    Ok(tally)
}

/// Sends `timetable` to `target`, each completed request to the collector that `collector`
/// makes from the run's start (the first request's due time), and returns the collector once
/// every request has completed, with the requests skipped because [`MAX_IN_FLIGHT`] were in
/// flight.
pub fn run_into<C: Collector>(
    runtime: &Runtime,
    client: &Arc<LoadClient>,
    target: &Arc<ReadyScenario>,
    timetable: impl Timetable,
    collector: impl FnOnce(Instant) -> C + Send + 'static,
) -> Result<(C, u64), BenchError> {
    let (records, mut received) = mpsc::unbounded_channel::<RequestRecord>();
    let in_flight = Arc::new(Semaphore::new(MAX_IN_FLIGHT));
    let start = Instant::now() + LEAD;
    let collector = runtime.spawn(async move {
        let mut collector = collector(start);
        while let Some(record) = received.recv().await {
            collector.add(record);
        }
        collector
    });

    let mut skipped = 0;
    let mut previous = start;
    for index in 0..timetable.count() {
        let due = start + timetable.offset(index);
        let spin = due.saturating_duration_since(previous) >= SPIN_FROM_GAP;
        previous = due;
        wait_until(due, spin);
        let Ok(permit) = Arc::clone(&in_flight).try_acquire_owned() else {
            skipped += 1;
            continue;
        };
        let (client, target, records) = (Arc::clone(client), Arc::clone(target), records.clone());
        runtime.spawn(async move {
            let sent = Instant::now();
            let exchange = http::exchange(&client, &target, index).await;
            let done = Instant::now();
            drop(permit);
            // The collector outlives every sender; a send error cannot happen.
            let _ = records.send(RequestRecord {
                due,
                sent,
                done,
                exchange,
            });
        });
    }
    drop(records);
    let collector = runtime
        .block_on(collector)
        .map_err(|error| BenchError::Load(format!("the load collector failed: {error}")))?;
    Ok((collector, skipped))
}

/// Blocks the calling thread until `due`: sleeps while more than [`SPIN`] is left, then spins;
/// without `spin`, sleeps all the way.
fn wait_until(due: Instant, spin: bool) {
    loop {
        let left = due.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        if !spin {
            std::thread::sleep(left);
        } else if left > SPIN {
            std::thread::sleep(left.saturating_sub(SPIN));
        } else {
            std::hint::spin_loop();
        }
    }
}

/// The main thread's timer slack, lowered to 1 ns while the guard lives (Linux sleeps overshoot
/// by up to the slack, 50 us by default), then restored. Best effort, and only on the main
/// thread: /proc/self/timerslack_ns is the main thread's.
#[derive(Debug)]
pub struct TimerSlack {
    previous: Option<String>,
}

const TIMER_SLACK: &str = "/proc/self/timerslack_ns";

impl TimerSlack {
    pub fn tighten() -> Self {
        let on_main_thread = std::thread::current().name() == Some("main");
        let previous = on_main_thread
            .then(|| fs::read_to_string(TIMER_SLACK).ok())
            .flatten()
            .filter(|_| fs::write(TIMER_SLACK, "1").is_ok());
        Self { previous }
    }
}

impl Drop for TimerSlack {
    fn drop(&mut self) {
        if let Some(previous) = &self.previous {
            let _ = fs::write(TIMER_SLACK, previous.trim());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_until_the_due_time() {
        let due = Instant::now() + Duration::from_millis(3);
        wait_until(due, true);
        assert!(Instant::now() >= due);
        let slept = Instant::now() + Duration::from_millis(2);
        wait_until(slept, false);
        assert!(Instant::now() >= slept);
        // A due time in the past returns at once.
        wait_until(
            Instant::now()
                .checked_sub(Duration::from_secs(1))
                .unwrap_or_else(Instant::now),
            true,
        );
    }
}
