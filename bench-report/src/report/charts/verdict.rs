//! The verdict at a glance: a small panel per criterion the run measured, each client's figure
//! as a bar and the spread of its rounds as a whisker across it, so that a tie reads as
//! overlapping whiskers before anyone reads a table. Written by hand as SVG (no script, no
//! font file, the same bytes for the same verdict).

use std::fmt::Write as _;

use crate::verdict::{Better, Figure, Judgement, Outcome, Verdict};

const WIDTH: f64 = 960.0;
const COLUMNS: usize = 2;
const PANEL_WIDTH: f64 = WIDTH / COLUMNS as f64;
const ROW: f64 = 18.0;
const PANEL_HEAD: f64 = 40.0;
const PANEL_FOOT: f64 = 14.0;
const LABEL: f64 = 130.0;
const VALUE: f64 = 90.0;
const MARGIN: f64 = 12.0;

/// The picture of `verdict`, or `None` when it measured nothing.
pub fn svg(verdict: &Verdict) -> Option<String> {
    let panels: Vec<&Judgement> = verdict
        .criteria
        .iter()
        .filter(|judgement| !judgement.order().is_empty())
        .collect();
    if panels.is_empty() {
        return None;
    }
    let heights: Vec<f64> = panels.iter().map(|panel| panel_height(panel)).collect();
    // Panels fill the grid row by row; a row is as tall as its tallest panel.
    let row_heights: Vec<f64> = heights
        .chunks(COLUMNS)
        .map(|row| row.iter().copied().fold(0.0, f64::max))
        .collect();
    let title = 44.0;
    let height = title + row_heights.iter().sum::<f64>();
    let mut out = String::new();
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" \
         viewBox=\"0 0 {WIDTH} {height}\" font-family=\"sans-serif\" font-size=\"12\">\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\
         <text x=\"{MARGIN}\" y=\"18\" font-size=\"15\">The verdict at a glance: each \
         client's figure (bar) and the spread of its rounds (whisker)</text>\
         <text x=\"{MARGIN}\" y=\"36\" fill=\"#555\">The best in dark blue when beyond \
         the noise, lighter when a tie; a tie reads as overlapping whiskers.</text>"
    );
    let mut top = title;
    for (row, row_height) in row_heights.iter().enumerate() {
        for column in 0..COLUMNS {
            let Some(panel) = panels.get(row * COLUMNS + column) else {
                continue;
            };
            draw_panel(&mut out, panel, column as f64 * PANEL_WIDTH, top);
        }
        top += row_height;
    }
    out.push_str("</svg>\n");
    Some(out)
}

fn panel_height(judgement: &Judgement) -> f64 {
    PANEL_HEAD + ROW * judgement.order().len() as f64 + PANEL_FOOT
}

fn draw_panel(out: &mut String, judgement: &Judgement, left: f64, top: f64) {
    let order = judgement.order();
    let (verdict, decisive) = match &judgement.outcome {
        Outcome::Ranked(ranking) if ranking.decisive => ("beyond the noise", true),
        Outcome::Ranked(_) => ("a tie", false),
        _ => ("one client", false),
    };
    let way = match judgement.better {
        Better::Lower => "lower is better",
        Better::Higher => "higher is better",
    };
    let _ = write!(
        out,
        "<text x=\"{}\" y=\"{}\" font-size=\"13\" font-weight=\"bold\">{}</text>\
         <text x=\"{}\" y=\"{}\" fill=\"#555\">{way}; {verdict}</text>",
        left + MARGIN,
        top + 16.0,
        escape(&judgement.criterion.name()),
        left + MARGIN,
        top + 30.0
    );
    let scale_max = order
        .iter()
        .map(|figure| {
            figure
                .range()
                .map_or(figure.value, |(_, high)| high.max(figure.value))
        })
        .fold(0.0, f64::max);
    let plot_left = left + LABEL;
    let plot_width = PANEL_WIDTH - LABEL - VALUE - MARGIN;
    let x = |value: f64| {
        if scale_max > 0.0 {
            plot_left + plot_width * (value / scale_max).clamp(0.0, 1.0)
        } else {
            plot_left
        }
    };
    for (index, figure) in order.iter().enumerate() {
        let y = top + PANEL_HEAD + ROW * index as f64;
        draw_figure(out, figure, (index == 0, decisive), (left, y), &x);
    }
}

fn draw_figure(
    out: &mut String,
    figure: &Figure,
    (best, decisive): (bool, bool),
    (left, y): (f64, f64),
    x: &dyn Fn(f64) -> f64,
) {
    let fill = match (best, decisive) {
        (true, true) => "#2f5f9f",
        (true, false) => "#6f8fbf",
        _ => "#c9d6ea",
    };
    let zero = x(0.0);
    let _ = write!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\
         <rect x=\"{zero:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{fill}\"/>",
        left + LABEL - 6.0,
        y + 12.0,
        escape(figure.client.as_str()),
        y + 3.0,
        (x(figure.value) - zero).max(0.5),
        ROW - 6.0
    );
    if let Some((low, high)) = figure.range() {
        let (from, to, mid) = (x(low), x(high), y + ROW / 2.0);
        let _ = write!(
            out,
            "<line x1=\"{from:.1}\" y1=\"{mid:.1}\" x2=\"{to:.1}\" y2=\"{mid:.1}\" \
             stroke=\"black\" stroke-width=\"1.5\"/>\
             <line x1=\"{from:.1}\" y1=\"{:.1}\" x2=\"{from:.1}\" y2=\"{:.1}\" stroke=\"black\"/>\
             <line x1=\"{to:.1}\" y1=\"{:.1}\" x2=\"{to:.1}\" y2=\"{:.1}\" stroke=\"black\"/>",
            y + 4.0,
            y + ROW - 4.0,
            y + 4.0,
            y + ROW - 4.0
        );
    }
    let _ = write!(
        out,
        "<text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
        left + PANEL_WIDTH - VALUE - MARGIN + 6.0,
        y + 12.0,
        escape(&figure.shown)
    );
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::{Criterion, NoiseRule, rank};
    use bench_model::{ClientName, Protocol};

    fn figure(client: ClientName, value: f64, rounds: &[f64]) -> Figure {
        Figure {
            client,
            value,
            rounds: rounds.to_vec(),
            half_width: None,
            shown: format!("{value} us"),
        }
    }

    #[test]
    fn a_panel_per_measured_criterion_a_bar_and_whisker_per_client() {
        let criteria = vec![
            Judgement {
                criterion: Criterion::Latency(Protocol::Http),
                source: String::new(),
                better: Better::Lower,
                rule: NoiseRule::Rounds,
                outcome: rank(
                    vec![
                        figure(ClientName::Hyper, 40.0, &[39.0, 40.0, 41.0]),
                        figure(ClientName::Awc, 44.0, &[43.0, 44.0, 46.0]),
                    ],
                    Better::Lower,
                    NoiseRule::Rounds,
                )
                .unwrap(),
                left_out: Vec::new(),
                claimed: Vec::new(),
            },
            Judgement {
                criterion: Criterion::Capacity,
                source: String::new(),
                better: Better::Higher,
                rule: NoiseRule::Rounds,
                outcome: Outcome::NotMeasured("not in this run".to_owned()),
                left_out: Vec::new(),
                claimed: Vec::new(),
            },
        ];
        let verdict = Verdict {
            picks: Vec::new(),
            criteria,
        };
        let svg = svg(&verdict).unwrap();
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert!(svg.contains("Per-call latency, http"), "{svg}");
        assert!(!svg.contains("Capacity"), "not measured, no panel: {svg}");
        assert!(svg.contains("beyond the noise"), "{svg}");
        // A bar per client, and a whisker (three lines) per client with rounds.
        assert_eq!(svg.matches("<rect").count(), 1 + 2);
        assert_eq!(svg.matches("<line").count(), 3 * 2);
        assert_eq!(svg, super::svg(&verdict).unwrap(), "the same bytes again");
        let nothing = Verdict {
            picks: Vec::new(),
            criteria: Vec::new(),
        };
        assert!(super::svg(&nothing).is_none());
    }
}
