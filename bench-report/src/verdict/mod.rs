//! The verdict: per criterion the best client, the runner-up and the margin, judged against
//! the noise of the figures it came from; per use case a pick and the rule that made it. It
//! reads this run's `Results` only (so `bench report RESULTS.json` computes it again), and
//! nothing in it is written by hand: change the figures and the verdict follows.

pub(crate) mod criteria;
pub mod decode;
mod judge;
mod of_run;
mod picks;
mod settings;
mod stability;

pub(crate) use criteria::service_cpus;
pub use judge::{
    Better, Criterion, Figure, Judgement, NoiseRule, Outcome, Ranking, Resolution, compare, rank,
    resolution,
};
pub use of_run::{Verdict, verdict};
pub use picks::{Choice, Configured, Deciding, Pick, percent};
pub use stability::{Agreement, CriterionAgreement, PickAgreement, Status, agreement};

#[cfg(test)]
mod tests;
