//! What the noise checks found in one row's samples, and when they flag it: a drift between the
//! first and last thirds of the samples, BenchmarkDotNet's mvalue for several modes, and
//! Tukey's outliers that skew the mean, each computed in `crate::stats::shape`. A row they flag
//! is measured again (bounded) and otherwise marked.

use serde::{Deserialize, Serialize};

use crate::stats::shape::{drift, mvalue, outlier_shift, tukey_outliers};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::shape::test_samples::around;

    #[test]
    fn a_steady_run_is_not_flagged_and_a_shifted_one_is() {
        let steady = around(20.0, 1.0, 30);
        // Interleave so that the thirds see the same spread.
        let mut interleaved = Vec::new();
        for index in 0..10 {
            interleaved.extend([steady[index], steady[index + 10], steady[index + 20]]);
        }
        // The Intel Xeon run of the issue: 57, then 29 or so for 18 samples, then 17-23 for
        // the last 11 (the drift of `stats::shape`'s test).
        let mut shifted = vec![57.0];
        shifted.extend((0..18).map(|index| 29.0 + [0.0, 0.4, -0.3][index % 3]));
        shifted.extend((0..11).map(|index| 17.0 + f64::from(index % 7)));
        assert!(!check(&interleaved).flagged());
        assert!(check(&shifted).flagged());
    }

    #[test]
    fn two_modes_are_multimodal() {
        let mut two = around(20.0, 1.0, 20);
        two.extend(around(50.0, 1.0, 20));
        assert!(check(&two).multimodal);
    }

    #[test]
    fn outliers_are_counted() {
        let mut values: Vec<f64> = (1..=20).map(f64::from).collect();
        values.push(100.0);
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
