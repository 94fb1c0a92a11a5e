//! The cost suite's section: instructions and allocations per call, counted under callgrind.

use crate::report::format::{
    format_bytes, format_count, format_ratio, h2_against_https, protocol_cell, unable_note,
};
use crate::report::section::{Part, Section};
use crate::report::table::{Align, Table};
use bench_model::{CostRow, Protocol, Results, SuiteName};

/// The section, when the suite ran or was skipped.
pub fn section(results: &Results) -> Option<Section> {
    if let Some(why) = &results.cost_skipped {
        return Some(
            Section::suite(SuiteName::Cost).with(Part::Text(format!("cost: skipped: {why}"))),
        );
    }
    if results.cost.is_empty() {
        return None;
    }
    Some(
        Section::suite(SuiteName::Cost)
            .with(Part::Table(table(&results.cost)))
            .with(Part::Prose(NOTE.to_owned()))
            .with_notes(
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
        results.cost_skipped = Some("valgrind is not installed".to_owned());
        let skipped = section(&results).unwrap().terminal();
        assert!(
            skipped.contains("cost: skipped: valgrind is not installed"),
            "{skipped}"
        );
    }
}
