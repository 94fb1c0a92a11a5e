//! The fanout suite's rows: the median wall time of a few repetitions of each group, judged
//! by a rank test, and the group's failed payments and new connections, judged as counts.

use crate::baseline::rules::{counts_differ, missing, pairs};
use bench_model::stats::rank::{LEVEL, mann_whitney, smallest_p, values_needed};
use bench_model::{Both, FanoutChange, FanoutRow, Judged};

/// Rows matched by client, protocol (and stream limit), mode and group size.
pub fn fanout(then: &[FanoutRow], now: &[FanoutRow]) -> Vec<FanoutChange> {
    pairs(then, now, |old, new| {
        (old.series(), old.mode, old.group_size) == (new.series(), new.mode, new.group_size)
    })
    .map(|(old, new)| FanoutChange {
        client: new.client,
        protocol: new.protocol,
        stream_limit: new.stream_limit,
        mode: new.mode,
        group_size: new.group_size,
        batches: Both {
            baseline: old.wall_ms.len(),
            now: new.wall_ms.len(),
        },
        wall_ms_median: wall_time(old, new),
        failures: counts_differ(
            (old.failures, payments(old)),
            (new.failures, payments(new)),
            true,
        ),
        connections_opened: connections(old, new),
    })
    .collect()
}

fn payments(row: &FanoutRow) -> u64 {
    u64::from(row.repetitions) * u64::from(row.group_size)
}

/// The medians, judged by the Mann-Whitney U test of the fully successful batches' wall times
/// at the two-sided [`LEVEL`] (0.001): a change when the batches of one run took longer than
/// the other's more consistently than chance allows. With few batches the test cannot reach
/// that level at all (3 against 3 gives p = 0.1 at best), and the row says so rather than
/// guess: it takes [`values_needed`] (7) batches in each run. Groups whose ideal differs (the
/// runs set another upstream latency or jitter) are not compared. The batches of one run share
/// the machine's state, so the test finds any shift between the runs, however small (two runs
/// of one build put one group 0.3 ms, 1.1%, apart with U = 49 of 49): it says the runs differ,
/// not that the code did.
fn wall_time(then: &FanoutRow, now: &FanoutRow) -> Judged<Option<f64>> {
    let judged = |significant, rule: String| Judged {
        baseline: then.wall_ms_median,
        now: now.wall_ms_median,
        significant,
        rule,
    };
    if (then.ideal_ms - now.ideal_ms).abs() > 1e-9 * then.ideal_ms.abs().max(1.0) {
        return judged(
            None,
            format!(
                "other upstream latency (ideal {:.1} ms then, {:.1} ms now): not comparable",
                then.ideal_ms, now.ideal_ms
            ),
        );
    }
    let (old, new) = (&then.wall_ms, &now.wall_ms);
    if old.is_empty() || new.is_empty() {
        return judged(
            None,
            missing(!old.is_empty(), !new.is_empty(), "successful batch"),
        );
    }
    if smallest_p(old.len(), new.len()) > LEVEL {
        return judged(
            None,
            format!(
                "{} and {} batches: too few for p <= {LEVEL} ({} each)",
                old.len(),
                new.len(),
                values_needed(LEVEL)
            ),
        );
    }
    let Some(test) = mann_whitney(new, old) else {
        return judged(None, "a wall time is not finite".to_owned());
    };
    let significant = test.p <= LEVEL;
    let p = if test.p < 1e-4 {
        "p < 0.0001".to_owned()
    } else {
        format!("p = {:.4}", test.p)
    };
    judged(
        Some(significant),
        format!(
            "U = {} of {}, {p} {} {LEVEL}",
            test.u,
            old.len() * new.len(),
            if significant { "<=" } else { ">" }
        ),
    )
}

/// New connections, as counts over the group's payments (no zero rule: a pool that opens one
/// connection more after an idle timeout is not a change). The first batch of a group opens
/// most of them, so runs with different repetitions are not compared.
fn connections(then: &FanoutRow, now: &FanoutRow) -> Judged<Option<u64>> {
    let judged = |significant, rule: String| Judged {
        baseline: then.connections_opened,
        now: now.connections_opened,
        significant,
        rule,
    };
    match (then.connections_opened, now.connections_opened) {
        (Some(old), Some(new)) if then.repetitions == now.repetitions => {
            let counted = counts_differ((old, payments(then)), (new, payments(now)), false);
            judged(counted.significant, counted.rule)
        }
        (Some(_), Some(_)) => judged(
            None,
            format!(
                "{} and {} repetitions: the first batch opens most connections",
                then.repetitions, now.repetitions
            ),
        ),
        (old, new) => judged(
            None,
            missing(old.is_some(), new.is_some(), "connection count"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::{ClientName, FanoutMode, Protocol};

    fn row(mode: FanoutMode, group_size: u32, wall_ms: &[f64]) -> FanoutRow {
        FanoutRow {
            client: ClientName::Hyper,
            protocol: Protocol::Http,
            stream_limit: None,
            tls: None,
            mode,
            group_size,
            repetitions: wall_ms.len() as u32,
            wall_ms_median: bench_model::stats::quantile::median_of(wall_ms),
            request_ms_median: None,
            ideal_ms: 50.0,
            efficiency: None,
            failures: 0,
            upstream_calls: None,
            connections_opened: Some(2),
            h2: None,
            warm_up_connections: None,
            max_connections: None,
            blocking_threads: None,
            wall_ms: wall_ms.to_vec(),
            request_ms: Vec::new(),
            first_error: None,
            unchecked: None,
        }
    }

    const SEVEN: [f64; 7] = [53.1, 52.4, 54.0, 52.9, 53.5, 52.7, 53.3];

    #[test]
    fn wall_times_change_when_the_rank_test_says_so() {
        use FanoutMode::{Concurrent, Sequential};
        let doubled: Vec<f64> = SEVEN.iter().map(|ms| ms * 2.0).collect();
        let shuffled = [53.4, 52.5, 53.9, 52.8, 53.6, 52.6, 53.2];
        let then = [
            row(Concurrent, 20, &SEVEN),
            row(Concurrent, 70, &SEVEN),
            row(Concurrent, 5, &SEVEN[..3]),
            row(Sequential, 5, &[265.0]),
        ];
        let now = [
            row(Concurrent, 20, &doubled),
            row(Concurrent, 70, &shuffled),
            row(Concurrent, 5, &doubled[..3]),
            row(Sequential, 5, &[530.0]),
        ];
        let changes = fanout(&then, &now);
        let decided: Vec<Option<bool>> = changes
            .iter()
            .map(|change| change.wall_ms_median.significant)
            .collect();
        assert_eq!(decided, [Some(true), Some(false), None, None]);
        assert_eq!(
            changes[0].wall_ms_median.rule,
            "U = 49 of 49, p = 0.0006 <= 0.001"
        );
        assert_eq!(changes[0].wall_ms_median.now, Some(106.2));
        assert_eq!(
            changes[2].wall_ms_median.rule,
            "3 and 3 batches: too few for p <= 0.001 (7 each)"
        );
        assert_eq!(
            changes[3].batches,
            Both {
                baseline: 1,
                now: 1
            }
        );
    }

    #[test]
    fn failed_payments_and_new_connections_are_counts() {
        let then = row(FanoutMode::Concurrent, 10, &SEVEN);
        let mut failed = then.clone();
        failed.failures = 2;
        failed.wall_ms.truncate(5);
        let mut reconnecting = then.clone();
        reconnecting.connections_opened = Some(40);
        let mut one_more = then.clone();
        one_more.connections_opened = Some(3);
        let mut fewer_repetitions = then.clone();
        fewer_repetitions.repetitions = 3;
        let verdicts = |now: &FanoutRow| {
            let change = &fanout(std::slice::from_ref(&then), std::slice::from_ref(now))[0];
            (
                change.failures.significant,
                change.connections_opened.significant,
            )
        };
        assert_eq!(verdicts(&then), (Some(false), Some(false)));
        assert_eq!(verdicts(&failed), (Some(true), Some(false)));
        assert_eq!(verdicts(&reconnecting), (Some(false), Some(true)));
        assert_eq!(verdicts(&one_more), (Some(false), Some(false)));
        assert_eq!(verdicts(&fewer_repetitions).1, None);
        let mut uncounted = then.clone();
        uncounted.connections_opened = None;
        let change = &fanout(&[then], &[uncounted])[0];
        assert_eq!(change.connections_opened.rule, "no connection count now");
    }

    #[test]
    fn rows_at_the_stream_limit_are_compared_with_their_own() {
        let over_h2 = |stream_limit: Option<u32>, wall: &[f64]| FanoutRow {
            protocol: Protocol::H2,
            stream_limit,
            ..row(FanoutMode::Concurrent, 70, wall)
        };
        let queued: Vec<f64> = SEVEN.iter().map(|ms| ms * 7.0).collect();
        let then = [over_h2(None, &SEVEN), over_h2(Some(10), &queued)];
        let now = [over_h2(Some(10), &queued), over_h2(None, &SEVEN)];
        let changes = fanout(&then, &now);
        assert_eq!(changes.len(), 2);
        for change in &changes {
            assert_eq!(change.wall_ms_median.significant, Some(false), "{change:?}");
        }
        let limits: Vec<Option<u32>> = changes.iter().map(|change| change.stream_limit).collect();
        assert!(
            limits.contains(&None) && limits.contains(&Some(10)),
            "{limits:?}"
        );
    }

    #[test]
    fn groups_against_another_upstream_latency_are_not_compared() {
        let then = row(FanoutMode::Concurrent, 20, &SEVEN);
        let mut now = row(FanoutMode::Concurrent, 20, &[21.0; 7]);
        now.ideal_ms = 20.0;
        let change = &fanout(&[then], &[now])[0];
        assert_eq!(change.wall_ms_median.significant, None);
        assert_eq!(
            change.wall_ms_median.rule,
            "other upstream latency (ideal 50.0 ms then, 20.0 ms now): not comparable"
        );
    }

    #[test]
    fn a_group_without_successful_batches_has_no_median_to_test() {
        let then = row(FanoutMode::Concurrent, 20, &SEVEN);
        let mut now = row(FanoutMode::Concurrent, 20, &[]);
        now.repetitions = 7;
        now.failures = 140;
        let change = &fanout(&[then], &[now])[0];
        assert_eq!(change.wall_ms_median.significant, None);
        assert_eq!(change.wall_ms_median.rule, "no successful batch now");
        assert!(change.failures.changed());
    }
}
