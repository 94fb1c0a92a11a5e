//! The resilience suite's part of the report: capacity, restart, overload, slow clients and
//! soak tables, and the notes that say where a client missed the suite's targets.

use crate::model::{
    ClientCapacity, ClientName, PhaseCounts, ResilienceResults, Results, SlowConnections, SuiteName,
};
use crate::report::format::format_ms;
use crate::report::section::{Part, Section};
use crate::report::table::{Align, Table};

/// The targets the notes hold each row to.
const RECOVERY_TARGET_MS: f64 = 1_000.0;
const RSS_GROWTH_TARGET_PERCENT: f64 = 5.0;

/// The section, when the suite ran or was skipped.
pub fn section(results: &Results) -> Option<Section> {
    if let Some(why) = &results.resilience_skipped {
        return Some(
            Section::suite(SuiteName::Resilience).with(Part::Prose(format!("Skipped: {why}."))),
        );
    }
    let rows = &results.resilience;
    if rows.is_empty() {
        return None;
    }
    let mut section = Section::suite(SuiteName::Resilience).with(Part::Table(capacity_table(rows)));
    if rows
        .capacity
        .iter()
        .any(|row| row.cpu_quota_millicpus.is_some())
    {
        section = section
            .with(Part::Table(quota_table(rows)))
            .with(Part::Prose(QUOTA.to_owned()));
    }
    if let Some(why) = &rows.cpu_quota_skipped {
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

/// "200 x99, 502 x1" (answers by status), "-" for none.
fn statuses(phase: &PhaseCounts) -> String {
    if phase.statuses.is_empty() {
        return "-".to_owned();
    }
    phase
        .statuses
        .iter()
        .map(|count| format!("{} x{}", count.status, count.count))
        .collect::<Vec<_>>()
        .join(", ")
}

fn capacity_table(rows: &ResilienceResults) -> Table {
    Table {
        title: format!(
            "resilience: capacity, the highest open-model rate held through a confirmation \
             stretch (nothing failed or unsent, p99 within {}), the median of its rounds",
            rows.capacity
                .first()
                .map_or_else(String::new, |row| format_ms(Some(row.latency_objective_ms)))
        ),
        columns: vec![
            ("Client", Align::Left),
            ("Capacity", Align::Right),
            ("Rounds", Align::Left),
            ("p99 of the confirmations", Align::Left),
            ("Soak at half of it", Align::Left),
        ],
        rows: rows
            .capacity
            .iter()
            .filter(|row| row.cpu_quota_millicpus.is_none())
            .map(|row| {
                let rounds: Vec<String> = row
                    .rounds
                    .iter()
                    .map(|round| {
                        round
                            .capacity_rps
                            .map_or_else(|| "none held".to_owned(), |rps| rps.to_string())
                    })
                    .collect();
                let p99s: Vec<String> = row
                    .rounds
                    .iter()
                    .map(|round| {
                        round
                            .confirmations
                            .iter()
                            .find(|step| Some(step.rps) == round.capacity_rps)
                            .map_or_else(
                                || "-".to_owned(),
                                |step| format_ms(step.requests.ok_p99_ms),
                            )
                    })
                    .collect();
                vec![
                    row.client.to_string(),
                    row.capacity_rps
                        .map_or_else(|| "none held".to_owned(), |rps| format!("{rps} RPS")),
                    rounds.join(" / "),
                    p99s.join(" / "),
                    row.refuted
                        .as_ref()
                        .map_or_else(|| "held".to_owned(), |why| format!("refuted: {why}")),
                ]
            })
            .collect(),
    }
}

/// Each client's capacity under each CPU quota, against its own without one.
fn quota_table(rows: &ResilienceResults) -> Table {
    let free = |client| {
        rows.capacity
            .iter()
            .find(|row| row.client == client && row.cpu_quota_millicpus.is_none())
            .and_then(|row| row.capacity_rps)
    };
    let rps =
        |rps: Option<u32>| rps.map_or_else(|| "none held".to_owned(), |rps| format!("{rps} RPS"));
    let mut quoted: Vec<&ClientCapacity> = rows
        .capacity
        .iter()
        .filter(|row| row.cpu_quota_millicpus.is_some())
        .collect();
    // Client by client, the largest quota first.
    quoted.sort_by_key(|row| {
        (
            ClientName::ALL
                .iter()
                .position(|known| *known == row.client),
            std::cmp::Reverse(row.cpu_quota_millicpus),
        )
    });
    Table {
        title: "resilience: capacity with the service held to a CPU quota (a CFS quota, 100 ms \
                period, as a Kubernetes CPU limit), against the same client without one"
            .to_owned(),
        columns: vec![
            ("Client", Align::Left),
            ("CPU quota", Align::Right),
            ("Capacity", Align::Right),
            ("Rounds", Align::Left),
            ("Without a quota", Align::Right),
            ("Share kept", Align::Right),
        ],
        rows: quoted
            .into_iter()
            .map(|row| {
                let without = free(row.client);
                let share = row
                    .capacity_rps
                    .zip(without)
                    .filter(|&(_, without)| without > 0)
                    .map_or_else(
                        || "-".to_owned(),
                        |(with, without)| {
                            format!("{:.0}%", f64::from(with) * 100.0 / f64::from(without))
                        },
                    );
                vec![
                    row.client.to_string(),
                    row.cpu_quota_millicpus.map_or_else(String::new, cpus),
                    rps(row.capacity_rps),
                    row.rounds
                        .iter()
                        .map(|round| rps(round.capacity_rps))
                        .collect::<Vec<_>>()
                        .join(" / "),
                    rps(without),
                    share,
                ]
            })
            .collect(),
    }
}

/// Millicpus as a Kubernetes limit reads: `1 CPU`, `0.5 CPU`.
fn cpus(millicpus: u32) -> String {
    format!("{} CPU", f64::from(millicpus) / 1_000.0)
}

const QUOTA: &str = "Under a CPU quota the service's process gets `quota x 100 ms` of CPU time \
    per 100 ms period, across all its threads, and is stopped for the rest of the period once \
    that is spent: a client whose work lands on extra threads (a blocking pool, libcurl's agent \
    thread, a second runtime) spends the same budget. The ramp and the confirmations are the \
    unquoted capacity's; mock-rates and the load generator are not held to any quota. \
    **Share kept** is the capacity under the quota as a share of the same client's without \
    one, measured earlier in the same run.";

fn restart_table(rows: &ResilienceResults) -> Table {
    Table {
        title: "resilience: mock-rates killed and restarted on its port under a steady load"
            .to_owned(),
        columns: vec![
            ("Client", Align::Left),
            ("RPS", Align::Right),
            ("Down", Align::Right),
            ("While down: answers", Align::Left),
            ("answer p99", Align::Right),
            ("After: failed", Align::Right),
            ("First success", Align::Right),
            ("Last failure", Align::Right),
        ],
        rows: rows
            .restart
            .iter()
            .map(|row| {
                vec![
                    row.client.to_string(),
                    row.rps.to_string(),
                    format_ms(Some(row.outage_ms)),
                    format!(
                        "{}{}",
                        statuses(&row.outage),
                        unanswered_suffix(&row.outage)
                    ),
                    format_ms(row.outage.answer_p99_ms),
                    format!("{} of {}", row.after.sent - row.after.ok, row.after.sent),
                    format_ms(row.first_success_ms),
                    row.last_failure_ms
                        .map_or_else(|| "none".to_owned(), |ms| format_ms(Some(ms))),
                ]
            })
            .collect(),
    }
}

fn unanswered_suffix(phase: &PhaseCounts) -> String {
    match phase.unanswered() {
        0 => String::new(),
        none => format!(", no answer x{none}"),
    }
}

fn overload_table(rows: &ResilienceResults) -> Table {
    Table {
        title: "resilience: overload, half the capacity, then twice it, then half again; \
                GET /health/live alongside"
            .to_owned(),
        columns: vec![
            ("Client", Align::Left),
            ("RPS", Align::Left),
            ("Overload: 200", Align::Right),
            ("503", Align::Right),
            ("other", Align::Right),
            ("no answer", Align::Right),
            ("not sent", Align::Right),
            ("200 p99", Align::Right),
            ("503 p50", Align::Right),
            ("health p99", Align::Right),
            ("Normal again after", Align::Right),
            ("All counted", Align::Left),
        ],
        rows: rows
            .overload
            .iter()
            .map(|row| {
                let overload = &row.overload;
                // Saturating: an answer whose body then broke off counts as a status and as
                // unanswered.
                let other = overload.sent.saturating_sub(
                    overload.ok + overload.with_status(503) + overload.unanswered(),
                );
                vec![
                    row.client.to_string(),
                    format!("{} -> {}", row.normal_rps, row.overload_rps),
                    overload.ok.to_string(),
                    overload.with_status(503).to_string(),
                    other.to_string(),
                    overload.unanswered().to_string(),
                    row.skipped.to_string(),
                    format_ms(overload.ok_p99_ms),
                    format_ms(
                        overload
                            .answer_p50_ms
                            .filter(|_| overload.with_status(503) > 0),
                    ),
                    format_ms(row.health.answer_p99_ms),
                    row.recovered_after_ms
                        .map_or_else(|| "not within the run".to_owned(), |ms| format_ms(Some(ms))),
                    if row.accounted() { "yes" } else { "NO" }.to_owned(),
                ]
            })
            .collect(),
    }
}

fn slow_table(rows: &ResilienceResults) -> Table {
    let held = rows.slow_connections.as_ref().map_or(0, |slow| slow.opened);
    Table {
        title: format!(
            "resilience: payments without and with slow connections (half a request head, then \
             nothing) held open; {held} opened in all"
        ),
        columns: vec![
            ("Client", Align::Left),
            ("RPS", Align::Right),
            ("p99 without", Align::Right),
            ("p99 with", Align::Right),
            ("Held when it started", Align::Right),
            ("Failed without / with", Align::Right),
        ],
        rows: rows
            .slow_clients
            .iter()
            .map(|row| {
                vec![
                    row.client.to_string(),
                    row.rps.to_string(),
                    format_ms(row.without.ok_p99_ms),
                    format_ms(row.with.ok_p99_ms),
                    row.held_at_start.to_string(),
                    format!(
                        "{} / {}",
                        row.without.sent - row.without.ok,
                        row.with.sent - row.with.ok
                    ),
                ]
            })
            .collect(),
    }
}

fn slow_line(slow: &SlowConnections) -> String {
    format!(
        "The service closed {} of the slow connections ({} with a 408 first) after {} (min), \
         {} (median), {} (max); {} were still open when the bench stopped waiting, and {} could \
         not be opened.",
        slow.closed_by_server,
        slow.answered_408,
        format_ms(slow.lifetime_min_ms),
        format_ms(slow.lifetime_p50_ms),
        format_ms(slow.lifetime_max_ms),
        slow.still_open,
        slow.failed
    )
}

fn soak_table(rows: &ResilienceResults) -> Table {
    Table {
        title: "resilience: soak at half the capacity, the service's RSS and open descriptors \
                from the warm-up's end to the last reading"
            .to_owned(),
        columns: vec![
            ("Client", Align::Left),
            ("RPS", Align::Right),
            ("Time", Align::Right),
            ("ok / sent", Align::Right),
            ("p99", Align::Right),
            ("RSS", Align::Left),
            ("RSS growth", Align::Right),
            ("Descriptors", Align::Left),
            ("Growth", Align::Right),
        ],
        rows: rows
            .soak
            .iter()
            .map(|row| {
                let kib = |value: Option<u64>| {
                    value.map_or_else(
                        || "NA".to_owned(),
                        |kib| format!("{:.1} MB", kib as f64 / 1024.0),
                    )
                };
                let count =
                    |value: Option<u64>| value.map_or_else(|| "NA".to_owned(), |n| n.to_string());
                vec![
                    row.client.to_string(),
                    row.rps.to_string(),
                    format!("{:.0} s", row.duration_ms as f64 / 1_000.0),
                    format!("{} / {}", row.requests.ok, row.requests.sent),
                    format_ms(row.requests.ok_p99_ms),
                    format!(
                        "{} -> {}",
                        kib(row.rss_after_warmup_kib),
                        kib(row.rss_end_kib)
                    ),
                    row.rss_growth_percent()
                        .map_or_else(|| "NA".to_owned(), |growth| format!("{growth:+.1}%")),
                    format!("{} -> {}", count(row.fds_after_warmup), count(row.fds_end)),
                    row.fd_growth()
                        .map_or_else(|| "NA".to_owned(), |growth| format!("{growth:+}")),
                ]
            })
            .collect(),
    }
}

/// Where a row missed a target of the suite, in words.
fn notes(rows: &ResilienceResults) -> Vec<String> {
    let mut notes = Vec::new();
    for row in &rows.restart {
        let timeouts = row.outage.with_status(504);
        if timeouts > 0 {
            notes.push(format!(
                "{}: {timeouts} payments got 504 while mock-rates was down, rather than a fast 502",
                row.client
            ));
        }
        if row.first_success_ms.is_none() {
            notes.push(format!(
                "{}: no payment succeeded after mock-rates was back",
                row.client
            ));
        }
    }
    for row in &rows.overload {
        match row.recovered_after_ms {
            Some(ms) if ms <= RECOVERY_TARGET_MS => {}
            Some(ms) => notes.push(format!(
                "{}: latency was back to normal {} after the overload, later than {}",
                row.client,
                format_ms(Some(ms)),
                format_ms(Some(RECOVERY_TARGET_MS))
            )),
            None => notes.push(format!(
                "{}: latency was not back to normal before the run ended",
                row.client
            )),
        }
        if !row.accounted() {
            notes.push(format!(
                "{}: of {} requests on the overload's timetable, {} were neither counted nor \
                 skipped",
                row.client,
                row.scheduled,
                row.scheduled
                    .abs_diff(row.before.sent + row.overload.sent + row.after.sent + row.skipped)
            ));
        }
        if row.overload.unanswered() > 0 {
            notes.push(format!(
                "{}: {} requests got no answer during the overload",
                row.client,
                row.overload.unanswered()
            ));
        }
        if row.health.ok < row.health.sent {
            notes.push(format!(
                "{}: {} of {} health checks failed during the overload",
                row.client,
                row.health.sent - row.health.ok,
                row.health.sent
            ));
        }
    }
    if let Some(slow) = &rows.slow_connections
        && slow.still_open > 0
    {
        notes.push(format!(
            "{} slow connections were not closed by the service",
            slow.still_open
        ));
    }
    for row in &rows.soak {
        if row
            .rss_growth_percent()
            .is_some_and(|growth| growth >= RSS_GROWTH_TARGET_PERCENT)
        {
            notes.push(format!(
                "{}: RSS grew by {:.1}% after the warm-up (target: under {RSS_GROWTH_TARGET_PERCENT}%)",
                row.client,
                row.rss_growth_percent().unwrap_or_default()
            ));
        }
        if row.fd_growth().is_some_and(|growth| growth > 0) {
            notes.push(format!(
                "{}: {} more descriptors open at the end of the soak than after its warm-up \
                 (pooled connections count)",
                row.client,
                row.fd_growth().unwrap_or_default()
            ));
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ClientName, FailureCounts, OverloadRow, RestartRow, SoakRow, StatusCount};

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
    use crate::model::CapacityRound;

    fn capacity(client: ClientName, rps: u32, quota: Option<u32>) -> ClientCapacity {
        ClientCapacity {
            client,
            capacity_rps: Some(rps),
            latency_objective_ms: 25.0,
            rounds: vec![CapacityRound {
                capacity_rps: Some(rps),
                steps: Vec::new(),
                confirmations: Vec::new(),
            }],
            refuted: None,
            cpu_quota_millicpus: quota,
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
    fn a_quota_that_could_not_be_set_is_said() {
        let mut results = crate::report::fanout::test_rows::results("360");
        results.resilience = ResilienceResults {
            capacity: vec![capacity(ClientName::Hyper, 8_000, None)],
            cpu_quota_skipped: Some("no cgroup v1 cpu controller at /sys/fs/cgroup/cpu".to_owned()),
            ..ResilienceResults::default()
        };
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
