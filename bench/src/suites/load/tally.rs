//! One record per request, as oha keeps them, and their tally per scenario and round.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::suites::load::http::Exchange;
use crate::suites::load::recorder::LatencyRecorder;
use crate::suites::load::schedule::Lateness;
use bench_model::FailureCounts;

/// One request, completed (or failed) and checked.
#[derive(Debug)]
pub struct RequestRecord {
    /// When it was meant to leave: its slot on the timetable (open model), or the moment it
    /// left (closed model, where nothing is scheduled).
    pub due: Instant,
    /// When the generator actually sent it.
    pub sent: Instant,
    /// When its whole response had been read, or it failed.
    pub done: Instant,
    pub exchange: Exchange,
}

/// Everything a run of requests adds up to. Only successful requests are timed.
#[derive(Debug)]
pub struct Tally {
    /// The run's reference instant: the first request's due time.
    start: Instant,
    pub latencies: LatencyRecorder,
    pub ok: u64,
    pub failures: FailureCounts,
    /// Responses by status code, failed ones included.
    pub statuses: BTreeMap<u16, u64>,
    /// Bytes of every response received.
    pub bytes: u64,
    pub lateness: Lateness,
    /// When the last request completed, after `start`.
    pub last_done: Duration,
    /// Requests never sent because too many were in flight.
    pub skipped: u64,
    pub first_error: Option<String>,
}

impl Tally {
    pub fn new(start: Instant, expected: usize) -> Self {
        Self {
            start,
            latencies: LatencyRecorder::new(expected),
            ok: 0,
            failures: FailureCounts::default(),
            statuses: BTreeMap::new(),
            bytes: 0,
            lateness: Lateness::default(),
            last_done: Duration::ZERO,
            skipped: 0,
            first_error: None,
        }
    }

    pub fn add(&mut self, record: RequestRecord) {
        let RequestRecord {
            due,
            sent,
            done,
            exchange,
        } = record;
        self.lateness.record(sent.saturating_duration_since(due));
        self.last_done = self
            .last_done
            .max(done.saturating_duration_since(self.start));
        self.bytes += exchange.bytes;
        if let Some(status) = exchange.status {
            *self.statuses.entry(status).or_insert(0) += 1;
        }
        match exchange.failure {
            None => {
                self.ok += 1;
                self.latencies.record(
                    done.saturating_duration_since(due),
                    done.saturating_duration_since(sent),
                );
            }
            Some((kind, message)) => {
                self.failures.add(kind);
                self.first_error.get_or_insert(message);
            }
        }
    }

    /// Adds another tally of the same run (another worker's).
    pub fn merge(&mut self, other: Tally) {
        self.latencies.merge(other.latencies);
        self.ok += other.ok;
        self.failures.merge(other.failures);
        for (status, count) in other.statuses {
            *self.statuses.entry(status).or_insert(0) += count;
        }
        self.bytes += other.bytes;
        self.lateness.late += other.lateness.late;
        self.lateness.worst = self.lateness.worst.max(other.lateness.worst);
        self.last_done = self.last_done.max(other.last_done);
        self.skipped += other.skipped;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
    }

    /// Requests that completed, ok or not (skipped ones never left).
    pub fn completed(&self) -> u64 {
        self.ok + self.failures.total()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::FailureKind;

    fn record(
        start: Instant,
        due_us: u64,
        late_us: u64,
        took_us: u64,
        exchange: Exchange,
    ) -> RequestRecord {
        let due = start + Duration::from_micros(due_us);
        let sent = due + Duration::from_micros(late_us);
        RequestRecord {
            due,
            sent,
            done: sent + Duration::from_micros(took_us),
            exchange,
        }
    }

    fn ok() -> Exchange {
        Exchange {
            status: Some(200),
            bytes: 300,
            failure: None,
        }
    }

    #[test]
    fn tallies_successes_failures_statuses_and_lateness() {
        let start = Instant::now();
        let mut tally = Tally::new(start, 4);
        tally.add(record(start, 0, 10, 100, ok()));
        tally.add(record(start, 2_000, 1_500, 100, ok()));
        tally.add(record(
            start,
            4_000,
            0,
            50,
            Exchange {
                status: Some(503),
                bytes: 120,
                failure: Some((FailureKind::Status, "status 503".to_owned())),
            },
        ));
        tally.add(record(
            start,
            6_000,
            0,
            5_000,
            Exchange {
                status: None,
                bytes: 0,
                failure: Some((FailureKind::Timeout, "late".to_owned())),
            },
        ));
        assert_eq!(
            (tally.ok, tally.failures.total(), tally.completed()),
            (2, 2, 4)
        );
        assert_eq!((tally.failures.status, tally.failures.timeout), (1, 1));
        assert_eq!(tally.statuses, BTreeMap::from([(200, 2), (503, 1)]));
        assert_eq!(tally.bytes, 720);
        // One send 1.5 ms late; the worst delay 1.5 ms.
        assert_eq!(tally.lateness.late, 1);
        assert_eq!(tally.lateness.worst, Duration::from_micros(1_500));
        // The last to finish: due at 6 ms, took 5 ms.
        assert_eq!(tally.last_done, Duration::from_millis(11));
        assert_eq!(tally.first_error.as_deref(), Some("status 503"));
        // Only the two successes are timed: 110 us and 1600 us from their due times.
        let summary = tally.latencies.summary();
        assert_eq!(tally.latencies.count(), 2);
        assert_eq!(summary.min_us, Some(110.0));
        assert_eq!(summary.max_us, Some(1_600.0));
    }
}
