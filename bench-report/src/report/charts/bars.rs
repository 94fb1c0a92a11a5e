//! A vertical bar chart with error bars.

use std::path::Path;

use plotters::prelude::*;

use crate::ReportError;

/// One bar: a value, an optional symmetric error bar, and the text printed above it.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    pub label: String,
    pub value: f64,
    pub error: Option<f64>,
    pub note: String,
}

/// The plot area's width: the 960 px picture less its margins (16 px each side) and the y
/// labels' 80 px.
const PLOT_WIDTH: u32 = 960 - 2 * 16 - 80;

/// A vertical bar chart with one bar per entry, in order.
pub fn bar_chart(path: &Path, title: &str, y_desc: &str, bars: &[Bar]) -> Result<(), ReportError> {
    let chart_error =
        |error: &dyn std::fmt::Display| ReportError::Chart(format!("{}: {error}", path.display()));
    let Some(last) = bars.len().checked_sub(1) else {
        return Ok(());
    };
    let top = bars
        .iter()
        .map(|bar| bar.value + bar.error.unwrap_or(0.0).max(0.0))
        .fold(0.0_f64, f64::max);
    let y_max = if top > 0.0 { top * 1.2 } else { 1.0 };
    let labels: Vec<String> = bars.iter().map(|bar| bar.label.clone()).collect();

    let root = SVGBackend::new(path, (960, 540)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| chart_error(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d((0_u32..last as u32).into_segmented(), 0.0..y_max)
        .map_err(|e| chart_error(&e))?;
    let y_decimals = if y_max >= 10.0 { 0 } else { 2 };
    let y_label = |value: &f64| format!("{value:.y_decimals$}");
    let label_of = |value: &SegmentValue<u32>| match value {
        SegmentValue::CenterOf(index) | SegmentValue::Exact(index) => {
            labels.get(*index as usize).cloned().unwrap_or_default()
        }
        SegmentValue::Last => String::new(),
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(bars.len())
        .x_label_formatter(&label_of)
        .y_label_formatter(&y_label)
        .y_desc(y_desc)
        .label_style(("sans-serif", 15))
        .draw()
        .map_err(|e| chart_error(&e))?;

    let fill = RGBColor(70, 110, 180);
    // A bar fills half its slot and more: the margin on each side is at most 24 px, and at
    // most a quarter of the slot, so that many bars (every client over every protocol) never
    // get a width below zero.
    let slot = PLOT_WIDTH / u32::try_from(bars.len()).unwrap_or(u32::MAX).max(1);
    let bar_margin = (slot / 4).min(24);
    // One histogram per bar: a histogram of several keeps them in a HashMap, which would
    // write the bars in a different order each time, and the same results in another SVG.
    for (index, bar) in bars.iter().enumerate() {
        chart
            .draw_series(
                Histogram::vertical(&chart)
                    .style(fill.mix(0.85).filled())
                    .margin(bar_margin)
                    .data([(index as u32, bar.value)]),
            )
            .map_err(|e| chart_error(&e))?;
    }

    let whisker = BLACK.stroke_width(2);
    for (index, bar) in bars.iter().enumerate() {
        let x = SegmentValue::CenterOf(index as u32);
        let mut note_at = bar.value;
        if let Some(error) = bar.error.filter(|error| error.is_finite() && *error > 0.0) {
            let (low, high) = ((bar.value - error).max(0.0), bar.value + error);
            note_at = high;
            chart
                .draw_series([PathElement::new(
                    vec![(x.clone(), low), (x.clone(), high)],
                    whisker,
                )])
                .map_err(|e| chart_error(&e))?;
            for end in [low, high] {
                chart
                    .draw_series([EmptyElement::at((x.clone(), end))
                        + PathElement::new(vec![(-8, 0), (8, 0)], whisker)])
                    .map_err(|e| chart_error(&e))?;
            }
        }
        chart
            .draw_series([EmptyElement::at((x, note_at))
                + Text::new(
                    bar.note.clone(),
                    (-40, -20),
                    ("sans-serif", 14).into_font().color(&BLACK),
                )])
            .map_err(|e| chart_error(&e))?;
    }
    root.present().map_err(|e| chart_error(&e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_an_svg_with_every_label() {
        let dir = std::env::temp_dir().join(format!("bench-svg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("chart.svg");
        let bars = [
            Bar {
                label: "hyper".to_owned(),
                value: 70.0,
                error: Some(3.0),
                note: "70.0 us".to_owned(),
            },
            Bar {
                label: "isahc".to_owned(),
                value: 160.0,
                error: None,
                note: "160.0 us".to_owned(),
            },
        ];
        bar_chart(&path, "Mean", "microseconds", &bars).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<svg"));
        for text in ["hyper", "isahc", "70.0 us", "microseconds"] {
            assert!(svg.contains(text), "{text} missing");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
