//! The resilience suite's part of the report: capacity, restart, overload, slow clients and
//! soak tables, and the notes that say where a client missed the suite's targets.

use crate::report::section::{Part, Section};
use bench_model::{Results, SuiteName};

mod capacity;
mod generator;
mod notes;
mod parts;

use capacity::{QUOTA, capacity_table, pairing_line, quota_table};
use generator::{GENERATOR, generator_table, open_against_closed};
use notes::notes;
use parts::{overload_table, restart_table, slow_line, slow_table, soak_table};

/// The section, when the suite ran or was skipped.
pub fn section(results: &Results) -> Option<Section> {
    if let Some(why) = crate::report::not_run::suite_not_run(results, SuiteName::Resilience) {
        return Some(
            Section::suite(SuiteName::Resilience).with(Part::Prose(format!("Skipped: {why}."))),
        );
    }
    let rows = &results.resilience;
    if rows.is_empty() {
        return None;
    }
    let mut section = Section::suite(SuiteName::Resilience);
    if let Some(table) = generator_table(rows) {
        section = section
            .with(Part::Table(table))
            .with(Part::Prose(GENERATOR.to_owned()));
    }
    section = section
        .with(Part::Text(format!(
            "resilience: after the generator against wrk, every part ran with {}.",
            crate::verdict::service_cpus(results)
        )))
        .with(Part::Table(capacity_table(rows)));
    if let Some(line) = pairing_line(rows) {
        section = section.with(Part::Text(line));
    }
    if let Some(line) = open_against_closed(rows) {
        section = section.with(Part::Text(line));
    }
    if rows
        .capacity
        .iter()
        .any(|row| row.cpu_quota_millicpus.is_some())
    {
        section = section
            .with(Part::Table(quota_table(rows)))
            .with(Part::Prose(QUOTA.to_owned()));
    }
    if let Some(why) = crate::report::not_run::part_not_run(
        results,
        SuiteName::Resilience,
        bench_model::SuitePart::CpuQuota,
    ) {
        section = section.with(Part::Text(format!(
            "resilience: capacity under a CPU quota: not measured: {why}"
        )));
    }
    section = section
        .with(Part::Table(restart_table(rows)))
        .with(Part::Table(overload_table(rows)))
        .with(Part::Table(slow_table(rows)));
    if let Some(slow) = &rows.slow_connections {
        section = section.with(Part::Prose(slow_line(slow)));
    }
    section = section
        .with(Part::Table(soak_table(rows)))
        .with(Part::Prose(
        "Every request is counted by its due time on the open model's timetable. `503` answers \
         are the service shedding load (`capacity-exhausted`); `no answer` counts connection \
         errors, resets and the generator's 5 s timeout; `not sent` counts requests the \
         generator skipped with 1024 already in flight. The generator shares the machine's CPUs \
         with the service and mock-rates, so past the capacity it competes with them: the \
         overload's latencies include its own queueing."
            .to_owned(),
    ));
    Some(section.with_notes(notes(rows)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::{
        ClientName, FailureCounts, OverloadRow, PhaseCounts, Protocol, ResilienceResults,
        RestartRow, SoakRow, StatusCount,
    };

    fn phase(sent: u64, ok: u64, other: &[(u16, u64)]) -> PhaseCounts {
        let mut statuses = vec![StatusCount {
            status: 200,
            count: ok,
        }];
        let mut failures = FailureCounts::default();
        for &(status, count) in other {
            statuses.push(StatusCount { status, count });
            failures.status += count;
        }
        PhaseCounts {
            sent,
            ok,
            statuses,
            failures,
            answer_p50_ms: Some(1.0),
            answer_p99_ms: Some(2.0),
            ok_p99_ms: Some(2.0),
        }
    }

    #[test]
    fn notes_name_the_missed_targets_only() {
        let restart = |client, outage| RestartRow {
            client,
            protocol: Protocol::Http,
            rps: 200,
            outage_ms: 500.0,
            before: phase(100, 100, &[]),
            outage,
            after: phase(300, 300, &[]),
            first_success_ms: Some(3.0),
            last_failure_ms: None,
            skipped: 0,
            first_error: None,
        };
        let overload = |client, recovered_after_ms| OverloadRow {
            client,
            protocol: Protocol::Http,
            capacity_rps: 1_000.0,
            normal_rps: 500,
            overload_rps: 2_000,
            before: phase(500, 500, &[]),
            overload: phase(2_000, 1_000, &[(503, 1_000)]),
            after: phase(500, 500, &[]),
            skipped: 0,
            scheduled: 3_000,
            health: phase(50, 50, &[]),
            recovered_after_ms,
        };
        let soak = |client, end| SoakRow {
            client,
            protocol: Protocol::Http,
            rps: 500,
            duration_ms: 3_000,
            requests: phase(1_500, 1_500, &[]),
            samples: Vec::new(),
            rss_after_warmup_kib: Some(10_000),
            rss_end_kib: Some(end),
            fds_after_warmup: Some(30),
            fds_end: Some(30),
        };
        let rows = ResilienceResults {
            restart: vec![
                restart(ClientName::BASELINE, phase(100, 0, &[(502, 100)])),
                restart(ClientName::ALL[1], phase(100, 0, &[(504, 100)])),
            ],
            overload: vec![
                overload(ClientName::BASELINE, Some(200.0)),
                overload(ClientName::ALL[1], Some(1_500.0)),
            ],
            soak: vec![
                soak(ClientName::BASELINE, 10_100),
                soak(ClientName::ALL[1], 11_000),
            ],
            ..ResilienceResults::default()
        };
        let notes = notes(&rows);
        let second = ClientName::ALL[1].to_string();
        assert_eq!(notes.len(), 3, "{notes:#?}");
        assert!(
            notes.iter().all(|note| note.starts_with(&second)),
            "{notes:#?}"
        );
        assert!(notes[0].contains("504"));
        assert!(notes[1].contains("1500 ms"));
        assert!(notes[2].contains("10.0%"));
        let table = overload_table(&rows).render();
        assert!(table.contains("| 1000 |"), "{table}");
        assert!(rows.overload.iter().all(OverloadRow::accounted));
        // A request lost between the generator and the tally is named.
        let mut lost = rows.clone();
        lost.overload[0].scheduled += 1;
        lost.overload.truncate(1);
        lost.restart.clear();
        lost.soak.clear();
        let notes = super::notes(&lost);
        assert_eq!(notes.len(), 1, "{notes:#?}");
        assert!(
            notes[0].contains("1 were neither counted nor skipped"),
            "{notes:#?}"
        );
    }
}

#[cfg(test)]
mod quota_tests {
    use super::*;
    use bench_model::{CapacityRound, ClientCapacity, ClientName, Protocol, ResilienceResults};

    fn capacity(client: ClientName, rps: u32, quota: Option<u32>) -> ClientCapacity {
        ClientCapacity {
            client,
            protocol: Protocol::Http,
            capacity_rps: Some(rps),
            latency_objective_ms: 25.0,
            rounds: vec![CapacityRound {
                capacity_rps: Some(rps),
                steps: Vec::new(),
                confirmations: Vec::new(),
                beside: None,
            }],
            refuted: None,
            step_downs: Vec::new(),
            cpu_quota_millicpus: quota,
            tls: None,
            unchecked: None,
        }
    }

    #[test]
    fn quota_rows_have_their_own_table_against_the_capacity_without_one() {
        let rows = ResilienceResults {
            capacity: vec![
                capacity(ClientName::Hyper, 8_000, None),
                capacity(ClientName::Ureq, 4_000, None),
                capacity(ClientName::Ureq, 1_000, Some(500)),
                capacity(ClientName::Hyper, 2_000, Some(500)),
                capacity(ClientName::Hyper, 4_000, Some(1_000)),
            ],
            ..ResilienceResults::default()
        };
        let plain = capacity_table(&rows);
        assert_eq!(
            plain.rows.len(),
            2,
            "the quota rows are not in the plain table"
        );
        let quota = quota_table(&rows);
        let cells: Vec<Vec<&str>> = quota
            .rows
            .iter()
            .map(|row| row.iter().map(String::as_str).collect())
            .collect();
        assert_eq!(
            cells,
            [
                ["hyper", "1 CPU", "4000 RPS", "4000 RPS", "8000 RPS", "50%"],
                [
                    "hyper", "0.5 CPU", "2000 RPS", "2000 RPS", "8000 RPS", "25%"
                ],
                ["ureq", "0.5 CPU", "1000 RPS", "1000 RPS", "4000 RPS", "25%"],
            ]
        );
    }

    #[test]
    fn rows_over_tls_are_named_by_protocol_and_an_unchecked_one_is_no_figure() {
        let rows = ResilienceResults {
            capacity: vec![
                capacity(ClientName::Hyper, 8_000, None),
                ClientCapacity {
                    protocol: Protocol::H2,
                    ..capacity(ClientName::Hyper, 5_657, None)
                },
                ClientCapacity {
                    protocol: Protocol::Https,
                    unchecked: Some(bench_model::Unchecked::NoTls),
                    ..capacity(ClientName::Ureq, 4_000, None)
                },
            ],
            ..ResilienceResults::default()
        };
        let table = capacity_table(&rows);
        let cells: Vec<[&str; 2]> = table
            .rows
            .iter()
            .map(|row| [row[0].as_str(), row[1].as_str()])
            .collect();
        assert_eq!(
            cells,
            [
                ["hyper", "8000 RPS"],
                ["hyper over h2", "5657 RPS"],
                ["ureq over https", "not checked"]
            ]
        );
        assert_eq!(
            notes(&rows),
            [
                "ureq over https: not a figure: its calls over https negotiated no TLS that mock-rates counted"
            ]
        );
    }

    #[test]
    fn a_quota_that_could_not_be_set_is_said() {
        let mut results = crate::report::fanout::test_rows::results("360");
        results.resilience = ResilienceResults {
            capacity: vec![capacity(ClientName::Hyper, 8_000, None)],
            ..ResilienceResults::default()
        };
        results.not_run.push(bench_model::NotRun {
            suite: SuiteName::Resilience,
            part: Some(bench_model::SuitePart::CpuQuota),
            why: bench_model::NotRunWhy::Failed {
                error: "no cgroup v1 cpu controller at /sys/fs/cgroup/cpu".to_owned(),
            },
        });
        let text = section(&results).expect("the suite ran").terminal();
        assert!(
            text.contains("capacity under a CPU quota: not measured: no cgroup v1 cpu controller"),
            "{text}"
        );
        assert!(
            !text.contains("held to a CPU quota"),
            "no quota table without rows"
        );
    }
}
