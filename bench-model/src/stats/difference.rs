//! Whether two independent figures differ beyond their noise, as small pure functions: the
//! rules the baseline comparison (`--baseline`) and the noise checks' drift test are made of.
//!
//! - Two means with a 99.9% confidence interval each (an Error): a difference beyond
//!   [`combined_error`], sqrt(e1^2 + e2^2), since the half-widths of independent means add in
//!   quadrature (latency, decode and cost rows; the drift between a row's first and last thirds).
//! - Two means with a standard error each: a difference beyond [`z_threshold_999`], [`Z_999`]
//!   standard errors of the difference (the load suite's mean latency).
//! - Two counts of events out of so many tries: a difference of rates beyond [`Z_999`] times
//!   [`poisson_rate_difference_se`] (failures, new connections).

use crate::stats::summary::Z_999;

/// The half-width of the 99.9% confidence interval of the difference of two independent means,
/// from theirs: sqrt(e1^2 + e2^2).
pub fn combined_error(first: f64, second: f64) -> f64 {
    first.hypot(second)
}

/// The threshold a difference of two independent means must exceed, given their standard
/// errors: [`Z_999`] x sqrt(SE1^2 + SE2^2), the two-sided 99.9%.
pub fn z_threshold_999(first_se: f64, second_se: f64) -> f64 {
    Z_999 * first_se.hypot(second_se)
}

/// The standard error of the difference of two rates, `then` events of `then_of` tries against
/// `now` of `now_of`, each count taken as Poisson (variance the count itself):
/// sqrt(then / then_of^2 + now / now_of^2). Events that come in bursts vary more than that.
pub fn poisson_rate_difference_se((then, then_of): (u64, u64), (now, now_of): (u64, u64)) -> f64 {
    let (tries_then, tries_now) = (then_of as f64, now_of as f64);
    (then as f64 / (tries_then * tries_then) + now as f64 / (tries_now * tries_now)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(actual: f64, expected: f64) -> bool {
        (actual - expected).abs() < 1e-12
    }

    #[test]
    fn errors_add_in_quadrature() {
        assert!(close(combined_error(3.0, 4.0), 5.0));
        assert!(close(combined_error(0.0, 2.5), 2.5));
    }

    #[test]
    fn the_z_threshold_is_3_29_standard_errors_of_the_difference() {
        // SE 3 and 4: the difference's SE is 5, the threshold 3.29 x 5 = 16.45.
        assert!(close(z_threshold_999(3.0, 4.0), 16.4525));
    }

    #[test]
    fn poisson_standard_error_of_two_rates() {
        // 742 and 1033 of 4800 each: sqrt(1775) / 4800.
        let se = poisson_rate_difference_se((742, 4800), (1033, 4800));
        assert!((se - 1775.0_f64.sqrt() / 4800.0).abs() < 1e-15, "{se}");
        assert!(close(poisson_rate_difference_se((0, 70), (0, 70)), 0.0));
    }
}
