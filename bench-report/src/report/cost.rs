//! The cost suite's section: instructions and allocations per call, counted under callgrind.

use crate::report::format::{
    format_bytes, format_count, format_ratio, h2_against_https, protocol_cell, unable_note,
};
use crate::report::not_run;
use crate::report::section::{Part, Section};
use crate::report::table::{Align, Table};
use bench_model::{CostRow, Protocol, Results, ServiceCostRow, SuiteName};

/// The section, when the suite ran or was skipped.
pub fn section(results: &Results) -> Option<Section> {
    if let Some(why) = not_run::suite_not_run(results, SuiteName::Cost) {
        return Some(
            Section::suite(SuiteName::Cost).with(Part::Text(format!("cost: skipped: {why}"))),
        );
    }
    let parts_not_run = not_run::parts_not_run(results, SuiteName::Cost);
    if results.cost.is_empty() && results.service_cost.is_empty() && parts_not_run.is_empty() {
        return None;
    }
    let mut section = Section::suite(SuiteName::Cost);
    if !results.cost.is_empty() {
        section = section
            .with(Part::Table(table(&results.cost)))
            .with(Part::Prose(NOTE.to_owned()));
    }
    if !results.service_cost.is_empty() {
        section = section
            .with(Part::Table(service_table(&results.service_cost)))
            .with(Part::Prose(SERVICE_NOTE.to_owned()));
    }
    for (_, why) in parts_not_run {
        section = section.with(Part::Text(format!(
            "cost: the service's instructions per payment: not measured: {why}"
        )));
    }
    Some(
        section.with_notes(
            h2_costs(&results.cost)
                .into_iter()
                .chain(unable_note(
                    &results.settings,
                    SuiteName::Cost,
                    Protocol::H2,
                ))
                .collect(),
        ),
    )
}

/// Per client over h2 and https: the instructions and allocations a pooled call over HTTP/2
/// costs the client against one over HTTP/1.1 with the same TLS; mock-rates is not counted.
fn h2_costs(rows: &[CostRow]) -> Option<String> {
    h2_against_https(
        rows,
        |row| (row.client, row.protocol),
        |h2, https| {
            (https.instructions_per_call > 0.0).then(|| {
                format!(
                    "{} {:.2}x instructions ({:+.0} allocations)",
                    h2.client,
                    h2.instructions_per_call / https.instructions_per_call,
                    h2.allocs_per_call - https.allocs_per_call
                )
            })
        },
        "A pooled call over h2 against one over https, the same TLS, in the client's own process",
    )
}

fn table(rows: &[CostRow]) -> Table {
    use Align::{Left, Right};
    let (low, high) = rows.first().map_or((0, 0), |row| row.calls);
    Table {
        title: format!(
            "cost: CPU instructions per call under callgrind (runs of {low} and {high} calls, \
             the difference divided by {}); Ratio to hyper over the same protocol",
            high.saturating_sub(low)
        ),
        columns: vec![
            ("Client", Left),
            ("Protocol", Left),
            ("Instructions/call", Right),
            ("Ratio", Right),
            ("Allocated/call", Right),
            ("Allocs/call", Right),
            ("Instructions, shorter run", Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                vec![
                    row.client.to_string(),
                    protocol_cell(row.protocol, row.tls.as_ref()),
                    format!("{:.0}", row.instructions_per_call),
                    format_ratio(row.ratio),
                    format_bytes(row.bytes_per_call),
                    format_count(row.allocs_per_call),
                    row.instructions.0.to_string(),
                ]
            })
            .collect(),
    }
}

/// The service's instructions per payment, a row per client, its rounds in the order they ran
/// with each one's place in the round's order.
fn service_table(rows: &[ServiceCostRow]) -> Table {
    use Align::{Left, Right};
    let (payments, in_flight) = rows
        .first()
        .map_or((0, 0), |row| (row.payments, row.in_flight));
    Table {
        title: format!(
            "cost: the service's CPU instructions per payment under callgrind, every thread of \
             its process ({payments} payments per round, {in_flight} at a time, over http; the \
             clients in a new random order each round); Ratio to hyper"
        ),
        columns: vec![
            ("Client", Left),
            ("Instructions/payment", Right),
            ("Ratio", Right),
            ("Rounds moved", Right),
            ("Rounds (place in the round's order)", Right),
            ("Failed", Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                let rounds: Vec<String> = row
                    .rounds
                    .iter()
                    .enumerate()
                    .map(|(index, value)| match row.positions.get(index) {
                        Some(place) => format!("{value:.0} ({})", place + 1),
                        None => format!("{value:.0}"),
                    })
                    .collect();
                vec![
                    row.client.to_string(),
                    format!("{:.0}", row.instructions_per_payment),
                    format_ratio(row.ratio),
                    moved(&row.rounds),
                    rounds.join(" / "),
                    failed_cell(row),
                ]
            })
            .collect(),
    }
}

/// The payments a row's rounds failed (the first's message), and its warm-up's, not counted.
fn failed_cell(row: &ServiceCostRow) -> String {
    let first = row
        .first_failure
        .as_ref()
        .filter(|_| row.failed > 0)
        .map(|first| format!(" ({first})"))
        .unwrap_or_default();
    let warmup = if row.warmup_failed > 0 {
        format!(", {} in the warm-up", row.warmup_failed)
    } else {
        String::new()
    };
    format!("{}{first}{warmup}", row.failed)
}

/// How far apart a row's rounds are: (highest - lowest) / lowest.
fn moved(rounds: &[f64]) -> String {
    let low = rounds.iter().copied().fold(f64::INFINITY, f64::min);
    let high = rounds.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if rounds.len() < 2 || low <= 0.0 {
        return "-".to_owned();
    }
    format!("{:.1}%", (high - low) / low * 100.0)
}

const SERVICE_NOTE: &str = "The payment service itself ran under valgrind's callgrind (the \
    bench's own `api` process, as the other suites run it), its upstream the suite's mock-rates \
    on the bench's threads, whose work is not counted. After a warm-up per client, each round \
    zeroes callgrind's counters, sends the client's payments through `POST /payments/{client}` \
    (every answer read whole and checked) and has callgrind dump what it counted: every \
    instruction of every thread of the service (actix's workers, the client's own threads, the \
    blocking pool) between the two, over the payments. This is a payment's whole cost to the \
    service, the client's part and what is the same for every client (actix's HTTP, JSON, the \
    service's own work); it is the async use case's tie-break, where the CPU time per payment \
    of the load suite moves between runs by more than the clients differ. Instructions are not \
    times: a wake-up that waits, a cache miss and a thread hand-off cost more than their count \
    says.";

const NOTE: &str = "Each client ran twice under valgrind's callgrind, in a process of its own that \
    builds the adapter and makes its calls one after another (each checked); callgrind counts \
    every instruction of that process, all its threads included (the blocking pool, \
    reqwest-blocking's runtime thread, isahc's curl thread), while mock-rates runs natively in the \
    bench's. The difference between the two runs over the difference in calls cancels start-up, \
    building the client and the first connection (its handshake included): what remains is one \
    pooled call. Instruction counts do not depend on the machine's speed or load, so this figure \
    can be compared across machines and commits where times cannot; on this project's machine two \
    runs agreed within 0.1% over http and about 1% over https. They are not times: an instruction \
    that waits on memory costs more than one that does not, and the thread hand-offs of ureq and \
    isahc cost scheduling time that no instruction count shows. The shorter run's total shows what \
    start-up costs (building the client, its TLS roots and crypto provider).";

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::Protocol;

    #[test]
    fn a_row_per_client_and_protocol_and_a_line_when_skipped() {
        let row = CostRow {
            client: bench_model::ClientName::Ureq,
            protocol: Protocol::Http,
            tls: None,
            calls: (100, 2100),
            instructions: (8_576_452, 127_576_452),
            instructions_per_call: 59_500.0,
            allocs_per_call: 48.0,
            bytes_per_call: 5_160.0,
            ratio: Some(1.48),
            round_instructions_per_call: vec![59_480.0, 59_520.0],
            unchecked: None,
        };
        let table = table(&[row]);
        assert!(table.title.contains("divided by 2000"), "{}", table.title);
        let rendered = table.render();
        assert!(
            rendered.contains("| ureq   | http     |             59500 |  1.48 |"),
            "{rendered}"
        );
        assert!(rendered.contains("8576452"), "{rendered}");

        let settings = bench_model::test_rows::default_settings();
        let mut results = Results::new(bench_model::test_rows::environment("now"), settings);
        assert!(
            section(&results).is_none(),
            "no rows, not skipped: no section"
        );
        results.service_cost = vec![ServiceCostRow {
            client: bench_model::ClientName::Hyper,
            protocol: Protocol::Http,
            payments: 400,
            in_flight: 8,
            instructions_per_payment: 130_939.0,
            rounds: vec![130_939.0, 130_904.0, 131_396.0],
            positions: vec![3, 2, 2],
            failed: 0,
            warmup_failed: 16,
            first_failure: Some("Timeout".to_owned()),
            ratio: Some(1.0),
        }];
        let service = section(&results).unwrap().terminal();
        assert!(
            service.contains("400 payments per round, 8 at a time"),
            "{service}"
        );
        assert!(
            service.contains("130939 (4) / 130904 (3) / 131396 (3)"),
            "each round with its place in the round's order: {service}"
        );
        assert!(service.contains("0.4%"), "what the rounds moved: {service}");
        assert!(
            service.contains("0, 16 in the warm-up"),
            "the warm-up's failures are said, not counted: {service}"
        );
        results.service_cost.clear();
        results.not_run.push(bench_model::NotRun {
            suite: SuiteName::Cost,
            part: Some(bench_model::SuitePart::ServiceCost),
            why: bench_model::NotRunWhy::Failed {
                error: "cannot run vgdb".to_owned(),
            },
        });
        let skipped = section(&results).unwrap().terminal();
        assert!(
            skipped
                .contains("the service's instructions per payment: not measured: cannot run vgdb"),
            "{skipped}"
        );
        results.not_run.push(bench_model::NotRun {
            suite: SuiteName::Cost,
            part: None,
            why: bench_model::NotRunWhy::Planned {
                skip: bench_model::SuiteSkip::Missing {
                    tool: bench_model::Tool::Valgrind,
                },
            },
        });
        let skipped = section(&results).unwrap().terminal();
        assert!(
            skipped.contains("cost: skipped: valgrind is not installed"),
            "{skipped}"
        );
    }
}
