//! Criteria of the payment service under traffic: capacity (also under a CPU quota), CPU per
//! request, fan-out, faults, the idle-close race and name resolution.

use super::calls::INSTRUCTIONS;
use super::judged::{judgement, once, rounds};
use crate::report::{not_run, reasons};
use crate::verdict::judge::{Better, Criterion, Figure, Judgement, NoiseRule};
use bench_model::stats::quantile::median_of;
use bench_model::{
    ClientCapacity, FanoutMode, Protocol, Results, Scenario, ServerClose, SuiteName, SuitePart,
};

/// A capacity: a run's three rounds can stand apart while the next run reverses them. On the
/// 2-vCPU Xeon VM, 2026-12-07, hyper's capacity over awc's was +4%, +4%, -4%, +24% and +19% in
/// five runs that day (one of `a135cf1`, four of the paired builds after it; the last with the
/// two clients' rounds apart, so called beyond the noise by the rounds alone), and three
/// default runs of `8514941` moved one client's capacity 30-48%. Pairing the stretches with
/// hyper's does not take this out: the spread is each stretch's own (see `docs/suites.md`). A
/// margin within 30% is a tie.
pub(crate) const CAPACITY: NoiseRule = NoiseRule::RoundsAndBand(0.30);

/// Capacity: the resilience suite's sustained capacity over http: the median of its rounds,
/// or, where its own soak (at half of it) refuted that, the lower rate the suite stepped down
/// to that held a confirmation and a soak. A refuted capacity with no such rate is no figure.
pub(super) fn capacity(results: &Results) -> Judgement {
    let ranked = || {
        results
            .resilience
            .capacity
            .iter()
            .filter(|row| row.is_ranked())
    };
    let figures: Vec<Figure> = ranked().filter_map(sustained_figure).collect();
    judgement(
        Criterion::Capacity,
        format!(
            "resilience suite: the highest rate the service sustained through a confirmation \
             stretch (nothing failed or unsent, p99 within the objective) and a soak at half of \
             it, over http, {}; the median of its rounds, stepped down where its soak failed",
            service_cpus(results)
        ),
        figures,
        Better::Higher,
        CAPACITY,
        SuiteName::Resilience,
    )
    .leaving_out(
        ranked()
            .filter(|row| row.sustained_rps().is_none())
            .map(|row| match (&row.refuted, row.capacity_rps) {
                (Some(why), Some(rps)) => (
                    row.client,
                    format!("{rps} RPS, but {}{}", reasons::refuted(why), stepped(row)),
                ),
                (_, None) => (
                    row.client,
                    "no round confirmed a rate, not even the ramp's first".to_owned(),
                ),
                (None, Some(_)) => unreachable!("an unrefuted capacity is sustained"),
            })
            .collect(),
    )
    .claiming(
        ranked()
            .filter(|row| row.sustained_rps().is_none() && row.refuted.is_some())
            .filter_map(|row| {
                row.capacity_rps
                    .map(|rps| capacity_figure(row, f64::from(rps), ", refuted"))
            })
            .collect(),
    )
}

/// What CPU the service had in the resilience suite: its budget, or the machine it shared with
/// the generator and mock-rates (and why, where a budget was asked for and not set).
pub(crate) fn service_cpus(results: &Results) -> String {
    match (
        results.settings.resilience.service_cpus_millicpus,
        not_run::part_not_run(results, SuiteName::Resilience, SuitePart::ServiceBudget),
    ) {
        (Some(millicpus), None) => format!(
            "the service held to {} CPU (a CFS quota, {} ms period) so that the generator's \
             and mock-rates' CPU does not set it",
            f64::from(millicpus) / 1_000.0,
            bench_model::BUDGET_PERIOD_US / 1_000
        ),
        (Some(_), Some(why)) => format!(
            "the service sharing the machine with the generator and mock-rates (its CPU budget \
             could not be set: {why})"
        ),
        (None, _) => "the service sharing the machine with the generator and mock-rates".to_owned(),
    }
}

/// A capacity row's sustained rate as a figure (see [`capacity_figure`]), saying so where the
/// suite stepped it down.
fn sustained_figure(row: &ClientCapacity) -> Option<Figure> {
    let rps = row.sustained_rps()?;
    let suffix = match (row.refuted.is_some(), row.capacity_rps) {
        (true, Some(median)) => format!(", stepped down from {median} (its soak failed)"),
        _ => String::new(),
    };
    Some(capacity_figure(row, f64::from(rps), &suffix))
}

/// What the suite tried below a refuted capacity, for why it is no figure.
fn stepped(row: &ClientCapacity) -> String {
    match row.step_downs.last() {
        Some(last) => format!(
            "; stepped down to {} RPS, where {}",
            last.rps,
            last.refuted
                .as_ref()
                .map_or_else(|| "it held".to_owned(), reasons::refuted)
        ),
        None => String::new(),
    }
}

/// A capacity row as a figure of `rps`, its rounds as the figure's rounds (a round with no
/// confirmed rate counts as 0), shown as `8000 RPS` and `suffix`.
fn capacity_figure(row: &ClientCapacity, rps: f64, suffix: &str) -> Figure {
    let per_round = row
        .rounds
        .iter()
        .map(|round| round.capacity_rps.map_or(0.0, f64::from))
        .collect();
    rounds(
        row.client,
        rps,
        per_round,
        None,
        format!("{rps:.0} RPS{suffix}"),
    )
}

/// Capacity with the service held to `millicpus` by a CFS quota (`--cpu-quota`): the median
/// of its rounds. No soak is run under the quota, so nothing refutes it; a client with no
/// confirmed rate is left out, saying so.
pub(super) fn capacity_under_quota(results: &Results, millicpus: u32) -> Judgement {
    let rows = || {
        results
            .resilience
            .capacity
            .iter()
            .filter(move |row| row.cpu_quota_millicpus == Some(millicpus))
    };
    let figures: Vec<Figure> = rows()
        .filter_map(|row| Some(capacity_figure(row, f64::from(row.capacity_rps?), "")))
        .collect();
    judgement(
        Criterion::CapacityUnderQuota(millicpus),
        format!(
            "resilience suite: the capacity (as above) with the service held to {} CPU by a \
             CFS quota; the median of its rounds",
            f64::from(millicpus) / 1_000.0
        ),
        figures,
        Better::Higher,
        CAPACITY,
        SuiteName::Resilience,
    )
    .leaving_out(
        rows()
            .filter(|row| row.capacity_rps.is_none())
            .map(|row| {
                (
                    row.client,
                    "no round confirmed a rate under the quota, not even the ramp's first"
                        .to_owned(),
                )
            })
            .collect(),
    )
}

/// The service's CPU per payment as a ratio to the reference's measured beside it (see
/// [`ClientCapacity::cpu_beside`]): per client the median of its rounds' ratios, over http
/// without a CPU quota. Both services meet the machine's slowdowns in the same stretch, so the
/// ratio keeps what the rate of CPU time per payment loses to them.
pub(super) fn cpu_beside(results: &Results) -> Judgement {
    let ranked = || {
        results
            .resilience
            .capacity
            .iter()
            .filter(|row| row.is_ranked() && row.unchecked.is_none())
    };
    let reference = ranked()
        .flat_map(|row| &row.rounds)
        .find_map(|round| round.beside.as_ref())
        .map_or_else(|| "hyper".to_owned(), |beside| beside.reference.to_string());
    let figures: Vec<Figure> = ranked()
        .filter_map(|row| {
            let per_round: Vec<f64> = row
                .cpu_beside()
                .into_iter()
                .flatten()
                .map(|round| round.ratio)
                .collect();
            let ratio = median_of(&per_round)?;
            let shown: Vec<String> = per_round
                .iter()
                .map(|ratio| format!("{ratio:.2}"))
                .collect();
            Some(rounds(
                row.client,
                ratio,
                per_round,
                None,
                format!("{ratio:.2}x {reference}'s ({})", shown.join(" / ")),
            ))
        })
        .collect();
    judgement(
        Criterion::CpuBeside,
        format!(
            "resilience suite: the service's CPU per payment as a ratio to {reference}'s on a \
             second service beside it, at the same rate in the same stretches (the capacity \
             ramps' steps both sustained, the median of a round's steps), over http, {}; the \
             median of the rounds",
            service_cpus(results)
        ),
        figures,
        Better::Lower,
        CPU_BESIDE,
        SuiteName::Resilience,
    )
    // A client measured beside the reference with no step both sustained has no figure, and
    // says so; a run from before the pairing has none to give.
    .leaving_out(
        ranked()
            .filter(|row| {
                row.rounds.iter().any(|round| round.beside.is_some())
                    && row.cpu_beside().iter().all(Option::is_none)
            })
            .map(|row| {
                (
                    row.client,
                    format!("no ramp step both its service and {reference}'s sustained"),
                )
            })
            .collect(),
    )
}

/// CPU per payment beside hyper: its rounds moved 1.5-13% within a run, and each client's
/// figure at most 3% between three default runs of `bb11281` (Intel Xeon VM, 2026-12-07), but
/// for ureq's, 1.94, 1.80 and 1.74 (11%). A margin within 10% is a tie, so that a margin one
/// run calls holds in the next.
pub(crate) const CPU_BESIDE: NoiseRule = NoiseRule::RoundsAndBand(0.10);

/// The service's CPU per successful payment in the load suite's open-model run over http,
/// round by round: with the ordinary answer (`body_bytes` `None`), or with the larger answer
/// of so many bytes.
pub(super) fn cpu_per_request(results: &Results, body_bytes: Option<u64>) -> Judgement {
    let rows = || {
        results
            .load
            .iter()
            .filter(move |row| row.protocol == Protocol::Http && row.body_bytes == body_bytes)
    };
    let figures: Vec<Figure> = rows()
        .filter(|row| row.fail == 0 && row.ok > 0 && row.unchecked.is_none())
        .filter_map(|row| {
            let Scenario::Payments(client) = row.scenario else {
                return None;
            };
            let micros = row.api_cpu_s? * 1e6 / row.ok as f64;
            let per_round = row
                .rounds
                .iter()
                .filter_map(|round| Some(round.api_cpu_s? * 1e6 / (round.ok.max(1)) as f64))
                .collect();
            Some(rounds(
                client,
                micros,
                per_round,
                None,
                format!("{micros:.0} us"),
            ))
        })
        .collect();
    let (criterion, answer) = match body_bytes {
        None => (Criterion::CpuPerRequest, String::new()),
        Some(bytes) => (
            Criterion::CpuPerRequestOfAnswer(bytes),
            format!(", the upstream answering {bytes} bytes"),
        ),
    };
    judgement(
        criterion,
        format!(
            "load suite: the service's CPU time per payment at a constant rate over http{answer}, \
             in rounds spread over the suite"
        ),
        figures,
        Better::Lower,
        NoiseRule::Rounds,
        SuiteName::Load,
    )
    .leaving_out(
        rows()
            .filter_map(|row| {
                let Scenario::Payments(client) = row.scenario else {
                    return None;
                };
                let why = match &row.unchecked {
                    Some(why) => {
                        format!("unchecked: {}", reasons::unchecked(why, row.protocol))
                    }
                    None if row.fail > 0 => {
                        format!("{} of {} payments failed", row.fail, row.ok + row.fail)
                    }
                    None => return None,
                };
                Some((client, why))
            })
            .collect(),
    )
}

/// The cost suite's instructions per payment across the whole service's process under
/// callgrind, round by round (the clients in a random order each round); a row whose payments
/// failed is left out, with why.
pub(super) fn instructions_per_payment(results: &Results) -> Judgement {
    let figures = results
        .service_cost
        .iter()
        .filter(|row| row.failed == 0 && !row.rounds.is_empty())
        .map(|row| {
            rounds(
                row.client,
                row.instructions_per_payment,
                row.rounds.clone(),
                None,
                format!("{:.0}", row.instructions_per_payment),
            )
        })
        .collect();
    let in_flight = results.service_cost.first().map_or(0, |row| row.in_flight);
    judgement(
        Criterion::InstructionsPerPayment,
        format!(
            "cost suite: CPU instructions per payment across every thread of the service's \
             process under callgrind, payments {in_flight} at a time over http, in rounds (the \
             clients in a random order each round); the process's own instructions, not the \
             kernel's work for it (system calls, wake-ups), which the capacity counts"
        ),
        figures,
        Better::Lower,
        // Counted, like the instructions per call, and held to the same band between runs:
        // three runs of 311f465 moved it at most 0.3% (ureq 2.7%).
        INSTRUCTIONS,
        SuiteName::Cost,
    )
    .leaving_out(
        results
            .service_cost
            .iter()
            .filter(|row| row.failed > 0)
            .map(|row| {
                (
                    row.client,
                    format!(
                        "{} of its payments failed{}",
                        row.failed,
                        row.first_failure
                            .as_deref()
                            .map(|first| format!(" (the first: {first})"))
                            .unwrap_or_default()
                    ),
                )
            })
            .collect(),
    )
}

/// The fanout suite's largest concurrent group over http: the median wall time, each
/// repetition a round.
pub(super) fn fanout(results: &Results) -> Judgement {
    let rows: Vec<_> = results
        .fanout
        .iter()
        .filter(|row| {
            row.protocol == Protocol::Http
                && row.stream_limit.is_none()
                && row.mode == FanoutMode::Concurrent
                && row.unchecked.is_none()
        })
        .collect();
    let largest = rows.iter().map(|row| row.group_size).max().unwrap_or(0);
    let figures = rows
        .iter()
        .filter(|row| row.group_size == largest && row.failures == 0)
        .filter_map(|row| {
            let median = row.wall_ms_median?;
            Some(rounds(
                row.client,
                median,
                row.wall_ms.clone(),
                None,
                format!("{median:.1} ms"),
            ))
        })
        .collect();
    judgement(
        Criterion::Fanout,
        format!(
            "fanout suite: median wall time of a concurrent group of {largest} payments over \
             http, each repetition a round"
        ),
        figures,
        Better::Lower,
        NoiseRule::Rounds,
        SuiteName::Fanout,
    )
}

/// The faults suite: the faults each client came through as expected.
pub(super) fn faults(results: &Results) -> Judgement {
    let mut figures: Vec<Figure> = Vec::new();
    for client in &results.settings.clients {
        let cells: Vec<_> = results
            .faults
            .iter()
            .filter(|row| row.client == *client)
            .collect();
        if cells.is_empty() {
            continue;
        }
        let right = cells.iter().filter(|row| row.as_expected()).count();
        figures.push(once(
            *client,
            right as f64,
            format!("{right}/{}", cells.len()),
        ));
    }
    judgement(
        Criterion::Faults,
        "faults suite: faults answered with the expected kind and status, no hang, next \
         payment fine"
            .to_owned(),
        figures,
        Better::Higher,
        NoiseRule::Exact,
        SuiteName::Faults,
    )
}

/// The idle suite with the race forced: calls that failed when mock-rates dropped their request
/// on a kept connection idle past its timeout, with the client's idle timeout above the
/// server's (as users run it: most libraries keep connections longer than servers do).
pub(super) fn idle_race(results: &Results) -> Judgement {
    idle_race_with(results, IdleTimeout::AboveServers)
}

/// The same with the client's idle timeout below the server's; not measured where the idle
/// suite did not run.
pub(super) fn idle_race_below(results: &Results) -> Judgement {
    idle_race_with(results, IdleTimeout::BelowServers)
}

/// The client's idle timeout against the server's, in the idle suite's rows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum IdleTimeout {
    AboveServers,
    BelowServers,
}

fn idle_race_with(results: &Results, timeout: IdleTimeout) -> Judgement {
    let mut figures: Vec<Figure> = Vec::new();
    for client in &results.settings.clients {
        let rows: Vec<_> = results
            .idle
            .iter()
            .filter(|row| {
                row.client == *client
                    && row.server_close == ServerClose::OnArrival
                    && (row.client_idle_ms > row.server_idle_ms)
                        == (timeout == IdleTimeout::AboveServers)
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        let failed: u64 = rows.iter().map(|row| row.failed()).sum();
        let calls: u64 = rows.iter().map(|row| row.calls).sum();
        figures.push(once(*client, failed as f64, format!("{failed}/{calls}")));
    }
    let (criterion, relation) = match timeout {
        IdleTimeout::AboveServers => (Criterion::IdleRace, "above"),
        IdleTimeout::BelowServers => (Criterion::IdleRaceBelow, "below"),
    };
    judgement(
        criterion,
        format!(
            "idle suite: calls failed when the server's idle close met their request (the race \
             forced), the client's idle timeout {relation} the server's"
        ),
        figures,
        Better::Lower,
        NoiseRule::Exact,
        SuiteName::Idle,
    )
}

/// The resolution suite with its slowest DNS server: `A` and `AAAA` questions per new
/// connection to the upstream by name, after a first call whose answers a client may keep. A
/// count: a client that resolves for every connection asks each time, one that keeps the
/// answers never.
pub(super) fn dns_questions(results: &Results) -> Judgement {
    let slowest = results.settings.resolution.slowest_ms();
    let figures: Vec<Figure> = results
        .resolution
        .iter()
        .filter(|row| row.dns_delay_ms.is_some() && row.dns_delay_ms == slowest)
        .filter_map(|row| {
            let per_connection = row.questions_per_connection()?;
            // Two decimals: the figure as the table shows it, so that 59 or 60 questions over
            // 30 connections is not a claim of its own.
            let value = (per_connection * 100.0).round() / 100.0;
            Some(once(
                row.client,
                value,
                format!(
                    "{value:.2} ({} for {} connections)",
                    row.questions()?,
                    row.connections?
                ),
            ))
        })
        .collect();
    judgement(
        Criterion::DnsQuestions,
        format!(
            "resolution suite: DNS A and AAAA questions per new connection to the upstream by name, the \
             DNS server answering in {} ms",
            slowest.unwrap_or_default()
        ),
        figures,
        Better::Lower,
        NoiseRule::Exact,
        SuiteName::Resolution,
    )
}
