//! The fanout section's HTTP/2 tables: the targets of a large concurrent group over h2, and
//! what each client does at the server's stream limit. Both judge the figures of the run's
//! largest concurrent group; nothing here measures.

use crate::report::format::format_ms;
use crate::report::table::{Align, Table};
use bench_model::{FanoutMode, FanoutRow, Protocol, Results, group_sizes};

/// The group: 70 requests at once.
const TARGET_GROUP: u32 = 70;
/// A group of 70 over h2 takes at most this many upstream latencies...
const TARGET_LATENCIES: f64 = 1.2;
/// ...and keeps at most this many connections busy at once.
const TARGET_CONNECTIONS: u64 = 2;

/// Past the stream limit, a client that queues on one connection needs ceil(N / limit) rounds
/// of upstream latencies; one that took this fraction of a round less did not only queue.
const ROUND_SLACK: f64 = 0.5;

/// The tables, when the suite ran over h2.
pub fn tables(results: &Results) -> Vec<Table> {
    let latency = results.settings.fanout.upstream_latency_ms as f64;
    let mut tables = Vec::new();
    let rows = |limited: bool| -> Vec<&FanoutRow> {
        largest_concurrent(&results.fanout)
            .filter(|row| row.protocol == Protocol::H2 && row.stream_limit.is_some() == limited)
            .collect()
    };
    let unlimited = rows(false);
    if !unlimited.is_empty() {
        tables.push(targets_table(&unlimited, latency));
    }
    let limited = rows(true);
    if let Some(limit) = limited.first().and_then(|row| row.stream_limit) {
        tables.push(stream_limit_table(&limited, limit, latency));
    }
    tables
}

/// The rows of the largest concurrent group size, over every upstream.
fn largest_concurrent(rows: &[FanoutRow]) -> impl Iterator<Item = &FanoutRow> {
    let largest = group_sizes(rows).last().copied();
    rows.iter()
        .filter(move |row| row.mode == FanoutMode::Concurrent && Some(row.group_size) == largest)
}

fn latencies(row: &FanoutRow, latency_ms: f64) -> Option<f64> {
    row.wall_ms_median.map(|wall| wall / latency_ms)
}

fn targets_table(rows: &[&FanoutRow], latency_ms: f64) -> Table {
    use Align::{Left, Right};
    let size = rows.first().map_or(0, |row| row.group_size);
    let judged = if size >= TARGET_GROUP {
        String::new()
    } else {
        format!(
            "; the targets are for a group of {TARGET_GROUP}, and the largest here is {size}, so \
             they are not judged"
        )
    };
    Table {
        title: format!(
            "fanout over h2: a concurrent group of {size} against the targets (at most \
             {TARGET_LATENCIES:.1} upstream latencies of {latency_ms:.0} ms, at most \
             {TARGET_CONNECTIONS} connections: busy at once, and opened by the cold warm-up \
             group; measured, not asserted{judged})"
        ),
        columns: [
            &SPREAD_COLUMNS[..],
            &[
                ("Opened (warm-up)", Right),
                ("Opened (timed)", Right),
                ("Failures", Right),
                ("Targets", Left),
            ],
        ]
        .concat(),
        rows: rows
            .iter()
            .map(|row| {
                let times = latencies(row, latency_ms);
                let spread = row.h2;
                let few = |count: Option<u64>| count.is_some_and(|n| n <= TARGET_CONNECTIONS);
                let met = times.is_some_and(|times| times <= TARGET_LATENCIES)
                    && few(spread.map(|spread| spread.peak_connections))
                    && few(row.warm_up_connections)
                    && row.failures == 0;
                let mut cells = spread_cells(row, latency_ms);
                cells.extend([
                    row.warm_up_connections
                        .map_or_else(unknown, |count| count.to_string()),
                    row.connections_opened
                        .map_or_else(unknown, |count| count.to_string()),
                    row.failures.to_string(),
                    if size < TARGET_GROUP {
                        "not judged".to_owned()
                    } else if met {
                        "met".to_owned()
                    } else {
                        "NOT met".to_owned()
                    },
                ]);
                cells
            })
            .collect(),
    }
}

fn unknown() -> String {
    "?".to_owned()
}

/// The columns both tables start with: the client, its group's time, and how its calls spread.
const SPREAD_COLUMNS: [(&str, Align); 5] = [
    ("Client", Align::Left),
    ("Wall (api)", Align::Right),
    ("Upstream latencies", Align::Right),
    ("Busy connections (peak)", Align::Right),
    ("Streams on one (peak)", Align::Right),
];

/// The cells of [`SPREAD_COLUMNS`] for `row`.
fn spread_cells(row: &FanoutRow, latency_ms: f64) -> Vec<String> {
    let spread = row.h2;
    vec![
        row.client.to_string(),
        format_ms(row.wall_ms_median),
        latencies(row, latency_ms).map_or_else(|| "NA".to_owned(), |times| format!("{times:.2}x")),
        spread.map_or_else(unknown, |spread| spread.peak_connections.to_string()),
        spread.map_or_else(unknown, |spread| spread.peak_streams.to_string()),
    ]
}

fn stream_limit_table(rows: &[&FanoutRow], limit: u32, latency_ms: f64) -> Table {
    use Align::{Left, Right};
    let size = rows.first().map_or(0, |row| row.group_size);
    Table {
        title: format!(
            "fanout over h2 at the server's stream limit: a concurrent group of {size} against a \
             mock-rates allowing {limit} streams per connection (queued on one connection it \
             takes {} rounds of {latency_ms:.0} ms)",
            rounds(size, limit)
        ),
        columns: [
            &SPREAD_COLUMNS[..],
            &[("Failures", Right), ("What it does", Left)],
        ]
        .concat(),
        rows: rows
            .iter()
            .map(|row| {
                let mut cells = spread_cells(row, latency_ms);
                cells.extend([row.failures.to_string(), behaviour(row, limit, latency_ms)]);
                cells
            })
            .collect(),
    }
}

/// Rounds of upstream latencies a group of `size` needs at `limit` streams on one connection.
fn rounds(size: u32, limit: u32) -> u32 {
    size.div_ceil(limit.max(1))
}

/// What a client did with a group past the stream limit, from its figures: failed calls, more
/// than one connection busy at once, or one connection and the rounds queueing takes.
fn behaviour(row: &FanoutRow, limit: u32, latency_ms: f64) -> String {
    let total = u64::from(row.group_size) * u64::from(row.repetitions);
    if row.failures > 0 {
        return format!("fails: {} of {total} payments failed", row.failures);
    }
    let Some(spread) = row.h2 else {
        return "unknown: mock-rates' peaks could not be read".to_owned();
    };
    if row.group_size <= limit {
        return "within the limit".to_owned();
    }
    let rounds = rounds(row.group_size, limit);
    match (spread.peak_connections, latencies(row, latency_ms)) {
        (connections, _) if connections > 1 => {
            format!("opens more connections: up to {connections} busy at once")
        }
        (_, Some(times)) if times >= f64::from(rounds) - ROUND_SLACK => {
            format!("queues on one connection: {times:.1} latencies for {rounds} rounds")
        }
        (_, Some(times)) => format!(
            "one connection, but {times:.1} latencies where queueing takes {rounds}: check the \
             limit reached it"
        ),
        (_, None) => "one connection; no batch was timed".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fanout::test_rows::row;
    use bench_model::{ClientName, H2Spread};

    fn over_h2(
        client: ClientName,
        wall: f64,
        limit: Option<u32>,
        peak_connections: u64,
        failures: u64,
    ) -> FanoutRow {
        FanoutRow {
            protocol: Protocol::H2,
            stream_limit: limit,
            failures,
            h2: Some(H2Spread {
                streams: 70,
                peak_connections,
                peak_streams: if limit.is_some() { 10 } else { 70 },
            }),
            warm_up_connections: Some(1),
            ..row(client, FanoutMode::Concurrent, 70, wall, 50.0)
        }
    }

    #[test]
    fn the_targets_follow_the_figures() {
        let rows = [
            over_h2(ClientName::Hyper, 55.0, None, 1, 0),
            over_h2(ClientName::Reqwest, 64.0, None, 1, 0),
            over_h2(ClientName::Awc, 52.0, None, 3, 0),
            FanoutRow {
                warm_up_connections: Some(70),
                ..over_h2(ClientName::Isahc, 52.0, None, 1, 0)
            },
        ];
        let refs: Vec<&FanoutRow> = rows.iter().collect();
        let table = targets_table(&refs, 50.0).render();
        let line = |client: &str| {
            table
                .lines()
                .find(|line| line.contains(&format!("| {client} ")))
                .unwrap()
                .to_owned()
        };
        assert!(line("hyper").contains("1.10x") && line("hyper").contains("| met "));
        assert!(line("reqwest").contains("1.28x") && line("reqwest").contains("NOT met"));
        assert!(
            line("awc").contains("NOT met"),
            "three connections: {table}"
        );
        assert!(
            line("isahc").contains("NOT met"),
            "a cold burst of 70: {table}"
        );
    }

    #[test]
    fn what_a_client_does_at_the_limit_is_read_from_its_figures() {
        let limit = Some(10);
        let queued = over_h2(ClientName::Hyper, 352.0, limit, 1, 0);
        assert_eq!(
            behaviour(&queued, 10, 50.0),
            "queues on one connection: 7.0 latencies for 7 rounds"
        );
        let spread = over_h2(ClientName::Reqwest, 53.0, limit, 7, 0);
        assert_eq!(
            behaviour(&spread, 10, 50.0),
            "opens more connections: up to 7 busy at once"
        );
        let failed = over_h2(ClientName::Awc, 53.0, limit, 1, 12);
        assert_eq!(
            behaviour(&failed, 10, 50.0),
            "fails: 12 of 70 payments failed"
        );
        let odd = over_h2(ClientName::Isahc, 60.0, limit, 1, 0);
        assert!(behaviour(&odd, 10, 50.0).contains("check the limit"));
        let small = FanoutRow {
            group_size: 5,
            ..over_h2(ClientName::Isahc, 51.0, limit, 1, 0)
        };
        assert_eq!(behaviour(&small, 10, 50.0), "within the limit");
        assert_eq!(rounds(70, 10), 7);
        assert_eq!(rounds(71, 10), 8);
    }
}
