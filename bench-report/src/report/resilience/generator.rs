//! The generator against wrk: what rate each drove the service to in a closed loop, and the
//! CPU each took per request beside the service's.

use crate::report::reasons;
use crate::report::resilience::capacity::per_request_at_capacity;
use crate::report::table::{Align, Table};
use bench_model::stats::quantile::median_of;
use bench_model::{GeneratorRow, Protocol, ResilienceResults, Scenario};

/// The table, when the suite measured it.
pub(super) fn generator_table(rows: &ResilienceResults) -> Option<Table> {
    let first = rows.generator.first()?;
    Some(Table {
        title: format!(
            "resilience: the generator against wrk, each in a closed loop on {} connections and \
             {} threads for {:.0} s, over http; CPU per answered request",
            first.connections, first.threads, first.duration_s
        ),
        columns: vec![
            ("Target", Align::Left),
            ("Tool", Align::Left),
            ("Answered/s", Align::Right),
            ("Against wrk", Align::Right),
            ("Failed", Align::Right),
            ("Its CPU per request", Align::Right),
            ("Service CPU per request", Align::Right),
        ],
        rows: rows
            .generator
            .iter()
            .map(|row| {
                let wrk = rows
                    .generator
                    .iter()
                    .find(|other| other.scenario == row.scenario && other.tool == "wrk")
                    .and_then(GeneratorRow::rps);
                let micros = |seconds| {
                    row.per_request_us(seconds)
                        .map_or_else(|| "-".to_owned(), |us| format!("{us:.1} us"))
                };
                match &row.not_measured {
                    Some(why) => vec![
                        row.scenario.to_string(),
                        row.tool.clone(),
                        format!("not measured: {}", reasons::generator_not_measured(why)),
                        "-".to_owned(),
                        "-".to_owned(),
                        "-".to_owned(),
                        "-".to_owned(),
                    ],
                    None => vec![
                        row.scenario.to_string(),
                        row.tool.clone(),
                        row.rps()
                            .map_or_else(|| "-".to_owned(), |rps| format!("{rps:.0}")),
                        match (row.rps(), wrk) {
                            (Some(rps), Some(wrk)) if wrk > 0.0 => format!("{:.2}x", rps / wrk),
                            _ => "-".to_owned(),
                        },
                        row.failed.to_string(),
                        micros(row.tool_cpu_s),
                        micros(row.service_cpu_s),
                    ],
                }
            })
            .collect(),
    })
}

/// The generator's CPU per request in the open model, at each capacity over http (every
/// client's confirmations that held at its rounds' capacities, no CPU quota), against its
/// closed loop's and wrk's on the payment: what the open model costs beyond sending as fast
/// as the answers come. `None` without both figures.
pub(super) fn open_against_closed(rows: &ResilienceResults) -> Option<String> {
    let at_capacity: Vec<f64> = rows
        .capacity
        .iter()
        .filter(|row| row.protocol == Protocol::Http && row.cpu_quota_millicpus.is_none())
        .flat_map(|row| per_request_at_capacity(row).2)
        .collect();
    let open = median_of(&at_capacity)?;
    let lowest = at_capacity.iter().copied().fold(f64::INFINITY, f64::min);
    let highest = at_capacity
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max);
    let payment = |tool: &str| {
        rows.generator
            .iter()
            .find(|row| matches!(row.scenario, Scenario::Payments(_)) && row.tool == tool)
            .and_then(|row| row.per_request_us(row.tool_cpu_s))
    };
    let closed = payment("bench")?;
    let wrk = payment("wrk").map_or_else(
        || "wrk's not measured".to_owned(),
        |wrk| format!("wrk's {wrk:.1} us"),
    );
    Some(format!(
        "resilience: the generator's CPU per request in the open model at each capacity: \
         {open:.1} us (the median of {} confirmations, {lowest:.1} to {highest:.1} us), {:.2}x \
         its closed loop's {closed:.1} us on the payment; {wrk}.",
        at_capacity.len(),
        open / closed
    ))
}

/// What the table shows, and what it does not.
pub(super) const GENERATOR: &str = "Before the capacities, the suite's generator and wrk each \
    drive the service as fast as it answers: every connection sends its next request when its \
    last is answered, the same request every time (the payment is the mix's first, EUR to USD, \
    through the first client). The generator reads and checks every answer's body; wrk counts \
    every 2xx or 3xx and reads no body. The capacity the open model finds is the machine's: \
    the service, mock-rates and the generator share its CPUs, so what the generator takes per \
    request (its CPU per request here, and per request of each capacity's confirmation in the \
    capacity table) is CPU the service does not get.";

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::{ClientName, Scenario};

    fn row(scenario: Scenario, tool: &str, ok: u64, tool_cpu_s: f64) -> GeneratorRow {
        GeneratorRow {
            scenario,
            tool: tool.to_owned(),
            connections: 16,
            threads: 2,
            duration_s: 2.0,
            ok,
            failed: 0,
            tool_cpu_s: Some(tool_cpu_s),
            service_cpu_s: Some(ok as f64 * 40e-6),
            not_measured: None,
        }
    }

    #[test]
    fn each_tool_beside_wrk_with_its_cpu_per_request() {
        let payment = Scenario::Payments(ClientName::Hyper);
        let mut rows = ResilienceResults::default();
        assert!(generator_table(&rows).is_none());
        rows.generator = vec![
            row(payment, "bench", 40_000, 1.6),
            row(payment, "wrk", 80_000, 0.8),
            GeneratorRow {
                not_measured: Some(bench_model::GeneratorNotMeasured::WrkNotRun {
                    error: "No such file or directory (os error 2)".to_owned(),
                }),
                ..row(Scenario::Health, "wrk", 0, 0.0)
            },
        ];
        let table = generator_table(&rows).unwrap();
        assert!(
            table.title.contains("16 connections and 2 threads for 2 s"),
            "{}",
            table.title
        );
        let rendered = table.render();
        // 40 000 in 2 s against wrk's 80 000; 1.6 s of the bench's CPU over 40 000 is 40 us.
        assert!(rendered.contains("20000"), "{rendered}");
        assert!(rendered.contains("0.50x"), "{rendered}");
        assert!(rendered.contains("40.0 us"), "{rendered}");
        assert!(
            rendered.contains("10.0 us"),
            "wrk's 0.8 s over 80 000: {rendered}"
        );
        assert!(
            rendered.contains("not measured: wrk could not be run"),
            "{rendered}"
        );
    }

    #[test]
    fn the_open_model_at_capacity_is_set_against_the_closed_loop_and_wrk() {
        use bench_model::{CapacityRound, ClientCapacity, PhaseCounts, RampStep, StretchCpu};
        let payment = Scenario::Payments(ClientName::Hyper);
        let mut rows = ResilienceResults {
            generator: vec![
                row(payment, "bench", 40_000, 0.8),
                row(payment, "wrk", 80_000, 0.8),
            ],
            ..ResilienceResults::default()
        };
        assert_eq!(open_against_closed(&rows), None, "no capacity yet");
        // Rounds that held 4000 requests at their capacity with 0.1, 0.12 and 0.08 s of the
        // generator's CPU: 25, 30 and 20 us per request.
        let round = |generator_s: f64| {
            let step = RampStep {
                rps: 2_000,
                requests: PhaseCounts {
                    sent: 4_000,
                    ok: 4_000,
                    ..PhaseCounts::default()
                },
                cpu: Some(StretchCpu {
                    service_s: Some(0.2),
                    mock_s: None,
                    generator_s: Some(generator_s),
                }),
            };
            CapacityRound {
                capacity_rps: Some(2_000),
                steps: Vec::new(),
                confirmations: vec![step],
                beside: None,
            }
        };
        rows.capacity = vec![ClientCapacity {
            client: ClientName::Hyper,
            protocol: Protocol::Http,
            capacity_rps: Some(2_000),
            latency_objective_ms: 25.0,
            rounds: vec![round(0.1), round(0.12), round(0.08)],
            refuted: None,
            step_downs: Vec::new(),
            cpu_quota_millicpus: None,
            tls: None,
            unchecked: None,
        }];
        let line = open_against_closed(&rows).expect("both figures");
        // The closed loop: 0.8 s over 40 000 is 20 us; wrk 0.8 s over 80 000, 10 us.
        assert!(
            line.contains(
                "25.0 us (the median of 3 confirmations, 20.0 to 30.0 us), 1.25x its \
                           closed loop's 20.0 us on the payment; wrk's 10.0 us."
            ),
            "{line}"
        );
    }
}
