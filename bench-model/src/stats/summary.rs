//! Mean, StdDev, Error and Ratio as BenchmarkDotNet reports them, as small pure functions.
//!
//! A run of one subject is several samples; each sample's mean is one observation. Mean,
//! StdDev and Error describe those sample means: Error is the half-width of the 99.9%
//! confidence interval of their mean (Student's t with n-1 degrees of freedom). The samples of
//! a suite that interleaves its subjects are also cut into rounds ([`block_means`]).

use statrs::distribution::{ContinuousCDF as _, StudentsT};

/// The 0.9995 quantile of the standard normal distribution, the limit as dof grows: the
/// two-sided 99.9% that every comparison of the bench uses.
pub const Z_999: f64 = 3.2905;

/// From this many degrees of freedom on, the quantile is the normal one to 1e-4, and statrs'
/// solver (an inverse regularized beta) loses time and precision: the normal one is taken.
const NORMAL_FROM_DOF: u32 = 100_000;

/// The 0.9995 quantile of Student's t with `dof` degrees of freedom (`dof` >= 1), from
/// statrs' inverse CDF (a few microseconds in release).
pub fn t_quantile_999(dof: u32) -> f64 {
    if dof >= NORMAL_FROM_DOF {
        return Z_999;
    }
    StudentsT::new(0.0, 1.0, f64::from(dof.max(1))).map_or(Z_999, |t| t.inverse_cdf(0.9995))
}

pub fn mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    Some(values.iter().sum::<f64>() / values.len() as f64)
}

/// The sample standard deviation (divisor n-1); `None` below two values.
pub fn std_dev(values: &[f64]) -> Option<f64> {
    if values.len() < 2 {
        return None;
    }
    let mean = mean(values)?;
    let squares: f64 = values.iter().map(|value| (value - mean).powi(2)).sum();
    Some((squares / (values.len() - 1) as f64).sqrt())
}

/// The standard error of the mean of `count` independent values with standard deviation
/// `std_dev`: s / sqrt(n).
pub fn standard_error_of_mean(std_dev: f64, count: u64) -> f64 {
    std_dev / (count as f64).sqrt()
}

/// Half-width of the 99.9% confidence interval of the mean of `values`:
/// t(0.9995, n-1) x s / sqrt(n). `None` below two values (BenchmarkDotNet prints "NA").
pub fn ci_half_width_999(values: &[f64]) -> Option<f64> {
    let sd = std_dev(values)?;
    let n = values.len();
    let dof = u32::try_from(n - 1).unwrap_or(u32::MAX);
    Some(t_quantile_999(dof) * sd / (n as f64).sqrt())
}

/// The means of `rounds` consecutive blocks of `samples` (a sample without a value left out),
/// as even as the count allows, the first blocks one longer: the rounds of a suite whose
/// samples interleave its subjects, so that block `r` of every subject was taken at the same
/// time. A block without a value gives none.
pub fn block_means(samples: &[Option<f64>], rounds: u32) -> Vec<f64> {
    let rounds = (rounds.max(1) as usize).min(samples.len().max(1));
    let (size, longer) = (samples.len() / rounds, samples.len() % rounds);
    let mut means = Vec::with_capacity(rounds);
    let mut start = 0;
    for round in 0..rounds {
        let end = start + size + usize::from(round < longer);
        let values: Vec<f64> = samples[start..end].iter().flatten().copied().collect();
        means.extend(mean(&values));
        start = end;
    }
    means
}

/// Ratio to a baseline as BenchmarkDotNet computes it: each sample's mean divided by the
/// baseline's sample mean of the same index, then the mean and standard deviation of those
/// ratios. Pairs where either side is missing are skipped. `None` without any pair; the
/// deviation is 0 for a single pair.
pub fn ratio_mean_sd(samples: &[Option<f64>], baseline: &[Option<f64>]) -> Option<(f64, f64)> {
    let ratios: Vec<f64> = samples
        .iter()
        .zip(baseline)
        .filter_map(|pair| match pair {
            (Some(value), Some(base)) if *base > 0.0 => Some(value / base),
            _ => None,
        })
        .collect();
    let mean = mean(&ratios)?;
    Some((mean, std_dev(&ratios).unwrap_or(0.0)))
}

/// The figures of one row computed from its sample means.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampleSummary {
    pub mean: f64,
    pub error: Option<f64>,
    pub std_dev: Option<f64>,
}

impl SampleSummary {
    pub fn of(sample_means: &[f64]) -> Option<Self> {
        Some(Self {
            mean: mean(sample_means)?,
            error: ci_half_width_999(sample_means),
            std_dev: std_dev(sample_means),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_means_split_samples_into_rounds_in_order() {
        let samples = [
            Some(1.0),
            Some(3.0),
            None,
            Some(5.0),
            Some(7.0),
            Some(9.0),
            Some(11.0),
        ];
        // 7 samples in 3 rounds: 3, 2 and 2.
        assert_eq!(block_means(&samples, 3), [2.0, 6.0, 10.0]);
        assert_eq!(block_means(&samples, 1), [6.0]);
        assert_eq!(block_means(&[None, None], 2), Vec::<f64>::new());
        assert_eq!(block_means(&[Some(4.0)], 3), [4.0]);
    }

    fn close(actual: f64, expected: f64, tolerance: f64) -> bool {
        (actual - expected).abs() <= tolerance
    }

    // The classic textbook sample: mean 5, squares sum 32, so s = sqrt(32/7).
    const SAMPLE: [f64; 8] = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];

    #[test]
    fn mean_and_sample_std_dev() {
        assert_eq!(mean(&SAMPLE), Some(5.0));
        assert!(close(
            std_dev(&SAMPLE).unwrap(),
            (32.0_f64 / 7.0).sqrt(),
            1e-12
        ));
        assert_eq!(mean(&[]), None);
        assert_eq!(std_dev(&[3.0]), None);
        assert_eq!(std_dev(&[3.0, 3.0]), Some(0.0));
    }

    #[test]
    fn standard_error_of_the_textbook_sample() {
        // s = sqrt(32/7) over sqrt(8).
        let expected = (32.0_f64 / 7.0).sqrt() / 8.0_f64.sqrt();
        assert!(close(
            standard_error_of_mean(std_dev(&SAMPLE).unwrap(), 8),
            expected,
            1e-12
        ));
        assert!(close(standard_error_of_mean(30.0, 900), 1.0, 1e-12));
    }

    #[test]
    fn ci_half_width_of_a_small_sample() {
        // t(0.9995, 7) = 5.4079; s/sqrt(n) = sqrt(32/7)/sqrt(8) = 0.755929...
        let expected = t_quantile_999(7) * (32.0_f64 / 7.0).sqrt() / 8.0_f64.sqrt();
        assert!(close(ci_half_width_999(&SAMPLE).unwrap(), expected, 1e-9));
        assert!(close(expected, 4.0880, 1e-4));
        // Three samples 10, 12, 14: s = 2, t(0.9995, 2) = 31.5991, half-width 36.487...
        let three = ci_half_width_999(&[10.0, 12.0, 14.0]).unwrap();
        assert!(close(three, 31.5991 * 2.0 / 3.0_f64.sqrt(), 1e-4));
        assert_eq!(ci_half_width_999(&[1.0]), None);
    }

    #[test]
    fn t_quantiles_match_the_printed_tables_and_approach_the_normal() {
        // Printed to four decimals (NIST/SEMATECH's table, and R's qt(0.9995, dof)).
        for (dof, printed) in [
            (1, 636.6192),
            (2, 31.5991),
            (7, 5.4079),
            (9, 4.7809),
            (29, 3.6594),
            (30, 3.6460),
            (45, 3.5203),
            (60, 3.4602),
            (90, 3.4019),
            (120, 3.3735),
            (200, 3.3398),
            (1000, 3.3003),
        ] {
            let value = t_quantile_999(dof);
            assert!(
                close(value, printed, 1e-4),
                "t({dof}) = {value}, printed {printed}"
            );
        }
        assert!(close(t_quantile_999(u32::MAX), Z_999, 1e-4));
        assert!(close(t_quantile_999(0), t_quantile_999(1), 0.0));
        // Never increases with more degrees of freedom.
        let mut previous = f64::INFINITY;
        for dof in (1..200).chain([1_000, 10_000, NORMAL_FROM_DOF - 1, NORMAL_FROM_DOF]) {
            let value = t_quantile_999(dof);
            assert!(value <= previous, "t({dof}) = {value} > {previous}");
            previous = value;
        }
    }

    #[test]
    fn ratio_per_sample_then_mean_and_sd() {
        // Ratios 2.0, 1.5 and 2.5: mean 2.0, s = 0.5.
        let samples = [Some(20.0), Some(30.0), Some(25.0)];
        let baseline = [Some(10.0), Some(20.0), Some(10.0)];
        let (ratio, sd) = ratio_mean_sd(&samples, &baseline).unwrap();
        assert!(close(ratio, 2.0, 1e-12));
        assert!(close(sd, 0.5, 1e-12));
        // Not the ratio of the means (75/40 = 1.875).
        assert!(!close(ratio, 75.0 / 40.0, 1e-3));
        // A sample missing on either side is skipped; against itself: 1 and 0.
        let gappy = [Some(20.0), None, Some(25.0)];
        let (ratio, _) = ratio_mean_sd(&gappy, &baseline).unwrap();
        assert!(close(ratio, 2.25, 1e-12));
        assert_eq!(ratio_mean_sd(&baseline, &baseline), Some((1.0, 0.0)));
        assert_eq!(ratio_mean_sd(&[None], &baseline), None);
    }

    #[test]
    fn summary_of_sample_means() {
        let summary = SampleSummary::of(&SAMPLE).unwrap();
        assert!(close(summary.mean, 5.0, 1e-12));
        assert!(summary.error.is_some() && summary.std_dev.is_some());
        let single = SampleSummary::of(&[7.0]).unwrap();
        assert_eq!(
            (single.mean, single.error, single.std_dev),
            (7.0, None, None)
        );
        assert_eq!(SampleSummary::of(&[]), None);
    }
}
