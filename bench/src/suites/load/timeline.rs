//! Every request of an open-model run kept with its times, for figures that depend on when a
//! request was due: the answers of a stretch, second by second (the load suite), or around an
//! event (the resilience suite). Pure functions over the records; the clock is the generator's.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::suites::load::open::Collector;
use crate::suites::load::tally::{RequestRecord, Tally};
use bench_model::stats::quantile::percentile_nearest_rank_of;
use bench_model::{FailureCounts, FailureKind, PhaseCounts, SecondPoint, StatusCount};

/// One request: its times after the run's start, and how it ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timed {
    pub due: Duration,
    pub done: Duration,
    pub status: Option<u16>,
    pub failure: Option<FailureKind>,
}

impl Timed {
    pub fn ok(&self) -> bool {
        self.failure.is_none()
    }

    /// From its due time to its answer (or failure).
    pub fn latency(&self) -> Duration {
        self.done.saturating_sub(self.due)
    }
}

/// The records of one run.
#[derive(Debug)]
pub struct Timeline {
    /// The first request's due time.
    pub start: Instant,
    pub records: Vec<Timed>,
    pub first_error: Option<String>,
}

impl Timeline {
    pub fn new(start: Instant, expected: usize) -> Self {
        Self {
            start,
            records: Vec::with_capacity(expected),
            first_error: None,
        }
    }

    /// `at` after the run's start (zero before it).
    pub fn offset(&self, at: Instant) -> Duration {
        at.saturating_duration_since(self.start)
    }

    /// The requests due in `[from, to)`.
    pub fn due_in(&self, from: Duration, to: Duration) -> impl Iterator<Item = &Timed> {
        self.records
            .iter()
            .filter(move |record| record.due >= from && record.due < to)
    }
}

impl Collector for Timeline {
    fn add(&mut self, record: RequestRecord) {
        let failure = record.exchange.failure.map(|(kind, message)| {
            self.first_error.get_or_insert(message);
            kind
        });
        self.records.push(Timed {
            due: self.offset(record.due),
            done: self.offset(record.done),
            status: record.exchange.status,
            failure,
        });
    }
}

/// `duration` in milliseconds.
pub fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1_000.0
}

/// The counts of `records`: sent, ok, answers by status, failures by kind, answer times.
pub fn counts<'a>(records: impl IntoIterator<Item = &'a Timed>) -> PhaseCounts {
    let mut sent = 0;
    let mut ok = 0;
    let mut statuses: BTreeMap<u16, u64> = BTreeMap::new();
    let mut failures = FailureCounts::default();
    let mut answers = Vec::new();
    let mut ok_latencies = Vec::new();
    for record in records {
        sent += 1;
        if let Some(status) = record.status {
            *statuses.entry(status).or_default() += 1;
            answers.push(ms(record.latency()));
        }
        match record.failure {
            None => {
                ok += 1;
                ok_latencies.push(ms(record.latency()));
            }
            Some(kind) => failures.add(kind),
        }
    }
    PhaseCounts {
        sent,
        ok,
        statuses: statuses
            .into_iter()
            .map(|(status, count)| StatusCount { status, count })
            .collect(),
        failures,
        answer_p50_ms: percentile_nearest_rank_of(&mut answers, 50.0),
        answer_p99_ms: percentile_nearest_rank_of(&mut answers, 99.0),
        ok_p99_ms: percentile_nearest_rank_of(&mut ok_latencies, 99.0),
    }
}

/// Both at once: the run's [`Tally`] and its [`Timeline`].
impl Collector for (Tally, Timeline) {
    fn add(&mut self, record: RequestRecord) {
        let (tally, timeline) = self;
        timeline.records.push(Timed {
            due: timeline.offset(record.due),
            done: timeline.offset(record.done),
            status: record.exchange.status,
            failure: record.exchange.failure.as_ref().map(|(kind, _)| *kind),
        });
        tally.add(record);
    }
}

/// The run second by second, by due time (the intended send time, from the first request's):
/// second `s` holds the requests due in `[s, s + 1)` of a run that lasted `span` (its last
/// second may be partial).
pub fn per_second(timeline: &Timeline, span: Duration) -> Vec<SecondPoint> {
    let seconds = span.as_secs() + u64::from(span.subsec_nanos() > 0);
    (0..seconds)
        .map(|second| {
            let from = Duration::from_secs(second);
            let to = (from + Duration::from_secs(1)).min(span);
            let phase = counts(timeline.due_in(from, to));
            SecondPoint {
                second: u32::try_from(second).unwrap_or(u32::MAX),
                span_s: to.saturating_sub(from).as_secs_f64(),
                sent: phase.sent,
                ok: phase.ok,
                fail: phase.sent - phase.ok,
                p99_us: phase.ok_p99_ms.map(|p99| p99 * 1_000.0),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::suites::load::timeline::test_records::timed;

    #[test]
    fn counts_answers_by_status_and_errors_by_kind() {
        let records = [
            timed(0, 2, Some(200)),
            timed(10, 4, Some(200)),
            timed(20, 1, Some(502)),
            timed(30, 2_000, Some(504)),
            timed(40, 1, None),
        ];
        let phase = counts(&records);
        assert_eq!((phase.sent, phase.ok), (5, 2));
        assert_eq!(
            (
                phase.with_status(200),
                phase.with_status(502),
                phase.with_status(504)
            ),
            (2, 1, 1)
        );
        assert_eq!((phase.failures.status, phase.failures.connect), (2, 1));
        // Answers 1, 2, 4, 2000 ms: the median by nearest rank is the 2nd, the p99 the 4th.
        assert_eq!(phase.answer_p50_ms, Some(2.0));
        assert_eq!(phase.answer_p99_ms, Some(2_000.0));
        assert_eq!(phase.ok_p99_ms, Some(4.0));
        assert_eq!(counts(&[]).answer_p99_ms, None);
    }

    #[test]
    fn counts_each_second_by_due_time() {
        let mut records = Vec::new();
        // 2.5 s: 10 requests a second taking 2 ms, but those due in the second second take
        // 40 ms and one of them fails; the last half second is a partial one.
        for due in (0..2_500).step_by(100) {
            let (took, status) = match due {
                1_500 => (1, Some(503)),
                1_000..2_000 => (40, Some(200)),
                _ => (2, Some(200)),
            };
            records.push(timed(due, took, status));
        }
        // Due in the first second, answered in the second: counted in the first.
        records.push(timed(950, 300, Some(200)));
        let timeline = Timeline {
            start: Instant::now(),
            records,
            first_error: None,
        };
        let seconds = per_second(&timeline, Duration::from_millis(2_500));
        let figures: Vec<(u32, u64, u64, u64, Option<f64>)> = seconds
            .iter()
            .map(|point| (point.second, point.sent, point.ok, point.fail, point.p99_us))
            .collect();
        assert_eq!(
            figures,
            [
                (0, 11, 11, 0, Some(300_000.0)),
                (1, 10, 9, 1, Some(40_000.0)),
                (2, 5, 5, 0, Some(2_000.0)),
            ]
        );
        assert_eq!(
            seconds.iter().map(|point| point.span_s).collect::<Vec<_>>(),
            [1.0, 1.0, 0.5]
        );
        assert!(per_second(&timeline, Duration::ZERO).is_empty());
    }

    #[test]
    fn keeps_the_tally_and_the_timeline_of_one_run() {
        use crate::suites::load::http::Exchange;
        let start = Instant::now();
        let mut both = (Tally::new(start, 2), Timeline::new(start, 2));
        for (due_ms, failure) in [
            (0, None),
            (10, Some((FailureKind::Reset, "reset".to_owned()))),
        ] {
            let due = start + Duration::from_millis(due_ms);
            both.add(RequestRecord {
                due,
                sent: due,
                done: due + Duration::from_millis(3),
                exchange: Exchange {
                    status: None,
                    bytes: 0,
                    failure,
                },
            });
        }
        let (tally, timeline) = both;
        assert_eq!((tally.ok, tally.failures.reset), (1, 1));
        assert_eq!(tally.first_error.as_deref(), Some("reset"));
        assert_eq!(
            timeline.records,
            [
                Timed {
                    due: Duration::ZERO,
                    done: Duration::from_millis(3),
                    status: None,
                    failure: None,
                },
                Timed {
                    due: Duration::from_millis(10),
                    done: Duration::from_millis(13),
                    status: None,
                    failure: Some(FailureKind::Reset),
                },
            ]
        );
    }
}

/// Records for tests.
#[cfg(test)]
pub mod test_records {
    use std::time::Duration;

    use crate::suites::load::timeline::Timed;
    use bench_model::FailureKind;

    /// A request due at `due_ms` that ended `took_ms` later: 200, another status, or no answer.
    pub fn timed(due_ms: u64, took_ms: u64, status: Option<u16>) -> Timed {
        let failure = match status {
            Some(200) => None,
            Some(_) => Some(FailureKind::Status),
            None => Some(FailureKind::Connect),
        };
        Timed {
            due: Duration::from_millis(due_ms),
            done: Duration::from_millis(due_ms + took_ms),
            status,
            failure,
        }
    }
}
