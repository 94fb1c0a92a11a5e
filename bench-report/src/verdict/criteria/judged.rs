//! How a criterion's figures become a judgement, and the figures' two shapes: measured once,
//! or in rounds.

use crate::verdict::judge::{Better, Criterion, Figure, Judgement, NoiseRule, Outcome, rank};
use bench_model::{ClientName, HOW_TO_RUN_ADOPTION, SuiteName};

pub(super) fn judgement(
    criterion: Criterion,
    source: String,
    figures: Vec<Figure>,
    better: Better,
    rule: NoiseRule,
    suite: SuiteName,
) -> Judgement {
    match rank(figures, better, rule) {
        Some(outcome) => Judgement {
            criterion,
            source,
            better,
            rule,
            outcome,
            left_out: Vec::new(),
            claimed: Vec::new(),
        },
        None => not_measured(criterion, suite),
    }
}

/// `judgement` of `figures` when there are any: a per-protocol criterion has no row for a
/// protocol the run did not measure it over.
pub(super) fn any(
    criterion: Criterion,
    source: String,
    figures: Vec<Figure>,
    better: Better,
    rule: NoiseRule,
    suite: SuiteName,
) -> Option<Judgement> {
    (!figures.is_empty()).then(|| judgement(criterion, source, figures, better, rule, suite))
}

/// A criterion the run has no figure for (which way and what noise do not matter then).
pub(super) fn not_measured(criterion: Criterion, suite: SuiteName) -> Judgement {
    let how = match suite {
        SuiteName::Adoption => format!("not in this run: {HOW_TO_RUN_ADOPTION}"),
        SuiteName::Connections => {
            "not in this run: the connections suite over https (--suite connections \
             --protocols https)"
                .to_owned()
        }
        suite => format!("not in this run: the {suite} suite (--suite {suite})"),
    };
    Judgement {
        criterion,
        source: format!("{suite} suite"),
        better: Better::Lower,
        rule: NoiseRule::Exact,
        outcome: Outcome::NotMeasured(how),
        left_out: Vec::new(),
        claimed: Vec::new(),
    }
}

/// A figure measured once.
pub(super) fn once(client: ClientName, value: f64, shown: String) -> Figure {
    Figure {
        client,
        value,
        rounds: Vec::new(),
        half_width: None,
        shown,
    }
}

/// A figure measured in rounds.
pub(super) fn rounds(
    client: ClientName,
    value: f64,
    rounds: Vec<f64>,
    half_width: Option<f64>,
    shown: String,
) -> Figure {
    Figure {
        client,
        value,
        rounds,
        half_width,
        shown,
    }
}

/// A mean time per unit (us) measured in rounds, with its 99.9% CI half-width, shown with
/// `decimals` decimals; `None` without a mean.
pub(super) fn mean_in_rounds(
    client: ClientName,
    mean_us: Option<f64>,
    round_means_us: &[f64],
    error_us: Option<f64>,
    decimals: usize,
) -> Option<Figure> {
    let mean = mean_us?;
    Some(rounds(
        client,
        mean,
        round_means_us.to_vec(),
        error_us,
        format!("{mean:.decimals$} us"),
    ))
}
