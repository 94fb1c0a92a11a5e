//! The resolution suite's section: per client, a call on a new connection to the upstream by
//! address and by name, what resolving added, and whether the client kept the answer.

use crate::report::not_run;
use crate::report::section::{Part, Section};
use crate::report::table::{Align, Table};
use bench_model::{ClientName, ResolutionRow, Results, SuiteName, resolution_cost_us};

/// The section, when the suite ran or was skipped.
pub fn section(results: &Results) -> Option<Section> {
    if let Some(why) = not_run::suite_not_run(results, SuiteName::Resolution) {
        return Some(
            Section::suite(SuiteName::Resolution)
                .with(Part::Text(format!("resolution: skipped: {why}"))),
        );
    }
    let rows = &results.resolution;
    if rows.is_empty() {
        return None;
    }
    let mut delays: Vec<u64> = rows.iter().filter_map(|row| row.dns_delay_ms).collect();
    delays.sort_unstable();
    delays.dedup();
    Some(
        Section::suite(SuiteName::Resolution)
            .with(Part::Table(table(rows, &delays)))
            .with_notes(failures(rows))
            .with(Part::Prose(HOW.to_owned())),
    )
}

fn table(rows: &[ResolutionRow], delays: &[u64]) -> Table {
    let mut clients: Vec<ClientName> = Vec::new();
    for row in rows {
        if !clients.contains(&row.client) {
            clients.push(row.client);
        }
    }
    // The fastest and the slowest DNS server, each a column (one, when they are the same).
    let mut shown: Vec<u64> = delays
        .first()
        .into_iter()
        .chain(delays.last())
        .copied()
        .collect();
    shown.dedup();
    let slowest = shown.last().copied();
    let mut columns = vec![("Client", Align::Left), ("By address", Align::Right)];
    if shown.len() == 2 {
        columns.push(("By name, fast DNS", Align::Right));
    }
    columns.extend([
        ("By name, slow DNS", Align::Right),
        ("Added by resolving", Align::Right),
        ("Questions per connection", Align::Right),
        ("Answer kept", Align::Left),
    ]);
    let find = |client: ClientName, delay: Option<u64>| {
        rows.iter()
            .find(|row| row.client == client && row.dns_delay_ms == delay)
    };
    let time = |row: Option<&ResolutionRow>| {
        row.and_then(|row| row.median_us)
            .map_or_else(|| "not measured".to_owned(), micros)
    };
    Table {
        title: format!(
            "resolution: median time of a call on a new connection, the upstream by address \
             and by a name that a DNS server of the bench's answers in {} ms; added, questions \
             and kept with the slow one",
            shown
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(" (fast) or ")
                + if shown.len() == 2 { " (slow)" } else { "" }
        ),
        columns,
        rows: clients
            .iter()
            .map(|&client| {
                let mut cells = vec![client.to_string(), time(find(client, None))];
                cells.extend(shown.iter().map(|&delay| time(find(client, Some(delay)))));
                let slow = slowest.and_then(|delay| find(client, Some(delay)));
                cells.push(
                    slowest
                        .and_then(|delay| resolution_cost_us(rows, client, delay))
                        .map_or_else(|| "not measured".to_owned(), micros),
                );
                cells.push(
                    slow.and_then(ResolutionRow::questions_per_connection)
                        .map_or_else(|| "not read".to_owned(), |n| format!("{n:.2}")),
                );
                cells.push(
                    match slow.and_then(ResolutionRow::cached) {
                        Some(true) => "yes",
                        Some(false) => "no",
                        None => "not read",
                    }
                    .to_owned(),
                );
                cells
            })
            .collect(),
    }
}

/// `250 us`, or `20.3 ms` from 10 ms up.
fn micros(us: f64) -> String {
    if us.abs() >= 10_000.0 {
        format!("{:.1} ms", us / 1_000.0)
    } else {
        format!("{us:.0} us")
    }
}

/// A line per row with a failed call: how many, and the first error.
fn failures(rows: &[ResolutionRow]) -> Vec<String> {
    rows.iter()
        .filter(|row| row.ok < row.calls)
        .map(|row| {
            let target = row.dns_delay_ms.map_or_else(
                || "by address".to_owned(),
                |ms| format!("by name, DNS {ms} ms"),
            );
            format!(
                "{} {target}: {} of {} calls failed; first: {}",
                row.client,
                row.calls - row.ok,
                row.calls,
                row.first_error.as_deref().unwrap_or("no message")
            )
        })
        .collect()
}

const HOW: &str = "The suite runs in a network namespace of its own whose resolv.conf points at \
    a DNS server of the bench's on the namespace's loopback (no search list, one try), as a \
    container's points at its cluster's; mock-rates listens on the same loopback. Every call goes \
    through the port on a new connection (the client keeps no idle one), after one call that is \
    not counted: by address (nothing to resolve), then by name with the DNS server answering \
    every question after each delay. **Added by resolving** is the median by name less the \
    median by address, with the slowest DNS server; **Questions per connection** is the DNS \
    server's count of `A` and `AAAA` questions per connection mock-rates accepted in that row: \
    2 for a client that asks for both address families for every new connection, 0 for one that \
    kept the first call's answers (**Answer kept**: fewer questions than connections). The DNS \
    server answers `AAAA` with no address and its SOA, as real servers do, so that a caching \
    resolver may keep that empty answer too. reqwest-hickory-dns is reqwest with its \
    `hickory-dns` resolver, which keeps answers for their time to live; it is measured beside \
    reqwest and never picked.";

#[cfg(test)]
mod tests {
    use super::*;

    fn row(
        client: ClientName,
        delay: Option<u64>,
        median_us: f64,
        a: Option<u64>,
    ) -> ResolutionRow {
        ResolutionRow {
            client,
            dns_delay_ms: delay,
            calls: 30,
            ok: 30,
            first_error: None,
            median_us: Some(median_us),
            mean_us: Some(median_us),
            connections: Some(30),
            a_questions: a,
            aaaa_questions: a,
        }
    }

    #[test]
    fn a_row_per_client_with_what_resolving_added_and_whether_it_was_kept() {
        let mut results = crate::report::fanout::test_rows::results("360");
        results.resolution = vec![
            row(ClientName::Hyper, None, 250.0, None),
            row(ClientName::Isahc, None, 400.0, None),
            row(ClientName::Hyper, Some(0), 420.0, Some(30)),
            row(ClientName::Isahc, Some(0), 410.0, Some(0)),
            row(ClientName::Hyper, Some(20), 20_650.0, Some(30)),
            ResolutionRow {
                ok: 29,
                first_error: Some("Connect: timed out".to_owned()),
                ..row(ClientName::Isahc, Some(20), 430.0, Some(0))
            },
        ];
        let section = section(&results).expect("rows");
        let Some(Part::Table(table)) = section.parts.first() else {
            panic!("a table first");
        };
        assert_eq!(
            table
                .columns
                .iter()
                .map(|(title, _)| *title)
                .collect::<Vec<_>>(),
            [
                "Client",
                "By address",
                "By name, fast DNS",
                "By name, slow DNS",
                "Added by resolving",
                "Questions per connection",
                "Answer kept"
            ]
        );
        assert_eq!(
            table.rows[0],
            [
                "hyper", "250 us", "420 us", "20.6 ms", "20.4 ms", "2.00", "no"
            ]
        );
        assert_eq!(table.rows[1][4..], ["30 us", "0.00", "yes"]);
        let text = section.terminal();
        assert!(
            text.contains("isahc by name, DNS 20 ms: 1 of 30 calls failed; first: Connect"),
            "{text}"
        );
    }

    #[test]
    fn a_skipped_suite_says_why() {
        let mut results = crate::report::fanout::test_rows::results("360");
        results.not_run.push(bench_model::NotRun {
            suite: SuiteName::Resolution,
            part: None,
            why: bench_model::NotRunWhy::Failed {
                error: "no namespace".to_owned(),
            },
        });
        let text = section(&results).expect("a line").terminal();
        assert!(
            text.contains("resolution: skipped: it needs a network namespace"),
            "{text}"
        );
        assert!(
            text.contains("(root and `ip netns`): no namespace"),
            "{text}"
        );
    }
}
