//! What the noise checks found in one row's samples, and the checks: a drift check (the first
//! and last thirds of the samples), BenchmarkDotNet's mvalue for several modes, and Tukey's
//! fences for outliers, as small pure functions. A row they flag is measured again (bounded)
//! and otherwise marked.

use serde::{Deserialize, Serialize};

use crate::stats::{ci_half_width_999, mean, median};

/// The noise checks of one row's sample means (see [`check`] for how each is computed).
/// A flagged row is marked in every table and explained under it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Noise {
    /// The mean of the first third of the samples, and of the last third, when there are at
    /// least six samples.
    pub first_third_mean: Option<f64>,
    pub last_third_mean: Option<f64>,
    /// Whether the thirds differ by more than their combined Error (99.9% confidence): the
    /// machine changed speed during the row's samples.
    pub drift: bool,
    /// BenchmarkDotNet's mvalue of the sample means: about 2 for one mode, 4 and more for
    /// two; `None` with too few samples.
    pub mvalue: Option<f64>,
    /// Whether `mvalue` says the samples have more than one mode.
    pub multimodal: bool,
    /// Samples outside Tukey's fences (1.5 interquartile ranges beyond the quartiles).
    pub outliers: u32,
    /// How far the outliers move the mean: |mean of all - mean of the rest| over the rest's
    /// Error; `None` without outliers or without an Error.
    #[serde(default)]
    pub outlier_shift: Option<f64>,
    /// Whether that shift is large enough that the Mean describes the outliers, not the row:
    /// a stretch of the run on a busy machine.
    #[serde(default)]
    pub skewed: bool,
    /// Rounds of samples measured: 1, or more when a flagged row was measured again.
    #[serde(default = "one")]
    pub rounds: u32,
}

fn one() -> u32 {
    1
}

impl Noise {
    /// The same checks with the thirds' means converted by `convert` (ns to us, say).
    #[must_use]
    pub fn in_unit(self, convert: impl Fn(f64) -> f64) -> Self {
        Self {
            first_third_mean: self.first_third_mean.map(&convert),
            last_third_mean: self.last_third_mean.map(&convert),
            ..self
        }
    }

    /// Whether the row's figure should not be trusted as it stands.
    pub fn flagged(&self) -> bool {
        self.drift || self.multimodal || self.skewed
    }
}

/// An mvalue from here on means several modes: Gregg's modality is twice the number of
/// well-separated modes, so two give 4. BenchmarkDotNet already says "can have several modes"
/// from 2.8, but on 30 sample means of steady rows this machine gave up to 3.75 (a histogram
/// of 30 values is rough), so a row is flagged only from two clear modes; the drift check
/// catches a machine that changed speed once.
pub const MULTIMODAL_MVALUE: f64 = 4.0;

/// Outliers that move the mean by more than this many Errors of the other samples flag the
/// row. Steady runs here gave up to 2.5 (a few slow samples); a CPU hog on the suite's CPU for
/// a third of the run gave 9 to 37.
pub const SKEWED_SHIFT: f64 = 3.0;

/// Fewer samples than this give no drift check: a third must have two samples for its Error.
const MIN_SAMPLES_FOR_DRIFT: usize = 6;

/// Fewer samples than this give no mvalue: a histogram of a handful of values is noise itself.
const MIN_SAMPLES_FOR_MVALUE: usize = 10;

/// Every check on `samples` (in the order they were taken).
pub fn check(samples: &[f64]) -> Noise {
    let (first_third_mean, last_third_mean, drift) = match drift(samples) {
        Some((first, last, drifted)) => (Some(first), Some(last), drifted),
        None => (None, None, false),
    };
    let mvalue = mvalue(samples);
    let outliers = tukey_outliers(samples);
    let outlier_shift = outlier_shift(samples, &outliers);
    Noise {
        first_third_mean,
        last_third_mean,
        drift,
        mvalue,
        multimodal: mvalue.is_some_and(|mvalue| mvalue >= MULTIMODAL_MVALUE),
        outliers: outliers.len() as u32,
        outlier_shift,
        skewed: outlier_shift.is_some_and(|shift| shift > SKEWED_SHIFT),
        rounds: 1,
    }
}

/// |mean of all - mean without `outliers`| over the Error of the samples without them.
fn outlier_shift(samples: &[f64], outliers: &[f64]) -> Option<f64> {
    if outliers.is_empty() {
        return None;
    }
    let rest: Vec<f64> = samples
        .iter()
        .copied()
        .filter(|value| !outliers.contains(value))
        .collect();
    let error = ci_half_width_999(&rest).filter(|&error| error > 0.0)?;
    Some((mean(samples)? - mean(&rest)?).abs() / error)
}

/// The means of the first and last thirds of the samples (in the order taken, Tukey's outliers
/// set aside: one slow sample is an outlier, not a drift), and whether they differ by more
/// than the combined half-widths of their 99.9% confidence intervals (`sqrt(e1^2 + e2^2)`).
pub fn drift(samples: &[f64]) -> Option<(f64, f64, bool)> {
    let outliers = tukey_outliers(samples);
    let samples: Vec<f64> = samples
        .iter()
        .copied()
        .filter(|value| !outliers.contains(value))
        .collect();
    if samples.len() < MIN_SAMPLES_FOR_DRIFT {
        return None;
    }
    let third = samples.len() / 3;
    let (first, last) = (&samples[..third], &samples[samples.len() - third..]);
    let (first_mean, last_mean) = (mean(first)?, mean(last)?);
    let combined = ci_half_width_999(first)?.hypot(ci_half_width_999(last)?);
    Some((
        first_mean,
        last_mean,
        (first_mean - last_mean).abs() > combined,
    ))
}

/// The quartiles of `sorted` (Tukey's hinges: medians of the lower and upper halves).
fn quartiles(sorted: &[f64]) -> Option<(f64, f64)> {
    let half = sorted.len() / 2;
    let upper_start = sorted.len() - half;
    Some((median(&sorted[..half])?, median(&sorted[upper_start..])?))
}

/// The values outside Tukey's fences: below Q1 - 1.5 IQR or above Q3 + 1.5 IQR.
pub fn tukey_outliers(samples: &[f64]) -> Vec<f64> {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let Some((q1, q3)) = quartiles(&sorted) else {
        return Vec::new();
    };
    let fence = 1.5 * (q3 - q1);
    sorted
        .into_iter()
        .filter(|&value| value < q1 - fence || value > q3 + fence)
        .collect()
}

/// BenchmarkDotNet's mvalue (Brendan Gregg's "modality value" over histograms of doubling bin
/// size): outliers set aside, for each bin size from half Scott's rule up to the whole range, the
/// sum of the absolute steps between neighbouring bin counts (with an empty bin at each end)
/// over the largest count; the largest such ratio. One mode gives about 2, two about 4.
pub fn mvalue(samples: &[f64]) -> Option<f64> {
    let outliers = tukey_outliers(samples);
    let values: Vec<f64> = samples
        .iter()
        .copied()
        .filter(|value| !outliers.contains(value))
        .collect();
    if values.len() < MIN_SAMPLES_FOR_MVALUE {
        return None;
    }
    let (min, max) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), &value| {
            (low.min(value), high.max(value))
        });
    let range = max - min;
    if range <= 0.0 {
        return Some(2.0);
    }
    let std_dev = crate::stats::std_dev(&values)?;
    // Half of Scott's rule, BenchmarkDotNet's default ("Scott2"), as the first bin size.
    let mut bin_size = 3.5 * std_dev / (values.len() as f64).cbrt() / 2.0;
    if bin_size <= range * 1e-9 {
        bin_size = range;
    }
    let mut best: f64 = 0.0;
    loop {
        // Bin edges at four offsets: a mode cut in two by an edge would hide; BenchmarkDotNet's
        // adaptive histogram moves its edges for the same reason.
        for quarter in 0..4 {
            let start = min - bin_size * f64::from(quarter) / 4.0;
            best = best.max(modality(&values, start, bin_size, range));
        }
        if bin_size > range {
            break;
        }
        bin_size *= 2.0;
    }
    Some(best)
}

/// Gregg's modality of one histogram: bins of `bin_size` from `start`, an empty bin at each
/// end, the sum of the steps between neighbours over the highest bin.
fn modality(values: &[f64], start: f64, bin_size: f64, range: f64) -> f64 {
    let bins = (range / bin_size).floor() as usize + 2;
    let mut counts = vec![0_u32; bins + 2];
    for &value in values {
        let index = (((value - start) / bin_size).floor() as usize).min(bins - 1);
        counts[index + 1] += 1;
    }
    let steps: u32 = counts
        .windows(2)
        .map(|pair| pair[0].abs_diff(pair[1]))
        .sum();
    let highest = counts.iter().copied().max().unwrap_or(1).max(1);
    f64::from(steps) / f64::from(highest)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `count` values spread evenly and symmetrically around `centre`: one mode.
    fn around(centre: f64, spread: f64, count: usize) -> Vec<f64> {
        (0..count)
            .map(|index| {
                // A triangle-ish shape: most values near the centre.
                let t = (index as f64 + 0.5) / count as f64 * 2.0 - 1.0;
                centre + spread * t * t.abs()
            })
            .collect()
    }

    #[test]
    fn a_steady_run_has_no_drift_and_a_shifted_one_has() {
        let steady = around(20.0, 1.0, 30);
        // Interleave so that the thirds see the same spread.
        let mut interleaved = Vec::new();
        for index in 0..10 {
            interleaved.extend([steady[index], steady[index + 10], steady[index + 20]]);
        }
        let (first, last, drifted) = drift(&interleaved).unwrap();
        assert!(!drifted, "{first} {last}");
        // The Intel Xeon run of the issue: 57, then 29 or so for 18 samples, then 17-23 for
        // the last 11 (the 57 is an outlier, not the drift).
        let mut shifted = vec![57.0];
        shifted.extend((0..18).map(|index| 29.0 + [0.0, 0.4, -0.3][index % 3]));
        shifted.extend((0..11).map(|index| 17.0 + f64::from(index % 7)));
        let (_, _, drifted) = drift(&shifted).unwrap();
        assert!(drifted);
        assert_eq!(drift(&[1.0, 2.0, 3.0, 4.0, 5.0]), None, "too few samples");
        assert!(!check(&interleaved).flagged());
        assert!(check(&shifted).flagged());
    }

    #[test]
    fn mvalue_tells_one_mode_from_two() {
        let one = around(20.0, 1.0, 40);
        let single = mvalue(&one).unwrap();
        assert!(single < MULTIMODAL_MVALUE, "one mode: {single}");
        let mut two = around(20.0, 1.0, 20);
        two.extend(around(50.0, 1.0, 20));
        let double = mvalue(&two).unwrap();
        assert!(double >= MULTIMODAL_MVALUE, "two modes: {double}");
        assert!(check(&two).multimodal);
        assert_eq!(mvalue(&[1.0; 5]), None, "too few samples");
        assert_eq!(mvalue(&[3.0; 12]), Some(2.0), "all equal: one mode");
    }

    #[test]
    fn tukey_fences_catch_the_far_values_only() {
        let mut values: Vec<f64> = (1..=20).map(f64::from).collect();
        values.push(100.0);
        assert_eq!(tukey_outliers(&values), [100.0]);
        assert!(tukey_outliers(&values[..20]).is_empty());
        assert_eq!(check(&values).outliers, 1);
    }

    #[test]
    fn a_busy_stretch_of_outliers_skews_the_row_and_a_few_slow_samples_do_not() {
        // Latency samples around 43 us; a CPU hog for part of the run put 7 of 30 near 100.
        let mut busy: Vec<f64> = (0..30)
            .map(|index| 43.0 + f64::from(index % 5) * 0.2)
            .collect();
        for sample in busy.iter_mut().skip(10).take(7) {
            *sample += 60.0;
        }
        let noise = check(&busy);
        assert_eq!(noise.outliers, 7);
        assert!(noise.skewed && noise.flagged(), "{noise:?}");
        // One slow sample among 30: an outlier, not a skewed row.
        let mut steady: Vec<f64> = (0..30)
            .map(|index| 43.0 + f64::from(index % 5) * 0.2)
            .collect();
        steady[12] = 45.0;
        let noise = check(&steady);
        assert_eq!(noise.outliers, 1);
        assert!(!noise.skewed, "{noise:?}");
    }

    #[test]
    fn two_modes_in_order_are_also_a_drift() {
        let mut two = around(20.0, 1.0, 20);
        two.extend(around(50.0, 1.0, 20));
        let noise = check(&two);
        assert!(noise.multimodal && noise.drift, "{noise:?}");
    }
}
