//! The WAN suite's criteria, over https (how a service reaches a rates API across a network):
//! the 99th percentile of payments across the lossy link and the connections they opened, and
//! the payments lost after a middlebox forgot the pool's connections and how soon one
//! succeeded.

use crate::verdict::criteria::judged::{judgement, not_measured, once, rounds};
use crate::verdict::judge::{Better, Criterion, Judgement, NoiseRule};
use bench_model::{ClientName, Protocol, Results, SuiteName, WanRow};

/// The profile the WAN use case reads: 50 ms, 2% of packets lost each way in bursts.
pub(crate) const LOSSY: &str = "lossy";
/// The profile the NAT use case reads: a middlebox forgetting flows idle over 5 s.
pub(crate) const FORGETFUL: &str = "forgetful";
/// The protocol both read.
const OVER: Protocol = Protocol::Https;

/// The time to the first success after a forgotten flow is whole round trips of the link
/// (30 ms each: a new connection's TCP and TLS handshakes, then the payment) and the
/// service's own; measured once per client, a margin within 20% (about one round trip at the
/// figures seen, 160-300 ms) is a tie.
pub(crate) const FIRST_SUCCESS: NoiseRule = NoiseRule::Once(0.20);

fn rows<'a>(results: &'a Results, profile: &'a str) -> impl Iterator<Item = &'a WanRow> {
    results
        .wan
        .rows
        .iter()
        .filter(move |row| row.profile == profile && row.protocol == OVER)
}

/// The profile was not measured: the suite, or the profile, was not in the run.
fn not_in_run(criterion: Criterion, results: &Results, profile: &str) -> Option<Judgement> {
    if rows(results, profile).next().is_some() {
        return None;
    }
    let mut judged = not_measured(criterion, SuiteName::Wan);
    if !results.wan.rows.is_empty() {
        judged.outcome = crate::verdict::judge::Outcome::NotMeasured(format!(
            "not in this run: the wan suite's {profile} profile over https (--suite wan \
             --wan-profiles {profile})"
        ));
    }
    Some(judged)
}

/// Clients whose stretch lost payments: their percentile of the answered ones is no figure.
fn with_failures<'a>(rows: impl Iterator<Item = &'a WanRow>) -> Vec<(ClientName, String)> {
    rows.filter(|row| row.failed() > 0 || row.p99_ms.is_none())
        .map(|row| {
            (
                row.client,
                format!(
                    "{} of its {} payments across the link failed",
                    row.failed(),
                    row.payments
                ),
            )
        })
        .collect()
}

/// The 99th percentile of the payments across the lossy link, from each one's due time, its
/// stretch sent in rounds with the clients in turn: the ranges of the rounds' percentiles must
/// not overlap for a margin to count (the luck of which payments a burst of loss met moves
/// them).
pub(super) fn wan_p99(results: &Results) -> Judgement {
    let criterion = Criterion::WanP99;
    if let Some(judged) = not_in_run(criterion, results, LOSSY) {
        return judged;
    }
    let figures = rows(results, LOSSY)
        .filter(|row| row.failed() == 0)
        .filter_map(|row| {
            let p99 = row.p99_ms?;
            let shown: Vec<String> = row
                .round_p99_ms
                .iter()
                .map(|ms| format!("{ms:.0}"))
                .collect();
            Some(rounds(
                row.client,
                p99,
                row.round_p99_ms.clone(),
                None,
                format!("{p99:.0} ms ({} ms)", shown.join(" / ")),
            ))
        })
        .collect();
    judgement(
        criterion,
        "wan suite: the 99th percentile of payments across the lossy link (50 ms, 2% of packets \
         lost each way in bursts) over https, from each one's due time; the stretch in rounds, \
         the clients in turn"
            .to_owned(),
        figures,
        Better::Lower,
        NoiseRule::Rounds,
        SuiteName::Wan,
    )
    .leaving_out(with_failures(rows(results, LOSSY)))
}

/// New connections per 1 000 payments are a count of a few (2-8 in 60 payments): one client's
/// moved by one connection between two runs of the suite (lossy, https: hyper 3 then 2 in 60,
/// 2-vCPU AMD EPYC VM, 2026-12-07), so a margin of 50% or less is a tie.
pub(crate) const CONNECTIONS: NoiseRule = NoiseRule::Band(0.50);

/// New connections the upstream accepted per 1 000 of those payments.
pub(super) fn wan_connections(results: &Results) -> Judgement {
    let criterion = Criterion::WanConnections;
    if let Some(judged) = not_in_run(criterion, results, LOSSY) {
        return judged;
    }
    let figures = rows(results, LOSSY)
        .filter_map(|row| {
            let per_1000 = row.connections_per_1000?;
            let opened = (per_1000
                * (row.payments - row.failures.get("unsent").unwrap_or(&0)) as f64
                / 1_000.0)
                .round();
            Some(once(
                row.client,
                per_1000,
                format!("{per_1000:.1} ({opened:.0} for {} payments)", row.payments),
            ))
        })
        .collect();
    judgement(
        criterion,
        "wan suite: new connections the upstream accepted per 1 000 payments across the lossy \
         link over https"
            .to_owned(),
        figures,
        Better::Lower,
        CONNECTIONS,
        SuiteName::Wan,
    )
}

/// Payments lost after the pool's connections sat idle until the middlebox forgot them: a
/// count.
pub(super) fn wan_lost(results: &Results) -> Judgement {
    let criterion = Criterion::WanLost;
    if let Some(judged) = not_in_run(criterion, results, FORGETFUL) {
        return judged;
    }
    let figures = rows(results, FORGETFUL)
        .filter_map(|row| {
            let recovery = row.recovery.as_ref()?;
            Some(once(
                row.client,
                recovery.lost as f64,
                format!("{} of {}", recovery.lost, row.payments),
            ))
        })
        .collect();
    judgement(
        criterion,
        "wan suite: payments lost when the pool's connections had sat idle until a middlebox \
         forgot them (idle over 5 s, then 20 payments a second) over https"
            .to_owned(),
        figures,
        Better::Lower,
        NoiseRule::Exact,
        SuiteName::Wan,
    )
}

/// From the start of those payments to the first answered (ms).
pub(super) fn wan_first_success(results: &Results) -> Judgement {
    let criterion = Criterion::WanFirstSuccess;
    if let Some(judged) = not_in_run(criterion, results, FORGETFUL) {
        return judged;
    }
    let measured: Vec<&WanRow> = rows(results, FORGETFUL).collect();
    let figures = measured
        .iter()
        .filter_map(|row| {
            let ms = row.recovery.as_ref()?.first_success_ms?;
            Some(once(row.client, ms, format!("{ms:.0} ms")))
        })
        .collect();
    judgement(
        criterion,
        "wan suite: from the start of the payments after a forgotten flow to the first \
         answered, over https"
            .to_owned(),
        figures,
        Better::Lower,
        FIRST_SUCCESS,
        SuiteName::Wan,
    )
    .leaving_out(
        measured
            .iter()
            .filter(|row| {
                row.recovery
                    .as_ref()
                    .is_some_and(|recovery| recovery.first_success_ms.is_none())
            })
            .map(|row| (row.client, "no payment succeeded after it".to_owned()))
            .collect(),
    )
}
