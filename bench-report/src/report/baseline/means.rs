//! The latency, decode and cost rows against the baseline: a mean each.

use crate::baseline::COST_REPEATABILITY;
use crate::report::format::{format_count, format_time};
use crate::report::table::{Align, Table};
use bench_model::Change;

/// Under the table: what decided.
pub fn rule() -> String {
    format!(
        "Decided by the combined Error, sqrt(Error_then^2 + Error_now^2): each Error is the \
         half-width of a 99.9% confidence interval of the mean of the samples, and a difference \
         beyond both together counts. Instruction counts (cost) have no samples: each run's is \
         taken as good to {:.0}% of itself (two runs of one build repeated within that here).",
        COST_REPEATABILITY * 100.0
    )
}

pub fn table(file: &str, changes: &[Change]) -> Table {
    use Align::{Left, Right};
    Table {
        title: format!("latency, decode and cost: change against {file}"),
        columns: vec![
            ("Suite", Left),
            ("Row", Left),
            ("Baseline", Right),
            ("Now", Right),
            ("Now/Baseline", Right),
            ("Combined Error", Right),
            ("Verdict", Left),
            ("Allocs/op then -> now", Right),
        ],
        rows: changes
            .iter()
            .map(|change| {
                vec![
                    change.suite.to_string(),
                    change.row.clone(),
                    format_time(Some(change.baseline_mean), &change.unit),
                    format_time(Some(change.mean), &change.unit),
                    format!("{:.3}", change.ratio),
                    format_time(change.combined_error, &change.unit),
                    change.verdict().to_owned(),
                    format!(
                        "{} -> {}",
                        format_count(change.baseline_allocs_per_op),
                        format_count(change.allocs_per_op)
                    ),
                ]
            })
            .collect(),
    }
}
