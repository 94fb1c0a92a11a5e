//! The change against `--baseline`, when one was given.

use crate::model::{BaselineComparison, Results};
use crate::report::format::{format_count, format_time};
use crate::report::section::{Part, Section};
use crate::report::table::{Align, Table};

/// The section, when a baseline was given.
pub fn section(results: &Results) -> Option<Section> {
    let comparison = results.baseline.as_ref()?;
    Some(
        Section::new("Change against the baseline")
            .with(Part::Prose(format!(
                "Baseline: `{}`{}. A change is real when it exceeds the combined Error, \
                 sqrt(Error_then^2 + Error_now^2); for instruction counts (cost), whose runs \
                 repeat within about 1%, each run's Error is taken as 1% of its count.",
                comparison.file,
                comparison
                    .baseline_started_utc
                    .as_ref()
                    .map(|started| format!(", started {started}"))
                    .unwrap_or_default(),
            )))
            .with(Part::Table(baseline_table(comparison))),
    )
}

fn baseline_table(comparison: &BaselineComparison) -> Table {
    use Align::{Left, Right};
    Table {
        title: format!("change against {}", comparison.file),
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
        rows: comparison
            .changes
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
