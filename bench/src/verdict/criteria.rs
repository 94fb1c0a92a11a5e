//! The criteria: for each, the figures of this run it is judged on, round by round where the
//! suite measured it in rounds, which way is better, and the noise its margin must beat.

use crate::model::{
    ClientCapacity, ClientName, ClientTrust, ConnectionMode, FanoutMode, HOW_TO_RUN_ADOPTION,
    Protocol, Results, Scenario, SuiteName,
};
use crate::verdict::judge::{Better, Criterion, Figure, Judgement, NoiseRule, Outcome, rank};

/// Band for a timed figure measured once per client (the adoption suite's builds).
const ONCE: NoiseRule = NoiseRule::Once(0.10);
/// Band for figures that do not move between builds beyond a trace: stripped sizes.
const CLOSE: NoiseRule = NoiseRule::Band(0.01);
/// Instructions under callgrind: a run's rounds agree within about 1-3%, but runs of one build
/// moved up to 4% (three default runs of `89b3d7f`, http; two of `94264de` moved 1-2%), so a
/// margin a run's rounds call clear was reversed by the next run. A margin within 5% is a tie.
const INSTRUCTIONS: NoiseRule = NoiseRule::RoundsAndBand(0.05);

/// Every criterion, in the table's order.
pub fn judge_all(results: &Results) -> Vec<Judgement> {
    let mut judged = Vec::new();
    per_protocol(
        &mut judged,
        results,
        latency,
        Criterion::Latency(Protocol::Http),
        SuiteName::Latency,
    );
    judged.push(capacity(results));
    let mut quotas: Vec<u32> = results
        .resilience
        .capacity
        .iter()
        .filter_map(|row| row.cpu_quota_millicpus)
        .collect();
    quotas.sort_unstable_by(|a, b| b.cmp(a));
    quotas.dedup();
    judged.extend(
        quotas
            .into_iter()
            .map(|millicpus| capacity_under_quota(results, millicpus)),
    );
    judged.push(cpu_per_request(results));
    per_protocol(
        &mut judged,
        results,
        instructions,
        Criterion::Instructions(Protocol::Http),
        SuiteName::Cost,
    );
    judged.push(peak_memory(results));
    judged.extend(
        Protocol::ALL
            .into_iter()
            .filter_map(|protocol| allocations(results, protocol)),
    );
    judged.push(handshake(results));
    judged.push(construction(results));
    judged.push(fanout(results));
    judged.push(faults(results));
    judged.extend(adoption(results));
    judged
}

/// `judge` over every protocol the run measured, or one line saying the suite did not run.
fn per_protocol(
    judged: &mut Vec<Judgement>,
    results: &Results,
    judge: fn(&Results, Protocol) -> Option<Judgement>,
    unmeasured: Criterion,
    suite: SuiteName,
) {
    let found: Vec<Judgement> = Protocol::ALL
        .into_iter()
        .filter_map(|protocol| judge(results, protocol))
        .collect();
    if found.is_empty() {
        judged.push(not_measured(unmeasured, suite));
    }
    judged.extend(found);
}

fn judgement(
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
fn any(
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
fn not_measured(criterion: Criterion, suite: SuiteName) -> Judgement {
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
fn once(client: ClientName, value: f64, shown: String) -> Figure {
    Figure {
        client,
        value,
        rounds: Vec::new(),
        half_width: None,
        shown,
    }
}

/// A figure measured in rounds.
fn rounds(
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

/// Latency suite: the mean per call with its 99.9% CI and its rounds, clients without
/// failures.
fn latency(results: &Results, protocol: Protocol) -> Option<Judgement> {
    let figures: Vec<Figure> = results
        .latency
        .iter()
        .filter(|row| row.protocol == protocol && row.failures == 0 && row.unchecked.is_none())
        .filter_map(|row| {
            let mean = row.mean_us?;
            Some(rounds(
                row.client,
                mean,
                row.round_means_us.clone(),
                row.error_us,
                format!("{mean:.1} us"),
            ))
        })
        .collect();
    any(
        Criterion::Latency(protocol),
        format!(
            "latency suite: mean per pooled call over {protocol}, in rounds spread over the \
             suite"
        ),
        figures,
        Better::Lower,
        NoiseRule::Rounds,
        SuiteName::Latency,
    )
    .map(|judgement| judgement.leaving_out(latency_left_out(results, protocol)))
}

/// The latency rows over `protocol` that are no figure: calls failed, or the row could not be
/// checked.
fn latency_left_out(results: &Results, protocol: Protocol) -> Vec<(ClientName, String)> {
    results
        .latency
        .iter()
        .filter(|row| row.protocol == protocol)
        .filter_map(|row| {
            let why = match &row.unchecked {
                Some(why) => format!("unchecked: {why}"),
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
fn allocations(results: &Results, protocol: Protocol) -> Option<Judgement> {
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

/// Capacity: the resilience suite's sustained capacity over http, the median of its rounds; a
/// capacity that its own soak (at half of it) refuted is not a figure.
fn capacity(results: &Results) -> Judgement {
    let figures: Vec<Figure> = results
        .resilience
        .capacity
        .iter()
        .filter(|row| row.cpu_quota_millicpus.is_none() && row.refuted.is_none())
        .filter_map(|row| capacity_figure(row, ""))
        .collect();
    judgement(
        Criterion::Capacity,
        "resilience suite: the highest rate the service sustained through a confirmation \
         stretch (nothing failed or unsent, p99 within the objective), over http; the median \
         of its rounds"
            .to_owned(),
        figures,
        Better::Higher,
        NoiseRule::Rounds,
        SuiteName::Resilience,
    )
    .leaving_out(
        results
            .resilience
            .capacity
            .iter()
            .filter(|row| row.cpu_quota_millicpus.is_none())
            .filter_map(|row| match (&row.refuted, row.capacity_rps) {
                (Some(why), Some(rps)) => Some((row.client, format!("{rps} RPS, but {why}"))),
                (None, None) => Some((
                    row.client,
                    "no round confirmed a rate, not even the ramp's first".to_owned(),
                )),
                (Some(why), None) => Some((row.client, why.clone())),
                (None, Some(_)) => None,
            })
            .collect(),
    )
    .claiming(
        results
            .resilience
            .capacity
            .iter()
            .filter(|row| row.cpu_quota_millicpus.is_none() && row.refuted.is_some())
            .filter_map(|row| capacity_figure(row, ", refuted"))
            .collect(),
    )
}

/// A capacity row as a figure, its rounds as the figure's rounds (a round with no confirmed
/// rate counts as 0), shown as `8000 RPS` and `suffix`; `None` when no round confirmed one.
fn capacity_figure(row: &ClientCapacity, suffix: &str) -> Option<Figure> {
    let rps = f64::from(row.capacity_rps?);
    let per_round = row
        .rounds
        .iter()
        .map(|round| round.capacity_rps.map_or(0.0, f64::from))
        .collect();
    Some(rounds(
        row.client,
        rps,
        per_round,
        None,
        format!("{rps:.0} RPS{suffix}"),
    ))
}

/// Capacity with the service held to `millicpus` by a CFS quota (`--cpu-quota`): the median
/// of its rounds. No soak is run under the quota, so nothing refutes it; a client with no
/// confirmed rate is left out, saying so.
fn capacity_under_quota(results: &Results, millicpus: u32) -> Judgement {
    let rows = || {
        results
            .resilience
            .capacity
            .iter()
            .filter(move |row| row.cpu_quota_millicpus == Some(millicpus))
    };
    let figures: Vec<Figure> = rows().filter_map(|row| capacity_figure(row, "")).collect();
    judgement(
        Criterion::CapacityUnderQuota(millicpus),
        format!(
            "resilience suite: the capacity (as above) with the service held to {} CPU by a \
             CFS quota; the median of its rounds",
            f64::from(millicpus) / 1_000.0
        ),
        figures,
        Better::Higher,
        NoiseRule::Rounds,
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

/// The service's CPU per successful payment in the load suite's open-model run over http,
/// round by round.
fn cpu_per_request(results: &Results) -> Judgement {
    let figures: Vec<Figure> = results
        .load
        .iter()
        .filter(|row| {
            row.protocol == Protocol::Http && row.fail == 0 && row.ok > 0 && row.unchecked.is_none()
        })
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
    judgement(
        Criterion::CpuPerRequest,
        "load suite: the service's CPU time per payment at a constant rate over http, in \
         rounds spread over the suite"
            .to_owned(),
        figures,
        Better::Lower,
        NoiseRule::Rounds,
        SuiteName::Load,
    )
    .leaving_out(
        results
            .load
            .iter()
            .filter(|row| row.protocol == Protocol::Http)
            .filter_map(|row| {
                let Scenario::Payments(client) = row.scenario else {
                    return None;
                };
                let why = match &row.unchecked {
                    Some(why) => format!("unchecked: {why}"),
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

/// The cost suite's instructions per call under callgrind, one estimate per pair of
/// consecutive runs.
fn instructions(results: &Results, protocol: Protocol) -> Option<Judgement> {
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

/// The adoption probe's peak resident memory: each client alone in a process of its own.
fn peak_memory(results: &Results) -> Judgement {
    let figures = results
        .adoption
        .rows
        .iter()
        .filter_map(|row| {
            let kib = row.build.peak_rss_kib? as f64;
            Some(once(row.client, kib, format!("{:.1} MB", kib / 1024.0)))
        })
        .collect();
    judgement(
        Criterion::PeakMemory,
        "adoption suite: peak resident memory of a probe process making one call".to_owned(),
        figures,
        Better::Lower,
        NoiseRule::Once(0.05),
        SuiteName::Adoption,
    )
}

/// The connections suite over https: a new connection per call against a server without
/// resumption, so every call pays a full handshake.
fn handshake(results: &Results) -> Judgement {
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
            let mean = row.mean_us?;
            Some(rounds(
                row.client,
                mean,
                row.round_means_us.clone(),
                row.error_us,
                format!("{mean:.0} us"),
            ))
        })
        .collect();
    judgement(
        Criterion::Handshake,
        "connections suite: mean per call, each a new connection and full handshake, https, \
         in rounds"
            .to_owned(),
        figures,
        Better::Lower,
        NoiseRule::Rounds,
        SuiteName::Connections,
    )
}

/// The connections suite's client builds, trusting the system's roots and one extra CA (what
/// a client of an https upstream costs to build); plain-http builds when that was not run.
fn construction(results: &Results) -> Judgement {
    let trust = [ClientTrust::SystemRootsAndCa, ClientTrust::Plain]
        .into_iter()
        .find(|trust| results.construction.iter().any(|row| row.trust == *trust));
    let figures = results
        .construction
        .iter()
        .filter(|row| Some(row.trust) == trust && row.failures == 0)
        .filter_map(|row| {
            let mean = row.mean_us?;
            Some(rounds(
                row.client,
                mean,
                row.round_means_us.clone(),
                row.error_us,
                format!("{mean:.0} us"),
            ))
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
        NoiseRule::Rounds,
        SuiteName::Connections,
    )
}

/// The fanout suite's largest concurrent group over http: the median wall time, each
/// repetition a round.
fn fanout(results: &Results) -> Judgement {
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
fn faults(results: &Results) -> Judgement {
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

/// The adoption suite: build time, binary size; dependencies from the adoption rows, or from
/// the dependencies suite's trees (read without building).
fn adoption(results: &Results) -> Vec<Judgement> {
    let rows = &results.adoption.rows;
    let figures = |value: &dyn Fn(&crate::model::AdoptionRow) -> (f64, String)| {
        rows.iter()
            .map(|row| {
                let (number, shown) = value(row);
                once(row.client, number, shown)
            })
            .collect::<Vec<_>>()
    };
    vec![
        judgement(
            Criterion::BuildTime,
            "adoption suite: clean release build of a probe, wall time".to_owned(),
            figures(&|row| {
                (
                    row.build.build_wall_s,
                    format!("{:.0} s", row.build.build_wall_s),
                )
            }),
            Better::Lower,
            ONCE,
            SuiteName::Adoption,
        ),
        judgement(
            Criterion::BinarySize,
            "adoption suite: stripped release probe (and its bytes over a probe with no client)"
                .to_owned(),
            figures(&|row| {
                let megabytes = |bytes: f64| bytes / (1024.0 * 1024.0);
                let added = row.added_bytes.unwrap_or(0) as f64;
                let bytes = row.build.binary_bytes as f64;
                (
                    bytes,
                    format!("{:.2} MB (+{:.2})", megabytes(bytes), megabytes(added)),
                )
            }),
            Better::Lower,
            CLOSE,
            SuiteName::Adoption,
        ),
        dependencies(results),
    ]
}

/// Crates in each client's probe tree over the base probe's: from the adoption rows when that
/// suite ran, else from the dependencies suite (the same trees, read without a build).
fn dependencies(results: &Results) -> Judgement {
    let (figures, source): (Vec<Figure>, &str) = if results.adoption.rows.is_empty() {
        (
            results
                .dependencies
                .rows
                .iter()
                .map(|row| {
                    once(
                        row.client,
                        f64::from(row.crates),
                        format!("+{}", row.added_crates),
                    )
                })
                .collect(),
            "dependencies suite: crates in the probe's tree (cargo metadata, no build) over a \
             probe with no client",
        )
    } else {
        (
            results
                .adoption
                .rows
                .iter()
                .map(|row| {
                    once(
                        row.client,
                        f64::from(row.build.crates),
                        format!("+{}", row.added_crates.unwrap_or(0)),
                    )
                })
                .collect(),
            "adoption suite: crates in the probe's tree over a probe with no client",
        )
    };
    judgement(
        Criterion::Dependencies,
        source.to_owned(),
        figures,
        Better::Lower,
        NoiseRule::Exact,
        SuiteName::Dependencies,
    )
}
