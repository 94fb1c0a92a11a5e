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
use crate::report::decode::bodies_in_order;
use crate::report::format::{TimeFormat, format_bytes, format_count};
use bench_model::Results;

/// The verdict's picture (see [`verdict::svg`]).
pub const VERDICT_CHART: &str = "verdict.svg";

/// Writes every chart the results allow into `dir`; the file names written.
pub fn write_charts(results: &Results, dir: &Path) -> Result<Vec<String>, ReportError> {
    let results = &results.checked();
    let mut written = Vec::new();
    // The verdict's picture first: report.html opens with it.
    if let Some(svg) = verdict::svg(&crate::verdict::verdict(results)) {
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
    written.extend(percentiles::write(results, dir)?);
    written.extend(timeline::write(results, dir)?);
    written.extend(lines::write(results, dir)?);
    Ok(written)
}
