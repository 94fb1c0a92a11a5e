//! The open model: requests leave on a fixed timetable whatever the server does, as wrk2 and
//! NBomber's `inject` send them, so a slow response delays no later request.
//!
//! The timetable is shared out among connections, as wrk2 does: request `i` belongs to
//! connection `i mod C`, and each connection is one task that waits for its next request's due
//! time, sends it, reads and checks the answer, and goes on to the next. No task, channel or
//! wake-up from another thread per request: a request costs the generator what a closed loop's
//! costs, plus one timer. The timer is a `timerfd` per connection set to the due time on
//! CLOCK_MONOTONIC (no timer slack, and none of tokio's 1 ms timer wheel, which would add up to
//! a millisecond to every request). A request's latency is measured from its due time
//! (corrected for coordinated omission: a connection still waiting for an answer sends its
//! next request late, and the wait counts) and from when it really left (uncorrected).
//! [`connections`] gives each connection room for an answer of twice the capacity's latency
//! objective before its next request is due; a request its connection reaches more than
//! [`SEND_LIMIT`] after its due time is not sent, and counted unsent.

use std::os::fd::{AsFd as _, AsRawFd, RawFd};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nix::sys::time::TimeSpec;
use nix::sys::timerfd::{ClockId, Expiration, TimerFd, TimerFlags, TimerSetTimeFlags};
use tokio::io::unix::AsyncFd;
use tokio::runtime::Runtime;

use crate::error::BenchError;
use crate::suites::load::http::{self, LoadClient, ReadyScenario};
use crate::suites::load::schedule::Timetable;
use crate::suites::load::tally::{RequestRecord, Tally};

/// Most connections the generator keeps, so most requests in flight at once: each holds a
/// connection and a file descriptor (and its connection's timer another).
pub const MAX_IN_FLIGHT: usize = 1024;
/// Fewest connections the generator keeps.
const MIN_CONNECTIONS: usize = 16;
/// Each connection has this long between two of its requests at the timetable's peak rate:
/// twice the capacity's latency objective, so that an answer that slow delays no later
/// request. A run whose answers take longer (across the WAN suite's link) gives more.
pub const ROOM_PER_ANSWER: Duration = Duration::from_millis(50);
/// A request its connection reaches later than this after its due time is not sent: the
/// answers before it took that long, and the generator would only be sending a backlog.
pub const SEND_LIMIT: Duration = Duration::from_secs(1);
/// The first request is due this long after the run is set up, so it is not late by set-up.
const LEAD: Duration = Duration::from_millis(2);

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

/// The connections a timetable whose peak is `peak_rps` is sent on: enough that each has
/// `room` between two of its requests, within [`MIN_CONNECTIONS`] and [`MAX_IN_FLIGHT`].
pub fn connections(peak_rps: u32, room: Duration) -> usize {
    let wanted = (f64::from(peak_rps) * room.as_secs_f64()).ceil() as usize;
    wanted.clamp(MIN_CONNECTIONS, MAX_IN_FLIGHT)
}

/// Sends `timetable` to `target`, each completed request to the collector that `collector`
/// makes from the run's start (the first request's due time), and returns the collector once
/// every request has completed, with the requests not sent because their connection reached
/// them more than [`SEND_LIMIT`] late.
pub fn run_into<C: Collector>(
    runtime: &Runtime,
    client: &Arc<LoadClient>,
    target: &Arc<ReadyScenario>,
    timetable: impl Timetable,
    collector: impl FnOnce(Instant) -> C + Send + 'static,
) -> Result<(C, u64), BenchError> {
    let mut collector = Some(collector);
    let [sent] = run_into_each(
        runtime,
        client,
        [target],
        timetable,
        ROOM_PER_ANSWER,
        |start| (collector.take().expect("one target, one collector"))(start),
    )?;
    Ok(sent)
}

/// As [`run_into`], the same `timetable` sent to each of `targets` at once, on connections of
/// its own, from one start: what a paired measurement drives its two sides with. A collector
/// per target, in order. Each connection has `room` for an answer before its next request is
/// due (see [`connections`]).
pub fn run_into_each<C: Collector, const N: usize>(
    runtime: &Runtime,
    client: &Arc<LoadClient>,
    targets: [&Arc<ReadyScenario>; N],
    timetable: impl Timetable,
    room: Duration,
    mut collector: impl FnMut(Instant) -> C,
) -> Result<[(C, u64); N], BenchError> {
    let count = timetable.count();
    let lanes =
        connections(timetable.peak_rps(), room).min(usize::try_from(count).unwrap_or(1).max(1));
    let start = Instant::now() + LEAD;
    let clock = Monotonic::now()?;
    let outcomes = runtime.block_on(async {
        let tasks: Vec<Vec<_>> = targets
            .iter()
            .map(|target| {
                (0..lanes as u64)
                    .map(|lane| {
                        let (client, target) = (Arc::clone(client), Arc::clone(target));
                        tokio::spawn(connection(
                            client,
                            target,
                            Lane {
                                first: lane,
                                step: lanes as u64,
                                count,
                            },
                            start,
                            clock,
                            timetable,
                        ))
                    })
                    .collect()
            })
            .collect();
        let mut outcomes = Vec::with_capacity(N);
        for of_target in tasks {
            let mut of_this = Vec::with_capacity(of_target.len());
            for task in of_target {
                of_this.push(task.await);
            }
            outcomes.push(of_this);
        }
        outcomes
    });
    let mut collected = Vec::with_capacity(N);
    for of_target in outcomes {
        let mut into = collector(start);
        let mut skipped = 0;
        for outcome in of_target {
            let sent = outcome
                .map_err(|error| {
                    BenchError::Load(format!("a generator connection failed: {error}"))
                })?
                .map_err(|error| {
                    BenchError::Load(format!("the generator's timer failed: {error}"))
                })?;
            skipped += sent.skipped;
            for record in sent.records {
                into.add(record);
            }
        }
        collected.push((into, skipped));
    }
    Ok(collected
        .try_into()
        .unwrap_or_else(|_| unreachable!("a collector per target")))
}

/// The requests of one connection: `first`, `first + step`, ... below `count`.
#[derive(Clone, Copy, Debug)]
struct Lane {
    first: u64,
    step: u64,
    count: u64,
}

/// What one connection sent.
#[derive(Debug, Default)]
struct Sent {
    records: Vec<RequestRecord>,
    skipped: u64,
}

/// One connection's share of the timetable: each request at its due time (or as soon as the
/// answer before it has come), unless that is more than [`SEND_LIMIT`] late.
async fn connection(
    client: Arc<LoadClient>,
    target: Arc<ReadyScenario>,
    lane: Lane,
    start: Instant,
    clock: Monotonic,
    timetable: impl Timetable,
) -> nix::Result<Sent> {
    let alarm = Alarm::new()?;
    let mut sent = Sent {
        records: Vec::with_capacity(usize::try_from(lane.count / lane.step + 1).unwrap_or(0)),
        skipped: 0,
    };
    let mut index = lane.first;
    while index < lane.count {
        let due = start + timetable.offset(index);
        alarm.wait_until(clock.at(due)).await?;
        let now = Instant::now();
        if now.saturating_duration_since(due) > SEND_LIMIT {
            sent.skipped += 1;
        } else {
            let exchange = http::exchange(&client, &target, index).await;
            sent.records.push(RequestRecord {
                due,
                sent: now,
                done: Instant::now(),
                exchange,
            });
        }
        index += lane.step;
    }
    Ok(sent)
}

/// An [`Instant`] on CLOCK_MONOTONIC, the clock a `timerfd` is set on (and the one `Instant`
/// reads on Linux): the two read together once, so that a due time converts by its distance
/// from that reading.
#[derive(Clone, Copy, Debug)]
struct Monotonic {
    instant: Instant,
    clock: Duration,
}

impl Monotonic {
    fn now() -> Result<Self, BenchError> {
        // The instant first: the clock read after it maps a due time a few nanoseconds late,
        // never early.
        let instant = Instant::now();
        let clock = nix::time::clock_gettime(nix::time::ClockId::CLOCK_MONOTONIC)
            .map_err(|error| BenchError::Load(format!("cannot read CLOCK_MONOTONIC: {error}")))?;
        Ok(Self {
            instant,
            clock: Duration::from(clock),
        })
    }

    /// `instant` on CLOCK_MONOTONIC (a past instant as the reading, which a timer takes as
    /// due at once).
    fn at(self, instant: Instant) -> Duration {
        self.clock + instant.saturating_duration_since(self.instant)
    }
}

/// A `timerfd` on CLOCK_MONOTONIC, awaited through the runtime's I/O driver.
#[derive(Debug)]
struct Alarm(AsyncFd<Timer>);

/// The timer, as the runtime's I/O driver watches it.
#[derive(Debug)]
struct Timer(TimerFd);

impl AsRawFd for Timer {
    fn as_raw_fd(&self) -> RawFd {
        self.0.as_fd().as_raw_fd()
    }
}

impl Alarm {
    fn new() -> nix::Result<Self> {
        let timer = TimerFd::new(
            ClockId::CLOCK_MONOTONIC,
            TimerFlags::TFD_NONBLOCK | TimerFlags::TFD_CLOEXEC,
        )?;
        // `AsyncFd::new` is deprecated (tokio#8587) because a `T` that does not own its
        // descriptor could close it while the runtime watches it; `Timer` owns its `TimerFd`,
        // and the `AsyncFd` owns the `Timer`, deregistering it before it is dropped. The safe
        // constructor is the one left for that (`register` is `unsafe`, which this crate
        // denies).
        #[allow(deprecated)]
        let registered = AsyncFd::new(Timer(timer));
        registered
            .map(Self)
            .map_err(|error| nix::errno::Errno::from_raw(error.raw_os_error().unwrap_or(0)))
    }

    /// Returns at `due` (on CLOCK_MONOTONIC), or at once when it has passed.
    async fn wait_until(&self, due: Duration) -> nix::Result<()> {
        let now = Duration::from(nix::time::clock_gettime(
            nix::time::ClockId::CLOCK_MONOTONIC,
        )?);
        if due <= now {
            return Ok(());
        }
        self.0.get_ref().0.set(
            Expiration::OneShot(TimeSpec::from(due)),
            TimerSetTimeFlags::TFD_TIMER_ABSTIME,
        )?;
        loop {
            let mut ready =
                self.0.readable().await.map_err(|error| {
                    nix::errno::Errno::from_raw(error.raw_os_error().unwrap_or(0))
                })?;
            // The expirations since the timer was set: one, or none yet (a spurious wake-up).
            match nix::unistd::read(self.0.get_ref().0.as_fd(), &mut [0_u8; 8]) {
                Ok(_) => return Ok(()),
                Err(nix::errno::Errno::EAGAIN) => ready.clear_ready(),
                Err(error) => return Err(error),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_leave_room_for_an_answer_of_twice_the_objective() {
        assert_eq!(connections(50, ROOM_PER_ANSWER), MIN_CONNECTIONS);
        assert_eq!(connections(480, ROOM_PER_ANSWER), 24);
        assert_eq!(connections(8_000, ROOM_PER_ANSWER), 400);
        assert_eq!(connections(64_000, ROOM_PER_ANSWER), MAX_IN_FLIGHT);
    }

    #[test]
    fn the_alarm_waits_until_the_due_time_and_not_for_a_past_one() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let clock = Monotonic::now().unwrap();
        runtime.block_on(async {
            let alarm = Alarm::new().unwrap();
            for wait in [Duration::from_millis(3), Duration::from_micros(300)] {
                let due = Instant::now() + wait;
                alarm.wait_until(clock.at(due)).await.unwrap();
                assert!(Instant::now() >= due);
            }
            // A due time in the past returns at once.
            let past = Instant::now();
            alarm.wait_until(clock.at(past)).await.unwrap();
        });
    }
}
