//! The latency suite's section: the BenchmarkDotNet-style table and what it counts.

use crate::model::{LatencyRow, Results};
use crate::report::format::{TimeFormat, format_bytes, format_count, format_ratio};
use crate::report::section::{Part, Section};
use crate::report::table::{Align, Table};

/// The section, when the suite ran; `charts` are the SVG files written beside report.md.
pub fn section(results: &Results, charts: &[String]) -> Option<Section> {
    if results.latency.is_empty() {
        return None;
    }
    let mut section = Section::new("latency")
        .with(Part::Table(latency_table(&results.latency)))
        .with(Part::Text(
            "Allocations: Rust heap only, all threads; libcurl's own malloc (isahc) is not \
             counted."
                .to_owned(),
        ))
        .with(Part::Prose(CALLS.to_owned()));
    if results.settings.latency_cpu.is_some() {
        section = section.with(Part::Prose(PINNED.to_owned()));
    }
    let failures = results
        .latency
        .iter()
        .filter_map(|row| {
            let error = row.first_error.as_ref()?;
            Some(format!(
                "{}: {} of {} calls failed; first: {error}",
                row.client, row.failures, row.calls
            ))
        })
        .collect();
    Some(section.with_notes(failures).with_charts(charts, "latency"))
}

const CALLS: &str = "Each call is `fetch_quotes(&[EURUSD, USDJPY])` through `RatesProvider`, \
    awaited and checked (both pairs present) before the next; one reused client per adapter, all \
    in one actix runtime. Allocated/op and Allocs/op count no kernel socket buffers either; they \
    include the port's boxed future (async-trait), the same one allocation for every client. \
    Connections are the TCP connections mock-rates accepted during the client's warm-up and \
    samples: 1 means every call reused one connection.";

const PINNED: &str = "The suite ran pinned to one CPU, the bench's thread, the clients' own \
    threads (ureq's blocking pool, isahc's curl thread) and its own mock-rates alike: on a small \
    machine a call whose client and server sit on different CPUs pays for a cross-CPU wake-up \
    that changes from sample to sample (unpinned, one sample of hyper averaged 20 us and the \
    next 50 us), which would drown the clients' differences. Pinned, client and server take \
    turns on the CPU, so each figure includes the mock's share of the work, the same for every \
    client. `--no-pin` measures unpinned.";

fn latency_table(rows: &[LatencyRow]) -> Table {
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
                    row.client.to_string(),
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
