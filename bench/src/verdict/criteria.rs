//! The criteria: for each, the figures of this run it is judged on, which way is better, and
//! the noise its margin must beat.

use std::f64::consts::SQRT_2;

use crate::model::{
    ClientName, ClientTrust, ConnectionMode, FanoutMode, HOW_TO_RUN_ADOPTION, Protocol, Results,
    Scenario, SuiteName,
};
use crate::verdict::judge::{
    Better, Criterion, Figure, Judgement, NoiseRule, Outcome, Spread, rank,
};

/// Band for a timed figure measured once per client (capacity steps aside).
const ONCE: NoiseRule = NoiseRule::Once(0.10);
/// Band for figures that repeat closely: allocations averaged over many calls, stripped sizes.
const CLOSE: NoiseRule = NoiseRule::Band(0.01);

/// Every criterion, in the table's order.
pub fn judge_all(results: &Results) -> Vec<Judgement> {
    let mut judged = Vec::new();
    for protocol in Protocol::ALL {
        if let Some(judgement) = latency(results, protocol) {
            judged.push(judgement);
        }
    }
    if !judged
        .iter()
        .any(|j| matches!(j.criterion, Criterion::Latency(_)))
    {
        judged.push(not_measured(
            Criterion::Latency(Protocol::Http),
            SuiteName::Latency,
        ));
    }
    judged.push(capacity(results));
    judged.push(cpu_per_request(results));
    let instructions: Vec<Judgement> = Protocol::ALL
        .into_iter()
        .filter_map(|protocol| instructions(results, protocol))
        .collect();
    if instructions.is_empty() {
        judged.push(not_measured(
            Criterion::Instructions(Protocol::Http),
            SuiteName::Cost,
        ));
    }
    judged.extend(instructions);
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
    }
}

fn figure(client: ClientName, value: f64, spread: Spread, shown: String) -> Figure {
    Figure {
        client,
        value,
        spread,
        shown,
    }
}

/// Latency suite: the mean per call with its 99.9% CI, clients without failures.
fn latency(results: &Results, protocol: Protocol) -> Option<Judgement> {
    let figures: Vec<Figure> = results
        .latency
        .iter()
        .filter(|row| row.protocol == protocol && row.failures == 0)
        .filter_map(|row| {
            let mean = row.mean_us?;
            let spread = row.error_us.map_or(Spread::None, Spread::HalfWidth);
            Some(figure(row.client, mean, spread, format!("{mean:.1} us")))
        })
        .collect();
    any(
        Criterion::Latency(protocol),
        format!("latency suite: mean per pooled call over {protocol}"),
        figures,
        Better::Lower,
        NoiseRule::Interval,
        SuiteName::Latency,
    )
}

/// Allocations per call in the latency suite (the Rust heap, all threads).
fn allocations(results: &Results, protocol: Protocol) -> Option<Judgement> {
    let figures: Vec<Figure> = results
        .latency
        .iter()
        .filter(|row| row.protocol == protocol && row.failures == 0 && row.calls > 0)
        .map(|row| {
            figure(
                row.client,
                row.allocs_per_op,
                Spread::None,
                format!("{:.1}", row.allocs_per_op),
            )
        })
        .collect();
    any(
        Criterion::Allocations(protocol),
        format!("latency suite: Rust heap allocations per call over {protocol}"),
        figures,
        Better::Lower,
        CLOSE,
        SuiteName::Latency,
    )
}

/// Capacity: the resilience suite's open-model ramp when it ran, else the load suite's
/// closed-model step over http.
fn capacity(results: &Results) -> Judgement {
    let ramp: Vec<Figure> = results
        .resilience
        .capacity
        .iter()
        .filter_map(|row| {
            let rps = f64::from(row.capacity_rps?);
            Some(figure(
                row.client,
                rps,
                Spread::None,
                format!("{rps:.0} RPS"),
            ))
        })
        .collect();
    if !ramp.is_empty() {
        return judgement(
            Criterion::Capacity,
            "resilience suite: highest open-model rate sustained through the service (p99 \
             within the objective, nothing failed)"
                .to_owned(),
            ramp,
            Better::Higher,
            NoiseRule::Step(SQRT_2),
            SuiteName::Resilience,
        );
    }
    let closed: Vec<Figure> = results
        .capacity
        .iter()
        .filter(|row| row.protocol == Protocol::Http)
        .filter_map(|row| {
            let client = row.scenario.client()?;
            let rps = row.max_rps?;
            Some(figure(client, rps, Spread::None, format!("{rps:.0} RPS")))
        })
        .collect();
    judgement(
        Criterion::Capacity,
        "load suite: closed-model capacity step through the service over http".to_owned(),
        closed,
        Better::Higher,
        ONCE,
        SuiteName::Resilience,
    )
}

/// The service's CPU per successful payment in the load suite's open-model run over http.
fn cpu_per_request(results: &Results) -> Judgement {
    let figures: Vec<Figure> = results
        .load
        .iter()
        .filter(|row| row.protocol == Protocol::Http && row.fail == 0 && row.ok > 0)
        .filter_map(|row| {
            let Scenario::Payments(client) = row.scenario else {
                return None;
            };
            let micros = row.api_cpu_s? * 1e6 / row.ok as f64;
            Some(figure(
                client,
                micros,
                Spread::None,
                format!("{micros:.0} us"),
            ))
        })
        .collect();
    judgement(
        Criterion::CpuPerRequest,
        "load suite: the service's CPU time per payment at a constant rate over http".to_owned(),
        figures,
        Better::Lower,
        ONCE,
        SuiteName::Load,
    )
}

/// The cost suite's instructions per call under callgrind.
fn instructions(results: &Results, protocol: Protocol) -> Option<Judgement> {
    let figures: Vec<Figure> = results
        .cost
        .iter()
        .filter(|row| row.protocol == protocol)
        .map(|row| {
            figure(
                row.client,
                row.instructions_per_call,
                Spread::None,
                format!("{:.0}", row.instructions_per_call),
            )
        })
        .collect();
    any(
        Criterion::Instructions(protocol),
        format!("cost suite: CPU instructions per pooled call under callgrind, {protocol}"),
        figures,
        Better::Lower,
        CLOSE,
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
            Some(figure(
                row.client,
                kib,
                Spread::None,
                format!("{:.1} MB", kib / 1024.0),
            ))
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
        })
        .filter_map(|row| {
            let mean = row.mean_us?;
            let spread = row.error_us.map_or(Spread::None, Spread::HalfWidth);
            Some(figure(row.client, mean, spread, format!("{mean:.0} us")))
        })
        .collect();
    judgement(
        Criterion::Handshake,
        "connections suite: mean per call, each a new connection and full handshake, https"
            .to_owned(),
        figures,
        Better::Lower,
        NoiseRule::Interval,
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
            let spread = row.error_us.map_or(Spread::None, Spread::HalfWidth);
            Some(figure(row.client, mean, spread, format!("{mean:.0} us")))
        })
        .collect();
    judgement(
        Criterion::Construction,
        format!(
            "connections suite: mean time to build a client ({})",
            trust.map_or("", ClientTrust::as_str)
        ),
        figures,
        Better::Lower,
        NoiseRule::Interval,
        SuiteName::Connections,
    )
}

/// The fanout suite's largest concurrent group over http: the median wall time, with the
/// range of its repetitions.
fn fanout(results: &Results) -> Judgement {
    let rows: Vec<_> = results
        .fanout
        .iter()
        .filter(|row| {
            row.protocol == Protocol::Http
                && row.stream_limit.is_none()
                && row.mode == FanoutMode::Concurrent
        })
        .collect();
    let largest = rows.iter().map(|row| row.group_size).max().unwrap_or(0);
    let figures = rows
        .iter()
        .filter(|row| row.group_size == largest && row.failures == 0)
        .filter_map(|row| {
            let median = row.wall_ms_median?;
            let low = row.wall_ms.iter().copied().fold(f64::INFINITY, f64::min);
            let high = row
                .wall_ms
                .iter()
                .copied()
                .fold(f64::NEG_INFINITY, f64::max);
            let spread = if low.is_finite() && high.is_finite() {
                Spread::Range(low, high)
            } else {
                Spread::None
            };
            Some(figure(
                row.client,
                median,
                spread,
                format!("{median:.1} ms"),
            ))
        })
        .collect();
    judgement(
        Criterion::Fanout,
        format!(
            "fanout suite: median wall time of a concurrent group of {largest} payments over \
             http"
        ),
        figures,
        Better::Lower,
        NoiseRule::Range,
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
        figures.push(figure(
            *client,
            right as f64,
            Spread::None,
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

/// The adoption suite: build time, binary size, dependencies.
fn adoption(results: &Results) -> Vec<Judgement> {
    let rows = &results.adoption.rows;
    let figures = |value: &dyn Fn(&crate::model::AdoptionRow) -> (f64, String)| {
        rows.iter()
            .map(|row| {
                let (number, shown) = value(row);
                figure(row.client, number, Spread::None, shown)
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
        judgement(
            Criterion::Dependencies,
            "adoption suite: crates in the probe's tree over a probe with no client".to_owned(),
            figures(&|row| {
                (
                    f64::from(row.build.crates),
                    format!("+{}", row.added_crates.unwrap_or(0)),
                )
            }),
            Better::Lower,
            NoiseRule::Exact,
            SuiteName::Adoption,
        ),
    ]
}
