//! The verdict of one run: the criteria judged, then the picks made from them.

use crate::verdict::criteria::judge_all;
use crate::verdict::judge::Judgement;
use crate::verdict::picks::{Pick, pick_all};
use bench_model::Results;

/// Everything the verdict says.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub criteria: Vec<Judgement>,
    pub picks: Vec<Pick>,
}

/// Computes the verdict of `results`.
pub fn verdict(results: &Results) -> Verdict {
    let criteria = judge_all(results);
    let picks = pick_all(&criteria, results.settings.quick);
    Verdict { criteria, picks }
}
