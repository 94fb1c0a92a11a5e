//! Presenting results: the tables (shared by the terminal and Markdown), results.json, SVGs.
//! Nothing here measures.

pub mod fanout;
pub mod faults;
pub mod json;
pub mod load;
pub mod markdown;
pub mod svg;
pub mod terminal;

use crate::baseline::BaselineComparison;
use crate::cli::RunSettings;
use crate::suites::SuiteName;
use crate::suites::decode::DecodeRow;
use crate::suites::latency::LatencyRow;

/// Column alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A table ready to print: every cell already formatted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub title: String,
    pub columns: Vec<(&'static str, Align)>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The table as aligned Markdown, BenchmarkDotNet's console style: readable as text and
    /// valid Markdown (`---:` right-aligns numbers).
    pub fn render(&self) -> String {
        let widths: Vec<usize> = self
            .columns
            .iter()
            .enumerate()
            .map(|(index, (header, _))| {
                self.rows
                    .iter()
                    .filter_map(|row| row.get(index))
                    .map(|cell| cell.chars().count())
                    .chain([header.chars().count(), 3])
                    .max()
                    .unwrap_or(3)
            })
            .collect();
        let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
        let mut out = line(
            self.columns
                .iter()
                .zip(&widths)
                .map(|((header, align), width)| pad(header, *width, *align))
                .collect(),
        );
        out.push_str(&line(
            self.columns
                .iter()
                .zip(&widths)
                .map(|((_, align), width)| match align {
                    Align::Left => "-".repeat(*width),
                    Align::Right => format!("{}:", "-".repeat(width - 1)),
                })
                .collect(),
        ));
        for row in &self.rows {
            out.push_str(&line(
                self.columns
                    .iter()
                    .zip(&widths)
                    .enumerate()
                    .map(|(index, ((_, align), width))| {
                        pad(row.get(index).map_or("", String::as_str), *width, *align)
                    })
                    .collect(),
            ));
        }
        out
    }
}

fn pad(text: &str, width: usize, align: Align) -> String {
    match align {
        Align::Left => format!("{text:<width$}"),
        Align::Right => format!("{text:>width$}"),
    }
}

/// How the times of one table are written: one unit and one number of decimals for every
/// time column, chosen from the smallest mean, so that a column lines up and reads at a glance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeFormat {
    unit: &'static str,
    nanos_per_unit: u32,
    decimals: usize,
}

impl TimeFormat {
    /// Nanoseconds below 1 us, else microseconds; 3 decimals below 100 units, 2 below 1000,
    /// else 1.
    pub fn for_smallest_ns(smallest_ns: f64) -> Self {
        let (unit, nanos_per_unit) = if smallest_ns >= 1_000.0 {
            ("us", 1_000)
        } else {
            ("ns", 1)
        };
        Self {
            unit,
            nanos_per_unit,
            decimals: decimals_for(smallest_ns / f64::from(nanos_per_unit)),
        }
    }

    /// The format for a set of means in nanoseconds (`None` ignored).
    pub fn for_means_ns(means: impl IntoIterator<Item = Option<f64>>) -> Self {
        let smallest = means
            .into_iter()
            .flatten()
            .filter(|mean| mean.is_finite())
            .fold(f64::INFINITY, f64::min);
        Self::for_smallest_ns(if smallest.is_finite() { smallest } else { 0.0 })
    }

    /// "72.412 us"; "NA" for a figure that cannot be computed.
    pub fn format_ns(self, nanos: Option<f64>) -> String {
        match nanos {
            Some(nanos) if nanos.is_finite() => {
                format!("{:.*} {}", self.decimals, self.scale(nanos), self.unit)
            }
            _ => "NA".to_owned(),
        }
    }

    pub fn unit(self) -> &'static str {
        self.unit
    }

    /// `nanos` in this format's unit.
    pub fn scale(self, nanos: f64) -> f64 {
        nanos / f64::from(self.nanos_per_unit)
    }

    pub fn format_us(self, micros: Option<f64>) -> String {
        self.format_ns(micros.map(|micros| micros * 1_000.0))
    }
}

fn decimals_for(value: f64) -> usize {
    if value.abs() >= 1_000.0 {
        1
    } else if value.abs() >= 100.0 {
        2
    } else {
        3
    }
}

/// One time with its own precision and unit; "NA" when it cannot be computed.
pub fn format_time(value: Option<f64>, unit: &str) -> String {
    match value {
        Some(value) if value.is_finite() => format!("{value:.*} {unit}", decimals_for(value)),
        _ => "NA".to_owned(),
    }
}

pub fn format_ratio(value: Option<f64>) -> String {
    value.map_or_else(|| "?".to_owned(), |value| format!("{value:.2}"))
}

/// Bytes as BenchmarkDotNet prints them: B below 1 KB, else KB or MB of 1024.
pub fn format_bytes(bytes: f64) -> String {
    if bytes < 1024.0 {
        format!("{bytes:.0} B")
    } else if bytes < 1024.0 * 1024.0 {
        format!("{:.2} KB", bytes / 1024.0)
    } else {
        format!("{:.2} MB", bytes / (1024.0 * 1024.0))
    }
}

pub fn format_count(value: f64) -> String {
    format!("{value:.1}")
}

pub fn latency_table(rows: &[LatencyRow]) -> Table {
    use Align::{Left, Right};
    let time = TimeFormat::for_means_ns(rows.iter().map(|row| row.mean_us.map(|us| us * 1_000.0)));
    Table {
        title: "latency: one call through the port (EURUSD + USDJPY, one upstream request)"
            .to_owned(),
        columns: vec![
            ("Client", Left),
            ("Mean", Right),
            ("Error", Right),
            ("StdDev", Right),
            ("Median", Right),
            ("P99", Right),
            ("Ratio", Right),
            ("RatioSD", Right),
            ("Allocated/op", Right),
            ("Allocs/op", Right),
            ("Connections", Right),
            ("Failures", Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                vec![
                    row.client.clone(),
                    time.format_us(row.mean_us),
                    time.format_us(row.error_us),
                    time.format_us(row.stddev_us),
                    time.format_us(row.median_us),
                    time.format_us(row.p99_us),
                    format_ratio(row.ratio),
                    format_ratio(row.ratio_sd),
                    format_bytes(row.bytes_per_op),
                    format_count(row.allocs_per_op),
                    row.connections_opened
                        .map_or_else(|| "?".to_owned(), |count| count.to_string()),
                    format!("{}/{}", row.failures, row.calls),
                ]
            })
            .collect(),
    }
}

/// The decode bodies, each once, in the order the rows name them.
pub fn bodies_in_order(rows: &[DecodeRow]) -> Vec<&str> {
    let mut bodies: Vec<&str> = Vec::new();
    for row in rows {
        if !bodies.contains(&row.body.as_str()) {
            bodies.push(&row.body);
        }
    }
    bodies
}

/// One table per body, in the order the rows came.
pub fn decode_tables(rows: &[DecodeRow]) -> Vec<Table> {
    use Align::{Left, Right};
    bodies_in_order(rows)
        .into_iter()
        .map(|body| {
            let rows: Vec<&DecodeRow> = rows.iter().filter(|row| row.body == body).collect();
            let format = TimeFormat::for_means_ns(rows.iter().map(|row| row.mean_ns));
            let time = |nanos: Option<f64>| format.format_ns(nanos);
            let (bytes, pairs) = rows
                .first()
                .map_or((0, 0), |row| (row.body_bytes, row.pairs));
            Table {
                title: format!(
                    "decode: {body} body ({pairs} pairs, {})",
                    format_bytes(bytes as f64)
                ),
                columns: vec![
                    ("Method", Left),
                    ("Mean", Right),
                    ("Error", Right),
                    ("StdDev", Right),
                    ("Median", Right),
                    ("Ratio", Right),
                    ("RatioSD", Right),
                    ("Allocated/op", Right),
                    ("Allocs/op", Right),
                ],
                rows: rows
                    .iter()
                    .map(|row| {
                        vec![
                            row.method.clone(),
                            time(row.mean_ns),
                            time(row.error_ns),
                            time(row.stddev_ns),
                            time(row.median_ns),
                            format_ratio(row.ratio),
                            format_ratio(row.ratio_sd),
                            format_bytes(row.bytes_per_op),
                            format_count(row.allocs_per_op),
                        ]
                    })
                    .collect(),
            }
        })
        .collect()
}

pub fn baseline_table(comparison: &BaselineComparison) -> Table {
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
                    change.suite.clone(),
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

/// The run's settings, one line each, for the header: the suites and clients, then a line
/// per selected suite.
pub fn settings_lines(settings: &RunSettings) -> Vec<String> {
    let names = |items: Vec<&str>| items.join(", ");
    let mut lines = vec![format!(
        "Suites: {}; clients: {}{}",
        names(settings.suites.iter().map(|suite| suite.as_str()).collect()),
        names(
            settings
                .clients
                .iter()
                .map(|client| client.as_str())
                .collect()
        ),
        if settings.quick { " (--quick)" } else { "" }
    )];
    if settings.suites.contains(&SuiteName::Latency) {
        lines.push(format!(
            "latency: {} warm-up calls, then {} samples x {} calls per client, interleaved; \
             mock-rates: {}; {}",
            settings.warmup_calls,
            settings.samples,
            settings.calls_per_sample,
            settings.mock,
            settings.latency_cpu.map_or_else(
                || "not pinned (--no-pin)".to_owned(),
                |cpu| format!("pinned to CPU {cpu} (with its own mock-rates, unless --mock-url)"),
            )
        ));
    }
    if settings.suites.contains(&SuiteName::Decode) {
        lines.push(format!(
            "decode: {} samples of about {} ms per method and body",
            settings.samples, settings.decode_sample_ms
        ));
    }
    if settings.suites.contains(&SuiteName::Load) {
        lines.push(load::settings_line(settings));
    }
    if settings.suites.contains(&SuiteName::Fanout) {
        lines.push(settings.fanout.describe());
    }
    if settings.suites.contains(&SuiteName::Faults) {
        lines.push(settings.faults.describe());
    }
    if settings.suites.iter().any(|suite| suite.needs_api()) {
        lines.push(format!(
            "payment service: {}; mock-rates: {}",
            settings.api, settings.mock
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_an_aligned_markdown_table() {
        let table = Table {
            title: "t".to_owned(),
            columns: vec![("Name", Align::Left), ("Mean", Align::Right)],
            rows: vec![
                vec!["hyper".to_owned(), "70.1 us".to_owned()],
                vec!["a".to_owned(), "1 us".to_owned()],
            ],
        };
        assert_eq!(
            table.render(),
            "| Name  |    Mean |\n| ----- | ------: |\n| hyper | 70.1 us |\n| a     |    1 us |\n"
        );
    }

    #[test]
    fn formats_figures() {
        assert_eq!(format_time(Some(72.4123), "us"), "72.412 us");
        let micros = TimeFormat::for_smallest_ns(61_234.0);
        assert_eq!(micros.format_ns(Some(61_234.0)), "61.234 us");
        assert_eq!(micros.format_us(Some(1_234.5)), "1234.500 us");
        assert_eq!(micros.format_ns(None), "NA");
        let nanos = TimeFormat::for_means_ns([Some(812.34), None, Some(9_000.0)]);
        assert_eq!(nanos.format_ns(Some(9_000.0)), "9000.00 ns");
        let large = TimeFormat::for_means_ns([Some(8_047.5), Some(11_447.49)]);
        assert_eq!(large.format_ns(Some(11_447.49)), "11.447 us");
        assert_eq!(format_time(Some(156.25), "us"), "156.25 us");
        assert_eq!(format_time(Some(21_034.56), "ns"), "21034.6 ns");
        assert_eq!(format_time(None, "us"), "NA");
        assert_eq!(format_bytes(912.0), "912 B");
        assert_eq!(format_bytes(39_034.0), "38.12 KB");
        assert_eq!(format_ratio(Some(1.0)), "1.00");
        assert_eq!(format_ratio(None), "?");
    }
}
