//! Spreads between rounds and between runs, and the margin between two figures, as small pure
//! functions: what the verdict holds a margin against.
//!
//! A figure measured in rounds spread over a run moved between its rounds by
//! [`relative_range`] of the rounds about the figure; a figure of several runs moved between
//! the runs by [`relative_range_about_median`] of the runs' figures. Both are the range
//! (highest - lowest) as a fraction, not a standard deviation: with three rounds a range is
//! what can be seen, and a margin must exceed it to count.

use crate::stats::quantile::median_of;

/// The lowest and highest of `values`, with at least two values.
pub fn range(values: &[f64]) -> Option<(f64, f64)> {
    if values.len() < 2 {
        return None;
    }
    let low = values.iter().copied().fold(f64::INFINITY, f64::min);
    let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some((low, high))
}

/// How far `values` spread, as a fraction of `centre`: (highest - lowest) / |centre|. `None`
/// below two values or when `centre` is 0.
pub fn relative_range(values: &[f64], centre: f64) -> Option<f64> {
    let (low, high) = range(values)?;
    (centre.abs() > 0.0).then(|| (high - low) / centre.abs())
}

/// [`relative_range`] about the median of `values`: how far a figure moved between runs.
pub fn relative_range_about_median(values: &[f64]) -> Option<f64> {
    relative_range(values, median_of(values)?)
}

/// How far `high` lies above `low`, as a fraction of `low`: `high / low - 1`. Infinite when
/// `low` is not above 0 and `high` is above it, 0 when neither.
pub fn relative_margin(low: f64, high: f64) -> f64 {
    if low > 0.0 {
        high / low - 1.0
    } else if high > low {
        f64::INFINITY
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(actual: f64, expected: f64) -> bool {
        (actual - expected).abs() < 1e-12
    }

    #[test]
    fn the_range_needs_two_values() {
        assert_eq!(range(&[3.0, 1.0, 2.0]), Some((1.0, 3.0)));
        assert_eq!(range(&[5.0, 5.0]), Some((5.0, 5.0)));
        assert_eq!(range(&[1.0]), None);
        assert_eq!(range(&[]), None);
    }

    #[test]
    fn rounds_spread_about_the_figure() {
        // Rounds 90 to 110 of a figure of 100: 20%.
        assert_eq!(relative_range(&[90.0, 110.0, 100.0], 100.0), Some(0.2));
        assert_eq!(relative_range(&[90.0, 110.0], -100.0), Some(0.2));
        assert_eq!(relative_range(&[90.0, 110.0], 0.0), None);
        assert_eq!(relative_range(&[90.0], 100.0), None);
    }

    #[test]
    fn runs_spread_about_their_median() {
        // Runs 40, 50 and 60: a range of 20 about a median of 50.
        assert_eq!(relative_range_about_median(&[60.0, 40.0, 50.0]), Some(0.4));
        assert_eq!(relative_range_about_median(&[-1.0, 1.0]), None);
        assert_eq!(relative_range_about_median(&[50.0]), None);
    }

    #[test]
    fn margins_are_fractions_of_the_lower_figure() {
        assert!(close(relative_margin(40.0, 50.0), 0.25));
        assert!(close(relative_margin(50.0, 50.0), 0.0));
        assert!(relative_margin(0.0, 3.0).is_infinite());
        assert!(close(relative_margin(0.0, 0.0), 0.0));
    }
}
