//! Latencies of one scenario: HDR histograms (nanoseconds, 3 significant digits) for the
//! percentiles, corrected for coordinated omission and not, and the corrected values themselves
//! for an exact mean and standard deviation.

use std::time::Duration;

use hdrhistogram::Histogram;

use bench_model::stats::quantile::{nearest_rank, value_at_rank};
use bench_model::stats::summary::{mean, std_dev};
use bench_model::{CurvePoint, LatencySummary};

/// The longest latency a histogram tells apart; longer ones are recorded as this. Every request
/// is bounded by a timeout of a few seconds, plus however late it was sent.
const HIGHEST_TRACKABLE_NS: u64 = 120_000_000_000;
/// Three significant digits: every value is kept within 0.1%, and below 2048 ns exactly.
const SIGNIFICANT_DIGITS: u8 = 3;

/// The percentiles each scenario reports, and the points of its percentile curve.
pub const CURVE_PERCENTILES: [f64; 9] = [50.0, 75.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.99, 100.0];

/// A new, empty latency histogram.
pub fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, HIGHEST_TRACKABLE_NS, SIGNIFICANT_DIGITS)
        .expect("constant bounds are valid: 1 <= low, high >= 2 x low, 3 significant digits")
}

/// Nanoseconds of `duration`, saturating.
pub fn nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

/// The `percentile`-th percentile (0 < p <= 100) of a histogram by the nearest-rank method, in
/// microseconds: the smallest recorded value with at least p% of the values at or below it,
/// reported as the upper end of its histogram bucket (HdrHistogram's convention), the rank
/// computed in integers ([`nearest_rank`]). `None` when empty.
pub fn percentile_us(histogram: &Histogram<u64>, percentile: f64) -> Option<f64> {
    let rank = nearest_rank(histogram.len(), percentile)?;
    let buckets = histogram
        .iter_recorded()
        .map(|bucket| (bucket.value_iterated_to(), bucket.count_at_value()));
    let nanos = value_at_rank(buckets, rank).unwrap_or_else(|| histogram.max());
    Some(nanos as f64 / 1_000.0)
}

/// The latencies of one scenario or capacity level.
#[derive(Debug)]
pub struct LatencyRecorder {
    /// From each request's intended send time to its response.
    corrected: Histogram<u64>,
    /// From each request's actual send time to its response.
    uncorrected: Histogram<u64>,
    /// The corrected latencies in microseconds, for the exact mean, StdDev, min and max.
    corrected_us: Vec<f64>,
}

impl LatencyRecorder {
    pub fn new(expected: usize) -> Self {
        Self {
            corrected: histogram(),
            uncorrected: histogram(),
            corrected_us: Vec::with_capacity(expected),
        }
    }

    /// One completed request: `corrected` from when it was due, `uncorrected` from when it left.
    pub fn record(&mut self, corrected: Duration, uncorrected: Duration) {
        self.corrected.saturating_record(nanos(corrected).max(1));
        self.uncorrected
            .saturating_record(nanos(uncorrected).max(1));
        self.corrected_us.push(corrected.as_secs_f64() * 1e6);
    }

    /// Adds another recorder's latencies.
    pub fn merge(&mut self, other: LatencyRecorder) {
        self.corrected
            .add(&other.corrected)
            .expect("histograms of one bounds and precision always add");
        self.uncorrected
            .add(&other.uncorrected)
            .expect("histograms of one bounds and precision always add");
        self.corrected_us.extend(other.corrected_us);
    }

    pub fn count(&self) -> u64 {
        self.corrected.len()
    }

    pub fn summary(&self) -> LatencySummary {
        let values = &self.corrected_us;
        let corrected = |p| percentile_us(&self.corrected, p);
        let uncorrected = |p| percentile_us(&self.uncorrected, p);
        LatencySummary {
            min_us: values.iter().copied().reduce(f64::min),
            mean_us: mean(values),
            max_us: values.iter().copied().reduce(f64::max),
            stddev_us: std_dev(values),
            p50_us: corrected(50.0),
            p75_us: corrected(75.0),
            p95_us: corrected(95.0),
            p99_us: corrected(99.0),
            p999_us: corrected(99.9),
            uncorrected_p50_us: uncorrected(50.0),
            uncorrected_p99_us: uncorrected(99.0),
            uncorrected_p999_us: uncorrected(99.9),
            curve: CURVE_PERCENTILES
                .iter()
                .filter_map(|&percentile| {
                    Some(CurvePoint {
                        percentile,
                        corrected_us: corrected(percentile)?,
                        uncorrected_us: uncorrected(percentile)?,
                    })
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1..=n nanoseconds, once each: below 2048 a histogram keeps every value exactly.
    fn one_to(n: u64) -> Histogram<u64> {
        let mut histogram = histogram();
        for value in 1..=n {
            histogram.record(value).unwrap();
        }
        histogram
    }

    #[test]
    fn nearest_rank_percentiles_from_a_histogram() {
        let thousand = one_to(1000);
        // Ranks ceil(p x 1000 / 100): 500, 750, 990, 999, 1000 -> those very nanoseconds.
        assert_eq!(percentile_us(&thousand, 50.0), Some(0.5));
        assert_eq!(percentile_us(&thousand, 75.0), Some(0.75));
        assert_eq!(percentile_us(&thousand, 99.0), Some(0.99));
        assert_eq!(percentile_us(&thousand, 99.9), Some(0.999));
        assert_eq!(percentile_us(&thousand, 99.99), Some(1.0));
        assert_eq!(percentile_us(&thousand, 100.0), Some(1.0));
        // Five values: ranks ceil(0.99 x 5) = 5 and ceil(0.3 x 5) = 2, as in stats::quantile.
        let five = one_to(5);
        assert_eq!(percentile_us(&five, 99.0), Some(0.005));
        assert_eq!(percentile_us(&five, 30.0), Some(0.002));
        assert_eq!(percentile_us(&five, 0.0), None);
        assert_eq!(percentile_us(&histogram(), 50.0), None);
    }

    #[test]
    fn large_values_within_a_tenth_of_a_percent() {
        let mut histogram = histogram();
        // 1 ms and 31.46 ms: reported as the top of their buckets, at most 0.1% above.
        histogram.record(1_000_000).unwrap();
        histogram.record(31_460_000).unwrap();
        let p50 = percentile_us(&histogram, 50.0).unwrap();
        let p100 = percentile_us(&histogram, 100.0).unwrap();
        assert!((1_000.0..=1_001.0).contains(&p50), "{p50}");
        assert!((31_460.0..=31_492.0).contains(&p100), "{p100}");
    }

    #[test]
    fn summary_of_corrected_and_uncorrected_latencies() {
        let mut recorder = LatencyRecorder::new(4);
        // Sent 0, 0, 100 and 300 us late; each took 100 us once sent.
        for late_us in [0, 0, 100, 300] {
            recorder.record(
                Duration::from_micros(100 + late_us),
                Duration::from_micros(100),
            );
        }
        let summary = recorder.summary();
        assert_eq!(recorder.count(), 4);
        assert_eq!(summary.min_us, Some(100.0));
        assert_eq!(summary.max_us, Some(400.0));
        // Corrected: 100, 100, 200, 400 -> mean 200; squares 10000 x 2 + 0 + 40000 over 3.
        assert!((summary.mean_us.unwrap() - 200.0).abs() < 1e-9);
        assert!((summary.stddev_us.unwrap() - 20_000.0_f64.sqrt()).abs() < 1e-9);
        // Rank ceil(0.5 x 4) = 2 -> 100 us; rank 4 for p99 -> 400 us (within 0.1%).
        let p50 = summary.p50_us.unwrap();
        let p99 = summary.p99_us.unwrap();
        assert!((100.0..=100.1).contains(&p50), "{p50}");
        assert!((400.0..=400.4).contains(&p99), "{p99}");
        // Uncorrected, every request took 100 us.
        let uncorrected = summary.uncorrected_p99_us.unwrap();
        assert!((100.0..=100.1).contains(&uncorrected), "{uncorrected}");
        assert_eq!(summary.curve.len(), CURVE_PERCENTILES.len());
        assert!(
            summary
                .curve
                .windows(2)
                .all(|pair| pair[0].corrected_us <= pair[1].corrected_us)
        );
    }

    #[test]
    fn an_empty_recorder_has_no_figures() {
        let summary = LatencyRecorder::new(0).summary();
        assert_eq!(
            (summary.min_us, summary.mean_us, summary.p99_us),
            (None, None, None)
        );
        assert!(summary.curve.is_empty());
    }
}
