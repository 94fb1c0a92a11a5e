//! The generator against wrk: what rate each drove the service to in a closed loop, and the
//! CPU each took per request beside the service's.

use crate::report::reasons;
use crate::report::table::{Align, Table};
use bench_model::{GeneratorRow, ResilienceResults};

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
}
