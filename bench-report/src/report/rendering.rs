//! One rendering of a run: what its outputs share, computed once from the record.

use crate::releases::Change;
use crate::verdict::Verdict;
use crate::verdict::decode::{DecodeWays, decode_ways};
use bench_model::Results;

/// One rendering of a run: what its outputs share, computed once from the record (criterion's
/// report context). The terminal, report.md, report.html and the charts are made from one
/// `Rendering` and decide nothing themselves: the verdict each shows is this one.
#[derive(Debug)]
pub struct Rendering<'a> {
    /// The record as read: the verdict's section names the rows that could not be checked.
    pub(super) results: &'a Results,
    /// The record with those rows left out: what every table and chart shows.
    pub(super) checked: Results,
    /// The run's verdict.
    pub(super) verdict: Verdict,
    /// The decode suite's ways judged, per body.
    pub(super) decode: Vec<DecodeWays>,
    /// What upgrading changed, release by release (the releases suite).
    pub(super) releases: Vec<Change>,
}

impl<'a> Rendering<'a> {
    /// The rendering of `results`: its verdict and every other judgement, computed here once.
    pub fn of(results: &'a Results) -> Self {
        let checked = results.checked();
        Self {
            verdict: crate::verdict::verdict(results),
            decode: decode_ways(&checked.decode),
            releases: crate::releases::changes(&checked.releases),
            checked,
            results,
        }
    }
}
