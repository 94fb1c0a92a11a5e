//! Cells the baseline tables share: a figure in both runs, and a row's verdict with what
//! decided it.

use bench_model::Judged;

/// "then -> now".
pub fn then_now(then: &str, now: &str) -> String {
    format!("{then} -> {now}")
}

/// now / then, to three decimals; "NA" without both or with nothing then.
pub fn ratio(judged: &Judged<Option<f64>>) -> String {
    match (judged.baseline, judged.now) {
        (Some(then), Some(now)) if then > 0.0 => format!("{:.3}", now / then),
        _ => "NA".to_owned(),
    }
}

/// The verdict's word for a count that changed: "{what} appeared", "... gone", "more ...",
/// "fewer ...".
pub fn count_word(judged: &Judged<u64>, what: &str) -> String {
    match (judged.baseline, judged.now) {
        (0, _) => format!("{what} appeared"),
        (_, 0) => format!("{what} gone"),
        (then, now) if now > then => format!("more {what}"),
        _ => format!("fewer {what}"),
    }
}

/// `rising` when the figure grew, else `falling`.
pub fn direction(judged: &Judged<Option<f64>>, rising: &str, falling: &str) -> String {
    match (judged.baseline, judged.now) {
        (Some(then), Some(now)) if now < then => falling.to_owned(),
        _ => rising.to_owned(),
    }
}

/// One judged figure of a row, as its verdict reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Figure<'a> {
    pub name: &'static str,
    pub significant: Option<bool>,
    pub rule: &'a str,
    /// What the verdict says when the figure changed ("slower", "failures appeared").
    pub word: String,
}

impl<'a> Figure<'a> {
    pub fn of<T>(name: &'static str, judged: &'a Judged<T>, word: String) -> Self {
        Self {
            name,
            significant: judged.significant,
            rule: &judged.rule,
            word,
        }
    }
}

/// The Verdict and Decided-by cells of a row whose main figure comes first: the figures that
/// changed and their rules; else "same", or which figures the rules could not tell, with the
/// main figure's rule and theirs.
pub fn verdict(figures: &[Figure<'_>]) -> (String, String) {
    let decided = |figures: &[&Figure<'_>]| {
        figures
            .iter()
            .map(|figure| format!("{}: {}", figure.name, figure.rule))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let changed: Vec<&Figure<'_>> = figures
        .iter()
        .filter(|figure| figure.significant == Some(true))
        .collect();
    if !changed.is_empty() {
        let words: Vec<&str> = changed.iter().map(|figure| figure.word.as_str()).collect();
        return (words.join(", "), decided(&changed));
    }
    let unknown: Vec<&Figure<'_>> = figures
        .iter()
        .filter(|figure| figure.significant.is_none())
        .collect();
    let main = figures.first();
    let mut shown: Vec<&Figure<'_>> = main.into_iter().collect();
    shown.extend(
        unknown
            .iter()
            .copied()
            .filter(|figure| !main.is_some_and(|main| std::ptr::eq(main, *figure))),
    );
    let verdict = match unknown.len() {
        0 => "same".to_owned(),
        count if count == figures.len() => "cannot tell".to_owned(),
        _ => {
            let names: Vec<&str> = unknown.iter().map(|figure| figure.name).collect();
            format!("{}: cannot tell; rest same", names.join(", "))
        }
    };
    (verdict, decided(&shown))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(significant: Option<bool>, rule: &str) -> Judged<Option<f64>> {
        Judged {
            baseline: Some(100.0),
            now: Some(200.0),
            significant,
            rule: rule.to_owned(),
        }
    }

    #[test]
    fn a_verdict_names_what_changed_and_what_decided() {
        let slower = judged(Some(true), "|+100.0| > 13.4 us (3.29 SE)");
        let same = judged(Some(false), "none in either run");
        let unknown = judged(None, "3 and 3 batches: too few (7 each)");
        let figure = |name, judged| Figure::of(name, judged, format!("{name} changed"));
        assert_eq!(
            verdict(&[figure("mean", &slower), figure("failures", &same)]),
            (
                "mean changed".to_owned(),
                "mean: |+100.0| > 13.4 us (3.29 SE)".to_owned()
            )
        );
        assert_eq!(
            verdict(&[figure("mean", &same), figure("failures", &same)]),
            ("same".to_owned(), "mean: none in either run".to_owned())
        );
        assert_eq!(
            verdict(&[figure("wall", &unknown), figure("failures", &same)]).0,
            "wall: cannot tell; rest same"
        );
        assert_eq!(
            verdict(&[figure("wall", &unknown)]),
            (
                "cannot tell".to_owned(),
                "wall: 3 and 3 batches: too few (7 each)".to_owned()
            )
        );
        assert_eq!(ratio(&slower), "2.000");
        assert_eq!(direction(&slower, "slower", "faster"), "slower");
    }

    #[test]
    fn count_words_follow_the_counts() {
        let count = |baseline, now| Judged {
            baseline,
            now,
            significant: Some(true),
            rule: String::new(),
        };
        assert_eq!(count_word(&count(0, 3), "failures"), "failures appeared");
        assert_eq!(count_word(&count(3, 0), "failures"), "failures gone");
        assert_eq!(count_word(&count(3, 30), "failures"), "more failures");
        assert_eq!(count_word(&count(30, 3), "failures"), "fewer failures");
    }
}
