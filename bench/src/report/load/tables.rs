//! The load suite's tables: the open-model runs (NBomber's figures, the generator's
//! punctuality, the servers' side, the outcomes) and the capacity step.

use crate::model::{CapacityRow, LoadRow};
use crate::report::format::{format_bytes, format_us_as_ms, optional};
use crate::report::table::{Align, Table};

/// The open-model tables: NBomber's figures, then the generator's punctuality and the
/// uncorrected latency, then the servers' side, then status codes and failures.
pub fn load_tables(rows: &[LoadRow]) -> Vec<Table> {
    let Some(first) = rows.first() else {
        return Vec::new();
    };
    vec![
        main_table(first, rows),
        generator_table(rows),
        servers_table(rows),
        outcomes_table(rows),
    ]
}

fn main_table(first: &LoadRow, rows: &[LoadRow]) -> Table {
    use Align::{Left, Right};
    Table {
        title: format!(
            "load: {} RPS for {} s per scenario, latency from each request's intended send time",
            first.target_rps, first.duration_s
        ),
        columns: vec![
            ("Scenario", Left),
            ("OK", Right),
            ("Fail", Right),
            ("RPS", Right),
            ("Min", Right),
            ("Mean", Right),
            ("Max", Right),
            ("StdDev", Right),
            ("p50", Right),
            ("p75", Right),
            ("p95", Right),
            ("p99", Right),
            ("p99.9", Right),
            ("Data", Right),
            ("Data/resp", Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                let responses = row.ok + row.fail;
                vec![
                    row.scenario.to_string(),
                    row.ok.to_string(),
                    row.fail.to_string(),
                    format!("{:.1}", row.achieved_rps),
                    format_us_as_ms(row.latency.min_us),
                    format_us_as_ms(row.latency.mean_us),
                    format_us_as_ms(row.latency.max_us),
                    format_us_as_ms(row.latency.stddev_us),
                    format_us_as_ms(row.latency.p50_us),
                    format_us_as_ms(row.latency.p75_us),
                    format_us_as_ms(row.latency.p95_us),
                    format_us_as_ms(row.latency.p99_us),
                    format_us_as_ms(row.latency.p999_us),
                    format_bytes(row.bytes_received as f64),
                    if responses == 0 {
                        "NA".to_owned()
                    } else {
                        format_bytes(row.bytes_received as f64 / responses as f64)
                    },
                ]
            })
            .collect(),
    }
}

fn generator_table(rows: &[LoadRow]) -> Table {
    use Align::{Left, Right};
    Table {
        title: "load: the generator, and latency from the actual send time (uncorrected)"
            .to_owned(),
        columns: vec![
            ("Scenario", Left),
            ("Scheduled", Right),
            ("Sent late (>1 ms)", Right),
            ("Skipped", Right),
            ("Max send delay", Right),
            ("p50 uncorrected", Right),
            ("p99 uncorrected", Right),
            ("p99.9 uncorrected", Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                vec![
                    row.scenario.to_string(),
                    row.scheduled.to_string(),
                    row.sent_late.to_string(),
                    row.skipped.to_string(),
                    format_us_as_ms(Some(row.max_send_delay_us)),
                    format_us_as_ms(row.latency.uncorrected_p50_us),
                    format_us_as_ms(row.latency.uncorrected_p99_us),
                    format_us_as_ms(row.latency.uncorrected_p999_us),
                ]
            })
            .collect(),
    }
}

fn servers_table(rows: &[LoadRow]) -> Table {
    use Align::{Left, Right};
    Table {
        title: "load: the api process and its upstream during each run".to_owned(),
        columns: vec![
            ("Scenario", Left),
            ("API CPU", Right),
            ("CPU/request", Right),
            ("API peak RSS", Right),
            ("Upstream calls", Right),
            ("Mock connections", Right),
            ("Calls/connection", Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                let per_request = row
                    .api_cpu_s
                    .filter(|_| row.ok + row.fail > 0)
                    .map(|cpu| cpu * 1e6 / (row.ok + row.fail) as f64);
                vec![
                    row.scenario.to_string(),
                    optional(row.api_cpu_s, |cpu| format!("{cpu:.2} s")),
                    optional(per_request, |micros| format!("{micros:.1} us")),
                    optional(row.api_peak_rss_kib, |kib| {
                        format_bytes(kib as f64 * 1024.0)
                    }),
                    optional(row.upstream_calls, |calls| calls.to_string()),
                    optional(row.mock_connections, |count| count.to_string()),
                    match (row.reuse_ratio, row.upstream_calls, row.mock_connections) {
                        (Some(ratio), _, _) => format!("{ratio:.1}"),
                        (None, Some(calls), Some(0)) if calls > 0 => "all reused".to_owned(),
                        _ => "NA".to_owned(),
                    },
                ]
            })
            .collect(),
    }
}

fn outcomes_table(rows: &[LoadRow]) -> Table {
    use Align::{Left, Right};
    Table {
        title: "load: status codes and failures by kind".to_owned(),
        columns: vec![
            ("Scenario", Left),
            ("Status codes", Left),
            ("Connect", Right),
            ("Timeout", Right),
            ("Reset", Right),
            ("Status", Right),
            ("Body", Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                let codes: Vec<String> = row
                    .status_codes
                    .iter()
                    .map(|code| format!("{} x {}", code.status, code.count))
                    .collect();
                vec![
                    row.scenario.to_string(),
                    if codes.is_empty() {
                        "none".to_owned()
                    } else {
                        codes.join(", ")
                    },
                    row.failures.connect.to_string(),
                    row.failures.timeout.to_string(),
                    row.failures.reset.to_string(),
                    row.failures.status.to_string(),
                    row.failures.body.to_string(),
                ]
            })
            .collect(),
    }
}

/// The capacity step: the best level per scenario, then every level.
pub fn capacity_tables(rows: &[CapacityRow]) -> Vec<Table> {
    use Align::{Left, Right};
    if rows.is_empty() {
        return Vec::new();
    }
    let best = Table {
        title: "capacity: highest throughput without failures (closed model)".to_owned(),
        columns: vec![
            ("Scenario", Left),
            ("Max RPS", Right),
            ("At concurrency", Right),
            ("p99 there", Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                vec![
                    row.scenario.to_string(),
                    optional(row.max_rps, |rps| format!("{rps:.0}")),
                    optional(row.at_concurrency, |concurrency| concurrency.to_string()),
                    format_us_as_ms(row.p99_us),
                ]
            })
            .collect(),
    };
    let levels = Table {
        title: "capacity: every level".to_owned(),
        columns: vec![
            ("Scenario", Left),
            ("Concurrency", Right),
            ("OK", Right),
            ("Fail", Right),
            ("RPS", Right),
            ("p50", Right),
            ("p99", Right),
        ],
        rows: rows
            .iter()
            .flat_map(|row| {
                row.levels.iter().map(|level| {
                    vec![
                        row.scenario.to_string(),
                        level.concurrency.to_string(),
                        level.ok.to_string(),
                        level.fail.to_string(),
                        format!("{:.0}", level.rps),
                        format_us_as_ms(level.p50_us),
                        format_us_as_ms(level.p99_us),
                    ]
                })
            })
            .collect(),
    };
    vec![best, levels]
}
