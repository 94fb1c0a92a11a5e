//! The load suite's tables: the open-model runs (NBomber's figures, the generator's
//! punctuality, the servers' side, the outcomes, round by round).

use crate::report::format::{format_bytes, format_us_as_ms, optional};
use crate::report::table::{Align, Table};
use bench_model::{LoadRow, NegotiatedTls, Protocol, size_name};

/// CPU time of the api per request, in microseconds.
pub(super) fn cpu_per_request_us(row: &LoadRow) -> Option<f64> {
    let requests = row.ok + row.fail;
    row.api_cpu_s
        .filter(|_| requests > 0)
        .map(|cpu| cpu * 1e6 / requests as f64)
}

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
    .into_iter()
    .chain(tls_table(rows))
    .chain(tls_cost_table(rows))
    .collect()
}

fn main_table(first: &LoadRow, rows: &[LoadRow]) -> Table {
    use Align::{Left, Right};
    Table {
        title: format!(
            "load: {} RPS for {:.1} s per scenario{}, latency from each request's intended send \
             time",
            first.target_rps,
            first.duration_s,
            rows.iter()
                .find_map(|row| Some((row.body_bytes?, row.target_rps)))
                .map_or_else(String::new, |(bytes, rps)| format!(
                    " (with a {} answer: {rps} RPS)",
                    size_name(bytes)
                ))
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
                    row.label(),
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
                    row.label(),
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
            ("By round", Right),
            ("API peak RSS", Right),
            ("RSS growth", Right),
            ("Busy after", Right),
            ("Upstream calls", Right),
            ("Mock connections", Right),
            ("Calls/connection", Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                let per_request = cpu_per_request_us(row);
                vec![
                    row.label(),
                    optional(row.api_cpu_s, |cpu| format!("{cpu:.2} s")),
                    optional(per_request, |micros| format!("{micros:.1} us")),
                    by_round(row),
                    optional(row.api_peak_rss_kib, |kib| {
                        format_bytes(kib as f64 * 1024.0)
                    }),
                    optional(row.api_rss_growth_kib(), |kib| {
                        format!("+{}", format_bytes(kib as f64 * 1024.0))
                    }),
                    optional(row.api_busy_after_ms, |ms| format!("{ms} ms")),
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

/// The CPU per request of each round, `410 / 398 / 420`.
fn by_round(row: &LoadRow) -> String {
    let rounds: Vec<String> = row
        .rounds
        .iter()
        .map(|round| {
            let requests = round.ok + round.fail;
            optional(round.api_cpu_s.filter(|_| requests > 0), |cpu| {
                format!("{:.0}", cpu * 1e6 / requests as f64)
            })
        })
        .collect();
    if rounds.is_empty() {
        "NA".to_owned()
    } else {
        rounds.join(" / ")
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
                    row.label(),
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

/// Over `https`: the TLS each payments scenario negotiated and the handshakes mock-rates
/// counted, against the service's pool bound; `None` without an https row.
fn tls_table(rows: &[LoadRow]) -> Option<Table> {
    use Align::{Left, Right};
    let rows: Vec<&LoadRow> = rows.iter().filter(|row| row.tls.is_some()).collect();
    if rows.is_empty() {
        return None;
    }
    Some(Table {
        title: "load over https: TLS handshakes mock-rates counted, against the pool's bound"
            .to_owned(),
        columns: vec![
            ("Scenario", Left),
            ("TLS", Left),
            ("Handshakes (warm-up on)", Right),
            ("In the run", Right),
            ("Requests", Right),
            ("Pool bound", Right),
            ("Within", Left),
        ],
        rows: rows
            .iter()
            .map(|row| {
                let tls = row.tls.as_ref();
                let handshakes = tls.map(|tls| tls.handshakes);
                vec![
                    row.label(),
                    tls.map_or_else(|| "NA".to_owned(), NegotiatedTls::describe),
                    optional(handshakes, |count| count.to_string()),
                    optional(row.mock_tls_handshakes, |count| count.to_string()),
                    (row.ok + row.fail).to_string(),
                    optional(row.pool_bound, |bound| bound.to_string()),
                    match (handshakes, row.pool_bound) {
                        (Some(handshakes), Some(bound)) => {
                            if handshakes <= bound { "yes" } else { "NO" }.to_owned()
                        }
                        _ => "NA".to_owned(),
                    },
                ]
            })
            .collect(),
    })
}

/// What TLS costs the service per request, per client: its https row against the same
/// library's http row (for another TLS backend, the bare name's); `None` without such a pair.
fn tls_cost_table(rows: &[LoadRow]) -> Option<Table> {
    use Align::{Left, Right};
    let pairs: Vec<(&LoadRow, &LoadRow)> = rows
        .iter()
        .filter(|row| row.protocol == Protocol::Https)
        .filter_map(|https| {
            let client = https.scenario.client()?.library_default();
            let http = rows.iter().find(|row| {
                row.protocol == Protocol::Http
                    && row.body_bytes.is_none()
                    && row.scenario.client() == Some(client)
            })?;
            Some((https, http))
        })
        .collect();
    if pairs.is_empty() {
        return None;
    }
    let times = |https: Option<f64>, http: Option<f64>| {
        optional(
            https.zip(http).filter(|&(_, http)| http > 0.0),
            |(https, http)| format!("{:.2}x", https / http),
        )
    };
    Some(Table {
        title: "load: what TLS to the upstream costs the service, per client (https row against \
                the library's http row, same rate)"
            .to_owned(),
        columns: vec![
            ("Client", Left),
            ("CPU/request http", Right),
            ("CPU/request https", Right),
            ("CPU x", Right),
            ("RSS growth http", Right),
            ("RSS growth https", Right),
            ("p99 http", Right),
            ("p99 https", Right),
            ("p99 x", Right),
        ],
        rows: pairs
            .iter()
            .map(|(https, http)| {
                let rss = |row: &LoadRow| {
                    optional(row.api_peak_rss_kib, |kib| {
                        format_bytes(kib as f64 * 1024.0)
                    })
                };
                let us = |micros: Option<f64>| optional(micros, |micros| format!("{micros:.1} us"));
                vec![
                    https
                        .scenario
                        .client()
                        .map_or_else(String::new, |client| client.to_string()),
                    us(cpu_per_request_us(http)),
                    us(cpu_per_request_us(https)),
                    times(cpu_per_request_us(https), cpu_per_request_us(http)),
                    rss(http),
                    rss(https),
                    format_us_as_ms(http.latency.p99_us),
                    format_us_as_ms(https.latency.p99_us),
                    times(https.latency.p99_us, http.latency.p99_us),
                ]
            })
            .collect(),
    })
}
