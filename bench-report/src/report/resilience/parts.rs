//! The tables of the parts sized from the capacity: restart, overload, slow clients, soak.

use crate::report::format::format_ms;
use crate::report::table::{Align, Table};
use bench_model::{PhaseCounts, ResilienceResults, SlowConnections};

/// "200 x99, 502 x1" (answers by status), "-" for none.
pub(super) fn statuses(phase: &PhaseCounts) -> String {
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

pub(super) fn restart_table(rows: &ResilienceResults) -> Table {
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
                    row.label(),
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

pub(super) fn unanswered_suffix(phase: &PhaseCounts) -> String {
    match phase.unanswered() {
        0 => String::new(),
        none => format!(", no answer x{none}"),
    }
}

pub(super) fn overload_table(rows: &ResilienceResults) -> Table {
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
                    row.label(),
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

pub(super) fn slow_table(rows: &ResilienceResults) -> Table {
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
                    row.label(),
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

pub(super) fn slow_line(slow: &SlowConnections) -> String {
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

pub(super) fn soak_table(rows: &ResilienceResults) -> Table {
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
                    row.label(),
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
