//! What a group would take with no overhead, and how close a measured group came to it.

use bench_model::FanoutMode;

/// The ideal wall time of a group of `size` payments: each upstream call takes `latency_ms`
/// plus a uniform draw from the integers 0..=`jitter_ms`. In sequence the expectations add
/// up; overlapped, the group waits for the slowest of `size` draws, whose expectation is
/// sum over k in 1..=J of P(max >= k) = sum of 1 - (k / (J + 1))^size.
pub fn ideal_ms(mode: FanoutMode, size: u32, latency_ms: u64, jitter_ms: u64) -> f64 {
    let latency = latency_ms as f64;
    match mode {
        FanoutMode::Sequential => f64::from(size) * (latency + jitter_ms as f64 / 2.0),
        FanoutMode::Concurrent => {
            let draws = i32::try_from(size).unwrap_or(i32::MAX);
            let span = (jitter_ms + 1) as f64;
            let slowest: f64 = (1..=jitter_ms)
                .map(|k| 1.0 - (k as f64 / span).powi(draws))
                .sum();
            latency + slowest
        }
    }
}

/// `ideal / measured`; `None` without a positive measurement.
pub fn efficiency(ideal_ms: f64, measured_ms: Option<f64>) -> Option<f64> {
    measured_ms
        .filter(|measured| *measured > 0.0 && measured.is_finite())
        .map(|measured| ideal_ms / measured)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(actual: f64, expected: f64) -> bool {
        (actual - expected).abs() < 1e-9
    }

    #[test]
    fn ideal_without_jitter_is_n_latencies_or_one() {
        assert!(close(
            ideal_ms(FanoutMode::Sequential, 70, 360, 0),
            25_200.0
        ));
        assert!(close(ideal_ms(FanoutMode::Concurrent, 70, 360, 0), 360.0));
        assert!(close(ideal_ms(FanoutMode::Sequential, 1, 50, 0), 50.0));
    }

    #[test]
    fn ideal_with_jitter_takes_the_mean_in_sequence_and_the_slowest_draw_overlapped() {
        // Sequential: 4 x (100 + 10/2) = 420.
        assert!(close(ideal_ms(FanoutMode::Sequential, 4, 100, 10), 420.0));
        // Jitter 0..=1 (two values), 2 draws: P(max = 1) = 1 - (1/2)^2 = 0.75.
        assert!(close(ideal_ms(FanoutMode::Concurrent, 2, 100, 1), 100.75));
        // Jitter 0..=2, 2 draws: P(max >= 1) = 1 - 1/9, P(max >= 2) = 1 - 4/9; sum 13/9.
        assert!(close(
            ideal_ms(FanoutMode::Concurrent, 2, 100, 2),
            100.0 + 13.0 / 9.0
        ));
        // One draw: the mean of 0..=2, as in sequence.
        assert!(close(ideal_ms(FanoutMode::Concurrent, 1, 100, 2), 101.0));
    }

    #[test]
    fn efficiency_is_ideal_over_measured() {
        // The reference's AsyncFeign at 70 requests: 360 / 1669.
        assert!(close(
            efficiency(360.0, Some(1_669.0)).unwrap(),
            0.215_698_022_8
        ));
        assert!(close(
            efficiency(25_200.0, Some(14_940.0)).unwrap(),
            1.686_746_988
        ));
        assert_eq!(efficiency(50.0, Some(50.0)), Some(1.0));
        assert_eq!(efficiency(50.0, Some(0.0)), None);
        assert_eq!(efficiency(50.0, None), None);
    }
}
