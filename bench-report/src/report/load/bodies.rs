//! The payments with a larger upstream answer against the same clients' ordinary payments.

use crate::report::format::{format_bytes, format_us_as_ms, optional};
use crate::report::load::tables::cpu_per_request_us;
use crate::report::table::{Align, Table};
use bench_model::{LoadRow, Protocol, size_name};

/// Per client: its payments with the larger answer beside its ordinary ones over http (each
/// at its own rate); `None` without a row of a larger answer.
pub fn large_body_table(rows: &[LoadRow]) -> Option<Table> {
    use Align::{Left, Right};
    let pairs: Vec<(&LoadRow, Option<&LoadRow>)> = rows
        .iter()
        .filter(|row| row.body_bytes.is_some())
        .map(|large| {
            let ordinary = rows.iter().find(|row| {
                row.body_bytes.is_none()
                    && row.protocol == Protocol::Http
                    && row.scenario == large.scenario
            });
            (large, ordinary)
        })
        .collect();
    let (first, _) = pairs.first()?;
    let size = size_name(first.body_bytes?);
    let us = |micros: Option<f64>| optional(micros, |micros| format!("{micros:.0} us"));
    let ratio = |large: Option<f64>, ordinary: Option<f64>| {
        optional(
            large.zip(ordinary).filter(|&(_, ordinary)| ordinary > 0.0),
            |(large, ordinary)| format!("{:.1}x", large / ordinary),
        )
    };
    Some(Table {
        title: format!(
            "load: payments whose upstream answer is {size} ({} RPS), against the ordinary \
             answer (same client, over http)",
            first.target_rps
        ),
        columns: vec![
            ("Client", Left),
            ("OK", Right),
            ("Fail", Right),
            ("CPU/request", Right),
            ("CPU/request, ordinary", Right),
            ("CPU x", Right),
            ("p50", Right),
            ("p99", Right),
            ("p99, ordinary", Right),
            ("RSS growth", Right),
            ("Data/resp", Right),
        ],
        rows: pairs
            .iter()
            .map(|(large, ordinary)| {
                let ordinary_cpu = ordinary.and_then(cpu_per_request_us);
                let responses = large.ok + large.fail;
                vec![
                    large
                        .scenario
                        .client()
                        .map_or_else(String::new, |client| client.to_string()),
                    large.ok.to_string(),
                    large.fail.to_string(),
                    us(cpu_per_request_us(large)),
                    us(ordinary_cpu),
                    ratio(cpu_per_request_us(large), ordinary_cpu),
                    format_us_as_ms(large.latency.p50_us),
                    format_us_as_ms(large.latency.p99_us),
                    format_us_as_ms(ordinary.and_then(|row| row.latency.p99_us)),
                    optional(large.api_rss_growth_kib(), |kib| {
                        format!("+{}", format_bytes(kib as f64 * 1024.0))
                    }),
                    if responses == 0 {
                        "NA".to_owned()
                    } else {
                        format_bytes(large.bytes_received as f64 / responses as f64)
                    },
                ]
            })
            .collect(),
    })
}

/// How the larger answers are served and what their table compares.
pub const LARGE_BODY_NOTE: &str = "\
**Larger answers.** The payments scenarios run again with an upstream answer of the size shown:
mock-rates' `/size/N`, the same pairs followed by a history of points, which every client reads
whole and decodes. They go through a payment service of the suite's own, started with
`rates.max_body_bytes` at twice the answer (the default, 64 KiB, refuses it, as it should), at a
lower rate than the ordinary payments (each answer costs the service milliseconds, not
microseconds), in the same rounds as the other scenarios. The service's response to the bench
is the same small payment either way (Data/resp). The load targets and the charts are for the
ordinary answer; these rows are left out of both.
";
