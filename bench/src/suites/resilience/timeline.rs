//! When an open-model run got over an event (the resilience suite): the first success and the
//! last failure after it, and when latency was back to normal. Pure functions over the run's
//! [`Timeline`].

use std::time::Duration;

use crate::suites::load::timeline::{Timed, Timeline, ms};
use bench_model::stats::quantile::percentile_nearest_rank_of;

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
            && percentile_nearest_rank_of(&mut latencies, 99.0).is_none_or(|p99| p99 <= bound);
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
    use std::time::Instant;

    use super::*;

    use crate::suites::load::timeline::test_records::timed;

    fn timeline(records: Vec<Timed>) -> Timeline {
        Timeline {
            start: Instant::now(),
            records,
            first_error: None,
        }
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
