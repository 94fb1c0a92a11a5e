//! The idle suite's section: per client, the calls that met a connection the server was
//! closing for idleness, with the client's idle timeout above the server's and below it.

use crate::report::not_run;
use crate::report::section::{Part, Section};
use crate::report::table::{Align, Table};
use bench_model::{ClientName, IdleRow, Results, ServerClose, SuiteName};

/// The section, when the suite ran or was skipped.
pub fn section(results: &Results) -> Option<Section> {
    if let Some(why) = not_run::suite_not_run(results, SuiteName::Idle) {
        return Some(
            Section::suite(SuiteName::Idle).with(Part::Text(format!("idle: skipped: {why}"))),
        );
    }
    let rows = &results.idle;
    if rows.is_empty() {
        return None;
    }
    let mut timeouts: Vec<u64> = rows.iter().map(|row| row.client_idle_ms).collect();
    timeouts.sort_unstable_by(|a, b| b.cmp(a));
    timeouts.dedup();
    let mut section = Section::suite(SuiteName::Idle);
    for client_idle_ms in timeouts {
        let mine: Vec<&IdleRow> = rows
            .iter()
            .filter(|row| row.client_idle_ms == client_idle_ms)
            .collect();
        section = section.with(Part::Table(table(client_idle_ms, &mine)));
    }
    Some(
        section
            .with_notes(summary(rows))
            .with_notes(first_errors(rows))
            .with(Part::Prose(HOW.to_owned())),
    )
}

fn table(client_idle_ms: u64, rows: &[&IdleRow]) -> Table {
    let server_idle_ms = rows.first().map_or(0, |row| row.server_idle_ms);
    let relation = if client_idle_ms > server_idle_ms {
        "above"
    } else {
        "below"
    };
    let counted =
        |value: Option<u64>| value.map_or_else(|| "not read".to_owned(), |n| n.to_string());
    let mut sorted = rows.to_vec();
    sorted.sort_by_key(|row| {
        (
            order(row.client),
            row.server_close == ServerClose::OnArrival,
            row.gap_ms,
        )
    });
    Table {
        title: format!(
            "idle: the server closes connections idle for {server_idle_ms} ms; the client's \
             idle timeout {client_idle_ms} ms ({relation} it); calls spaced by the gap, from \
             the previous answer"
        ),
        columns: vec![
            ("Client", Align::Left),
            ("Gap", Align::Right),
            ("Calls", Align::Right),
            ("Failed", Align::Right),
            ("Errors", Align::Left),
            ("Races met", Align::Right),
            ("Resent", Align::Right),
            ("Connections", Align::Right),
            ("Idle closes", Align::Right),
        ],
        rows: sorted
            .into_iter()
            .map(|row| {
                vec![
                    row.client.to_string(),
                    match row.server_close {
                        ServerClose::Timer => format!("{} ms", row.gap_ms),
                        ServerClose::OnArrival => format!("{} ms, race forced", row.gap_ms),
                    },
                    row.calls.to_string(),
                    row.failed().to_string(),
                    errors(row),
                    counted(row.races),
                    counted(row.resent()),
                    counted(row.connections),
                    counted(row.idle_closes),
                ]
            })
            .collect(),
    }
}

fn order(client: ClientName) -> usize {
    ClientName::ALL
        .iter()
        .position(|known| *known == client)
        .unwrap_or(usize::MAX)
}

/// `Connect x3, Timeout x1`, or `-`.
fn errors(row: &IdleRow) -> String {
    if row.errors.is_empty() {
        return "-".to_owned();
    }
    row.errors
        .iter()
        .map(|error| format!("{} x{}", error.kind, error.count))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Per client, with its idle timeout above the server's: how many calls failed over every
/// gap, and how many lost requests the library sent again; then the same with the race forced.
fn summary(rows: &[IdleRow]) -> Vec<String> {
    let mut clients: Vec<ClientName> = Vec::new();
    for row in rows {
        if !clients.contains(&row.client) {
            clients.push(row.client);
        }
    }
    let mut lines = Vec::new();
    for close in [ServerClose::Timer, ServerClose::OnArrival] {
        let how = match close {
            ServerClose::Timer => "",
            ServerClose::OnArrival => ", the race forced",
        };
        for &client in &clients {
            let above: Vec<&IdleRow> = rows
                .iter()
                .filter(|row| {
                    row.client == client
                        && row.server_close == close
                        && row.client_idle_ms > row.server_idle_ms
                })
                .collect();
            if above.is_empty() {
                continue;
            }
            let calls: u64 = above.iter().map(|row| row.calls).sum();
            let failed: u64 = above.iter().map(|row| row.failed()).sum();
            let races: Option<u64> = above.iter().map(|row| row.races).sum();
            let resent: Option<u64> = above.iter().map(|row| row.resent()).sum();
            let verdict = if failed == 0 {
                "no call failed"
            } else {
                "calls failed"
            };
            lines.push(format!(
                "{client}, idle timeout above the server's{how}: {verdict}: {failed} of {calls}; \
                 races met {}, requests resent by the library {}",
                races.map_or_else(|| "not read".to_owned(), |n| n.to_string()),
                resent.map_or_else(|| "not read".to_owned(), |n| n.to_string()),
            ));
        }
    }
    lines
}

/// The first message of each client's error kinds, once.
fn first_errors(rows: &[IdleRow]) -> Vec<String> {
    let mut seen: Vec<(ClientName, &str)> = Vec::new();
    let mut lines = Vec::new();
    for row in rows {
        for error in &row.errors {
            if !seen.contains(&(row.client, error.kind.as_str())) {
                seen.push((row.client, error.kind.as_str()));
                lines.push(format!("{} {}: {}", row.client, error.kind, error.first));
            }
        }
    }
    lines
}

const HOW: &str = "A mock-rates of the suite's own closes every connection that sat idle for \
    the server's idle timeout, as actix-web and Node do after 5 s and nginx after 75 s: it sends \
    its FIN, then reads and drops for a second whatever still comes, never answering. Each call \
    goes through the port after a gap from the previous answer: just under the timeout (the \
    pooled connection is alive), at it (the request can arrive as the server closes: the race), \
    and just over it (the server closed the connection already; a client that notices the close \
    before reusing the connection opens a new one). **Races met** are the requests mock-rates \
    read on a connection it had closed; **Resent** is how many of those the calls survived, so \
    that the library must have sent them again (a lower bound when calls failed for other \
    reasons). **Connections** and **Idle closes** are mock-rates' counts, its own admin reads \
    taken out. With the client's idle timeout below the server's, the client retires a \
    connection before the server closes it, and every call after a long enough gap opens a new \
    one; libcurl (isahc) keeps idle connections in whole seconds, so its 125 ms is 1 s. On \
    the timer the race is met by chance; in the rows marked **race forced**, mock-rates keeps a \
    connection idle past its timeout open and drops the first request that arrives on it, \
    closing it then, as if its close had crossed the request: every call made on a kept \
    connection meets the race, and the library's answer to it shows every run.";

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::IdleError;

    fn row(client: ClientName, client_idle_ms: u64, gap_ms: u64, failed: u64) -> IdleRow {
        IdleRow {
            client,
            client_idle_ms,
            server_idle_ms: 250,
            server_close: ServerClose::Timer,
            gap_ms,
            calls: 12,
            ok: 12 - failed,
            errors: if failed == 0 {
                Vec::new()
            } else {
                vec![IdleError {
                    kind: "Connect".to_owned(),
                    count: failed,
                    first: "connection closed before message completed".to_owned(),
                }]
            },
            connections: Some(12),
            idle_closes: Some(12),
            races: Some(failed + 1),
        }
    }

    #[test]
    fn a_table_per_client_idle_timeout_above_first_and_a_line_per_client() {
        let mut results = crate::report::fanout::test_rows::results("360");
        results.idle = vec![
            row(ClientName::Ureq, 125, 250, 0),
            row(ClientName::Hyper, 4_000, 275, 0),
            row(ClientName::Hyper, 4_000, 250, 3),
            row(ClientName::Ureq, 4_000, 250, 0),
        ];
        let section = section(&results).expect("rows");
        let tables: Vec<&Table> = section
            .parts
            .iter()
            .filter_map(|part| match part {
                Part::Table(table) => Some(table),
                _ => None,
            })
            .collect();
        assert_eq!(tables.len(), 2);
        assert!(
            tables[0].title.contains("4000 ms (above it)"),
            "{}",
            tables[0].title
        );
        assert_eq!(
            tables[0].rows[0][..5],
            ["hyper", "250 ms", "12", "3", "Connect x3"]
        );
        // 4 races met, 3 calls failed: one request was sent again.
        assert_eq!(tables[0].rows[0][5..7], ["4", "1"]);
        assert_eq!(tables[0].rows[1][1], "275 ms");
        let text = section.terminal();
        assert!(
            text.contains(
                "hyper, idle timeout above the server's: calls failed: 3 of 24; races met 5, \
                 requests resent by the library 2"
            ),
            "{text}"
        );
        assert!(text.contains("ureq, idle timeout above the server's: no call failed: 0 of 12"));
        assert!(text.contains("hyper Connect: connection closed before message completed"));
        assert!(
            !text.contains("race forced"),
            "no forced rows, no line for them"
        );
    }

    #[test]
    fn forced_races_are_rows_and_a_line_of_their_own() {
        let mut results = crate::report::fanout::test_rows::results("360");
        let forced = |client, failed| IdleRow {
            server_close: ServerClose::OnArrival,
            races: Some(12),
            ..row(client, 4_000, 275, failed)
        };
        results.idle = vec![
            forced(ClientName::Hyper, 12),
            row(ClientName::Hyper, 4_000, 275, 0),
            forced(ClientName::Isahc, 0),
        ];
        let section = section(&results).expect("rows");
        let Some(Part::Table(table)) = section.parts.first() else {
            panic!("a table first");
        };
        assert_eq!(table.rows[0][1], "275 ms", "the timer's row first");
        assert_eq!(
            table.rows[1][..4],
            ["hyper", "275 ms, race forced", "12", "12"]
        );
        assert_eq!(table.rows[2][5..7], ["12", "12"], "isahc resent every one");
        let text = section.terminal();
        assert!(
            text.contains(
                "hyper, idle timeout above the server's, the race forced: calls failed: 12 of \
                 12; races met 12, requests resent by the library 0"
            ),
            "{text}"
        );
        assert!(text.contains(
            "isahc, idle timeout above the server's, the race forced: no call failed: 0 of 12"
        ));
    }
}
