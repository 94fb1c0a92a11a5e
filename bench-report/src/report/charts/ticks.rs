//! Tick marks for logarithmic axes.

/// The 1-2-5 steps (1, 2, 5, 10, 20, ...) within `low..=high`: ticks for a logarithmic axis.
pub fn one_two_five(low: f64, high: f64) -> Vec<f64> {
    let mut ticks = Vec::new();
    let mut decade = 10_f64.powf(low.max(f64::MIN_POSITIVE).log10().floor());
    while decade <= high {
        for step in [1.0, 2.0, 5.0] {
            let tick = decade * step;
            if (low..=high).contains(&tick) {
                ticks.push(tick);
            }
        }
        decade *= 10.0;
    }
    ticks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_ticks_step_one_two_five() {
        assert_eq!(one_two_five(13.0, 600.0), [20.0, 50.0, 100.0, 200.0, 500.0]);
        assert_eq!(one_two_five(1.0, 10.0), [1.0, 2.0, 5.0, 10.0]);
        let ticks = one_two_five(0.06, 3.0);
        let expected = [0.1, 0.2, 0.5, 1.0, 2.0];
        assert_eq!(ticks.len(), expected.len());
        for (tick, expected) in ticks.iter().zip(expected) {
            assert!((tick - expected).abs() < 1e-12, "{ticks:?}");
        }
    }
}
