//! The load suite's part of the report: its tables (terminal and Markdown alike), the targets
//! and whether the run met them, and the percentile chart. Nothing here measures.

use std::fmt::Write as _;
use std::path::Path;

use plotters::coord::types;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::BenchError;
use crate::cli::RunSettings;
use crate::report::json::Results;
use crate::report::{Align, Table, format_bytes};
use crate::suites::load::{CapacityRow, LoadRow};

/// File name of the percentile chart.
pub const PERCENTILE_CHART: &str = "load_percentiles.svg";

/// p99 targets at the reference rate: the framework alone, and a payment with its upstream call.
const HEALTH_P99_TARGET_US: f64 = 1_000.0;
const PAYMENT_P99_TARGET_US: f64 = 2_000.0;
/// Achieved RPS within this fraction of the target.
const RPS_TOLERANCE: f64 = 0.01;

/// "0.085 ms": milliseconds to the microsecond, as NBomber prints them, and as the targets are
/// set.
fn ms(micros: Option<f64>) -> String {
    match micros {
        Some(micros) if micros.is_finite() => format!("{:.3} ms", micros / 1_000.0),
        _ => "NA".to_owned(),
    }
}

fn optional<T>(value: Option<T>, show: impl FnOnce(T) -> String) -> String {
    value.map_or_else(|| "NA".to_owned(), show)
}

/// The settings line for the header.
pub fn settings_line(settings: &RunSettings) -> String {
    let load = &settings.load;
    let mut line = format!(
        "load: open model at {} RPS for {} s per scenario after a {} s warm-up, each request \
         bounded by {} s",
        load.rps,
        load.duration_ms as f64 / 1_000.0,
        load.warmup_ms as f64 / 1_000.0,
        load.timeout_ms as f64 / 1_000.0
    );
    if load.capacity {
        let levels: Vec<String> = load
            .capacity_concurrency
            .iter()
            .map(ToString::to_string)
            .collect();
        let _ = write!(
            line,
            "; capacity: closed model at concurrency {}, {} s each",
            levels.join(", "),
            load.capacity_level_ms as f64 / 1_000.0
        );
    } else {
        line.push_str("; capacity step skipped");
    }
    line
}

/// The open-model tables: NBomber's figures, then the generator's punctuality and the
/// uncorrected latency, then the servers' side, then status codes and failures.
pub fn load_tables(rows: &[LoadRow]) -> Vec<Table> {
    let Some(first) = rows.first() else {
        return Vec::new();
    };
    vec![
        main_table(first, rows),
        generator_table(rows),
        servers_table(rows),
        outcomes_table(rows),
    ]
}

fn main_table(first: &LoadRow, rows: &[LoadRow]) -> Table {
    use Align::{Left, Right};
    Table {
        title: format!(
            "load: {} RPS for {} s per scenario, latency from each request's intended send time",
            first.target_rps, first.duration_s
        ),
        columns: vec![
            ("Scenario", Left),
            ("OK", Right),
            ("Fail", Right),
            ("RPS", Right),
            ("Min", Right),
            ("Mean", Right),
            ("Max", Right),
            ("StdDev", Right),
            ("p50", Right),
            ("p75", Right),
            ("p95", Right),
            ("p99", Right),
            ("p99.9", Right),
            ("Data", Right),
            ("Data/resp", Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                let responses = row.ok + row.fail;
                vec![
                    row.scenario.clone(),
                    row.ok.to_string(),
                    row.fail.to_string(),
                    format!("{:.1}", row.achieved_rps),
                    ms(row.latency.min_us),
                    ms(row.latency.mean_us),
                    ms(row.latency.max_us),
                    ms(row.latency.stddev_us),
                    ms(row.latency.p50_us),
                    ms(row.latency.p75_us),
                    ms(row.latency.p95_us),
                    ms(row.latency.p99_us),
                    ms(row.latency.p999_us),
                    format_bytes(row.bytes_received as f64),
                    if responses == 0 {
                        "NA".to_owned()
                    } else {
                        format_bytes(row.bytes_received as f64 / responses as f64)
                    },
                ]
            })
            .collect(),
    }
}

fn generator_table(rows: &[LoadRow]) -> Table {
    use Align::{Left, Right};
    Table {
        title: "load: the generator, and latency from the actual send time (uncorrected)"
            .to_owned(),
        columns: vec![
            ("Scenario", Left),
            ("Scheduled", Right),
            ("Sent late (>1 ms)", Right),
            ("Skipped", Right),
            ("Max send delay", Right),
            ("p50 uncorrected", Right),
            ("p99 uncorrected", Right),
            ("p99.9 uncorrected", Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                vec![
                    row.scenario.clone(),
                    row.scheduled.to_string(),
                    row.sent_late.to_string(),
                    row.skipped.to_string(),
                    ms(Some(row.max_send_delay_us)),
                    ms(row.latency.uncorrected_p50_us),
                    ms(row.latency.uncorrected_p99_us),
                    ms(row.latency.uncorrected_p999_us),
                ]
            })
            .collect(),
    }
}

fn servers_table(rows: &[LoadRow]) -> Table {
    use Align::{Left, Right};
    Table {
        title: "load: the api process and its upstream during each run".to_owned(),
        columns: vec![
            ("Scenario", Left),
            ("API CPU", Right),
            ("CPU/request", Right),
            ("API peak RSS", Right),
            ("Upstream calls", Right),
            ("Mock connections", Right),
            ("Calls/connection", Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                let per_request = row
                    .api_cpu_s
                    .filter(|_| row.ok + row.fail > 0)
                    .map(|cpu| cpu * 1e6 / (row.ok + row.fail) as f64);
                vec![
                    row.scenario.clone(),
                    optional(row.api_cpu_s, |cpu| format!("{cpu:.2} s")),
                    optional(per_request, |micros| format!("{micros:.1} us")),
                    optional(row.api_peak_rss_kib, |kib| {
                        format_bytes(kib as f64 * 1024.0)
                    }),
                    optional(row.upstream_calls, |calls| calls.to_string()),
                    optional(row.mock_connections, |count| count.to_string()),
                    match (row.reuse_ratio, row.upstream_calls, row.mock_connections) {
                        (Some(ratio), _, _) => format!("{ratio:.1}"),
                        (None, Some(calls), Some(0)) if calls > 0 => "all reused".to_owned(),
                        _ => "NA".to_owned(),
                    },
                ]
            })
            .collect(),
    }
}

fn outcomes_table(rows: &[LoadRow]) -> Table {
    use Align::{Left, Right};
    Table {
        title: "load: status codes and failures by kind".to_owned(),
        columns: vec![
            ("Scenario", Left),
            ("Status codes", Left),
            ("Connect", Right),
            ("Timeout", Right),
            ("Reset", Right),
            ("Status", Right),
            ("Body", Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                let codes: Vec<String> = row
                    .status_codes
                    .iter()
                    .map(|code| format!("{} x {}", code.status, code.count))
                    .collect();
                vec![
                    row.scenario.clone(),
                    if codes.is_empty() {
                        "none".to_owned()
                    } else {
                        codes.join(", ")
                    },
                    row.failures.connect.to_string(),
                    row.failures.timeout.to_string(),
                    row.failures.reset.to_string(),
                    row.failures.status.to_string(),
                    row.failures.body.to_string(),
                ]
            })
            .collect(),
    }
}

/// Whether one row met the targets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TargetCheck {
    pub no_failures: bool,
    pub rps_within: bool,
    /// The p99 target in microseconds, and whether it was met (false without a p99).
    pub p99_target_us: f64,
    pub p99_within: bool,
}

impl TargetCheck {
    pub fn of(row: &LoadRow) -> Self {
        let p99_target_us = if row.client.is_some() {
            PAYMENT_P99_TARGET_US
        } else {
            HEALTH_P99_TARGET_US
        };
        let target = f64::from(row.target_rps);
        Self {
            no_failures: row.fail == 0 && row.skipped == 0,
            rps_within: (row.achieved_rps - target).abs() <= target * RPS_TOLERANCE,
            p99_target_us,
            p99_within: row.latency.p99_us.is_some_and(|p99| p99 < p99_target_us),
        }
    }

    pub fn all(self) -> bool {
        self.no_failures && self.rps_within && self.p99_within
    }
}

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "NOT met" }
}

/// The targets, measured: one row per scenario.
pub fn targets_table(rows: &[LoadRow]) -> Table {
    use Align::{Left, Right};
    Table {
        title: "load: targets (measured, not asserted)".to_owned(),
        columns: vec![
            ("Scenario", Left),
            ("Failures (0)", Right),
            ("RPS (target +-1%)", Right),
            ("p99 (target)", Right),
            ("All met", Left),
        ],
        rows: rows
            .iter()
            .map(|row| {
                let check = TargetCheck::of(row);
                vec![
                    row.scenario.clone(),
                    format!("{}: {}", row.fail + row.skipped, verdict(check.no_failures)),
                    format!(
                        "{:.1} of {}: {}",
                        row.achieved_rps,
                        row.target_rps,
                        verdict(check.rps_within)
                    ),
                    format!(
                        "{} < {:.0} ms: {}",
                        ms(row.latency.p99_us),
                        check.p99_target_us / 1_000.0,
                        verdict(check.p99_within)
                    ),
                    if check.all() { "yes" } else { "no" }.to_owned(),
                ]
            })
            .collect(),
    }
}

/// The capacity step: the best level per scenario, then every level.
pub fn capacity_tables(rows: &[CapacityRow]) -> Vec<Table> {
    use Align::{Left, Right};
    if rows.is_empty() {
        return Vec::new();
    }
    let best = Table {
        title: "capacity: highest throughput without failures (closed model)".to_owned(),
        columns: vec![
            ("Scenario", Left),
            ("Max RPS", Right),
            ("At concurrency", Right),
            ("p99 there", Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                vec![
                    row.scenario.clone(),
                    optional(row.max_rps, |rps| format!("{rps:.0}")),
                    optional(row.at_concurrency, |concurrency| concurrency.to_string()),
                    ms(row.p99_us),
                ]
            })
            .collect(),
    };
    let levels = Table {
        title: "capacity: every level".to_owned(),
        columns: vec![
            ("Scenario", Left),
            ("Concurrency", Right),
            ("OK", Right),
            ("Fail", Right),
            ("RPS", Right),
            ("p50", Right),
            ("p99", Right),
        ],
        rows: rows
            .iter()
            .flat_map(|row| {
                row.levels.iter().map(|level| {
                    vec![
                        row.scenario.clone(),
                        level.concurrency.to_string(),
                        level.ok.to_string(),
                        level.fail.to_string(),
                        format!("{:.0}", level.rps),
                        ms(level.p50_us),
                        ms(level.p99_us),
                    ]
                })
            })
            .collect(),
    };
    vec![best, levels]
}

/// The first failure of each row that had one.
fn first_errors(results: &Results) -> Vec<String> {
    let load = results.load.iter().filter_map(|row| {
        let error = row.first_error.as_ref()?;
        Some(format!(
            "{}: {} of {} requests failed; first: {error}",
            row.scenario,
            row.fail,
            row.ok + row.fail
        ))
    });
    let capacity = results.capacity.iter().flat_map(|row| {
        row.levels.iter().filter_map(|level| {
            let error = level.first_error.as_ref()?;
            Some(format!(
                "{} (capacity, concurrency {}): {} failed; first: {error}",
                row.scenario, level.concurrency, level.fail
            ))
        })
    });
    load.chain(capacity).collect()
}

/// The suite's tables for the terminal.
pub fn terminal_section(results: &Results) -> String {
    let mut out = String::new();
    let tables = load_tables(&results.load)
        .into_iter()
        .chain((!results.load.is_empty()).then(|| targets_table(&results.load)))
        .chain(capacity_tables(&results.capacity));
    for table in tables {
        let _ = write!(out, "\n{}\n\n{}", table.title, table.render());
    }
    for line in first_errors(results) {
        let _ = writeln!(out, "{line}");
    }
    out
}

/// The suite's section of report.md; `charts` are the SVG files written beside it.
pub fn markdown_section(results: &Results, charts: &[String]) -> String {
    let mut out = String::new();
    if results.load.is_empty() && results.capacity.is_empty() {
        return out;
    }
    out.push_str("\n## load\n\n");
    out.push_str(LOAD_INTRO);
    for table in load_tables(&results.load) {
        let _ = write!(out, "\n### {}\n\n{}", table.title, table.render());
    }
    if !results.load.is_empty() {
        let table = targets_table(&results.load);
        let _ = write!(
            out,
            "\n### {}\n\n{}\n{TARGETS}",
            table.title,
            table.render()
        );
        let met = results
            .load
            .iter()
            .filter(|row| TargetCheck::of(row).all())
            .count();
        let _ = writeln!(
            out,
            "\n**{met} of {} scenarios met every target.**",
            results.load.len()
        );
    }
    if charts.iter().any(|name| name == PERCENTILE_CHART) {
        let _ = writeln!(out, "\n![{PERCENTILE_CHART}]({PERCENTILE_CHART})");
    }
    let tables = capacity_tables(&results.capacity);
    if !tables.is_empty() {
        out.push_str(CAPACITY_INTRO);
    }
    for table in tables {
        let _ = write!(out, "\n### {}\n\n{}", table.title, table.render());
    }
    let errors = first_errors(results);
    if !errors.is_empty() {
        out.push('\n');
    }
    for line in errors {
        let _ = writeln!(out, "- {line}");
    }
    out
}

const LOAD_INTRO: &str = "\
Open model, as NBomber's `inject` and wrk2 run it: each scenario's requests leave on a fixed
timetable whatever the service does, from a generator in the bench process (a multi-thread
tokio runtime and hyper-util's pooled HTTP/1.1 client with TCP_NODELAY; a new connection
whenever no idle one is free). Each scenario first gets an unrecorded warm-up at the same rate.
Every request is awaited, its response read whole and checked: status 200, and for payments a
JSON body naming the scenario's client and the currencies sent. Payments cycle through
EUR->USD (direct EURUSD), GBP->EUR (inverse of EURGBP), JPY->USD (inverse of USDJPY) and
EUR->JPY (cross: EURUSD and USDJPY in one upstream call).

- **Latency** is measured from each request's *intended* send time, so a stall of the service
  or of the generator shows in every request it delayed (no coordinated omission); only
  successful requests are timed. Percentiles come from an HDR histogram (3 significant
  digits, nearest rank); **uncorrected** latency runs from the actual send.
- **RPS** is successful responses per second over the run: its timetable, or until the last
  response if that came later.
- **Sent late** counts requests that left more than 1 ms after they were due; **Skipped**, those
  never sent because 1024 were already in flight.
- **API CPU** is the api process's user + system time during the run (/proc/<pid>/stat);
  **API peak RSS** its peak resident memory during the run (VmHWM after a reset); NA for an api
  the bench did not start. **Mock connections** are the TCP connections mock-rates accepted
  during the run (connections kept from the warm-up are not new); **Calls/connection** is
  upstream calls per new connection.
";

const TARGETS: &str = "
Targets at the reference rate: zero failed or skipped requests in every scenario; achieved RPS
within 1% of the target; p99 under 1 ms for `/health/live` and under 2 ms for every payments
scenario. They are measured and reported, not asserted: a run on a busy machine can miss them.
";

const CAPACITY_INTRO: &str = "
### capacity

Closed model: at each concurrency level, that many requests are kept in flight (each worker
sends the next as soon as its response is read and checked) for a fixed time. **Max RPS** is the
highest throughput of a level without a single failure; the service, mock-rates and the
generator share the machine's cores, so it is the throughput of the whole loopback set-up.
";

/// Writes the percentile chart into `dir` when there are load rows; its file name.
pub fn write_chart(results: &Results, dir: &Path) -> Result<Option<String>, BenchError> {
    let curves: Vec<(&str, Vec<(f64, f64)>)> = results
        .load
        .iter()
        .map(|row| {
            let points = row
                .latency
                .curve
                .iter()
                .filter(|point| point.percentile <= 99.9)
                .map(|point| (nines(point.percentile), point.corrected_us / 1_000.0))
                .collect();
            (row.scenario.as_str(), points)
        })
        .filter(|(_, points): &(&str, Vec<(f64, f64)>)| !points.is_empty())
        .collect();
    if curves.is_empty() {
        return Ok(None);
    }
    percentile_chart(&dir.join(PERCENTILE_CHART), &curves)?;
    Ok(Some(PERCENTILE_CHART.to_owned()))
}

/// A percentile's place on the x axis: the number of nines, -log10(1 - p/100), so 90% is 1,
/// 99% is 2 and 99.9% is 3.
fn nines(percentile: f64) -> f64 {
    -(1.0 - percentile / 100.0).max(1e-9).log10()
}

/// 1, 2 and 5 times the powers of ten from `low` to `high`: the latency axis's ticks.
fn one_two_five(low: f64, high: f64) -> Vec<f64> {
    let mut ticks = Vec::new();
    let mut decade = 10f64.powf(low.log10().floor());
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

type PercentileChart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<types::RangedCoordf64, LogCoord<f64>>>;

/// A light grid line between two points, labelled `offset` pixels from the first, outside the
/// plotting area.
fn grid_line(
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    chart: &PercentileChart<'_, '_>,
    [from, to]: [(f64, f64); 2],
    label: String,
    offset: (i32, i32),
    anchor: Pos,
) -> Result<(), String> {
    let line_style = BLACK.mix(0.15);
    let (start, end) = (chart.backend_coord(&from), chart.backend_coord(&to));
    root.draw(&PathElement::new(vec![start, end], line_style))
        .map_err(|error| error.to_string())?;
    let style = ("sans-serif", 15).into_font().color(&BLACK).pos(anchor);
    root.draw(&Text::new(
        label,
        (start.0 + offset.0, start.1 + offset.1),
        style,
    ))
    .map_err(|error| error.to_string())
}

/// The percentiles marked on the chart's x axis.
const TICKS: [f64; 7] = [50.0, 75.0, 90.0, 95.0, 99.0, 99.5, 99.9];

/// One line per scenario: latency (ms, log scale) against percentile.
fn percentile_chart(path: &Path, curves: &[(&str, Vec<(f64, f64)>)]) -> Result<(), BenchError> {
    let chart_error =
        |error: &dyn std::fmt::Display| BenchError::Chart(format!("{}: {error}", path.display()));
    let values = curves
        .iter()
        .flat_map(|(_, points)| points.iter().map(|point| point.1));
    let (low, high) = values.fold((f64::INFINITY, 0.0_f64), |(low, high), value| {
        (low.min(value), high.max(value))
    });
    let low = (low * 0.8).max(1e-3);
    let high = (high * 1.25).max(low * 10.0);
    let x_max = curves
        .iter()
        .flat_map(|(_, points)| points.iter().map(|point| point.0))
        .fold(1.0_f64, f64::max);
    let (x_start, x_end) = (nines(50.0) - 0.1, x_max + 0.1);

    let root = SVGBackend::new(path, (960, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| chart_error(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Latency by percentile, from the intended send time",
            ("sans-serif", 22),
        )
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(80)
        .build_cartesian_2d(x_start..x_end, (low..high).log_scale())
        .map_err(|e| chart_error(&e))?;
    // Both axes get their ticks drawn below: x at the reported percentiles, y at 1-2-5 steps.
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(0)
        .y_labels(0)
        // A log axis still gets one label of its own: blank it.
        .y_label_formatter(&|_| String::new())
        .x_desc("percentile (spaced by nines: 90%, 99%, 99.9%)")
        .y_desc("latency, ms (log scale)")
        .label_style(("sans-serif", 15))
        .draw()
        .map_err(|e| chart_error(&e))?;
    let below = Pos::new(HPos::Center, VPos::Top);
    for percentile in TICKS.iter().copied().filter(|p| nines(*p) <= x_max + 1e-9) {
        let x = nines(percentile);
        let label = format!("p{percentile}");
        grid_line(&root, &chart, [(x, low), (x, high)], label, (0, 6), below)
            .map_err(|e| chart_error(&e))?;
    }
    let left = Pos::new(HPos::Right, VPos::Center);
    for y in one_two_five(low, high) {
        let text = format!("{y:.3}");
        let label = text.trim_end_matches('0').trim_end_matches('.').to_owned();
        grid_line(
            &root,
            &chart,
            [(x_start, y), (x_end, y)],
            label,
            (-6, 0),
            left,
        )
        .map_err(|e| chart_error(&e))?;
    }
    for (index, (scenario, points)) in curves.iter().enumerate() {
        let color = Palette99::pick(index).to_rgba();
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                color.stroke_width(2),
            ))
            .map_err(|e| chart_error(&e))?
            .label(*scenario)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart
            .draw_series(
                points
                    .iter()
                    .map(|&point| Circle::new(point, 3, color.filled())),
            )
            .map_err(|e| chart_error(&e))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .draw()
        .map_err(|e| chart_error(&e))?;
    root.present().map_err(|e| chart_error(&e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::load::StatusCount;
    use crate::suites::load::recorder::{CurvePoint, LatencySummary};
    use crate::suites::load::tally::FailureCounts;

    fn row(client: Option<&str>, achieved_rps: f64, p99_us: f64, fail: u64) -> LoadRow {
        LoadRow {
            scenario: client.map_or_else(
                || "GET /health/live".to_owned(),
                |client| format!("POST /payments/{client}"),
            ),
            client: client.map(str::to_owned),
            target_rps: 480,
            duration_s: 10.0,
            scheduled: 4800,
            skipped: 0,
            sent_late: 0,
            max_send_delay_us: 80.0,
            ok: 4800 - fail,
            fail,
            achieved_rps,
            latency: LatencySummary {
                min_us: Some(50.0),
                mean_us: Some(90.0),
                max_us: Some(3_000.0),
                stddev_us: Some(20.0),
                p50_us: Some(85.0),
                p75_us: Some(95.0),
                p95_us: Some(120.0),
                p99_us: Some(p99_us),
                p999_us: Some(900.0),
                uncorrected_p50_us: Some(70.0),
                uncorrected_p99_us: Some(150.0),
                uncorrected_p999_us: Some(700.0),
                curve: vec![
                    CurvePoint {
                        percentile: 50.0,
                        corrected_us: 85.0,
                        uncorrected_us: 70.0,
                    },
                    CurvePoint {
                        percentile: 99.0,
                        corrected_us: p99_us,
                        uncorrected_us: 150.0,
                    },
                ],
            },
            bytes_received: 4800 * 400,
            status_codes: vec![StatusCount {
                status: 200,
                count: 4800,
            }],
            failures: FailureCounts::default(),
            api_cpu_s: Some(0.52),
            api_peak_rss_kib: Some(20_480),
            mock_connections: Some(0),
            upstream_calls: client.map(|_| 4800),
            reuse_ratio: None,
            first_error: None,
        }
    }

    #[test]
    fn judges_every_target() {
        let health = TargetCheck::of(&row(None, 480.0, 900.0, 0));
        assert!(health.all());
        assert!((health.p99_target_us - 1_000.0).abs() < f64::EPSILON);
        // 1.5 ms is over the health target but under the payments one.
        assert!(!TargetCheck::of(&row(None, 480.0, 1_500.0, 0)).p99_within);
        assert!(TargetCheck::of(&row(Some("ureq"), 480.0, 1_500.0, 0)).all());
        // 1% of 480 is 4.8: 475.3 and 484.7 are in, 475.1 is out.
        assert!(TargetCheck::of(&row(Some("awc"), 475.3, 100.0, 0)).rps_within);
        assert!(TargetCheck::of(&row(Some("awc"), 484.7, 100.0, 0)).rps_within);
        assert!(!TargetCheck::of(&row(Some("awc"), 475.1, 100.0, 0)).rps_within);
        let failed = TargetCheck::of(&row(Some("awc"), 480.0, 100.0, 1));
        assert!(!failed.no_failures && !failed.all());
    }

    #[test]
    fn tables_show_every_scenario() {
        let rows = [
            row(None, 480.0, 900.0, 0),
            row(Some("hyper"), 479.0, 2_500.0, 2),
        ];
        let tables = load_tables(&rows);
        assert_eq!(tables.len(), 4);
        let main = tables[0].render();
        assert!(main.contains("| GET /health/live"), "{main}");
        assert!(main.contains("0.900 ms"), "{main}");
        assert!(tables[2].render().contains("all reused"));
        let targets = targets_table(&rows).render();
        assert!(targets.contains("2.500 ms < 2 ms: NOT met"), "{targets}");
        assert!(targets.contains("480.0 of 480: met"), "{targets}");
    }

    #[test]
    fn percentiles_are_spaced_by_nines() {
        assert!((nines(90.0) - 1.0).abs() < 1e-9);
        assert!((nines(99.0) - 2.0).abs() < 1e-9);
        assert!((nines(99.9) - 3.0).abs() < 1e-9);
        let ticks = one_two_five(0.06, 3.0);
        let expected = [0.1, 0.2, 0.5, 1.0, 2.0];
        assert_eq!(ticks.len(), expected.len());
        for (tick, expected) in ticks.iter().zip(expected) {
            assert!((tick - expected).abs() < 1e-12, "{ticks:?}");
        }
    }

    #[test]
    fn draws_the_percentile_chart() {
        let dir = std::env::temp_dir().join(format!("bench-load-svg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("chart.svg");
        let curves = [
            (
                "GET /health/live",
                vec![(nines(50.0), 0.08), (nines(99.9), 0.9)],
            ),
            (
                "POST /payments/hyper",
                vec![(nines(50.0), 0.2), (nines(99.9), 1.9)],
            ),
        ];
        percentile_chart(&path, &curves).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<svg"));
        for text in ["GET /health/live", "POST /payments/hyper", "latency, ms"] {
            assert!(svg.contains(text), "{text} missing");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
