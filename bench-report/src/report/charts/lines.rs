//! The fanout suite's charts: wall time against group size, per client and mode.

use std::path::Path;

use plotters::prelude::*;

use crate::ReportError;
use crate::report::charts::ticks::one_two_five;
use bench_model::{FanoutMode, FanoutRow, Results, group_sizes};

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
pub fn write(results: &Results, dir: &Path) -> Result<Vec<String>, ReportError> {
    if results.fanout.is_empty() {
        return Ok(Vec::new());
    }
    let series = results.fanout_series();
    let lines_for = |mode: FanoutMode, suffix: bool| -> Vec<Line> {
        let mut lines: Vec<Line> = series
            .iter()
            .enumerate()
            .map(|(index, series)| Line {
                label: if suffix {
                    format!("{} {}", series.label(), mode.as_str())
                } else {
                    series.label()
                },
                color: PALETTE[index % PALETTE.len()],
                dashed: mode == FanoutMode::Sequential,
                points: results
                    .fanout
                    .iter()
                    .filter(|row| row.series() == *series && row.mode == mode)
                    .filter_map(|row| Some((row.group_size, row.wall_ms_median?)))
                    .collect(),
            })
            .collect();
        lines.push(Line {
            label: format!("ideal {}", mode.as_str()),
            color: IDEAL_COLOR,
            dashed: true,
            points: group_sizes(&results.fanout)
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
    let largest = group_sizes(&results.fanout).last().copied().unwrap_or(0);
    let mut capped = Vec::new();
    for (index, series) in series.iter().enumerate() {
        // The cap is the service's, the same over every protocol: one line per client.
        if capped.contains(&series.client) {
            continue;
        }
        capped.push(series.client);
        let cap = results
            .fanout
            .iter()
            .find(|row| row.series() == *series)
            .and_then(FanoutRow::overlap_cap)
            .and_then(|cap| u32::try_from(cap).ok())
            .filter(|&cap| cap < largest);
        if let Some(cap) = cap {
            concurrent.push(Line {
                label: format!("{}'s overlap cap ({cap})", series.client),
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
) -> Result<(), ReportError> {
    let chart_error =
        |error: &dyn std::fmt::Display| ReportError::Chart(format!("{}: {error}", path.display()));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fanout::test_rows::results;

    #[test]
    fn writes_both_charts_and_links_them() {
        let results = results("360");
        let dir = std::env::temp_dir().join(format!("bench-fanout-svg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let charts = write(&results, &dir).unwrap();
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
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
