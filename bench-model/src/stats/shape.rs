//! The shape of one row's samples in the order they were taken, as small pure functions: a
//! drift between the first and last thirds, Tukey's outliers and how far they pull the mean,
//! and BenchmarkDotNet's mvalue for several modes. The noise checks (`crate::noise`) flag a row
//! with these.

use crate::stats::difference::combined_error;
use crate::stats::quantile::quartiles;
use crate::stats::summary::{ci_half_width_999, mean, std_dev};

/// Fewer samples than this give no drift check: a third must have two samples for its Error.
const MIN_SAMPLES_FOR_DRIFT: usize = 6;

/// Fewer samples than this give no mvalue: a histogram of a handful of values is noise itself.
const MIN_SAMPLES_FOR_MVALUE: usize = 10;

/// |mean of all - mean without `outliers`| over the Error of the samples without them; `None`
/// without outliers or when the rest has no Error above 0.
pub fn outlier_shift(samples: &[f64], outliers: &[f64]) -> Option<f64> {
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
    let combined = combined_error(ci_half_width_999(first)?, ci_half_width_999(last)?);
    Some((
        first_mean,
        last_mean,
        (first_mean - last_mean).abs() > combined,
    ))
}

/// The values outside Tukey's fences: below Q1 - 1.5 IQR or above Q3 + 1.5 IQR (the
/// [`quartiles`] of the halves).
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
    let std_dev = std_dev(&values)?;
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

/// Samples for tests.
#[cfg(test)]
pub(crate) mod test_samples {
    /// `count` values spread evenly and symmetrically around `centre`: one mode.
    pub fn around(centre: f64, spread: f64, count: usize) -> Vec<f64> {
        (0..count)
            .map(|index| {
                // A triangle-ish shape: most values near the centre.
                let t = (index as f64 + 0.5) / count as f64 * 2.0 - 1.0;
                centre + spread * t * t.abs()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::test_samples::around;
    use super::*;
    use crate::noise::MULTIMODAL_MVALUE;

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
        assert_eq!(mvalue(&[1.0; 5]), None, "too few samples");
        assert_eq!(mvalue(&[3.0; 12]), Some(2.0), "all equal: one mode");
    }

    #[test]
    fn tukey_fences_catch_the_far_values_only() {
        let mut values: Vec<f64> = (1..=20).map(f64::from).collect();
        values.push(100.0);
        assert_eq!(tukey_outliers(&values), [100.0]);
        assert!(tukey_outliers(&values[..20]).is_empty());
    }

    #[test]
    fn the_shift_of_outliers_is_in_errors_of_the_rest() {
        // 1 to 20 and an outlier at 100: the mean moves from 10.5 to 14.29 or so.
        let mut values: Vec<f64> = (1..=20).map(f64::from).collect();
        let rest_error = ci_half_width_999(&values).unwrap();
        values.push(100.0);
        let shift = outlier_shift(&values, &[100.0]).unwrap();
        let expected = (mean(&values).unwrap() - 10.5).abs() / rest_error;
        assert!((shift - expected).abs() < 1e-12, "{shift} vs {expected}");
        assert_eq!(outlier_shift(&values, &[]), None);
        assert_eq!(outlier_shift(&[5.0, 5.0, 9.0], &[9.0]), None, "no Error");
    }
}
