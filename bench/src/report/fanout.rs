//! The fanout suite's part of the report: a table per mode laid out like the reference's
//! (rows = group size, columns = clients), the notes that explain it, and line charts of wall
//! time against group size.

use std::fmt::Write as _;
use std::path::Path;

use plotters::prelude::*;

use crate::BenchError;
use crate::clients::ClientName;
use crate::report::json::Results;
use crate::report::{Align, Table};
use crate::suites::fanout::{FanoutMode, FanoutRow, FanoutSettings};

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

/// Milliseconds as the reference prints them: whole above 100 ms, one decimal below.
pub fn format_ms(value: Option<f64>) -> String {
    match value {
        Some(value) if value.is_finite() && value.abs() >= 100.0 => format!("{value:.0} ms"),
        Some(value) if value.is_finite() => format!("{value:.1} ms"),
        _ => "NA".to_owned(),
    }
}

/// The clients of the run that have fanout rows, in the run's order.
fn clients(results: &Results) -> Vec<ClientName> {
    results
        .settings
        .clients
        .iter()
        .copied()
        .filter(|client| {
            results
                .fanout
                .iter()
                .any(|row| row.client == client.as_str())
        })
        .collect()
}

fn find<'a>(
    rows: &'a [FanoutRow],
    client: &str,
    mode: FanoutMode,
    size: u32,
) -> Option<&'a FanoutRow> {
    rows.iter()
        .find(|row| row.client == client && row.mode == mode && row.group_size == size)
}

/// Group sizes present in the rows, ascending.
fn sizes(rows: &[FanoutRow]) -> Vec<u32> {
    let mut sizes: Vec<u32> = rows.iter().map(|row| row.group_size).collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

fn shows_reference(settings: &FanoutSettings) -> bool {
    settings.upstream_latency_ms == REFERENCE_LATENCY_MS && settings.upstream_jitter_ms == 0
}

/// A group larger than the client's overlap cap needs more than one round of upstream calls.
fn over_cap(row: &FanoutRow) -> bool {
    row.mode == FanoutMode::Concurrent
        && row
            .overlap_cap()
            .is_some_and(|cap| u64::from(row.group_size) > cap)
}

/// "51.2 ms (0.98)", with a `*` over the overlap cap and the failures when there were any.
fn cell(row: &FanoutRow) -> String {
    let mut text = format_ms(row.wall_ms_median);
    if let Some(efficiency) = row.efficiency {
        let _ = write!(text, " ({efficiency:.2})");
    }
    if over_cap(row) {
        text.push('*');
    }
    if row.failures > 0 {
        let _ = write!(text, " [{} failed]", row.failures);
    }
    text
}

/// One table per mode: rows are group sizes, columns the clients (and, at 360 ms, the
/// reference's figures).
pub fn tables(results: &Results) -> Vec<Table> {
    let settings = &results.settings.fanout;
    let clients = clients(results);
    let reference = shows_reference(settings);
    FanoutMode::ALL
        .into_iter()
        .filter(|&mode| results.fanout.iter().any(|row| row.mode == mode))
        .map(|mode| {
            let mut columns = vec![("Group", Align::Left), ("Ideal", Align::Right)];
            columns.extend(clients.iter().map(|client| (client.as_str(), Align::Right)));
            let reference_columns: &[&'static str] = match (reference, mode) {
                (false, _) => &[],
                (true, FanoutMode::Sequential) => &["ref: Feign sequential"],
                (true, FanoutMode::Concurrent) => &["ref: Spring @Async", "ref: AsyncFeign"],
            };
            columns.extend(reference_columns.iter().map(|name| (*name, Align::Right)));
            let rows = sizes(&results.fanout)
                .into_iter()
                .map(|size| {
                    let ideal = results
                        .fanout
                        .iter()
                        .find(|row| row.mode == mode && row.group_size == size)
                        .map(|row| row.ideal_ms);
                    let mut cells = vec![format!("{size} requests"), format_ms(ideal)];
                    cells.extend(clients.iter().map(|client| {
                        find(&results.fanout, client.as_str(), mode, size)
                            .map_or_else(String::new, cell)
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
            let repetitions = settings.repetitions_of(mode);
            Table {
                title: format!(
                    "fanout, {}: wall time of a group (the api's wall_time_ms, median of {}; \
                     efficiency = ideal / wall in brackets)",
                    mode.as_str(),
                    repetitions
                ),
                columns,
                rows,
            }
        })
        .collect()
}

/// Every row, every figure: the table behind the charts.
pub fn detail_table(rows: &[FanoutRow]) -> Table {
    use Align::{Left, Right};
    Table {
        title: "fanout: every row".to_owned(),
        columns: vec![
            ("Client", Left),
            ("Mode", Left),
            ("Group", Right),
            ("Reps", Right),
            ("Wall (api)", Right),
            ("Request (bench)", Right),
            ("Ideal", Right),
            ("Efficiency", Right),
            ("Upstream calls", Right),
            ("Connections", Right),
            ("Failures", Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                let unknown = || "?".to_owned();
                vec![
                    row.client.clone(),
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
                    row.failures.to_string(),
                ]
            })
            .collect(),
    }
}

/// What a reader needs beside the tables: the largest group's verdict, the overlap caps, the
/// bench's own view of the time, the repetitions, and every failure.
pub fn notes(results: &Results) -> Vec<String> {
    let rows = &results.fanout;
    let settings = &results.settings.fanout;
    let clients = clients(results);
    let mut notes = Vec::new();
    if let Some(&largest) = sizes(rows).last() {
        let multiples: Vec<String> = clients
            .iter()
            .filter_map(|client| {
                let row = find(rows, client.as_str(), FanoutMode::Concurrent, largest)?;
                let times = row.wall_ms_median? / settings.upstream_latency_ms as f64;
                Some(format!(
                    "{client} {times:.2}x{}",
                    if over_cap(row) { "*" } else { "" }
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
        let speedups: Vec<String> = clients
            .iter()
            .filter_map(|client| {
                let sequential = find(rows, client.as_str(), FanoutMode::Sequential, largest)?;
                let concurrent = find(rows, client.as_str(), FanoutMode::Concurrent, largest)?;
                let speedup = sequential.wall_ms_median? / concurrent.wall_ms_median?;
                Some(format!("{client} {speedup:.1}x"))
            })
            .collect();
        if !speedups.is_empty() {
            notes.push(format!(
                "Concurrent against sequential at {largest}: {} faster.",
                speedups.join(", ")
            ));
        }
    }
    notes.push(caps_note(rows, &clients));
    let overheads: Vec<String> = clients
        .iter()
        .filter_map(|client| {
            let differences: Vec<f64> = rows
                .iter()
                .filter(|row| row.client == client.as_str())
                .filter_map(|row| Some(row.request_ms_median? - row.wall_ms_median?))
                .collect();
            let median = crate::suites::fanout::median_of(&differences)?;
            Some(format!("{client} {median:+.1} ms"))
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
            row.client,
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
        let Some(row) = rows.iter().find(|row| row.client == client.as_str()) else {
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
    if rows.iter().any(over_cap) {
        note.push_str(
            " * marks a group larger than its client's cap: its calls run in ceil(N / cap) \
             rounds, so the best it can do is that many upstream latencies.",
        );
    }
    note
}

/// The fanout tables and notes for the terminal.
pub fn terminal_section(results: &Results) -> String {
    let mut out = String::new();
    if results.fanout.is_empty() {
        return out;
    }
    for table in tables(results) {
        let _ = write!(out, "\n{}\n\n{}", table.title, table.render());
    }
    out.push('\n');
    for note in notes(results) {
        let _ = writeln!(out, "{note}");
    }
    out
}

/// The fanout section of report.md; `charts` are every chart file written beside it.
pub fn markdown_section(results: &Results, charts: &[String]) -> String {
    let mut out = String::new();
    if results.fanout.is_empty() {
        return out;
    }
    let settings = &results.settings.fanout;
    let _ = write!(
        out,
        "\n## fanout\n\nGroups of independent payments (1 EUR -> JPY each, one upstream call \
         each) sent to `POST /payments/{{client}}/batch`, run one after another (`sequential`) \
         or all at once (`concurrent`), against mock-rates with {} ms added to every upstream \
         call{}. Like the reference (Spring + Feign against a ~360 ms API: sequential, `@Async`, \
         `AsyncFeign`), rows are group sizes; columns here are the clients. **Ideal** is N \
         upstream latencies in sequence and one overlapped (with jitter: N mean draws, or the \
         expected slowest of N); **efficiency** = ideal / wall, so 1.00 is perfect overlap \
         and its inverse is the wall time in ideals.\n",
        settings.upstream_latency_ms,
        if settings.upstream_jitter_ms > 0 {
            format!(" plus 0..={} ms of jitter", settings.upstream_jitter_ms)
        } else {
            String::new()
        }
    );
    for table in tables(results) {
        let _ = write!(out, "\n### {}\n\n{}", table.title, table.render());
    }
    if shows_reference(settings) {
        out.push_str(
            "\nThe `ref:` columns are the reference's figures (a public API measured with \
             Postman over the internet; Java thread pools): context, not a like-for-like run.",
        );
        let per_call = |(size, sequential, _, _): (u32, u32, u32, u32)| sequential / size;
        if let (Some(&first), Some(&last)) = (REFERENCE_360MS.first(), REFERENCE_360MS.last()) {
            let _ = write!(
                out,
                " Its sequential column implies {} ms per request at {} and {} ms at {}, so its \
                 API did not answer in a steady 360 ms; here every call gets the same added \
                 latency.",
                per_call(first),
                first.0,
                per_call(last),
                last.0
            );
        }
        out.push('\n');
    }
    out.push('\n');
    for note in notes(results) {
        let _ = writeln!(out, "- {note}");
    }
    out.push_str(
        "\nEach client runs as one block: an un-timed warm-up group (concurrent, the largest \
         size), its concurrent groups, then its sequential ones. Every batch is awaited and \
         checked: status 200, the right client and mode, every payment converted; a batch with \
         a failed payment is counted in Failures and not timed. **Wall (api)** is the api's \
         `wall_time_ms` (first upstream call started to last finished); **Request (bench)** is \
         the bench's time around the whole HTTP exchange. **Upstream calls** and \
         **Connections** are what mock-rates counted during a row's batches: one call per \
         payment, and the TCP connections the api's pool opened.\n",
    );
    let detail = detail_table(&results.fanout);
    let _ = write!(out, "\n### {}\n\n{}", detail.title, detail.render());
    let mine: Vec<&String> = charts
        .iter()
        .filter(|name| name.starts_with("fanout"))
        .collect();
    if !mine.is_empty() {
        out.push('\n');
        for name in mine {
            let _ = writeln!(out, "![{name}]({name})");
        }
    }
    out
}

/// One line of a chart: a label and its (group size, ms) points.
struct Line {
    label: String,
    color: RGBColor,
    dashed: bool,
    points: Vec<(u32, f64)>,
}

const PALETTE: [RGBColor; 5] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
];
const IDEAL_COLOR: RGBColor = RGBColor(120, 120, 120);

/// Writes `fanout_wall_time.svg` (both modes, logarithmic time axis) and
/// `fanout_concurrent.svg` (concurrent only, linear, where the clients differ); the file names.
pub fn write_charts(results: &Results, dir: &Path) -> Result<Vec<String>, BenchError> {
    if results.fanout.is_empty() {
        return Ok(Vec::new());
    }
    let clients = clients(results);
    let lines_for = |mode: FanoutMode, suffix: bool| -> Vec<Line> {
        let mut lines: Vec<Line> = clients
            .iter()
            .enumerate()
            .map(|(index, client)| Line {
                label: if suffix {
                    format!("{client} {}", mode.as_str())
                } else {
                    client.as_str().to_owned()
                },
                color: PALETTE[index % PALETTE.len()],
                dashed: mode == FanoutMode::Sequential,
                points: results
                    .fanout
                    .iter()
                    .filter(|row| row.client == client.as_str() && row.mode == mode)
                    .filter_map(|row| Some((row.group_size, row.wall_ms_median?)))
                    .collect(),
            })
            .collect();
        lines.push(Line {
            label: format!("ideal {}", mode.as_str()),
            color: IDEAL_COLOR,
            dashed: true,
            points: sizes(&results.fanout)
                .into_iter()
                .filter_map(|size| {
                    let row = results
                        .fanout
                        .iter()
                        .find(|row| row.mode == mode && row.group_size == size)?;
                    Some((size, row.ideal_ms))
                })
                .collect(),
        });
        lines.retain(|line| !line.points.is_empty());
        lines
    };
    let latency = results.settings.fanout.upstream_latency_ms;
    let mut written = Vec::new();

    let mut both = lines_for(FanoutMode::Sequential, true);
    both.extend(lines_for(FanoutMode::Concurrent, true));
    if !both.is_empty() {
        let name = "fanout_wall_time.svg";
        line_chart(
            &dir.join(name),
            &format!("Wall time of a group, upstream latency {latency} ms (sequential dashed)"),
            true,
            &both,
        )?;
        written.push(name.to_owned());
    }
    let mut concurrent = lines_for(FanoutMode::Concurrent, false);
    // A client whose overlap cap falls inside the chart gets a vertical line there.
    let top = concurrent
        .iter()
        .flat_map(|line| line.points.iter().map(|point| point.1))
        .fold(0.0_f64, f64::max);
    let largest = sizes(&results.fanout).last().copied().unwrap_or(0);
    for (index, client) in clients.iter().enumerate() {
        let cap = results
            .fanout
            .iter()
            .find(|row| row.client == client.as_str())
            .and_then(FanoutRow::overlap_cap)
            .and_then(|cap| u32::try_from(cap).ok())
            .filter(|&cap| cap < largest);
        if let Some(cap) = cap {
            concurrent.push(Line {
                label: format!("{client}'s overlap cap ({cap})"),
                color: PALETTE[index % PALETTE.len()],
                dashed: true,
                points: vec![(cap, 0.0), (cap, top)],
            });
        }
    }
    if !concurrent.is_empty() {
        let name = "fanout_concurrent.svg";
        line_chart(
            &dir.join(name),
            &format!("Concurrent groups: wall time, upstream latency {latency} ms"),
            false,
            &concurrent,
        )?;
        written.push(name.to_owned());
    }
    Ok(written)
}

fn line_chart(
    path: &Path,
    title: &str,
    logarithmic: bool,
    lines: &[Line],
) -> Result<(), BenchError> {
    let chart_error =
        |error: &dyn std::fmt::Display| BenchError::Chart(format!("{}: {error}", path.display()));
    let values = || {
        lines
            .iter()
            .flat_map(|line| line.points.iter().map(|point| point.1))
    };
    let top = values().fold(0.0_f64, f64::max).max(1.0);
    let bottom = values().filter(|value| *value > 0.0).fold(top, f64::min);
    let x_max = lines
        .iter()
        .flat_map(|line| line.points.iter().map(|point| point.0))
        .max()
        .unwrap_or(1);
    let x_range = 0..x_max + x_max.div_ceil(20).max(1);

    let root = SVGBackend::new(path, (960, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| chart_error(&e))?;
    let caption = |builder: &mut ChartBuilder<'_, '_, SVGBackend<'_>>| {
        builder
            .caption(title, ("sans-serif", 22))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(80);
    };
    let y_label = |value: &f64| format!("{value:.0}");
    let style = |line: &Line| line.color.stroke_width(2);
    macro_rules! draw {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc("requests in the group")
                .y_desc("wall time, ms")
                .y_label_formatter(&y_label)
                .label_style(("sans-serif", 15))
                .draw()
                .map_err(|e| chart_error(&e))?;
            for line in lines {
                let color = line.color;
                // Two strokes for a dashed line, one for a solid one.
                let gap = if line.dashed { (8, 12) } else { (10, 10) };
                let legend = move |(x, y): (i32, i32)| {
                    EmptyElement::at((x, y))
                        + PathElement::new(vec![(0, 0), (gap.0, 0)], color.stroke_width(2))
                        + PathElement::new(vec![(gap.1, 0), (20, 0)], color.stroke_width(2))
                };
                if line.dashed {
                    chart
                        .draw_series(DashedLineSeries::new(
                            line.points.iter().copied(),
                            6,
                            4,
                            style(line),
                        ))
                        .map_err(|e| chart_error(&e))?
                        .label(line.label.clone())
                        .legend(legend);
                } else {
                    chart
                        .draw_series(
                            LineSeries::new(line.points.iter().copied(), style(line)).point_size(3),
                        )
                        .map_err(|e| chart_error(&e))?
                        .label(line.label.clone())
                        .legend(legend);
                }
            }
            chart
                .configure_series_labels()
                .position(legend_position(logarithmic))
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .label_font(("sans-serif", 14))
                .draw()
                .map_err(|e| chart_error(&e))?;
        }};
    }
    let mut builder = ChartBuilder::on(&root);
    caption(&mut builder);
    if logarithmic {
        draw!(
            builder
                .build_cartesian_2d(
                    x_range,
                    (bottom / 1.5..top * 1.5)
                        .log_scale()
                        .with_key_points(one_two_five(bottom / 1.5, top * 1.5)),
                )
                .map_err(|e| chart_error(&e))?
        );
    } else {
        draw!(
            builder
                .build_cartesian_2d(x_range, 0.0..top * 1.15)
                .map_err(|e| chart_error(&e))?
        );
    }
    root.present().map_err(|e| chart_error(&e))?;
    Ok(())
}

/// Where the legend hides no line: on the logarithmic chart sequential lines fill the upper
/// left and concurrent ones the bottom, leaving the middle right free.
fn legend_position(logarithmic: bool) -> SeriesLabelPosition {
    if logarithmic {
        SeriesLabelPosition::MiddleRight
    } else {
        SeriesLabelPosition::UpperLeft
    }
}

/// The 1-2-5 steps (1, 2, 5, 10, 20, ...) within `low..=high`: ticks for a logarithmic axis.
fn one_two_five(low: f64, high: f64) -> Vec<f64> {
    let mut ticks = Vec::new();
    let mut decade = 10_f64.powf(low.max(f64::MIN_POSITIVE).log10().floor());
    while decade <= high {
        for step in [1.0, 2.0, 5.0] {
            let tick = decade * step;
            if (low..=high).contains(&tick) {
                ticks.push(tick);
            }
        }
        decade *= 10.0;
    }
    ticks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, RunSettings};
    use crate::env::Environment;
    use clap::Parser as _;

    fn row(client: &str, mode: FanoutMode, size: u32, wall: f64, ideal: f64) -> FanoutRow {
        FanoutRow {
            client: client.to_owned(),
            mode,
            group_size: size,
            repetitions: 1,
            wall_ms_median: Some(wall),
            request_ms_median: Some(wall + 1.0),
            ideal_ms: ideal,
            efficiency: Some(ideal / wall),
            failures: 0,
            upstream_calls: Some(u64::from(size)),
            connections_opened: Some(1),
            max_connections: Some(100),
            blocking_threads: (client == "ureq").then_some(64),
            wall_ms: vec![wall],
            request_ms: vec![wall + 1.0],
            first_error: None,
        }
    }

    fn results(latency: &str) -> Results {
        let cli = Cli::parse_from([
            "bench",
            "--suite",
            "fanout",
            "--clients",
            "hyper,ureq",
            "--group-sizes",
            "5,70",
            "--upstream-latency-ms",
            latency,
        ]);
        let mut results = Results::new(
            Environment::collect("2026-01-01T00:00:00Z".to_owned()),
            RunSettings::from_cli(&cli),
        );
        results.fanout = vec![
            row("hyper", FanoutMode::Concurrent, 5, 361.0, 360.0),
            row("hyper", FanoutMode::Concurrent, 70, 372.0, 360.0),
            row("hyper", FanoutMode::Sequential, 5, 1805.0, 1800.0),
            row("hyper", FanoutMode::Sequential, 70, 25_270.0, 25_200.0),
            row("ureq", FanoutMode::Concurrent, 5, 362.0, 360.0),
            row("ureq", FanoutMode::Concurrent, 70, 730.0, 360.0),
            row("ureq", FanoutMode::Sequential, 5, 1806.0, 1800.0),
            FanoutRow {
                failures: 3,
                first_error: Some("payment 2: status 503".to_owned()),
                ..row("ureq", FanoutMode::Sequential, 70, 25_300.0, 25_200.0)
            },
        ];
        results
    }

    #[test]
    fn a_table_per_mode_like_the_reference() {
        let tables = tables(&results("360"));
        assert_eq!(tables.len(), 2);
        let sequential = tables[0].render();
        assert!(tables[0].title.starts_with("fanout, sequential"));
        assert!(
            sequential.contains("| 70 requests | 25200 ms |"),
            "{sequential}"
        );
        assert!(sequential.contains("25270 ms (1.00)"), "{sequential}");
        assert!(sequential.contains("[3 failed]"), "{sequential}");
        assert!(
            sequential.contains("14940 ms"),
            "the reference's figure: {sequential}"
        );
        let concurrent = tables[1].render();
        // ureq's 70 is over its cap of 64: marked.
        assert!(concurrent.contains("730 ms (0.49)*"), "{concurrent}");
        assert!(concurrent.contains("372 ms (0.97) "), "{concurrent}");
        assert!(concurrent.contains("1669 ms"), "{concurrent}");
        // Away from 360 ms the reference is not shown.
        let other = tables_text(&results("50"));
        assert!(!other.contains("ref:"), "{other}");
    }

    fn tables_text(results: &Results) -> String {
        tables(results).iter().map(Table::render).collect()
    }

    #[test]
    fn notes_give_the_verdict_the_caps_and_the_failures() {
        let notes = notes(&results("360"));
        let all = notes.join("\n");
        assert!(
            all.contains("Largest group (70), concurrent: wall time in upstream latencies (360 ms): hyper 1.03x, ureq 2.03x*."),
            "{all}"
        );
        assert!(all.contains("hyper 67.9x"), "{all}");
        assert!(
            all.contains(
                "ureq max_connections 100, blocking_threads 64 (at most 64 calls overlap)"
            ),
            "{all}"
        );
        assert!(all.contains("ceil(N / cap)"), "{all}");
        assert!(all.contains("hyper +1.0 ms"), "{all}");
        assert!(
            all.contains(
                "ureq sequential 70: 3 of 70 payments failed; first: payment 2: status 503"
            ),
            "{all}"
        );
        assert!(!all.contains("Warning"), "{all}");
    }

    #[test]
    fn writes_both_charts_and_links_them() {
        let results = results("360");
        let dir = std::env::temp_dir().join(format!("bench-fanout-svg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let charts = write_charts(&results, &dir).unwrap();
        assert_eq!(charts, ["fanout_wall_time.svg", "fanout_concurrent.svg"]);
        let svg = std::fs::read_to_string(dir.join("fanout_wall_time.svg")).unwrap();
        for text in [
            "hyper concurrent",
            "ureq sequential",
            "ideal concurrent",
            "wall time, ms",
        ] {
            assert!(svg.contains(text), "{text} missing");
        }
        // ureq's cap (64) is inside the chart's groups (up to 70); SVG escapes the apostrophe.
        let concurrent = std::fs::read_to_string(dir.join("fanout_concurrent.svg")).unwrap();
        assert!(concurrent.contains("ureq&apos;s overlap cap (64)"));
        let section = markdown_section(&results, &charts);
        assert!(section.contains("![fanout_concurrent.svg](fanout_concurrent.svg)"));
        assert!(section.contains("### fanout: every row"));
        assert!(section.contains("implies 472 ms per request at 5 and 213 ms at 70"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn log_ticks_step_one_two_five() {
        assert_eq!(one_two_five(13.0, 600.0), [20.0, 50.0, 100.0, 200.0, 500.0]);
        assert_eq!(one_two_five(1.0, 10.0), [1.0, 2.0, 5.0, 10.0]);
    }

    #[test]
    fn formats_milliseconds_like_the_reference() {
        assert_eq!(format_ms(Some(14_940.4)), "14940 ms");
        assert_eq!(format_ms(Some(51.25)), "51.2 ms");
        assert_eq!(format_ms(None), "NA");
    }
}
