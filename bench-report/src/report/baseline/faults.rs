//! The faults suite's cells against the baseline: only the cells that changed are listed.

use crate::baseline::LATE_AFTER_TIMEOUT;
use crate::report::baseline::cells::{Figure, then_now, verdict};
use crate::report::format::format_ms;
use crate::report::table::{Align, Table};
use bench_model::{FaultChange, FaultOutcome};

/// Under the table: what decided, and how many cells stayed the same.
pub fn rule(changes: &[FaultChange]) -> String {
    let same = changes.iter().filter(|change| !changed(change)).count();
    format!(
        "{same} of {} cells are the same in every respect. Decided by: the outcome, compared \
         exactly (the error kind, the service's status, whether the next payment succeeded, \
         whether it hung): any difference counts. The time to answer counts only when it \
         crosses {:.1} x the service's timeout, one way or the other: a timeout fires at the \
         timeout plus a few ms, and one payment per cell is no sample to judge milliseconds by.",
        changes.len(),
        1.0 + LATE_AFTER_TIMEOUT
    )
}

fn changed(change: &FaultChange) -> bool {
    change.outcome.changed() || change.elapsed_ms.changed()
}

/// Whether this run's answer came past 1.5 x its timeout.
fn late_now(change: &FaultChange) -> bool {
    change.elapsed_ms.now > change.timeout_ms.now as f64 * (1.0 + LATE_AFTER_TIMEOUT)
}

/// "504 timeout", "HUNG", with " (next failed)" when the clean payment after it failed.
fn outcome(outcome: &FaultOutcome) -> String {
    let mut text = if outcome.hung {
        "HUNG".to_owned()
    } else {
        match outcome.status {
            Some(status) => format!("{status} {}", outcome.kind),
            None => outcome.kind.to_string(),
        }
    };
    if !outcome.next_ok {
        text.push_str(" (next failed)");
    }
    text
}

/// The cells that changed; `None` when none did.
pub fn table(file: &str, changes: &[FaultChange]) -> Option<Table> {
    use Align::{Left, Right};
    let rows: Vec<Vec<String>> = changes
        .iter()
        .filter(|change| changed(change))
        .map(|change| {
            let (verdict, decided) = verdict(&[
                Figure::of("outcome", &change.outcome, "outcome changed".to_owned()),
                Figure::of(
                    "time",
                    &change.elapsed_ms,
                    if late_now(change) {
                        "late".to_owned()
                    } else {
                        "in time again".to_owned()
                    },
                ),
            ]);
            let timeout = if change.timeout_ms.baseline == change.timeout_ms.now {
                format!("{} ms", change.timeout_ms.now)
            } else {
                format!(
                    "{} -> {} ms",
                    change.timeout_ms.baseline, change.timeout_ms.now
                )
            };
            vec![
                change.client.to_string(),
                change.fault.description().to_owned(),
                then_now(
                    &outcome(&change.outcome.baseline),
                    &outcome(&change.outcome.now),
                ),
                then_now(
                    &format_ms(Some(change.elapsed_ms.baseline)),
                    &format_ms(Some(change.elapsed_ms.now)),
                ),
                timeout,
                verdict,
                decided,
            ]
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    Some(Table {
        title: format!("faults: the cells that changed against {file}"),
        columns: vec![
            ("Client", Left),
            ("Fault", Left),
            ("Outcome then -> now", Left),
            ("Time then -> now", Right),
            ("Timeout", Right),
            ("Verdict", Left),
            ("Decided by", Left),
        ],
        rows,
    })
}
