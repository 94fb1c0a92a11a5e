//! The machine during the run: busy share, CPU steal and load average per suite, and a word of
//! warning where they may have moved the figures.

use crate::report::format::optional;
use crate::report::section::{Part, Section};
use crate::report::table::{Align, Table};
use bench_model::{MachineLoad, Results, SuiteName};

/// Steal above this share over a suite, or in any half second of it, is worth a warning: the
/// hypervisor took CPU time from the bench, which shows as slow, noisy samples.
const STEAL_WARNING_PERCENT: f64 = 1.0;
const STEAL_INTERVAL_WARNING_PERCENT: f64 = 5.0;

/// The section, when any suite ran.
pub fn section(results: &Results) -> Option<Section> {
    if results.machine.is_empty() {
        return None;
    }
    Some(
        Section::new("machine")
            .with(Part::Table(table(&results.machine)))
            .with(Part::Prose(NOTE.to_owned()))
            .with_notes(warnings(
                &results.machine,
                results.environment.logical_cores,
            )),
    )
}

fn table(rows: &[MachineLoad]) -> Table {
    use Align::{Left, Right};
    let percent = |value: Option<f64>| optional(value, |value| format!("{value:.1}%"));
    Table {
        title: "machine: what the CPUs did during each suite (sampled every 0.5 s)".to_owned(),
        columns: vec![
            ("Suite", Left),
            ("Time", Right),
            ("CPU busy", Right),
            ("Steal", Right),
            ("Steal, worst 0.5 s", Right),
            ("Load (1 min), max", Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                vec![
                    row.suite.to_string(),
                    format!("{:.1} s", row.seconds),
                    percent(row.busy_percent),
                    percent(row.steal_percent),
                    percent(row.steal_percent_max),
                    optional(row.load1_max, |load| format!("{load:.2}")),
                ]
            })
            .collect(),
    }
}

/// A line per suite whose CPUs were stolen from, or whose load exceeded the CPUs.
fn warnings(rows: &[MachineLoad], cpus: usize) -> Vec<String> {
    rows.iter()
        .filter_map(|row| {
            let steal = row.steal_percent.unwrap_or(0.0);
            let worst = row.steal_percent_max.unwrap_or(0.0);
            let mut why = Vec::new();
            if steal > STEAL_WARNING_PERCENT || worst > STEAL_INTERVAL_WARNING_PERCENT {
                why.push(format!(
                    "the hypervisor took {steal:.1}% of the CPUs' time (up to {worst:.1}% in a \
                     half second)"
                ));
            }
            // A suite that drives the service runs many threads of its own (the generator, the
            // api's workers and blocking pool, mock-rates), so its load says nothing of other
            // work; the others keep at most about one thread per CPU busy, so load beyond twice
            // the CPUs there means something else ran too.
            let runs_many_threads = matches!(
                row.suite,
                SuiteName::Load | SuiteName::Fanout | SuiteName::Faults | SuiteName::Resilience
            );
            if let Some(load) = row
                .load1_max
                .filter(|&load| !runs_many_threads && load > 2.0 * cpus as f64)
            {
                why.push(format!(
                    "the load average reached {load:.2} on {cpus} CPUs: other work competed"
                ));
            }
            (!why.is_empty()).then(|| {
                format!(
                    "{}: {}; its figures are noisier than on a quiet machine",
                    row.suite,
                    why.join(", and ")
                )
            })
        })
        .collect()
}

const NOTE: &str = "**CPU busy** is the share of all CPUs' time spent neither idle nor waiting \
    for I/O during the suite (the bench, its servers and anything else on the machine); \
    **Steal** the share a hypervisor gave to other guests, over the suite and in its worst half \
    second; **Load** the highest 1-minute load average read (it lags a minute behind, and the \
    load, fanout and faults suites raise it with threads of their own). Steal, or a load above \
    the CPUs in a suite that runs one thing at a time, means the figures of that suite were \
    taken on a machine that was not the bench's alone.";

#[cfg(test)]
mod tests {
    use super::*;

    fn row(suite: SuiteName, steal: f64, worst: f64, load: f64) -> MachineLoad {
        MachineLoad {
            suite,
            seconds: 30.0,
            readings: 60,
            busy_percent: Some(55.0),
            steal_percent: Some(steal),
            steal_percent_max: Some(worst),
            load1_max: Some(load),
        }
    }

    #[test]
    fn steal_and_load_beyond_the_cpus_are_warned_about_and_a_quiet_suite_is_not() {
        let rows = [
            row(SuiteName::Latency, 0.1, 0.8, 1.9),
            row(SuiteName::Load, 2.5, 9.0, 3.0),
            row(SuiteName::Decode, 0.0, 0.0, 5.1),
            // The load suite's own threads make its load; only steal would be worth a word.
            row(SuiteName::Fanout, 0.0, 0.0, 6.0),
        ];
        let lines = warnings(&rows, 2);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(
            lines[0].starts_with("load: the hypervisor took 2.5%"),
            "{lines:?}"
        );
        assert!(
            lines[1].contains("load average reached 5.10 on 2 CPUs"),
            "{lines:?}"
        );
        let rendered = table(&rows).render();
        assert!(rendered.contains("| latency |"), "{rendered}");
        assert!(rendered.contains("9.0%"), "{rendered}");
    }
}
