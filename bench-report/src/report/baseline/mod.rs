//! The change against `--baseline`, when one was given: a table per suite, since each compares
//! different figures, each with the test that decided under it.

mod cells;
mod fanout;
mod faults;
mod load;
mod means;

use crate::report::format::format_bytes;
use crate::report::reasons;
use crate::report::section::{Part, Section};
use crate::report::table::{Align, Table};
use bench_model::{BaselineComparison, ReleaseChange, Results};

/// The section, when a baseline was given.
pub fn section(results: &Results) -> Option<Section> {
    let comparison = results.baseline.as_ref()?;
    let file = comparison.file.as_str();
    let mut section = Section::new("Change against the baseline")
        .with(Part::Prose(format!(
            "Baseline: `{file}`{}. Rows are matched by what they measured (client, protocol, \
             scenario, mode, group, fault) and rows in only one run are left out; each table \
             says under it which test decides whether a difference counts.",
            comparison
                .baseline_started_utc
                .as_ref()
                .map(|started| format!(", started {started}"))
                .unwrap_or_default(),
        )))
        .with(Part::Text(summary(comparison)));
    if !comparison.changes.is_empty() {
        section = section
            .with(Part::Table(means::table(file, &comparison.changes)))
            .with(Part::Text(means::rule()));
    }
    if !comparison.load.is_empty() {
        section = section
            .with(Part::Table(load::load_table(file, &comparison.load)))
            .with(Part::Text(load::load_rule()));
    }
    if !comparison.fanout.is_empty() {
        section = section
            .with(Part::Table(fanout::table(file, &comparison.fanout)))
            .with(Part::Text(fanout::rule()));
    }
    if !comparison.releases.is_empty() {
        section = section
            .with(Part::Table(releases_table(file, &comparison.releases)))
            .with(Part::Text(
                "Releases: each figure judged by the rule the releases suite judges releases \
                 by (the verdict's: a timed figure's rounds apart and past 10%, instructions \
                 past 5%, a build measured once past 10%, a stripped size past 1%, crates \
                 exactly; the half-close by whether the client spun)."
                    .to_owned(),
            ));
    }
    if !comparison.faults.is_empty() {
        if let Some(table) = faults::table(file, &comparison.faults) {
            section = section.with(Part::Table(table));
        }
        section = section.with(Part::Text(faults::rule(&comparison.faults)));
    }
    Some(
        section.with_notes(
            comparison
                .not_compared
                .iter()
                .map(|why| format!("Not compared: {}.", reasons::not_compared(why)))
                .collect(),
        ),
    )
}

/// The releases suite's figures against the baseline's.
fn releases_table(file: &str, changes: &[ReleaseChange]) -> Table {
    use Align::{Left, Right};
    Table {
        title: format!("releases: change against {file}"),
        columns: vec![
            ("Release", Left),
            ("Figure", Left),
            ("Baseline", Right),
            ("Now", Right),
            ("Now/Baseline", Right),
            ("Verdict", Left),
        ],
        rows: changes
            .iter()
            .map(|change| {
                let value = &change.value;
                let shown = |figure: f64| match change.unit.as_str() {
                    "B" => format_bytes(figure),
                    "" => format!("{figure:.1}"),
                    unit => format!("{figure:.1} {unit}"),
                };
                vec![
                    change.release.clone(),
                    change.figure.clone(),
                    shown(value.baseline),
                    shown(value.now),
                    format!("{:.3}", value.now / value.baseline),
                    value.rule.clone(),
                ]
            })
            .collect(),
    }
}

/// "Changed beyond noise: latency 1 of 10 rows, fanout 0 of 36 (36 cannot tell), ...".
fn summary(comparison: &BaselineComparison) -> String {
    let mut suites: Vec<(String, Vec<Vec<Option<bool>>>)> = Vec::new();
    for change in &comparison.changes {
        let suite = change.suite.to_string();
        match suites.iter_mut().find(|(name, _)| *name == suite) {
            Some((_, rows)) => rows.push(vec![change.significant]),
            None => suites.push((suite, vec![vec![change.significant]])),
        }
    }
    let named = |name: &str, rows: Vec<Vec<Option<bool>>>| (name.to_owned(), rows);
    suites.extend([
        named(
            "load",
            comparison
                .load
                .iter()
                .map(|change| vec![change.mean_us.significant, change.failures.significant])
                .collect(),
        ),
        named(
            "fanout",
            comparison
                .fanout
                .iter()
                .map(|change| {
                    vec![
                        change.wall_ms_median.significant,
                        change.failures.significant,
                        change.connections_opened.significant,
                    ]
                })
                .collect(),
        ),
        named(
            "faults",
            comparison
                .faults
                .iter()
                .map(|change| vec![change.outcome.significant, change.elapsed_ms.significant])
                .collect(),
        ),
        named(
            "releases",
            comparison
                .releases
                .iter()
                .map(|change| vec![change.value.significant])
                .collect(),
        ),
    ]);
    let parts: Vec<String> = suites
        .into_iter()
        .filter(|(_, rows)| !rows.is_empty())
        .map(|(suite, rows)| {
            let changed = rows.iter().filter(|row| row.contains(&Some(true))).count();
            let unknown = rows
                .iter()
                .filter(|row| !row.contains(&Some(true)) && row.contains(&None))
                .count();
            let unknown = if unknown == 0 {
                String::new()
            } else {
                format!(" ({unknown} cannot tell)")
            };
            format!("{suite} {changed} of {}{unknown}", rows.len())
        })
        .collect();
    if parts.is_empty() {
        "No row of this run has a match in the baseline.".to_owned()
    } else {
        format!("Rows changed beyond their noise: {}.", parts.join(", "))
    }
}

#[cfg(test)]
mod tests;
