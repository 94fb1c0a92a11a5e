//! The SVG charts beside report.md (plotters' SVG backend): mean latency with Error bars,
//! allocations per call, decode time per way and body, the load suite's percentiles and its
//! seconds, and the fanout suite's wall times.

mod bars;
mod lines;
pub mod percentiles;
mod ticks;
mod timeline;
mod verdict;

use std::path::Path;

use crate::ReportError;
use crate::report::charts::bars::{Bar, bar_chart};
use crate::report::format::{TimeFormat, format_bytes, format_count};
use crate::report::rendering::Rendering;
use crate::verdict::decode::bodies_in_order;
use bench_model::{Protocol, ReleaseMeasure, ReleasesResults};

/// The releases suite's charts: a figure of every release relative to its library's newest.
const RELEASE_CHARTS: [(ReleaseMeasure, Protocol, &str); 3] = [
    (
        ReleaseMeasure::Latency,
        Protocol::Http,
        "releases_latency_http.svg",
    ),
    (
        ReleaseMeasure::Instructions,
        Protocol::Http,
        "releases_instructions.svg",
    ),
    (
        ReleaseMeasure::ConcurrentCpu,
        Protocol::Http,
        "releases_concurrent_cpu.svg",
    ),
];

/// The releases suite's charts that have bars, written into `dir`; their names.
fn release_charts(releases: &ReleasesResults, dir: &Path) -> Result<Vec<String>, ReportError> {
    let mut written = Vec::new();
    for (measure, protocol, name) in RELEASE_CHARTS {
        let bars = release_bars(releases, measure, protocol);
        if bars.is_empty() {
            continue;
        }
        let title = format!(
            "What upgrading changed: {}, each release / its library's newest",
            protocol.qualify(measure.name())
        );
        bar_chart(
            &dir.join(name),
            &title,
            "relative to the newest (1.00)",
            &bars,
        )?;
        written.push(name.to_owned());
    }
    Ok(written)
}

/// Every release's `measure` over `protocol` divided by its library's newest's, with the
/// spread of its rounds as the error bar; none where either has no figure.
fn release_bars(
    releases: &ReleasesResults,
    measure: ReleaseMeasure,
    protocol: Protocol,
) -> Vec<Bar> {
    let mut bars = Vec::new();
    for library in releases.libraries() {
        let Some(newest) = releases
            .newest(library)
            .and_then(|row| row.figure(measure, protocol)?.value())
            .filter(|value| *value > 0.0)
        else {
            continue;
        };
        for row in releases.of(library) {
            let Some(figure) = row.figure(measure, protocol) else {
                continue;
            };
            let Some(value) = figure.value() else {
                continue;
            };
            let spread = bench_model::stats::spread::range(&figure.rounds)
                .map(|(low, high)| (high - low) / 2.0 / newest);
            bars.push(Bar {
                label: row.label(),
                value: value / newest,
                error: spread,
                note: format!("{:.2}", value / newest),
            });
        }
    }
    bars
}

/// The verdict's picture (see [`verdict::svg`]).
pub const VERDICT_CHART: &str = "verdict.svg";

/// Writes every chart the rendering's results allow into `dir`; the file names written.
pub fn write_charts(rendering: &Rendering, dir: &Path) -> Result<Vec<String>, ReportError> {
    let results = &rendering.checked;
    let mut written = Vec::new();
    // The verdict's picture first: the verdict's section shows it after the answer.
    if let Some(svg) = verdict::svg(&rendering.verdict) {
        let path = dir.join(VERDICT_CHART);
        std::fs::write(&path, svg).map_err(|source| ReportError::io(&path, source))?;
        written.push(VERDICT_CHART.to_owned());
    }
    let mut chart = |name: &str, title: &str, y_desc: &str, bars: &[Bar]| {
        if bars.is_empty() {
            return Ok(());
        }
        bar_chart(&dir.join(name), title, y_desc, bars)?;
        written.push(name.to_owned());
        Ok::<_, ReportError>(())
    };

    let latency: Vec<Bar> = results
        .latency
        .iter()
        .filter_map(|row| {
            Some(Bar {
                label: format!("{} {}", row.client, row.protocol),
                value: row.mean_us?,
                error: row.error_us,
                note: format!("{:.1} us", row.mean_us?),
            })
        })
        .collect();
    chart(
        "latency_mean.svg",
        "Mean latency per call (error bars: 99.9% CI)",
        "microseconds",
        &latency,
    )?;
    let allocations: Vec<Bar> = results
        .latency
        .iter()
        .map(|row| Bar {
            label: format!("{} {}", row.client, row.protocol),
            value: row.allocs_per_op,
            error: None,
            note: format!(
                "{} / {}",
                format_count(row.allocs_per_op),
                format_bytes(row.bytes_per_op)
            ),
        })
        .collect();
    chart(
        "latency_allocations.svg",
        "Rust heap allocations per call (libcurl's malloc not counted)",
        "allocations per call",
        &allocations,
    )?;

    for body in bodies_in_order(&results.decode) {
        let rows: Vec<_> = results
            .decode
            .iter()
            .filter(|row| row.body == body)
            .collect();
        let time = TimeFormat::for_means_ns(rows.iter().map(|row| row.mean_ns));
        let bars: Vec<Bar> = rows
            .iter()
            .filter_map(|row| {
                Some(Bar {
                    label: row.method.to_string(),
                    value: time.scale(row.mean_ns?),
                    error: row.error_ns.map(|error| time.scale(error)),
                    note: format!(
                        "{}, {} allocs",
                        time.format_ns(row.mean_ns),
                        format_count(row.allocs_per_op)
                    ),
                })
            })
            .collect();
        let unit_name = if time.unit() == "us" {
            "microseconds"
        } else {
            "nanoseconds"
        };
        chart(
            &format!("decode_{body}.svg"),
            &format!("Decode time, {body} body (error bars: 99.9% CI)"),
            &format!("{unit_name} per decode"),
            &bars,
        )?;
    }
    written.extend(release_charts(&results.releases, dir)?);
    written.extend(percentiles::write(results, dir)?);
    written.extend(timeline::write(results, dir)?);
    written.extend(lines::write(results, dir)?);
    Ok(written)
}
