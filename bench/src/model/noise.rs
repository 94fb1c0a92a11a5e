//! What the noise checks found in one row's samples.

use serde::{Deserialize, Serialize};

/// The noise checks of one row's sample means (see `crate::noise` for how each is computed).
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
