//! The load suite's run over time: successful requests per second and their p99, second by
//! second, one line per scenario; a stall or a slow stretch shows here, where the run's single
//! percentiles average it away.

use std::path::Path;

use plotters::prelude::*;

use crate::ReportError;
use crate::report::charts::ticks::one_two_five;
use bench_model::{LoadRow, Results};

/// File name of the chart.
pub const TIMELINE_CHART: &str = "load_timeline.svg";

/// One scenario's line: its label and its points (seconds from the start, value).
struct Line {
    label: String,
    rps: Vec<(f64, f64)>,
    p99_ms: Vec<(f64, f64)>,
}

/// A second's place on the x axis: its middle (the middle of what the run had of it).
fn middle(second: u32, span_s: f64) -> f64 {
    f64::from(second) + span_s / 2.0
}

fn line(row: &LoadRow) -> Line {
    let seconds = row.per_second.iter().filter(|point| point.span_s > 0.0);
    Line {
        label: row.label(),
        rps: seconds
            .clone()
            .map(|point| {
                (
                    middle(point.second, point.span_s),
                    point.ok as f64 / point.span_s,
                )
            })
            .collect(),
        p99_ms: seconds
            .filter_map(|point| Some((middle(point.second, point.span_s), point.p99_us? / 1_000.0)))
            .collect(),
    }
}

/// Writes the chart into `dir` when a load row has its seconds; its file name.
pub fn write(results: &Results, dir: &Path) -> Result<Option<String>, ReportError> {
    // The ordinary answer's rows: those of a larger answer run at another rate.
    let lines: Vec<Line> = results
        .load
        .iter()
        .filter(|row| row.body_bytes.is_none())
        .map(line)
        .filter(|line| !line.rps.is_empty())
        .collect();
    if lines.is_empty() {
        return Ok(None);
    }
    let target = results.load.first().map(|row| f64::from(row.target_rps));
    timeline_chart(&dir.join(TIMELINE_CHART), &lines, target)?;
    Ok(Some(TIMELINE_CHART.to_owned()))
}

fn timeline_chart(path: &Path, lines: &[Line], target: Option<f64>) -> Result<(), ReportError> {
    let chart_error =
        |error: &dyn std::fmt::Display| ReportError::Chart(format!("{}: {error}", path.display()));
    let x_end = lines
        .iter()
        .flat_map(|line| line.rps.iter().map(|point| point.0))
        .fold(0.5_f64, f64::max)
        .ceil();

    let root = SVGBackend::new(path, (960, 820)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| chart_error(&e))?;
    let root = root
        .titled(
            "Load over time, per second by intended send time",
            ("sans-serif", 22),
        )
        .map_err(|e| chart_error(&e))?;
    let (upper, lower) = root.split_vertically(430);
    draw_rates(&upper, lines, target, x_end).map_err(|e| chart_error(&e))?;
    draw_p99(&lower, lines, x_end).map_err(|e| chart_error(&e))?;
    root.present().map_err(|e| chart_error(&e))?;
    Ok(())
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

fn color(index: usize) -> RGBAColor {
    Palette99::pick(index).to_rgba()
}

/// The upper panel: successful requests per second, the target dashed, and the legend.
fn draw_rates(
    area: &Area<'_>,
    lines: &[Line],
    target: Option<f64>,
    x_end: f64,
) -> Result<(), String> {
    let rps_top = lines
        .iter()
        .flat_map(|line| line.rps.iter().map(|point| point.1))
        .chain(target)
        .fold(1.0_f64, f64::max)
        * 1.1;
    let mut rps = ChartBuilder::on(area)
        .caption("successful requests per second", ("sans-serif", 17))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..x_end, 0.0..rps_top)
        .map_err(|e| e.to_string())?;
    rps.configure_mesh()
        .x_desc("seconds from the start")
        .y_desc("requests/s")
        .y_label_formatter(&|value| format!("{value:.0}"))
        .light_line_style(BLACK.mix(0.04))
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|e| e.to_string())?;
    if let Some(target) = target {
        rps.draw_series(DashedLineSeries::new(
            [(0.0, target), (x_end, target)],
            6,
            4,
            BLACK.mix(0.4).stroke_width(1),
        ))
        .map_err(|e| e.to_string())?
        .label(format!("target {target:.0} RPS"))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.mix(0.4)));
    }
    for (index, line) in lines.iter().enumerate() {
        let color = color(index);
        rps.draw_series(LineSeries::new(
            line.rps.iter().copied(),
            color.stroke_width(2),
        ))
        .map_err(|e| e.to_string())?
        .label(line.label.as_str())
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
        rps.draw_series(
            line.rps
                .iter()
                .map(|&point| Circle::new(point, 3, color.filled())),
        )
        .map_err(|e| e.to_string())?;
    }
    rps.configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .draw()
        .map_err(|e| e.to_string())?;

    Ok(())
}

/// The lower panel: each second's p99 (log scale), the colours the upper panel's.
fn draw_p99(area: &Area<'_>, lines: &[Line], x_end: f64) -> Result<(), String> {
    let p99 = || {
        lines
            .iter()
            .flat_map(|line| line.p99_ms.iter().map(|point| point.1))
    };
    let p99_high = p99().fold(0.0_f64, f64::max).max(1e-3) * 1.5;
    let p99_low = (p99().fold(f64::INFINITY, f64::min).min(p99_high) / 1.5).max(1e-3);
    let p99_high = p99_high.max(p99_low * 10.0);
    let mut latency = ChartBuilder::on(area)
        .caption(
            "p99 latency of the successful requests, from their intended send time",
            ("sans-serif", 17),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(80)
        .build_cartesian_2d(
            0.0..x_end,
            (p99_low..p99_high)
                .log_scale()
                .with_key_points(one_two_five(p99_low, p99_high)),
        )
        .map_err(|e| e.to_string())?;
    latency
        .configure_mesh()
        .x_desc("seconds from the start")
        .y_desc("p99, ms (log scale)")
        .y_label_formatter(&|value| {
            let text = format!("{value:.3}");
            text.trim_end_matches('0').trim_end_matches('.').to_owned()
        })
        .light_line_style(BLACK.mix(0.04))
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|e| e.to_string())?;
    for (index, line) in lines.iter().enumerate() {
        let color = color(index);
        latency
            .draw_series(LineSeries::new(
                line.p99_ms.iter().copied(),
                color.stroke_width(2),
            ))
            .map_err(|e| e.to_string())?;
        latency
            .draw_series(
                line.p99_ms
                    .iter()
                    .map(|&point| Circle::new(point, 3, color.filled())),
            )
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::test_rows::load_row as row;
    use bench_model::{ClientName, SecondPoint};

    #[test]
    fn plots_each_second_at_its_middle_as_a_rate() {
        let mut load = row(Some(ClientName::Hyper), 480.0, 2_000.0, 0);
        load.per_second = vec![
            SecondPoint {
                second: 0,
                span_s: 1.0,
                sent: 480,
                ok: 470,
                fail: 10,
                p99_us: Some(2_500.0),
            },
            SecondPoint {
                second: 1,
                span_s: 0.5,
                sent: 240,
                ok: 240,
                fail: 0,
                p99_us: None,
            },
        ];
        let line = line(&load);
        assert_eq!(line.label, "POST /payments/hyper");
        assert_eq!(line.rps, [(0.5, 470.0), (1.25, 480.0)]);
        // A second without a success has no p99 to plot.
        assert_eq!(line.p99_ms, [(0.5, 2.5)]);
    }

    #[test]
    fn draws_the_timeline_chart_or_none_without_seconds() {
        let dir = std::env::temp_dir().join(format!("bench-timeline-svg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let settings = bench_model::test_rows::default_settings();
        let mut results = Results::new(bench_model::test_rows::environment("now"), settings);
        results.load = vec![
            row(None, 480.0, 900.0, 0),
            row(Some(ClientName::Hyper), 470.0, 2_000.0, 10),
        ];
        let written = write(&results, &dir).unwrap();
        assert_eq!(written.as_deref(), Some(TIMELINE_CHART));
        let svg = std::fs::read_to_string(dir.join(TIMELINE_CHART)).unwrap();
        assert!(svg.starts_with("<svg"));
        for text in [
            "Load over time, per second by intended send time",
            "GET /health/live",
            "POST /payments/hyper",
            "target 480 RPS",
            "p99, ms (log scale)",
        ] {
            assert!(svg.contains(text), "{text} missing");
        }
        // A results.json from before the seconds were kept: no chart.
        for row in &mut results.load {
            row.per_second.clear();
        }
        std::fs::remove_file(dir.join(TIMELINE_CHART)).unwrap();
        assert_eq!(write(&results, &dir).unwrap(), None);
        assert!(!dir.join(TIMELINE_CHART).exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
