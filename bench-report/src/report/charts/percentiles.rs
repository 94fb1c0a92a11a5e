//! The load suite's chart: latency against percentile, one line per scenario.

use std::path::Path;

use plotters::coord::types;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::ReportError;
use crate::report::charts::ticks::one_two_five;
use bench_model::Results;

/// File name of the percentile chart.
pub const PERCENTILE_CHART: &str = "load_percentiles.svg";

/// Writes the percentile chart into `dir` when there are load rows; its file name.
pub fn write(results: &Results, dir: &Path) -> Result<Option<String>, ReportError> {
    // The ordinary answer's rows: a larger answer's latency is another scale.
    let curves: Vec<(String, Vec<(f64, f64)>)> = results
        .load
        .iter()
        .filter(|row| row.body_bytes.is_none())
        .map(|row| {
            let points: Vec<(f64, f64)> = row
                .latency
                .curve
                .iter()
                .filter(|point| point.percentile <= 99.9)
                .map(|point| (nines(point.percentile), point.corrected_us / 1_000.0))
                .collect();
            (row.label(), points)
        })
        .filter(|(_, points)| !points.is_empty())
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
fn percentile_chart(path: &Path, curves: &[(String, Vec<(f64, f64)>)]) -> Result<(), ReportError> {
    let chart_error =
        |error: &dyn std::fmt::Display| ReportError::Chart(format!("{}: {error}", path.display()));
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
            .label(scenario.as_str())
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

    #[test]
    fn percentiles_are_spaced_by_nines() {
        assert!((nines(90.0) - 1.0).abs() < 1e-9);
        assert!((nines(99.0) - 2.0).abs() < 1e-9);
        assert!((nines(99.9) - 3.0).abs() < 1e-9);
    }

    #[test]
    fn draws_the_percentile_chart() {
        let dir = std::env::temp_dir().join(format!("bench-load-svg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("chart.svg");
        let curves = [
            (
                "GET /health/live".to_owned(),
                vec![(nines(50.0), 0.08), (nines(99.9), 0.9)],
            ),
            (
                "POST /payments/hyper".to_owned(),
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
