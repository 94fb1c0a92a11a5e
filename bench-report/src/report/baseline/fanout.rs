//! The fanout suite's rows against the baseline.

use crate::baseline::{RANK_TEST_LEVEL, rank_test_values_needed};
use crate::report::baseline::cells::{Figure, count_word, direction, ratio, then_now, verdict};
use crate::report::format::{format_ms, optional};
use crate::report::table::{Align, Table};
use bench_model::stats::summary::Z_999;
use bench_model::{FanoutChange, FanoutSeries};

/// Under the table: what decided.
pub fn rule() -> String {
    let needed = rank_test_values_needed(RANK_TEST_LEVEL);
    format!(
        "Decided by: the median wall time by the Mann-Whitney U test of the fully successful \
         batches' wall times, two-sided at {RANK_TEST_LEVEL} (the bench's 99.9%): U counts the \
         pairs of batches, one of each run, in which now's took longer, and p is the chance of a \
         U that far from the middle if nothing changed (exact, ties included). The batches of \
         one run share the machine's state, so a small shift of the whole machine between runs \
         counts too: look at Now/Baseline before blaming the client. With fewer than \
         {needed} batches in either run the test cannot reach {RANK_TEST_LEVEL} (3 against 3 \
         give p = 0.1 at best) and the row says it cannot tell: run both with \
         --fanout-repetitions {needed}, and --fanout-sequential-repetitions {needed} for \
         sequential groups, to have it decide. Failed payments: none in one run and some in the \
         other always counts, else their rates must differ by more than {Z_999:.2} Poisson \
         standard errors; new connections: counts beyond {Z_999:.2} Poisson standard errors, \
         compared only between runs of equal repetitions."
    )
}

pub fn table(file: &str, changes: &[FanoutChange]) -> Table {
    use Align::{Left, Right};
    let count = |value: Option<u64>| optional(value, |count| count.to_string());
    Table {
        title: format!("fanout: change against {file}"),
        columns: vec![
            ("Client", Left),
            ("Mode", Left),
            ("Group", Right),
            ("Median wall then -> now", Right),
            ("Now/Baseline", Right),
            ("Batches", Right),
            ("Failed", Right),
            ("Connections", Right),
            ("Verdict", Left),
            ("Decided by", Left),
        ],
        rows: changes
            .iter()
            .map(|change| {
                let (verdict, decided) = verdict(&[
                    Figure::of(
                        "wall",
                        &change.wall_ms_median,
                        direction(&change.wall_ms_median, "slower", "faster"),
                    ),
                    Figure::of(
                        "failures",
                        &change.failures,
                        count_word(&change.failures, "failures"),
                    ),
                    Figure::of(
                        "connections",
                        &change.connections_opened,
                        match (
                            change.connections_opened.baseline,
                            change.connections_opened.now,
                        ) {
                            (Some(then), Some(now)) if now < then => "fewer connections",
                            _ => "more connections",
                        }
                        .to_owned(),
                    ),
                ]);
                vec![
                    FanoutSeries {
                        client: change.client,
                        protocol: change.protocol,
                        stream_limit: change.stream_limit,
                    }
                    .label(),
                    change.mode.as_str().to_owned(),
                    change.group_size.to_string(),
                    then_now(
                        &format_ms(change.wall_ms_median.baseline),
                        &format_ms(change.wall_ms_median.now),
                    ),
                    ratio(&change.wall_ms_median),
                    then_now(
                        &change.batches.baseline.to_string(),
                        &change.batches.now.to_string(),
                    ),
                    then_now(
                        &change.failures.baseline.to_string(),
                        &change.failures.now.to_string(),
                    ),
                    then_now(
                        &count(change.connections_opened.baseline),
                        &count(change.connections_opened.now),
                    ),
                    verdict,
                    decided,
                ]
            })
            .collect(),
    }
}
