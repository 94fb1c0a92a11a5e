//! Medians, percentiles and quartiles, as small pure functions.
//!
//! Three definitions are kept apart, each named for what it is, because the figures made with
//! them are saved in results.json and must not move:
//! - [`median`] and [`median_of`]: the middle value, or the mean of the two middle ones. Every
//!   median the bench reports of floats (latency, decode, resolution, fanout, the verdict's
//!   figure of several runs).
//! - [`lower_median`]: the lower of the two middle values, always an observed one. The
//!   resilience suite's capacity, so that the figure is a rate some round confirmed, never the
//!   mean of two rates neither held; and the releases suite's half-close CPU, so that a release
//!   is said to spin only when more than half its rounds did (with an even count, the upper
//!   middle value would call a spin that half the rounds did not show).
//! - Nearest rank, the smallest value with at least p% of the values at or below it, always an
//!   observed value, in two forms that round the rank differently:
//!   [`percentile_nearest_rank`] (sorted floats, rank `ceil(p / 100 x n)` in floating point:
//!   the latency suite's p99, the load and resilience suites' p50 and p99 of a stretch), and
//!   [`nearest_rank`] with [`value_at_rank`] (values counted in buckets, rank in integers to
//!   1/1000 of a percent: the load suite's HDR histograms, whose p99.9 of 1000 values must be
//!   rank 999 and not 1000 by a floating-point hair). They agree wherever `p / 100 x n` is not
//!   within a rounding error of a whole number.
//!
//! [`quartiles`] are the ones of the noise checks' outlier fences (Tukey's).

/// The median of sorted values: the middle one, or the mean of the two middle ones.
pub fn median(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some(f64::midpoint(sorted[n / 2 - 1], sorted[n / 2])),
    }
}

/// The median of values in any order.
pub fn median_of(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    median(&sorted)
}

/// A value with a total order, which [`lower_median`] sorts by: integers as they compare,
/// floats by [`f64::total_cmp`].
pub trait TotalOrder: Copy {
    fn total_order(&self, other: &Self) -> std::cmp::Ordering;
}

impl TotalOrder for u32 {
    fn total_order(&self, other: &Self) -> std::cmp::Ordering {
        self.cmp(other)
    }
}

impl TotalOrder for f64 {
    fn total_order(&self, other: &Self) -> std::cmp::Ordering {
        self.total_cmp(other)
    }
}

/// The lower median of values in any order (sorted in place): the middle one, or the lower of
/// the two middle ones, always an observed value. `None` when empty.
pub fn lower_median<T: TotalOrder>(values: &mut [T]) -> Option<T> {
    if values.is_empty() {
        return None;
    }
    values.sort_unstable_by(T::total_order);
    Some(values[(values.len() - 1) / 2])
}

/// The `p`-th percentile (0 < p <= 100) of sorted values by the nearest-rank method:
/// the smallest value with at least p% of the values at or below it, always an observed value.
pub fn percentile_nearest_rank(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() || !(p > 0.0 && p <= 100.0) {
        return None;
    }
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.clamp(1, sorted.len()) - 1).copied()
}

/// [`percentile_nearest_rank`] of values in any order, sorted in place first.
pub fn percentile_nearest_rank_of(values: &mut [f64], p: f64) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    percentile_nearest_rank(values, p)
}

/// The rank (from 1) of the `percentile`-th percentile (0 < p <= 100) of `count` values by
/// the nearest-rank method, computed in integers with the percentile to 1/1000 of a percent:
/// `ceil(p x 1000 x count / 100 000)`, at least 1. `None` when there are no values or `p` is
/// out of range.
pub fn nearest_rank(count: u64, percentile: f64) -> Option<u128> {
    if count == 0 || !(percentile > 0.0 && percentile <= 100.0) {
        return None;
    }
    let milli_percent = (percentile * 1_000.0).round() as u128;
    Some((milli_percent * u128::from(count)).div_ceil(100_000).max(1))
}

/// The value of the bucket that holds the `rank`-th value of `buckets` (value, count) in
/// ascending order of value; `None` when the buckets hold fewer values than `rank`.
pub fn value_at_rank<T>(buckets: impl IntoIterator<Item = (T, u64)>, rank: u128) -> Option<T> {
    let mut seen: u128 = 0;
    for (value, count) in buckets {
        seen += u128::from(count);
        if seen >= rank {
            return Some(value);
        }
    }
    None
}

/// The quartiles of sorted values as the outlier fences take them: the medians of the lower and
/// upper halves, the middle value of an odd count in neither (Tukey's hinges put it in both).
/// `None` below two values.
pub fn quartiles(sorted: &[f64]) -> Option<(f64, f64)> {
    let half = sorted.len() / 2;
    let upper_start = sorted.len() - half;
    Some((median(&sorted[..half])?, median(&sorted[upper_start..])?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[1.0, 2.0, 9.0]), Some(2.0));
        assert_eq!(median(&[1.0, 2.0, 4.0, 9.0]), Some(3.0));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn median_of_unsorted_repetitions() {
        assert_eq!(median_of(&[55.0, 51.0, 60.0]), Some(55.0));
        assert_eq!(median_of(&[70.0, 50.0]), Some(60.0));
        assert_eq!(median_of(&[52.5]), Some(52.5));
        assert_eq!(median_of(&[]), None);
    }

    #[test]
    fn the_lower_median_is_an_observed_value() {
        assert_eq!(lower_median::<u32>(&mut [8_000, 4_000, 3_364]), Some(4_000));
        assert_eq!(lower_median::<u32>(&mut [2_000, 0]), Some(0));
        assert_eq!(lower_median::<u32>(&mut [5, 1, 4, 2]), Some(2));
        assert_eq!(lower_median::<u32>(&mut []), None);
        assert_eq!(lower_median(&mut [900.0, 10.0, 800.0, 20.0]), Some(20.0));
        assert_eq!(lower_median(&mut [900.0, 10.0, 800.0]), Some(800.0));
        assert_eq!(lower_median::<f64>(&mut []), None);
    }

    #[test]
    fn nearest_rank_percentiles() {
        let values: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile_nearest_rank(&values, 99.0), Some(99.0));
        assert_eq!(percentile_nearest_rank(&values, 50.0), Some(50.0));
        assert_eq!(percentile_nearest_rank(&values, 100.0), Some(100.0));
        // Five values: rank ceil(0.99 * 5) = 5, ceil(0.3 * 5) = 2.
        let five = [15.0, 20.0, 35.0, 40.0, 50.0];
        assert_eq!(percentile_nearest_rank(&five, 99.0), Some(50.0));
        assert_eq!(percentile_nearest_rank(&five, 30.0), Some(20.0));
        assert_eq!(percentile_nearest_rank(&five, 1.0), Some(15.0));
        assert_eq!(percentile_nearest_rank(&five, 0.0), None);
        assert_eq!(percentile_nearest_rank(&[], 50.0), None);
    }

    #[test]
    fn nearest_rank_of_unsorted_values_sorts_them() {
        // Answers 1, 2, 4, 2000 ms: the median by nearest rank is the 2nd, the p99 the 4th.
        let mut answers = [2_000.0, 2.0, 4.0, 1.0];
        assert_eq!(percentile_nearest_rank_of(&mut answers, 50.0), Some(2.0));
        assert_eq!(
            percentile_nearest_rank_of(&mut answers, 99.0),
            Some(2_000.0)
        );
        assert!(answers.is_sorted());
        assert_eq!(percentile_nearest_rank_of(&mut [], 99.0), None);
    }

    #[test]
    fn nearest_rank_in_integers() {
        // Ranks ceil(p x 1000 / 100): 500, 750, 990, 999, 1000.
        let ranks: Vec<Option<u128>> = [50.0, 75.0, 99.0, 99.9, 99.99, 100.0]
            .into_iter()
            .map(|p| nearest_rank(1_000, p))
            .collect();
        assert_eq!(
            ranks,
            [
                Some(500),
                Some(750),
                Some(990),
                Some(999),
                Some(1_000),
                Some(1_000)
            ]
        );
        // Five values: ranks ceil(0.99 x 5) = 5 and ceil(0.3 x 5) = 2, as the float form.
        assert_eq!(nearest_rank(5, 99.0), Some(5));
        assert_eq!(nearest_rank(5, 30.0), Some(2));
        assert_eq!(nearest_rank(5, 0.001), Some(1));
        assert_eq!(nearest_rank(5, 0.0), None);
        assert_eq!(nearest_rank(0, 50.0), None);
    }

    #[test]
    fn the_value_at_a_rank_is_its_bucket_s() {
        let buckets = [(10, 2), (20, 0), (30, 3)];
        assert_eq!(value_at_rank(buckets, 1), Some(10));
        assert_eq!(value_at_rank(buckets, 2), Some(10));
        assert_eq!(value_at_rank(buckets, 3), Some(30));
        assert_eq!(value_at_rank(buckets, 5), Some(30));
        assert_eq!(value_at_rank(buckets, 6), None);
    }

    #[test]
    fn quartiles_leave_the_middle_of_an_odd_count_out() {
        let odd: Vec<f64> = (1..=9).map(f64::from).collect();
        assert_eq!(quartiles(&odd), Some((2.5, 7.5)));
        let even: Vec<f64> = (1..=8).map(f64::from).collect();
        assert_eq!(quartiles(&even), Some((2.5, 6.5)));
        assert_eq!(quartiles(&[1.0]), None);
    }
}
