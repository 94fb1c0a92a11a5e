//! The decode suite's section: a table per body, and which way won.

use std::fmt::Write as _;

use crate::report::format::{TimeFormat, format_bytes, format_count, format_ratio};
use crate::report::noise;
use crate::report::section::{Part, Section};
use crate::report::table::{Align, Table};
use bench_model::stats::difference::combined_error;
use bench_model::{DecodeBody, DecodeMethod, DecodeRow, Results, SuiteName};

/// The section, when the suite ran; `charts` are the SVG files written beside report.md.
pub fn section(results: &Results, charts: &[String]) -> Option<Section> {
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
    notes.extend(decode_verdicts(&results.decode));
    Some(
        section
            .with(Part::Prose(noise::NOISE_NOTE.to_owned()))
            .with_notes(notes)
            .with_charts(charts, "decode"),
    )
}

/// The decode bodies, each once, in the order the rows name them.
pub fn bodies_in_order(rows: &[DecodeRow]) -> Vec<DecodeBody> {
    let mut bodies = Vec::new();
    for row in rows {
        if !bodies.contains(&row.body) {
            bodies.push(row.body);
        }
    }
    bodies
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
/// and where the adapters' way stands.
fn decode_verdicts(rows: &[DecodeRow]) -> Vec<String> {
    bodies_in_order(rows)
        .into_iter()
        .filter_map(|body| {
            let body_rows: Vec<&DecodeRow> = rows.iter().filter(|row| row.body == body).collect();
            verdict(body, &body_rows)
        })
        .collect()
}

/// Why the adapters' way can lose on time.
const EXTRA_WORK: &str =
    "it also turns every rate into an exact decimal and builds the domain's Quotes";

fn verdict(body: DecodeBody, rows: &[&DecodeRow]) -> Option<String> {
    let adapters = DecodeMethod::BASELINE;
    let time = TimeFormat::for_means_ns(rows.iter().map(|row| row.mean_ns));
    let fastest = rows
        .iter()
        .filter(|row| row.mean_ns.is_some())
        .min_by(|a, b| mean_or_max(a).total_cmp(&mean_or_max(b)))?;
    let fewest_bytes = rows
        .iter()
        .min_by(|a, b| a.bytes_per_op.total_cmp(&b.bytes_per_op))?;
    let fewest_allocations = rows
        .iter()
        .min_by(|a, b| a.allocs_per_op.total_cmp(&b.allocs_per_op))?;
    let tied: Vec<String> = rows
        .iter()
        .filter(|row| row.method != fastest.method && within_error(row, fastest))
        .map(|row| format!("`{}`", row.method))
        .collect();
    let mut line = format!(
        "{body} body: fastest `{}` ({})",
        fastest.method,
        time.format_ns(fastest.mean_ns)
    );
    if !tied.is_empty() {
        let _ = write!(line, ", with {} within its Error", tied.join(", "));
    }
    let leanest: &[(&str, &DecodeRow)] = if fewest_allocations.method == fewest_bytes.method {
        &[("fewest allocations and bytes", fewest_allocations)]
    } else {
        &[
            ("fewest allocations", fewest_allocations),
            ("fewest bytes", fewest_bytes),
        ]
    };
    for (what, row) in leanest {
        let _ = write!(
            line,
            "; {what} `{}` ({} allocations, {})",
            row.method,
            format_count(row.allocs_per_op),
            format_bytes(row.bytes_per_op)
        );
    }
    let _ = write!(line, ". The adapters use `{adapters}`");
    match rows.iter().find(|row| row.method == adapters) {
        Some(ours) if ours.method == fastest.method || within_error(ours, fastest) => {
            line.push_str(", as fast as any.");
        }
        Some(ours) => {
            let times = mean_or_max(ours) / mean_or_max(fastest);
            let _ = write!(line, ", {times:.2}x the fastest: {EXTRA_WORK}.");
        }
        None => line.push('.'),
    }
    Some(line)
}

fn mean_or_max(row: &DecodeRow) -> f64 {
    row.mean_ns.unwrap_or(f64::MAX)
}

/// Whether two rows' means differ by no more than their combined Error.
fn within_error(row: &DecodeRow, other: &DecodeRow) -> bool {
    match (row.mean_ns, other.mean_ns) {
        (Some(a), Some(b)) => {
            let combined =
                combined_error(row.error_ns.unwrap_or(0.0), other.error_ns.unwrap_or(0.0));
            (a - b).abs() <= combined
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let verdicts = decode_verdicts(&[
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
        let verdicts = decode_verdicts(&[row(DecodeMethod::BorrowedTyped, 500.0, 100.0), close]);
        assert!(
            verdicts[0].contains("with `value` within its Error"),
            "{}",
            verdicts[0]
        );

        let verdicts = decode_verdicts(&[
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
