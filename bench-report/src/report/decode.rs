//! The decode suite's section: a table per body, and which way won.

use std::fmt::Write as _;

use crate::report::format::{TimeFormat, format_bytes, format_count, format_ratio};
use crate::report::noise;
use crate::report::section::{Part, Section};
use crate::report::table::{Align, Table};
use crate::verdict::decode::{DecodeWays, Lean, Standing, bodies_in_order};
use bench_model::{DecodeMethod, DecodeRow, Results, SuiteName};

/// The section, when the suite ran, with `judged` (the rendering's judgement of the decode
/// ways); `charts` are the SVG files written beside report.md.
pub fn section(results: &Results, judged: &[DecodeWays], charts: &[String]) -> Option<Section> {
    if results.decode.is_empty() {
        return None;
    }
    let mut ways =
        String::from("The ways, each ending with every pair's rate and timestamp in hand:\n");
    for method in DecodeMethod::ALL {
        let _ = write!(ways, "\n- `{}`: {}", method.id(), method.description());
    }
    let mut section = Section::suite(SuiteName::Decode).with(Part::Prose(ways));
    for table in decode_tables(&results.decode) {
        section = section.with(Part::Table(table));
    }
    let mut notes = noise::notes(
        results.decode.iter().filter_map(|row| {
            let label = format!("{} on the {} body", row.method, row.body);
            Some((label, row.noise.as_ref()?))
        }),
        "ns",
    );
    notes.extend(ways_lines(&results.decode, judged));
    Some(
        section
            .with(Part::Prose(noise::NOISE_NOTE.to_owned()))
            .with_notes(notes)
            .with_charts(charts, "decode"),
    )
}

/// One table per body, in the order the rows came.
fn decode_tables(rows: &[DecodeRow]) -> Vec<Table> {
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
                    ("Noise", Left),
                ],
                rows: rows
                    .iter()
                    .map(|row| {
                        vec![
                            row.method.to_string(),
                            time(row.mean_ns),
                            time(row.error_ns),
                            time(row.stddev_ns),
                            time(row.median_ns),
                            format_ratio(row.ratio),
                            format_ratio(row.ratio_sd),
                            format_bytes(row.bytes_per_op),
                            format_count(row.allocs_per_op),
                            noise::cell(row.noise.as_ref()),
                        ]
                    })
                    .collect(),
            }
        })
        .collect()
}

/// One line per body: which way won (and which are within its Error), which allocated least,
/// and where the adapters' way stands, as `ways` judged them.
fn ways_lines(rows: &[DecodeRow], ways: &[DecodeWays]) -> Vec<String> {
    ways.iter().map(|judged| ways_line(rows, judged)).collect()
}

/// Why the adapters' way can lose on time.
const EXTRA_WORK: &str =
    "it also turns every rate into an exact decimal and builds the domain's Quotes";

fn ways_line(rows: &[DecodeRow], judged: &DecodeWays) -> String {
    let body = judged.body;
    let time = TimeFormat::for_means_ns(
        rows.iter()
            .filter(|row| row.body == body)
            .map(|row| row.mean_ns),
    );
    let mut line = format!(
        "{body} body: fastest `{}` ({})",
        judged.fastest,
        time.format_ns(Some(judged.fastest_mean_ns))
    );
    if !judged.within_error.is_empty() {
        let tied: Vec<String> = judged
            .within_error
            .iter()
            .map(|method| format!("`{method}`"))
            .collect();
        let _ = write!(line, ", with {} within its Error", tied.join(", "));
    }
    let (allocations, bytes) = (&judged.fewest_allocations, &judged.fewest_bytes);
    let leanest: &[(&str, &Lean)] = if allocations.method == bytes.method {
        &[("fewest allocations and bytes", allocations)]
    } else {
        &[("fewest allocations", allocations), ("fewest bytes", bytes)]
    };
    for (what, lean) in leanest {
        let _ = write!(
            line,
            "; {what} `{}` ({} allocations, {})",
            lean.method,
            format_count(lean.allocs_per_op),
            format_bytes(lean.bytes_per_op)
        );
    }
    let _ = write!(line, ". The adapters use `{}`", DecodeMethod::BASELINE);
    match judged.adapters {
        Some(Standing::AsFast) => line.push_str(", as fast as any."),
        Some(Standing::Slower(times)) => {
            let _ = write!(line, ", {times:.2}x the fastest: {EXTRA_WORK}.");
        }
        None => line.push('.'),
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::decode::decode_ways;
    use bench_model::DecodeBody;

    /// The lines of `rows` as a rendering judges and writes them.
    fn judged(rows: &[DecodeRow]) -> Vec<String> {
        ways_lines(rows, &decode_ways(rows))
    }

    fn row(method: DecodeMethod, mean: f64, bytes: f64) -> DecodeRow {
        DecodeRow {
            method,
            body: DecodeBody::Small,
            body_bytes: 120,
            pairs: 2,
            mean_ns: Some(mean),
            error_ns: Some(1.0),
            stddev_ns: Some(1.0),
            median_ns: Some(mean),
            ratio: Some(1.0),
            ratio_sd: Some(0.0),
            allocs_per_op: 2.0,
            bytes_per_op: bytes,
            decodes_per_sample: 1000,
            sample_means_ns: vec![Some(mean)],
            noise: None,
        }
    }

    #[test]
    fn names_the_winner_per_body() {
        let verdicts = judged(&[
            row(DecodeMethod::BorrowedTyped, 500.0, 100.0),
            row(DecodeMethod::Value, 900.0, 2000.0),
        ]);
        assert_eq!(verdicts.len(), 1);
        assert_eq!(
            verdicts[0],
            "small body: fastest `borrowed_typed` (500.00 ns); fewest allocations and bytes \
             `borrowed_typed` (2.0 allocations, 100 B). The adapters use `borrowed_typed`, as \
             fast as any."
        );
    }

    #[test]
    fn ties_within_the_combined_error_and_says_why_the_adapters_lose() {
        let mut close = row(DecodeMethod::Value, 505.0, 900.0);
        close.error_ns = Some(10.0);
        let verdicts = judged(&[row(DecodeMethod::BorrowedTyped, 500.0, 100.0), close]);
        assert!(
            verdicts[0].contains("with `value` within its Error"),
            "{}",
            verdicts[0]
        );

        let verdicts = judged(&[
            row(DecodeMethod::BorrowedTyped, 1000.0, 100.0),
            row(DecodeMethod::OwnedTyped, 505.0, 200.0),
        ]);
        assert!(
            verdicts[0].starts_with("small body: fastest `owned_typed`"),
            "{}",
            verdicts[0]
        );
        assert!(!verdicts[0].contains("within its Error"), "{}", verdicts[0]);
        assert!(verdicts[0].contains("1.98x the fastest"), "{}", verdicts[0]);
    }
}
