//! The fanout suite's section: a table per mode laid out like the reference's (rows = group
//! size, columns = clients), the notes that explain it, and the detail behind the charts.

use std::fmt::Write as _;

use crate::model::{
    ClientName, FanoutMode, FanoutRow, FanoutSeries, FanoutSettings, Protocol, Results, SuiteName,
    group_sizes,
};
use crate::report::format::{format_ms, protocol_cell, unable_note};
use crate::report::section::{Part, Section};
use crate::report::table::{Align, Table};
use crate::stats::median_of;

/// The reference (Spring + Feign against a ~360 ms API, Postman): group size, then sequential,
/// Spring `@Async` and `AsyncFeign` wall times in ms.
pub const REFERENCE_360MS: [(u32, u32, u32, u32); 9] = [
    (5, 2360, 720, 387),
    (10, 3390, 1291, 522),
    (15, 4400, 1443, 673),
    (20, 5560, 2110, 566),
    (25, 6810, 2430, 677),
    (30, 7600, 3170, 834),
    (40, 9810, 4140, 1009),
    (50, 10940, 5420, 1169),
    (70, 14940, 6960, 1669),
];

/// The reference's API answered in about this many ms; its columns are shown at this latency.
const REFERENCE_LATENCY_MS: u64 = 360;

/// An efficiency this far above 1 means the api's upstream did not have the added latency.
const IMPLAUSIBLE_EFFICIENCY: f64 = 1.05;

/// The section, when the suite ran; `charts` are the SVG files written beside report.md.
pub fn section(results: &Results, charts: &[String]) -> Option<Section> {
    if results.fanout.is_empty() {
        return None;
    }
    let settings = &results.settings.fanout;
    let mut section = Section::suite(SuiteName::Fanout).with(Part::Prose(format!(
        "Groups of independent payments (1 EUR -> JPY each, one upstream call each) sent to \
         `POST /payments/{{client}}/batch`, run one after another (`sequential`) or all at once \
         (`concurrent`), against mock-rates with {} ms added to every upstream call{}. Like the \
         reference (Spring + Feign against a ~360 ms API: sequential, `@Async`, `AsyncFeign`), \
         rows are group sizes; columns here are the clients. **Ideal** is N upstream latencies \
         in sequence and one overlapped (with jitter: N mean draws, or the expected slowest of \
         N); **efficiency** = ideal / wall, so 1.00 is perfect overlap and its inverse is the \
         wall time in ideals.",
        settings.upstream_latency_ms,
        if settings.upstream_jitter_ms > 0 {
            format!(" plus 0..={} ms of jitter", settings.upstream_jitter_ms)
        } else {
            String::new()
        }
    )));
    for table in tables(results) {
        section = section.with(Part::Table(table));
    }
    let h2_tables = h2::tables(results);
    if !h2_tables.is_empty() {
        section = section.with(Part::Prose(H2.to_owned()));
    }
    for table in h2_tables {
        section = section.with(Part::Table(table));
    }
    if shows_reference(settings) {
        section = section.with(Part::Prose(reference_note()));
    }
    Some(
        section
            .with_notes(
                notes(results)
                    .into_iter()
                    .chain(unable_note(
                        &results.settings,
                        SuiteName::Fanout,
                        Protocol::H2,
                    ))
                    .collect(),
            )
            .with(Part::Prose(HOW_MEASURED.to_owned()))
            .with(Part::DetailTable(detail_table(&results.fanout)))
            .with_charts(charts, "fanout"),
    )
}

/// What the reference's figures are, and why its sequential column is lower than ours.
fn reference_note() -> String {
    let mut note = "The `ref:` columns are the reference's figures (a public API measured with \
        Postman over the internet; Java thread pools): context, not a like-for-like run."
        .to_owned();
    let per_call = |(size, sequential, _, _): (u32, u32, u32, u32)| sequential / size;
    if let (Some(&first), Some(&last)) = (REFERENCE_360MS.first(), REFERENCE_360MS.last()) {
        let _ = write!(
            note,
            " Its sequential column implies {} ms per request at {} and {} ms at {}, so its API \
             did not answer in a steady 360 ms; here every call gets the same added latency.",
            per_call(first),
            first.0,
            per_call(last),
            last.0
        );
    }
    note
}

const H2: &str = "Over `h2` the service's clients are built with `rates.http_version = \"2\"` \
    and call the same mock-rates over HTTP/2 (its CA trusted as over https). mock-rates counts \
    what the clients did with each batch: **busy connections** is the most HTTP/2 connections \
    with a stream open at once, and **streams on one** the most streams open at once on one \
    connection, both reset before every batch and the most of any batch kept. A client that \
    multiplexes sends a whole group on one connection. The second table sends the same groups \
    through a mock-rates whose connections allow only so many streams at once \
    (`SETTINGS_MAX_CONCURRENT_STREAMS`, `--h2-stream-limit`), to a service of its own, and reads \
    from the figures what each client does past the limit: queue on the one connection (one \
    round of upstream latency per limit's worth of calls), open more connections, or fail.";

const HOW_MEASURED: &str = "Each client runs as one block: an un-timed warm-up group \
    (concurrent, the largest size), its concurrent groups, then its sequential ones. Over \
    `https` the service calls a mock-rates of its own serving TLS, whose CA it is given with \
    `rates.ca_file`, and only concurrent groups are sent: a sequential group takes N pooled \
    calls' upstream latencies whatever the protocol, while a concurrent one opens up to N \
    connections, each with its handshake; the Protocol column of the detail gives the TLS \
    mock-rates counted for the client from its warm-up on. Every batch \
    is awaited and checked: status 200, the right client and mode, every payment converted; a \
    batch with a failed payment is counted in Failures and not timed. **Wall (api)** is the \
    api's `wall_time_ms` (first upstream call started to last finished); **Request (bench)** is \
    the bench's time around the whole HTTP exchange. **Upstream calls** and **Connections** are \
    what mock-rates counted during a row's batches: one call per payment, and the TCP \
    connections the api's pool opened.";

fn find(
    rows: &[FanoutRow],
    series: FanoutSeries,
    mode: FanoutMode,
    size: u32,
) -> Option<&FanoutRow> {
    rows.iter()
        .find(|row| row.series() == series && row.mode == mode && row.group_size == size)
}

fn shows_reference(settings: &FanoutSettings) -> bool {
    settings.upstream_latency_ms == REFERENCE_LATENCY_MS && settings.upstream_jitter_ms == 0
}

/// "51.2 ms (0.98)", with a `*` over the overlap cap and the failures when there were any.
fn cell(row: &FanoutRow) -> String {
    let mut text = format_ms(row.wall_ms_median);
    if let Some(efficiency) = row.efficiency {
        let _ = write!(text, " ({efficiency:.2})");
    }
    if row.over_cap() {
        text.push('*');
    }
    if row.failures > 0 {
        let _ = write!(text, " [{} failed]", row.failures);
    }
    text
}

/// What the upstream of a table's columns was: a protocol, and over h2 a stream limit or none.
type Upstream = (Protocol, Option<u32>);

/// The upstreams of `series`, each once, in their order.
fn upstreams(series: &[FanoutSeries]) -> Vec<Upstream> {
    let mut upstreams: Vec<Upstream> = Vec::new();
    for series in series {
        let upstream = (series.protocol, series.stream_limit);
        if !upstreams.contains(&upstream) {
            upstreams.push(upstream);
        }
    }
    upstreams
}

/// "over h2", or "over h2 with a stream limit of 10".
fn describe_upstream((protocol, stream_limit): Upstream) -> String {
    match stream_limit {
        Some(limit) => format!("over {protocol} with a stream limit of {limit}"),
        None => format!("over {protocol}"),
    }
}

/// One table per upstream and mode: rows are group sizes, columns the clients (and, at 360
/// ms, the reference's figures).
fn tables(results: &Results) -> Vec<Table> {
    let all = results.fanout_series();
    upstreams(&all)
        .into_iter()
        .flat_map(|upstream| {
            let series: Vec<FanoutSeries> = all
                .iter()
                .copied()
                .filter(|series| (series.protocol, series.stream_limit) == upstream)
                .collect();
            FanoutMode::ALL
                .into_iter()
                .filter(|&mode| {
                    results
                        .fanout
                        .iter()
                        .any(|row| row.mode == mode && (row.protocol, row.stream_limit) == upstream)
                })
                .map(|mode| mode_table(results, upstream, mode, &series))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn mode_table(
    results: &Results,
    upstream: Upstream,
    mode: FanoutMode,
    series: &[FanoutSeries],
) -> Table {
    let settings = &results.settings.fanout;
    let reference = shows_reference(settings);
    let mut columns = vec![("Group", Align::Left), ("Ideal", Align::Right)];
    columns.extend(
        series
            .iter()
            .map(|series| (series.client.as_str(), Align::Right)),
    );
    let reference_columns: &[&'static str] = match (reference, mode) {
        (false, _) => &[],
        (true, FanoutMode::Sequential) => &["ref: Feign sequential"],
        (true, FanoutMode::Concurrent) => &["ref: Spring @Async", "ref: AsyncFeign"],
    };
    columns.extend(reference_columns.iter().map(|name| (*name, Align::Right)));
    let rows = group_sizes(&results.fanout)
        .into_iter()
        .map(|size| {
            let ideal = results
                .fanout
                .iter()
                .find(|row| row.mode == mode && row.group_size == size)
                .map(|row| row.ideal_ms);
            let mut cells = vec![format!("{size} requests"), format_ms(ideal)];
            cells.extend(series.iter().map(|series| {
                find(&results.fanout, *series, mode, size).map_or_else(String::new, cell)
            }));
            if reference {
                let figures = REFERENCE_360MS.iter().find(|figures| figures.0 == size);
                let shown: Vec<u32> = match (figures, mode) {
                    (None, _) => Vec::new(),
                    (Some(figures), FanoutMode::Sequential) => vec![figures.1],
                    (Some(figures), FanoutMode::Concurrent) => vec![figures.2, figures.3],
                };
                cells.extend((0..reference_columns.len()).map(|index| {
                    shown
                        .get(index)
                        .map_or_else(String::new, |ms| format!("{ms} ms"))
                }));
            }
            cells
        })
        .collect();
    Table {
        title: format!(
            "fanout, {}, upstream {}: wall time of a group (the api's wall_time_ms, median of \
             {}; efficiency = ideal / wall in brackets)",
            mode.as_str(),
            describe_upstream(upstream),
            settings.repetitions_of(mode)
        ),
        columns,
        rows,
    }
}

/// Every row, every figure: the table behind the charts.
fn detail_table(rows: &[FanoutRow]) -> Table {
    use Align::{Left, Right};
    Table {
        title: "fanout: every row".to_owned(),
        columns: vec![
            ("Client", Left),
            ("Protocol", Left),
            ("Mode", Left),
            ("Group", Right),
            ("Reps", Right),
            ("Wall (api)", Right),
            ("Request (bench)", Right),
            ("Ideal", Right),
            ("Efficiency", Right),
            ("Upstream calls", Right),
            ("Connections", Right),
            ("HTTP/2 streams; busy conns; on one", Right),
            ("Failures", Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                let unknown = || "?".to_owned();
                vec![
                    row.client.to_string(),
                    match row.stream_limit {
                        Some(limit) => format!(
                            "{} ({limit} streams)",
                            protocol_cell(row.protocol, row.tls.as_ref())
                        ),
                        None => protocol_cell(row.protocol, row.tls.as_ref()),
                    },
                    row.mode.as_str().to_owned(),
                    row.group_size.to_string(),
                    row.repetitions.to_string(),
                    format_ms(row.wall_ms_median),
                    format_ms(row.request_ms_median),
                    format_ms(Some(row.ideal_ms)),
                    row.efficiency
                        .map_or_else(|| "NA".to_owned(), |value| format!("{value:.3}")),
                    row.upstream_calls
                        .map_or_else(unknown, |calls| calls.to_string()),
                    row.connections_opened
                        .map_or_else(unknown, |count| count.to_string()),
                    row.h2.map_or_else(
                        || "-".to_owned(),
                        |spread| {
                            format!(
                                "{}; {}; {}",
                                spread.streams, spread.peak_connections, spread.peak_streams
                            )
                        },
                    ),
                    row.failures.to_string(),
                ]
            })
            .collect(),
    }
}

/// What a reader needs beside the tables: the largest group's verdict, the overlap caps, the
/// bench's own view of the time, the repetitions, and every failure.
fn notes(results: &Results) -> Vec<String> {
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

fn caps_note(rows: &[FanoutRow], clients: &[ClientName]) -> String {
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

mod h2;

/// Fanout results for tests.
#[cfg(test)]
pub mod test_rows;

#[cfg(test)]
mod tests;
