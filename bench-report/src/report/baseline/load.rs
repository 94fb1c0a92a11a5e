//! The load suite's rows against the baseline: the open-model runs.

use std::fmt::Write as _;

use crate::report::baseline::cells::{Figure, count_word, direction, ratio, then_now, verdict};
use crate::report::format::format_us_as_ms;
use crate::report::table::{Align, Table};
use bench_model::stats::summary::Z_999;
use bench_model::{LoadChange, size_name};

/// Under the load table: what decided.
pub fn load_rule() -> String {
    format!(
        "Decided by: the mean latency against {Z_999:.2} standard errors of the difference \
         (two-sided 99.9%), sqrt(SE_then^2 + SE_now^2) with SE = StdDev / sqrt(successful \
         requests). The requests of one run queue behind one another and share the machine, so \
         they are not independent and this is a lower bound on the noise: a change here is \
         beyond sampling noise, not necessarily beyond the machine's drift between runs (if GET \
         /health/live, the framework alone, moved as well, the machine did). Failed or skipped \
         requests: none in one run and some in the other always counts; else their rates must \
         differ by more than {Z_999:.2} Poisson standard errors. P99 is shown, not judged."
    )
}

pub fn load_table(file: &str, changes: &[LoadChange]) -> Table {
    use Align::{Left, Right};
    Table {
        title: format!("load: open model, change against {file}"),
        columns: vec![
            ("Scenario", Left),
            ("Mean then -> now", Right),
            ("Now/Baseline", Right),
            ("P99 then -> now", Right),
            ("Failed or skipped", Right),
            ("Verdict", Left),
            ("Decided by", Left),
        ],
        rows: changes
            .iter()
            .map(|change| {
                let mut scenario = change.protocol.qualify(change.scenario);
                if let Some(bytes) = change.body_bytes {
                    let _ = write!(scenario, ", {} answer", size_name(bytes));
                }
                if change.target_rps.baseline != change.target_rps.now {
                    let _ = write!(
                        scenario,
                        " (at {} then, {} RPS now)",
                        change.target_rps.baseline, change.target_rps.now
                    );
                }
                let (verdict, decided) = verdict(&[
                    Figure::of(
                        "mean",
                        &change.mean_us,
                        direction(&change.mean_us, "slower", "faster"),
                    ),
                    Figure::of(
                        "failures",
                        &change.failures,
                        count_word(&change.failures, "failures"),
                    ),
                ]);
                vec![
                    scenario,
                    then_now(
                        &format_us_as_ms(change.mean_us.baseline),
                        &format_us_as_ms(change.mean_us.now),
                    ),
                    ratio(&change.mean_us),
                    then_now(
                        &format_us_as_ms(change.p99_us.baseline),
                        &format_us_as_ms(change.p99_us.now),
                    ),
                    then_now(
                        &change.failures.baseline.to_string(),
                        &change.failures.now.to_string(),
                    ),
                    verdict,
                    decided,
                ]
            })
            .collect(),
    }
}
