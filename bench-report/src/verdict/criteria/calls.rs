//! Criteria of a single call: per-call latency and allocations (latency suite), instructions
//! (cost suite), a new connection and a client's construction (connections suite).

use super::judged::{any, judgement, mean_in_rounds, rounds};
use crate::report::reasons;
use crate::verdict::judge::{Better, Criterion, Figure, Judgement, NoiseRule};
use bench_model::{
    ClientName, ClientTrust, ConnectionMode, Decode, LatencyRow, Protocol, Results, SuiteName,
};

/// Instructions under callgrind: a run's rounds agree within about 1-3%, but runs of one build
/// moved up to 4% (three default runs of `89b3d7f`, http; two of `94264de` moved 1-2%), so a
/// margin a run's rounds call clear was reversed by the next run. A margin within 5% is a tie.
pub(crate) const INSTRUCTIONS: NoiseRule = NoiseRule::RoundsAndBand(0.05);

/// A timed call (latency, a new connection, a client's construction): a run's rounds can agree
/// within 1-2% while the next run moves one client against another by more. Between runs of one
/// build, the ratio of two clients within 15% of each other moved up to 6.0% on the 2-vCPU Xeon
/// VM (h2, awc against hyper: 1.005 then 0.948, two default runs of `eee65f7`, which ranked them
/// both ways) and 3.3-12.7% on the AMD VM (three default runs each of `25ebd04` and `ebd7515`,
/// where the rounds also moved 23-37%). A margin within 10% is a tie.
pub(crate) const TIMED: NoiseRule = NoiseRule::RoundsAndBand(0.10);

/// Latency suite: the mean per call with its 99.9% CI and its rounds, clients without
/// failures.
pub(super) fn latency(results: &Results, protocol: Protocol) -> Option<Judgement> {
    mean_per_call(
        results
            .latency
            .iter()
            .filter(|row| row.protocol == protocol),
        Criterion::Latency(protocol),
        format!(
            "latency suite: mean per pooled call over {protocol}, in rounds spread over the \
             suite"
        ),
    )
}

/// Latency suite, a larger answer over http: the mean per call as for the ordinary answer.
pub(super) fn latency_of_answer(results: &Results, bytes: u64) -> Option<Judgement> {
    mean_per_call(
        results
            .latency_by_body
            .iter()
            .filter(|row| row.body_bytes == Some(bytes) && row.decode == Decode::Whole),
        Criterion::LatencyOfAnswer(bytes),
        format!(
            "latency suite: mean per pooled call over http for an answer of {bytes} bytes, in \
             rounds spread over the suite"
        ),
    )
}

/// The mean per call of `rows` with its 99.9% CI and its rounds; a row whose calls failed, or
/// that could not be checked, is left out, with why.
fn mean_per_call<'a>(
    rows: impl Iterator<Item = &'a LatencyRow> + Clone,
    criterion: Criterion,
    source: String,
) -> Option<Judgement> {
    let figures: Vec<Figure> = rows
        .clone()
        .filter(|row| row.failures == 0 && row.unchecked.is_none())
        .filter_map(|row| {
            mean_in_rounds(
                row.client,
                row.mean_us,
                &row.round_means_us,
                row.error_us,
                1,
            )
        })
        .collect();
    let left_out = left_out(rows);
    any(
        criterion,
        source,
        figures,
        Better::Lower,
        TIMED,
        SuiteName::Latency,
    )
    .map(|judgement| judgement.leaving_out(left_out))
}

/// The latency rows over `protocol` that are no figure.
fn latency_left_out(results: &Results, protocol: Protocol) -> Vec<(ClientName, String)> {
    left_out(
        results
            .latency
            .iter()
            .filter(|row| row.protocol == protocol),
    )
}

/// Of `rows`, those that are no figure, with why: calls failed, or the row could not be
/// checked.
fn left_out<'a>(rows: impl Iterator<Item = &'a LatencyRow>) -> Vec<(ClientName, String)> {
    rows.filter_map(|row| {
        let why = match &row.unchecked {
            Some(why) => format!("unchecked: {}", reasons::unchecked(why, row.protocol)),
            None if row.failures > 0 => {
                format!("{} of {} calls failed", row.failures, row.calls)
            }
            None => return None,
        };
        Some((row.client, why))
    })
    .collect()
}

/// Allocations per call in the latency suite (the Rust heap, all threads), round by round.
pub(super) fn allocations(results: &Results, protocol: Protocol) -> Option<Judgement> {
    let figures: Vec<Figure> = results
        .latency
        .iter()
        .filter(|row| {
            row.protocol == protocol
                && row.failures == 0
                && row.calls > 0
                && row.unchecked.is_none()
        })
        .map(|row| {
            rounds(
                row.client,
                row.allocs_per_op,
                row.round_allocs_per_op.clone(),
                None,
                format!("{:.1}", row.allocs_per_op),
            )
        })
        .collect();
    any(
        Criterion::Allocations(protocol),
        format!("latency suite: Rust heap allocations per call over {protocol}, in rounds"),
        figures,
        Better::Lower,
        NoiseRule::Rounds,
        SuiteName::Latency,
    )
    .map(|judgement| judgement.leaving_out(latency_left_out(results, protocol)))
}

/// The cost suite's instructions per call under callgrind, one estimate per pair of
/// consecutive runs.
pub(super) fn instructions(results: &Results, protocol: Protocol) -> Option<Judgement> {
    let figures: Vec<Figure> = results
        .cost
        .iter()
        .filter(|row| row.protocol == protocol && row.unchecked.is_none())
        .map(|row| {
            rounds(
                row.client,
                row.instructions_per_call,
                row.round_instructions_per_call.clone(),
                None,
                format!("{:.0}", row.instructions_per_call),
            )
        })
        .collect();
    any(
        Criterion::Instructions(protocol),
        format!(
            "cost suite: CPU instructions per pooled call under callgrind, {protocol}, one \
             estimate per pair of consecutive runs"
        ),
        figures,
        Better::Lower,
        INSTRUCTIONS,
        SuiteName::Cost,
    )
}

/// The connections suite over https: a new connection per call against a server without
/// resumption, so every call pays a full handshake.
pub(super) fn handshake(results: &Results) -> Judgement {
    let figures = results
        .connections
        .iter()
        .filter(|row| {
            row.protocol == Protocol::Https
                && row.mode == ConnectionMode::NewConnectionFull
                && row.failures == 0
                && row.withheld.is_none()
        })
        .filter_map(|row| {
            mean_in_rounds(
                row.client,
                row.mean_us,
                &row.round_means_us,
                row.error_us,
                0,
            )
        })
        .collect();
    judgement(
        Criterion::Handshake,
        "connections suite: mean per call, each a new connection and full handshake, https, \
         in rounds"
            .to_owned(),
        figures,
        Better::Lower,
        TIMED,
        SuiteName::Connections,
    )
}

/// The connections suite's client builds, trusting the system's roots and one extra CA (what
/// a client of an https upstream costs to build); plain-http builds when that was not run.
pub(super) fn construction(results: &Results) -> Judgement {
    let trust = [ClientTrust::SystemRootsAndCa, ClientTrust::Plain]
        .into_iter()
        .find(|trust| results.construction.iter().any(|row| row.trust == *trust));
    let figures = results
        .construction
        .iter()
        .filter(|row| Some(row.trust) == trust && row.failures == 0)
        .filter_map(|row| {
            mean_in_rounds(
                row.client,
                row.mean_us,
                &row.round_means_us,
                row.error_us,
                0,
            )
        })
        .collect();
    judgement(
        Criterion::Construction,
        format!(
            "connections suite: mean time to build a client ({}), in rounds",
            trust.map_or("", ClientTrust::as_str)
        ),
        figures,
        Better::Lower,
        TIMED,
        SuiteName::Connections,
    )
}
