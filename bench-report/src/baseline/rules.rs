//! The noise tests shared by the suites' comparisons: each takes a figure of both runs and
//! returns it judged, with the rule that decided written out. The statistics are
//! `bench_model::stats::difference`'s.

use bench_model::Judged;
use bench_model::stats::difference::{poisson_rate_difference_se, z_threshold_999};
use bench_model::stats::summary::Z_999;

/// The rows of `then` and `now` that `same` matches, in `now`'s order; rows in only one run are
/// left out.
pub fn pairs<'a, T>(
    then: &'a [T],
    now: &'a [T],
    same: impl Fn(&T, &T) -> bool,
) -> impl Iterator<Item = (&'a T, &'a T)> {
    now.iter()
        .filter_map(move |row| then.iter().find(|old| same(old, row)).map(|old| (old, row)))
}

/// Two means, each with its standard error: a change when they differ by more than
/// [`Z_999`] standard errors of the difference, sqrt(SE_then^2 + SE_now^2) (the two-sided 99.9%
/// of independent means). `unit` names the figures in the rule.
pub fn beyond_standard_errors(
    then: Option<f64>,
    then_se: Option<f64>,
    now: Option<f64>,
    now_se: Option<f64>,
    unit: &str,
) -> Judged<Option<f64>> {
    let judged = |significant, rule: String| Judged {
        baseline: then,
        now,
        significant,
        rule,
    };
    let (Some(old), Some(new)) = (then, now) else {
        return judged(None, missing(then.is_some(), now.is_some(), "mean"));
    };
    let (Some(spread_then), Some(spread_now)) = (then_se, now_se) else {
        return judged(None, missing(then_se.is_some(), now_se.is_some(), "spread"));
    };
    let threshold = z_threshold_999(spread_then, spread_now);
    let difference = new - old;
    let significant = difference.abs() > threshold;
    judged(
        Some(significant),
        format!(
            "|{difference:+.1}| {} {threshold:.1} {unit} ({Z_999:.2} SE)",
            if significant { ">" } else { "<=" }
        ),
    )
}

/// Counts of events (`then` of `then_of` tries, `now` of `now_of`), compared as rates: as if
/// every try failed independently, each count is Poisson with variance the count itself, and
/// a change is a difference of rates beyond [`Z_999`] of its standard error,
/// sqrt(then / then_of^2 + now / now_of^2). Events that come in bursts vary more than that, so
/// the test errs towards calling a change. With `zero_matters`, none in one run and some in the
/// other is a change whatever the figures (a suite that never failed and now does).
pub fn counts_differ(
    (then, then_of): (u64, u64),
    (now, now_of): (u64, u64),
    zero_matters: bool,
) -> Judged<u64> {
    let judged = |significant, rule: String| Judged {
        baseline: then,
        now,
        significant,
        rule,
    };
    if then == 0 && now == 0 {
        return judged(Some(false), "none in either run".to_owned());
    }
    if zero_matters && (then == 0) != (now == 0) {
        return judged(
            Some(true),
            format!("{then} -> {now}: none and some always differ"),
        );
    }
    if then_of == 0 || now_of == 0 {
        return judged(None, "nothing tried in one run".to_owned());
    }
    let (rate_then, rate_now) = (then as f64 / then_of as f64, now as f64 / now_of as f64);
    let threshold = Z_999 * poisson_rate_difference_se((then, then_of), (now, now_of));
    let difference = rate_now - rate_then;
    let significant = difference.abs() > threshold;
    judged(
        Some(significant),
        format!(
            "{then} of {then_of} -> {now} of {now_of}: |{:+.2}%| {} {:.2}% ({Z_999:.2} Poisson SE)",
            difference * 100.0,
            if significant { ">" } else { "<=" },
            threshold * 100.0
        ),
    )
}

/// "no {what} then", "... now", "... in either run".
pub fn missing(then: bool, now: bool, what: &str) -> String {
    match (then, now) {
        (false, false) => format!("no {what} in either run"),
        (false, true) => format!("no {what} then"),
        _ => format!("no {what} now"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn means_differ_beyond_their_combined_standard_errors() {
        // SE 3 and 4: the difference's SE is 5, the threshold 3.29 x 5 = 16.45.
        let slower = beyond_standard_errors(Some(100.0), Some(3.0), Some(117.0), Some(4.0), "us");
        assert_eq!(slower.significant, Some(true));
        assert_eq!(slower.rule, "|+17.0| > 16.5 us (3.29 SE)");
        let same = beyond_standard_errors(Some(100.0), Some(3.0), Some(84.0), Some(4.0), "us");
        assert_eq!(same.significant, Some(false));
        assert_eq!(same.rule, "|-16.0| <= 16.5 us (3.29 SE)");
        let no_spread = beyond_standard_errors(Some(100.0), None, Some(500.0), Some(4.0), "us");
        assert_eq!(
            (no_spread.significant, no_spread.rule.as_str()),
            (None, "no spread then")
        );
        let no_mean = beyond_standard_errors(Some(100.0), Some(1.0), None, None, "us");
        assert_eq!((no_mean.significant, no_mean.now), (None, None));
        assert_eq!(no_mean.rule, "no mean now");
    }

    #[test]
    fn counts_differ_as_rates_and_none_against_some_always_differs() {
        let none = counts_differ((0, 4800), (0, 4800), true);
        assert_eq!(none.significant, Some(false));
        let appeared = counts_differ((0, 4800), (1, 4800), true);
        assert_eq!(appeared.significant, Some(true));
        assert_eq!(appeared.rule, "0 -> 1: none and some always differ");
        let gone = counts_differ((742, 4800), (0, 4800), true);
        assert_eq!(gone.significant, Some(true));
        // Without the zero rule, 0 against 3 is within 3.29 x sqrt(3) = 5.7.
        assert_eq!(
            counts_differ((0, 70), (3, 70), false).significant,
            Some(false)
        );
        assert_eq!(
            counts_differ((0, 70), (11, 70), false).significant,
            Some(true)
        );
        // 742 against 1033 of 4800 each: 291 > 3.29 x sqrt(1775) = 138.6.
        let more = counts_differ((742, 4800), (1033, 4800), true);
        assert_eq!(more.significant, Some(true));
        assert_eq!(
            more.rule,
            "742 of 4800 -> 1033 of 4800: |+6.06%| > 2.89% (3.29 Poisson SE)"
        );
        // 742 of 4800 against 380 of 2400: the same rate.
        assert_eq!(
            counts_differ((742, 4800), (380, 2400), true).significant,
            Some(false)
        );
        assert_eq!(counts_differ((2, 0), (3, 10), true).significant, None);
    }

    #[test]
    fn pairs_match_rows_in_the_order_of_now() {
        let then = [(1, "a"), (2, "b"), (3, "c")];
        let now = [(3, "C"), (4, "D"), (1, "A")];
        let matched: Vec<(&str, &str)> = pairs(&then, &now, |old, new| old.0 == new.0)
            .map(|(old, new)| (old.1, new.1))
            .collect();
        assert_eq!(matched, [("c", "C"), ("a", "A")]);
    }
}
