//! The load suite's rows against the baseline: the open-model runs and the capacity step.

use std::fmt::Write as _;

use crate::baseline::CAPACITY_REPEATABILITY;
use crate::model::{CapacityChange, LoadChange};
use crate::report::baseline::cells::{Figure, count_word, direction, ratio, then_now, verdict};
use crate::report::format::{format_us_as_ms, optional};
use crate::report::table::{Align, Table};
use crate::stats::Z_999;

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

/// Under the capacity table: what decided.
pub fn capacity_rule() -> String {
    let per_run = CAPACITY_REPEATABILITY * 100.0;
    format!(
        "Decided by: the best level's requests per second, each run's taken as good to \
         {per_run:.0}% of itself, so a change beyond sqrt(({per_run:.0}% then)^2 + \
         ({per_run:.0}% now)^2), about {:.0}%, counts. {per_run:.0}% is what two back-to-back \
         default load runs of one build gave on the project's 2-vCPU machine (capacities \
         0.79-1.08x apart): the figure is one level of one run with no samples, and the \
         generator, the api and mock-rates share the machine's cores; such a pair of runs shows \
         a machine's own figure in Now/Baseline. A scenario with a level free of \
         failures in only one run has changed. The best level's concurrency is shown, not \
         judged: on a plateau neighbouring levels lie within noise of each other.",
        per_run * std::f64::consts::SQRT_2
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

pub fn capacity_table(file: &str, changes: &[CapacityChange]) -> Table {
    use Align::{Left, Right};
    let rps = |value: Option<f64>| optional(value, |rps| format!("{rps:.0}"));
    let concurrency = |value: Option<u32>| optional(value, |level| level.to_string());
    Table {
        title: format!("capacity: highest throughput without failures, change against {file}"),
        columns: vec![
            ("Scenario", Left),
            ("Max RPS then -> now", Right),
            ("Now/Baseline", Right),
            ("At concurrency", Right),
            ("Verdict", Left),
            ("Decided by", Left),
        ],
        rows: changes
            .iter()
            .map(|change| {
                let word = match (change.max_rps.baseline, change.max_rps.now) {
                    (Some(_), None) => "every level failed".to_owned(),
                    (None, Some(_)) => "a level without failures again".to_owned(),
                    _ => direction(&change.max_rps, "more req/s", "fewer req/s"),
                };
                let (verdict, decided) = verdict(&[Figure::of("max RPS", &change.max_rps, word)]);
                let mut at = then_now(
                    &concurrency(change.at_concurrency.baseline),
                    &concurrency(change.at_concurrency.now),
                );
                if !change.same_levels {
                    at.push_str(" (other levels)");
                }
                vec![
                    change.protocol.qualify(change.scenario),
                    then_now(&rps(change.max_rps.baseline), &rps(change.max_rps.now)),
                    ratio(&change.max_rps),
                    at,
                    verdict,
                    decided,
                ]
            })
            .collect(),
    }
}
