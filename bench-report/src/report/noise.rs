//! The noise checks in the tables: a Noise column, a line under the table for each flagged
//! row, and what the checks are.

use std::fmt::Write as _;

use bench_model::Noise;

/// The Noise column's cell: `ok`, what flagged the row, its outliers and rounds; `NA` for
/// results that were written without the checks.
pub fn cell(noise: Option<&Noise>) -> String {
    let Some(noise) = noise else {
        return "NA".to_owned();
    };
    let mut what = Vec::new();
    if noise.drift {
        what.push("DRIFT");
    }
    if noise.multimodal {
        what.push("MODES");
    }
    if noise.skewed {
        what.push("SKEWED");
    }
    let mut cell = if what.is_empty() {
        "ok".to_owned()
    } else {
        what.join("+")
    };
    if noise.outliers > 0 {
        let _ = write!(cell, ", {} out", noise.outliers);
    }
    if noise.rounds > 1 {
        let _ = write!(cell, ", {} rounds", noise.rounds);
    }
    cell
}

/// Why a row is flagged, in words, its times in `unit`; empty when it is not.
pub fn reasons(noise: &Noise, unit: &str) -> Vec<String> {
    let mut reasons = Vec::new();
    if noise.drift
        && let (Some(first), Some(last)) = (noise.first_third_mean, noise.last_third_mean)
    {
        reasons.push(format!(
            "drift: the first third of its samples averaged {first:.3} {unit} and the last \
             third {last:.3} {unit}, further apart than their Error"
        ));
    }
    if noise.multimodal
        && let Some(mvalue) = noise.mvalue
    {
        reasons.push(format!(
            "several modes: mvalue {mvalue:.2} (4 or more: two modes give 4, one about 2)"
        ));
    }
    if noise.skewed
        && let Some(shift) = noise.outlier_shift
    {
        reasons.push(format!(
            "skewed: its {} outliers move the mean by {shift:.1} times the Error of the other \
             samples (over 3: a stretch of the run on a busy machine)",
            noise.outliers
        ));
    }
    reasons
}

/// One line per flagged row (`label`, its noise, times in `unit`): why it is flagged.
pub fn notes<'a>(rows: impl IntoIterator<Item = (String, &'a Noise)>, unit: &str) -> Vec<String> {
    rows.into_iter()
        .filter(|(_, noise)| noise.flagged())
        .map(|(label, noise)| {
            let measured = if noise.rounds > 1 {
                format!(" (after {} rounds of samples)", noise.rounds)
            } else {
                String::new()
            };
            format!(
                "NOISY {label}{measured}: {}; its Mean and Error describe a machine that was not \
                 steady, and its ratios are less sure than RatioSD says",
                reasons(noise, unit).join("; ")
            )
        })
        .collect()
}

/// What the Noise column says.
pub const NOISE_NOTE: &str = "**Noise** checks each row's sample means: DRIFT when the first \
    and last thirds of its samples (in the order taken, Tukey's outliers set aside) differ by \
    more than their combined Error, as when a machine changes speed mid-run; MODES when their \
    mvalue (BenchmarkDotNet's modality test) is 4 or more, two clear modes; SKEWED when the \
    samples outside Tukey's fences (1.5 IQR) move the mean by more than 3 times the Error of \
    the others, as a stretch of the run on a busy machine does; `N out` counts those outliers. \
    In the decode suite, when a row is flagged, every row of the suite is measured again, \
    together so that ratios stay paired (`--remeasure`, 1 more round by default), and `N \
    rounds` marks a row measured more than once; in the latency suite the rows are measured in \
    rounds anyway (`--rounds`), and a row still flagged is listed under the table.";

#[cfg(test)]
mod tests {
    use super::*;

    fn noise(drift: bool, outliers: u32, rounds: u32) -> Noise {
        Noise {
            first_third_mean: Some(29.0),
            last_third_mean: Some(20.0),
            drift,
            mvalue: Some(2.1),
            multimodal: false,
            outliers,
            outlier_shift: None,
            skewed: false,
            rounds,
        }
    }

    #[test]
    fn flagged_rows_are_marked_and_explained_and_steady_ones_are_not() {
        assert_eq!(cell(Some(&noise(false, 0, 1))), "ok");
        assert_eq!(cell(Some(&noise(false, 2, 1))), "ok, 2 out");
        assert_eq!(cell(Some(&noise(true, 1, 2))), "DRIFT, 1 out, 2 rounds");
        assert_eq!(cell(None), "NA");
        let steady = noise(false, 0, 1);
        let drifted = noise(true, 0, 2);
        let lines = notes(
            [
                ("hyper over http".to_owned(), &steady),
                ("reqwest over http".to_owned(), &drifted),
            ],
            "us",
        );
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("NOISY reqwest over http (after 2 rounds of samples): drift"),
            "{lines:?}"
        );
        assert!(lines[0].contains("29.000 us"), "{lines:?}");
    }
}
