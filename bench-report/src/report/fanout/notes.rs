//! The notes under the tables: what each figure means, and where a client fell short.

use super::cells::{IMPLAUSIBLE_EFFICIENCY, find};

use bench_model::stats::quantile::median_of;
use bench_model::{ClientName, FanoutMode, FanoutRow, Results, group_sizes};

/// What a reader needs beside the tables: the largest group's verdict, the overlap caps, the
/// bench's own view of the time, the repetitions, and every failure.
pub(super) fn notes(results: &Results) -> Vec<String> {
    let rows = &results.fanout;
    let settings = &results.settings.fanout;
    let series = results.fanout_series();
    let mut notes = Vec::new();
    if let Some(&largest) = group_sizes(rows).last() {
        let multiples: Vec<String> = series
            .iter()
            .filter_map(|series| {
                let row = find(rows, *series, FanoutMode::Concurrent, largest)?;
                let times = row.wall_ms_median? / settings.upstream_latency_ms as f64;
                Some(format!(
                    "{} {times:.2}x{}",
                    series.label(),
                    if row.over_cap() { "*" } else { "" }
                ))
            })
            .collect();
        if !multiples.is_empty() {
            notes.push(format!(
                "Largest group ({largest}), concurrent: wall time in upstream latencies \
                 ({} ms): {}.",
                settings.upstream_latency_ms,
                multiples.join(", ")
            ));
        }
        let speedups: Vec<String> = series
            .iter()
            .filter_map(|series| {
                let sequential = find(rows, *series, FanoutMode::Sequential, largest)?;
                let concurrent = find(rows, *series, FanoutMode::Concurrent, largest)?;
                let speedup = sequential.wall_ms_median? / concurrent.wall_ms_median?;
                Some(format!("{} {speedup:.1}x", series.label()))
            })
            .collect();
        if !speedups.is_empty() {
            notes.push(format!(
                "Concurrent against sequential at {largest}: {} faster.",
                speedups.join(", ")
            ));
        }
    }
    let mut clients: Vec<ClientName> = Vec::new();
    for series in &series {
        if !clients.contains(&series.client) {
            clients.push(series.client);
        }
    }
    notes.push(caps_note(rows, &clients));
    let overheads: Vec<String> = series
        .iter()
        .filter_map(|series| {
            let differences: Vec<f64> = rows
                .iter()
                .filter(|row| row.series() == *series)
                .filter_map(|row| Some(row.request_ms_median? - row.wall_ms_median?))
                .collect();
            let median = median_of(&differences)?;
            Some(format!("{} {median:+.1} ms", series.label()))
        })
        .collect();
    if !overheads.is_empty() {
        notes.push(format!(
            "The bench's request time minus the api's wall time (median over a client's rows; \
             the HTTP exchange with the api and the items' JSON): {}.",
            overheads.join(", ")
        ));
    }
    notes.push(format!(
        "Each concurrent group was sent {}x (--fanout-repetitions) and each sequential group \
         {}x (--fanout-sequential-repetitions): a sequential group of N takes N upstream \
         latencies, so one pass is the default.",
        settings.repetitions, settings.sequential_repetitions
    ));
    if rows.iter().any(|row| {
        row.efficiency
            .is_some_and(|value| value > IMPLAUSIBLE_EFFICIENCY)
    }) {
        notes.push(
            "Warning: some groups beat the ideal: the api's upstream is probably not the \
             mock-rates whose latency the bench set (--api-url and --mock-url must match)."
                .to_owned(),
        );
    }
    for row in rows.iter().filter(|row| row.failures > 0) {
        notes.push(format!(
            "{} {} {}: {} of {} payments failed{}",
            row.series().label(),
            row.mode.as_str(),
            row.group_size,
            row.failures,
            u64::from(row.group_size) * u64::from(row.repetitions),
            row.first_error
                .as_ref()
                .map(|error| format!("; first: {error}"))
                .unwrap_or_default()
        ));
    }
    notes
}

pub(super) fn caps_note(rows: &[FanoutRow], clients: &[ClientName]) -> String {
    let mut parts = Vec::new();
    for client in clients {
        let Some(row) = rows.iter().find(|row| row.client == *client) else {
            continue;
        };
        let part = match (row.max_connections, row.blocking_threads, row.overlap_cap()) {
            (Some(connections), Some(threads), Some(cap)) => format!(
                "{client} max_connections {connections}, blocking_threads {threads} (at most \
                 {cap} calls overlap)"
            ),
            (Some(connections), None, _) => format!("{client} max_connections {connections}"),
            _ => format!("{client} unknown"),
        };
        parts.push(part);
    }
    let mut note = format!(
        "Overlap caps in effect (GET /clients; per client and per api worker, and a batch runs \
         on one worker): {}.",
        parts.join("; ")
    );
    if rows.iter().any(FanoutRow::over_cap) {
        note.push_str(
            " * marks a group larger than its client's cap: its calls run in ceil(N / cap) \
             rounds, so the best it can do is that many upstream latencies.",
        );
    }
    note
}
