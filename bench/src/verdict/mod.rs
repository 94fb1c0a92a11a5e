//! The verdict: per criterion the best client, the runner-up and the margin, judged against
//! the noise of the figures it came from; per use case a pick and the rule that made it. It
//! reads this run's `Results` only (so `bench report RESULTS.json` computes it again), and
//! nothing in it is written by hand: change the figures and the verdict follows.

mod criteria;
mod judge;
mod picks;
mod stability;

use crate::model::Results;

pub use judge::{Better, Criterion, Figure, Judgement, NoiseRule, Outcome, Ranking, compare, rank};
pub use picks::{Choice, Pick, percent};
pub use stability::{Agreement, CriterionAgreement, PickAgreement, Status, agreement};

/// Everything the verdict says.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub criteria: Vec<Judgement>,
    pub picks: Vec<Pick>,
}

/// Computes the verdict of `results`.
pub fn verdict(results: &Results) -> Verdict {
    let criteria = criteria::judge_all(results);
    let picks = picks::pick_all(&criteria);
    Verdict { criteria, picks }
}

#[cfg(test)]
mod tests;
