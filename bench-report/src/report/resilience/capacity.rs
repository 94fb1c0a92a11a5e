//! The capacity table, and the capacity under each CPU quota beside it.

use crate::report::format::format_ms;
use crate::report::reasons;
use crate::report::table::{Align, Table};
use bench_model::stats::quantile::median_of;
use bench_model::{ClientCapacity, ClientName, Protocol, ResilienceResults};

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
                    cpu_at_capacity(row),
                ]
            })
            .collect(),
    }
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
            }],
            ..row
        };
        assert_eq!(cpu_at_capacity(&unread), "-");
    }
}
