//! Every request of an open-model run kept with its times, for figures that depend on when a
//! request was due: the answers of a stretch, the first success after an event, when latency
//! was back to normal. Pure functions over the records; the clock is the generator's.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::model::{FailureCounts, FailureKind, PhaseCounts, StatusCount};
use crate::stats::percentile_nearest_rank;
use crate::suites::load::open::Collector;
use crate::suites::load::tally::RequestRecord;

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

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1_000.0
}

/// The 50th or 99th percentile (nearest rank) of `latencies`, in ms.
fn percentile_ms(latencies: &mut [f64], percentile: f64) -> Option<f64> {
    latencies.sort_by(f64::total_cmp);
    percentile_nearest_rank(latencies, percentile)
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
        answer_p50_ms: percentile_ms(&mut answers, 50.0),
        answer_p99_ms: percentile_ms(&mut answers, 99.0),
        ok_p99_ms: percentile_ms(&mut ok_latencies, 99.0),
    }
}

/// From `event` to the answer of the first successful request due after it, in ms.
pub fn first_success_after(timeline: &Timeline, event: Duration) -> Option<f64> {
    timeline
        .records
        .iter()
        .filter(|record| record.due >= event && record.ok())
        .map(|record| record.done)
        .min()
        .map(|done| ms(done.saturating_sub(event)))
}

/// From `event` to the end of the last failed request due after it, in ms.
pub fn last_failure_after(timeline: &Timeline, event: Duration) -> Option<f64> {
    timeline
        .records
        .iter()
        .filter(|record| record.due >= event && !record.ok())
        .map(|record| record.done)
        .max()
        .map(|done| ms(done.saturating_sub(event)))
}

/// Windows in which the recovery is judged.
const RECOVERY_WINDOW: Duration = Duration::from_millis(100);
/// "Normal" latency is at most twice the p99 before the event, and never less than this.
const NORMAL_FLOOR_MS: f64 = 1.0;

/// When the requests due from `from` to `to` were back to normal for good: the start (after
/// `from`) of the first 100 ms window from which every window has no failure and a p99 within
/// twice `normal_p99_ms` (at least 1 ms). Empty windows (nothing due) count as normal. `None`
/// when even the last window is not.
pub fn recovered_after(
    timeline: &Timeline,
    from: Duration,
    to: Duration,
    normal_p99_ms: f64,
) -> Option<f64> {
    let bound = (2.0 * normal_p99_ms).max(NORMAL_FLOOR_MS);
    let mut windows = Vec::new();
    let mut window_start = from;
    while window_start < to {
        let window_end = (window_start + RECOVERY_WINDOW).min(to);
        let window: Vec<&Timed> = timeline.due_in(window_start, window_end).collect();
        let mut latencies: Vec<f64> = window.iter().map(|record| ms(record.latency())).collect();
        let normal = window.iter().all(|record| record.ok())
            && percentile_ms(&mut latencies, 99.0).is_none_or(|p99| p99 <= bound);
        windows.push((window_start, normal));
        window_start = window_end;
    }
    let mut recovered = None;
    for &(start, normal) in windows.iter().rev() {
        if !normal {
            break;
        }
        recovered = Some(start);
    }
    recovered.map(|start| ms(start.saturating_sub(from)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timed(due_ms: u64, took_ms: u64, status: Option<u16>) -> Timed {
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

    fn timeline(records: Vec<Timed>) -> Timeline {
        Timeline {
            start: Instant::now(),
            records,
            first_error: None,
        }
    }

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
    fn the_first_success_and_the_last_failure_after_an_event() {
        let run = timeline(vec![
            timed(0, 1, Some(200)),
            // The event at 100 ms: a failure before it does not count.
            timed(90, 50, Some(502)),
            timed(100, 5, Some(502)),
            timed(110, 30, Some(200)),
            timed(120, 3, Some(200)),
            timed(130, 40, None),
            timed(140, 2, Some(200)),
        ]);
        let event = Duration::from_millis(100);
        // Answers at 140 ms and 123 ms: the first success is 23 ms after the event.
        assert_eq!(first_success_after(&run, event), Some(23.0));
        // The connection error ended at 170 ms.
        assert_eq!(last_failure_after(&run, event), Some(70.0));
        assert_eq!(
            last_failure_after(&run, Duration::from_millis(135)),
            None,
            "no failure due after 135 ms"
        );
    }

    #[test]
    fn recovery_is_the_first_window_from_which_all_are_normal() {
        let mut records = Vec::new();
        // From 0 to 1 s: slow until 300 ms, a failure at 450 ms, normal from 500 ms on.
        for due in (0..1_000).step_by(10) {
            let (took, status) = match due {
                0..300 => (50, Some(200)),
                450 => (1, Some(503)),
                _ => (2, Some(200)),
            };
            records.push(timed(due, took, status));
        }
        let run = timeline(records);
        let recovered = recovered_after(&run, Duration::ZERO, Duration::from_secs(1), 1.5);
        assert_eq!(recovered, Some(500.0));
        // Judged from 200 ms on, the same moment is 300 ms later.
        let later = recovered_after(
            &run,
            Duration::from_millis(200),
            Duration::from_secs(1),
            1.5,
        );
        assert_eq!(later, Some(300.0));
        // With a normal p99 of 0.2 ms the bound is the 1 ms floor: 2 ms is never normal.
        assert_eq!(
            recovered_after(&run, Duration::ZERO, Duration::from_secs(1), 0.2),
            None
        );
    }
}
