//! The capacity table, and the capacity under each CPU quota beside it.

use crate::report::format::format_ms;
use crate::report::reasons;
use crate::report::table::{Align, Table};
use bench_model::stats::quantile::median_of;
use bench_model::stats::spread::range;
use bench_model::{ClientCapacity, ClientName, CpuBeside, Protocol, ResilienceResults};

pub(super) fn capacity_table(rows: &ResilienceResults) -> Table {
    Table {
        title: format!(
            "resilience: capacity, the highest open-model rate held through a confirmation \
             stretch (nothing failed or unsent, p99 within {}), the median of its rounds",
            rows.capacity
                .first()
                .map_or_else(String::new, |row| format_ms(Some(row.latency_objective_ms)))
        ),
        columns: vec![
            ("Client", Align::Left),
            ("Capacity", Align::Right),
            ("Rounds", Align::Left),
            ("p99 of the confirmations", Align::Left),
            ("Soak at half of it", Align::Left),
            ("Sustained", Align::Right),
            ("CPU per payment beside hyper: median (rounds)", Align::Left),
            (
                "CPU per request at it: service / mock / generator",
                Align::Right,
            ),
        ],
        rows: rows
            .capacity
            .iter()
            .filter(|row| row.cpu_quota_millicpus.is_none())
            .map(|row| {
                let rounds: Vec<String> = row
                    .rounds
                    .iter()
                    .map(|round| {
                        round
                            .capacity_rps
                            .map_or_else(|| "none held".to_owned(), |rps| rps.to_string())
                    })
                    .collect();
                let p99s: Vec<String> = row
                    .rounds
                    .iter()
                    .map(|round| {
                        round
                            .confirmations
                            .iter()
                            .find(|step| Some(step.rps) == round.capacity_rps)
                            .map_or_else(
                                || "-".to_owned(),
                                |step| format_ms(step.requests.ok_p99_ms),
                            )
                    })
                    .collect();
                let cell = |rps: Option<u32>| match (&row.unchecked, rps) {
                    (Some(_), _) => "not checked".to_owned(),
                    (None, Some(rps)) => format!("{rps} RPS"),
                    (None, None) => "none held".to_owned(),
                };
                let (capacity, sustained) = (cell(row.capacity_rps), cell(row.sustained_rps()));
                vec![
                    row.label(),
                    capacity,
                    rounds.join(" / "),
                    p99s.join(" / "),
                    soak_outcome(row),
                    sustained,
                    against_reference(row),
                    cpu_at_capacity(row),
                ]
            })
            .collect(),
    }
}

/// The service's CPU per payment as a ratio to the reference's beside it, the median and each
/// round's: `1.16x hyper's (1.15 / 1.19 / 1.16)`; `-` where the rounds were not paired.
fn against_reference(row: &ClientCapacity) -> String {
    let Some(beside) = row.rounds.iter().find_map(|round| round.beside.as_ref()) else {
        return "-".to_owned();
    };
    let rounds = row.cpu_beside();
    let ratios: Vec<f64> = rounds.iter().flatten().map(|round| round.ratio).collect();
    let Some(median) = median_of(&ratios) else {
        return "no step both sustained".to_owned();
    };
    let shown: Vec<String> = rounds
        .iter()
        .map(|round| round.map_or_else(|| "-".to_owned(), |round| format!("{:.2}", round.ratio)))
        .collect();
    format!(
        "{median:.2}x {}'s ({})",
        beside.reference,
        shown.join(" / ")
    )
}

/// How far the service's CPU per payment moved between the rounds against its ratio to the
/// reference's beside it, where the rounds were paired: per client the spread of its rounds
/// ((highest - lowest) / lowest) of each, the median over the clients; `None` without two
/// paired rounds for any client.
pub(super) fn pairing_line(rows: &ResilienceResults) -> Option<String> {
    let spread = |values: &[f64]| {
        let (low, high) = range(values)?;
        (low > 0.0).then(|| (high - low) / low)
    };
    let mut of_own = Vec::new();
    let mut of_ratio = Vec::new();
    let mut reference = None;
    for row in rows.capacity.iter().filter(|row| row.is_ranked()) {
        let rounds: Vec<CpuBeside> = row.cpu_beside().into_iter().flatten().collect();
        let own: Vec<f64> = rounds.iter().map(|round| round.own_us).collect();
        let ratios: Vec<f64> = rounds.iter().map(|round| round.ratio).collect();
        if let (Some(own), Some(ratio)) = (spread(&own), spread(&ratios)) {
            of_own.push(own);
            of_ratio.push(ratio);
            reference = row
                .rounds
                .iter()
                .find_map(|round| round.beside.as_ref())
                .map(|beside| beside.reference);
        }
    }
    let reference = reference?;
    // The ramp steps both services missed and ran again, and of them those the client's
    // service then held: a stall both met, which the first run would have counted.
    let mut repeated = 0;
    let mut then_held = Vec::new();
    for row in rows.capacity.iter().filter(|row| row.is_ranked()) {
        for round in &row.rounds {
            let Some(beside) = &round.beside else {
                continue;
            };
            repeated += beside.repeated.len();
            then_held.extend(
                beside
                    .repeated
                    .iter()
                    .filter(|&&rps| {
                        round.steps.iter().any(|step| {
                            step.rps == rps && step.answered_within(row.latency_objective_ms)
                        })
                    })
                    .map(|rps| format!("{} at {rps} RPS", row.client)),
            );
        }
    }
    // Runs before the repeat have none to name, so nothing is said of them.
    let repeated = match (repeated, then_held.is_empty()) {
        (0, _) => String::new(),
        (count, true) => format!(
            " Ramp steps both services missed and ran again: {count}; none then held (both past \
             their capacities)."
        ),
        (count, false) => format!(
            " Ramp steps both services missed and ran again (the second run counts): {count}; the \
             client's service then held {}: a stall both met.",
            then_held.join(", ")
        ),
    };
    Some(format!(
        "resilience: every capacity stretch drove {reference} on a second service beside the \
         client's, with the same budget, at the same rate at the same time, the sides \
         alternated between rounds. Over the ramp steps both sustained, the service's CPU per \
         payment moved {:.0}% between a client's rounds (the median over {} clients of \
         (highest - lowest) / lowest), its ratio to {reference}'s in the same steps \
         {:.0}%.{repeated}",
        median_of(&of_own)? * 100.0,
        of_own.len(),
        median_of(&of_ratio)? * 100.0
    ))
}

/// Each process's CPU per answered request in the confirmation stretch that held, the median
/// of the rounds: the service's, mock-rates' and the bench's (the generator): what the service
/// costs where it is busy, and how much of the machine the instrument took beside it.
fn cpu_at_capacity(row: &ClientCapacity) -> String {
    let (service, mock, generator) = per_request_at_capacity(row);
    if service.is_empty() && mock.is_empty() && generator.is_empty() {
        return "-".to_owned();
    }
    let shown = |values: &[f64]| {
        median_of(values).map_or_else(|| "-".to_owned(), |median| format!("{median:.0}"))
    };
    format!(
        "{} / {} / {} us",
        shown(&service),
        shown(&mock),
        shown(&generator)
    )
}

/// Each process's CPU per answered request (us) in each round's confirmation stretch that
/// held at the round's capacity: the service's, mock-rates' and the generator's.
pub(super) fn per_request_at_capacity(row: &ClientCapacity) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut service = Vec::new();
    let mut mock = Vec::new();
    let mut generator = Vec::new();
    for round in &row.rounds {
        let Some(held) = round
            .confirmations
            .iter()
            .find(|step| Some(step.rps) == round.capacity_rps)
        else {
            continue;
        };
        let Some(cpu) = held.cpu else { continue };
        let (of_service, of_mock, of_generator) = cpu.per_request_us(held.requests.ok);
        service.extend(of_service);
        mock.extend(of_mock);
        generator.extend(of_generator);
    }
    (service, mock, generator)
}

/// How the soak at half of the capacity went and, where it failed, each lower rate the suite
/// stepped down to.
fn soak_outcome(row: &ClientCapacity) -> String {
    let Some(why) = &row.refuted else {
        return "held".to_owned();
    };
    let mut said = vec![format!("refuted: {}", reasons::refuted(why))];
    for step in &row.step_downs {
        said.push(match &step.refuted {
            Some(why) => format!("at {} RPS {}", step.rps, reasons::refuted(why)),
            None => format!(
                "at {} RPS its confirmation and its soak at {} RPS held",
                step.rps,
                step.soak.as_ref().map_or(0, |soak| soak.rps)
            ),
        });
    }
    said.join("; ")
}

/// Each client's capacity under each CPU quota, against its own without one.
pub(super) fn quota_table(rows: &ResilienceResults) -> Table {
    let free = |client| {
        rows.capacity
            .iter()
            .find(|row| {
                row.client == client
                    && row.protocol == Protocol::Http
                    && row.cpu_quota_millicpus.is_none()
            })
            .and_then(|row| row.capacity_rps)
    };
    let rps =
        |rps: Option<u32>| rps.map_or_else(|| "none held".to_owned(), |rps| format!("{rps} RPS"));
    let mut quoted: Vec<&ClientCapacity> = rows
        .capacity
        .iter()
        .filter(|row| row.cpu_quota_millicpus.is_some())
        .collect();
    // Client by client, the largest quota first.
    quoted.sort_by_key(|row| {
        (
            ClientName::ALL
                .iter()
                .position(|known| *known == row.client),
            std::cmp::Reverse(row.cpu_quota_millicpus),
        )
    });
    Table {
        title: "resilience: capacity with the service held to a CPU quota (a CFS quota, 100 ms \
                period, as a Kubernetes CPU limit) in place of the suite's budget, against the \
                same client's capacity above"
            .to_owned(),
        columns: vec![
            ("Client", Align::Left),
            ("CPU quota", Align::Right),
            ("Capacity", Align::Right),
            ("Rounds", Align::Left),
            ("Capacity above", Align::Right),
            ("Share kept", Align::Right),
        ],
        rows: quoted
            .into_iter()
            .map(|row| {
                let without = free(row.client);
                let share = row
                    .capacity_rps
                    .zip(without)
                    .filter(|&(_, without)| without > 0)
                    .map_or_else(
                        || "-".to_owned(),
                        |(with, without)| {
                            format!("{:.0}%", f64::from(with) * 100.0 / f64::from(without))
                        },
                    );
                vec![
                    row.client.to_string(),
                    row.cpu_quota_millicpus.map_or_else(String::new, cpus),
                    rps(row.capacity_rps),
                    row.rounds
                        .iter()
                        .map(|round| rps(round.capacity_rps))
                        .collect::<Vec<_>>()
                        .join(" / "),
                    rps(without),
                    share,
                ]
            })
            .collect(),
    }
}

/// Millicpus as a Kubernetes limit reads: `1 CPU`, `0.5 CPU`.
pub(super) fn cpus(millicpus: u32) -> String {
    format!("{} CPU", f64::from(millicpus) / 1_000.0)
}

pub(super) const QUOTA: &str = "Under a CPU quota the service's process gets `quota x 100 ms` of CPU time \
    per 100 ms period, across all its threads, and is stopped for the rest of the period once \
    that is spent: a client whose work lands on extra threads (a blocking pool, libcurl's agent \
    thread, a second runtime) spends the same budget. The ramp and the confirmations are the \
    capacity's above; mock-rates and the load generator are not held to any quota. \
    **Share kept** is the capacity under the quota as a share of the same client's capacity \
    above (with the suite's budget, or none), measured earlier in the same run.";

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::{CapacityRound, PhaseCounts, RampStep, StretchCpu};

    fn held(rps: u32, ok: u64, service_s: f64, generator_s: f64) -> CapacityRound {
        let step = RampStep {
            rps,
            requests: PhaseCounts {
                sent: ok,
                ok,
                ..PhaseCounts::default()
            },
            cpu: Some(StretchCpu {
                service_s: Some(service_s),
                mock_s: None,
                generator_s: Some(generator_s),
            }),
        };
        CapacityRound {
            capacity_rps: Some(rps),
            steps: Vec::new(),
            // A stretch above it that did not hold, then the one that did.
            confirmations: vec![
                RampStep {
                    rps: rps * 2,
                    cpu: None,
                    ..step.clone()
                },
                step,
            ],
            beside: None,
        }
    }

    #[test]
    fn the_cpu_at_capacity_is_the_held_stretchs_per_request_median_of_the_rounds() {
        let row = ClientCapacity {
            client: ClientName::Hyper,
            protocol: Protocol::Http,
            capacity_rps: Some(8000),
            latency_objective_ms: 25.0,
            rounds: vec![
                // 16 000 payments: 1.6 s of service CPU is 100 us each, 0.4 s of the bench's 25.
                held(8000, 16_000, 1.6, 0.4),
                held(8000, 16_000, 1.28, 0.32),
                held(6727, 13_454, 1.6146, 0.4036),
            ],
            refuted: None,
            step_downs: Vec::new(),
            cpu_quota_millicpus: None,
            tls: None,
            unchecked: None,
        };
        assert_eq!(cpu_at_capacity(&row), "100 / - / 25 us");
        let unread = ClientCapacity {
            rounds: vec![CapacityRound {
                capacity_rps: None,
                steps: Vec::new(),
                confirmations: Vec::new(),
                beside: None,
            }],
            ..row
        };
        assert_eq!(cpu_at_capacity(&unread), "-");
    }
}
