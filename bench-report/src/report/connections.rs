//! The connections suite's section: a table per protocol of every client in every mode against
//! its pooled call, the table of client builds, and what each mode is.

use crate::report::format::{format_bytes, format_count, format_ratio, format_time, optional};
use crate::report::reasons;
use crate::report::section::{Part, Section};
use crate::report::table::{Align, Table};
use crate::report::upstream::not_measured_notes;
use bench_model::{
    ClientName, ClientTrust, ConnectionMode, ConnectionsRow, ConstructionRow, Protocol, Results,
    SuiteName,
};

/// The section, when the suite ran.
pub fn section(results: &Results) -> Option<Section> {
    let rows = &results.connections;
    if rows.is_empty() && results.construction.is_empty() {
        return None;
    }
    let mut section = Section::suite(SuiteName::Connections);
    for protocol in Protocol::ALL {
        let mine: Vec<&ConnectionsRow> =
            rows.iter().filter(|row| row.protocol == protocol).collect();
        if !mine.is_empty() {
            section = section.with(Part::Table(calls_table(protocol, &mine)));
        }
    }
    if !results.construction.is_empty() {
        section = section.with(Part::Table(construction_table(
            &results.settings.clients,
            &results.construction,
        )));
    }
    Some(
        section
            .with(Part::Notes(mode_lines(rows)))
            .with(Part::Text(COUNTED.to_owned()))
            .with(Part::Prose(HOW.to_owned()))
            .with_notes(waiting(rows))
            .with_notes(left_out(results))
            .with_notes(not_measured_notes(rows.iter().map(|row| {
                (
                    format!("{} {}", row.protocol.qualify(row.client), row.mode),
                    row.not_measured
                        .as_ref()
                        .map(|why| reasons::connections_not_counted(why, row.mode, row.protocol)),
                )
            }))),
    )
}

const COUNTED: &str = "CPU/call: the bench process's user + system time, every thread (the \
    clients' own included); mock-rates runs in another process and is not in it. Allocations: \
    Rust heap only; libcurl's own malloc (isahc) is not counted. Connections and handshakes are \
    what mock-rates counted, its admin reads taken out.";

const HOW: &str = "Each call is `fetch_quotes(&[EURUSD, USDJPY])` through `RatesProvider`, \
    awaited and checked. A new connection per call comes from `ClientSettings::max_idle_per_host \
    = 0`, which each adapter maps to its client's own switch: hyper-util's and reqwest's pool \
    disabled (`pool_max_idle_per_host(0)`), awc's connection keep-alive of zero, ureq's idle \
    pool of zero, isahc's connection cache of zero (libcurl `CURLOPT_FORBID_REUSE`). Whether it \
    worked is not assumed: mock-rates counts the connections it accepts, and a row of a mode \
    that must open one per call and did not gives no figure but the counts. Over https every \
    row gives the TLS version and the full and resumed handshakes mock-rates counted; a row \
    whose calls negotiated no TLS, or whose server refuses resumption yet counted one, gives \
    no figure either. Ratio is each sample's mean over the same client's pooled sample of the \
    same round, then the mean of those ratios. Builds are timed alone, the drop of each client \
    after the clock stops; `built_per_call` times build, call and drop together.";

/// The calls of one protocol, client by client in the run's order, each client's modes in
/// table order.
fn calls_table(protocol: Protocol, rows: &[&ConnectionsRow]) -> Table {
    use Align::{Left, Right};
    let time = |micros: Option<f64>| format_time(micros, "us");
    let handshakes = |row: &ConnectionsRow, per_call: Option<f64>| match row.protocol {
        Protocol::Http => "-".to_owned(),
        Protocol::Https | Protocol::H2 => optional(per_call, |count| format!("{count:.2}")),
    };
    Table {
        title: format!(
            "connections over {protocol}: one call through the port per mode; Ratio to the \
             same client's pooled call"
        ),
        columns: vec![
            ("Client", Left),
            ("Mode", Left),
            ("Protocol", Left),
            ("Calls", Right),
            ("Mean", Right),
            ("Error", Right),
            ("Ratio", Right),
            ("CPU/call", Right),
            ("Allocated/op", Right),
            ("Allocs/op", Right),
            ("Conns/call", Right),
            ("Full/call", Right),
            ("Resumed/call", Right),
            ("Connections", Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                let cpu = row
                    .cpu_user_us_per_call
                    .zip(row.cpu_system_us_per_call)
                    .map(|(user, system)| user + system);
                vec![
                    row.client.to_string(),
                    row.mode.to_string(),
                    row.tls_version.as_ref().map_or_else(
                        || row.protocol.to_string(),
                        |version| format!("{} {version}", row.protocol),
                    ),
                    calls(row.calls, row.calls_per_sample),
                    time(row.mean_us),
                    time(row.error_us),
                    format_ratio(row.ratio_to_pooled),
                    time(cpu),
                    optional(row.bytes_per_op, format_bytes),
                    optional(row.allocs_per_op, format_count),
                    optional(row.connections_per_call, |count| format!("{count:.2}")),
                    handshakes(row, row.full_handshakes_per_call),
                    handshakes(row, row.resumed_handshakes_per_call),
                    optional(row.connections_opened, |count| count.to_string()),
                ]
            })
            .collect(),
    }
}

/// "10x37": samples x calls per sample.
fn calls(total: u64, per_sample: u32) -> String {
    let samples = total / u64::from(per_sample.max(1));
    format!("{samples}x{per_sample}")
}

/// Client builds, client by client in the run's order, each client's builds in trust order.
fn construction_table(clients: &[ClientName], rows: &[ConstructionRow]) -> Table {
    use Align::{Left, Right};
    let mut ordered: Vec<&ConstructionRow> = rows.iter().collect();
    let position = |client: ClientName| clients.iter().position(|&known| known == client);
    ordered.sort_by_key(|row| (position(row.client), row.trust));
    let time = |micros: Option<f64>| format_time(micros, "us");
    Table {
        title: "connections: building one client, no call (dropped after the clock stops)"
            .to_owned(),
        columns: vec![
            ("Client", Left),
            ("Build", Left),
            ("Builds", Right),
            ("Mean", Right),
            ("Error", Right),
            ("CPU/build", Right),
            ("Allocated/build", Right),
            ("Allocs/build", Right),
        ],
        rows: ordered
            .iter()
            .map(|row| {
                let cpu = row
                    .cpu_user_us_per_build
                    .zip(row.cpu_system_us_per_build)
                    .map(|(user, system)| user + system);
                vec![
                    row.client.to_string(),
                    row.trust.to_string(),
                    calls(row.builds, row.builds_per_sample),
                    time(row.mean_us),
                    time(row.error_us),
                    time(cpu),
                    format_bytes(row.bytes_per_build),
                    format_count(row.allocs_per_build),
                ]
            })
            .collect(),
    }
}

/// A line per mode in the tables, and one for the builds.
fn mode_lines(rows: &[ConnectionsRow]) -> Vec<String> {
    let mut lines: Vec<String> = ConnectionMode::ALL
        .into_iter()
        .filter(|mode| rows.iter().any(|row| row.mode == *mode))
        .map(|mode| format!("{mode}: {}.", mode.description()))
        .collect();
    lines.push(format!(
        "Builds: `{}`, `{}` and `{}`: the client's constructor from the same settings as a \
         call's, for an http:// upstream (no TLS set up), an https:// one trusting the system's \
         roots, and one also trusting the mock's CA; no call.",
        ClientTrust::Plain,
        ClientTrust::SystemRoots,
        ClientTrust::SystemRootsAndCa
    ));
    lines
}

/// Slow calls that spend most of their time off the bench's CPU: they wait (on mock-rates,
/// the kernel, a timer) rather than compute, which the CPU/call column alone does not say.
fn waiting(rows: &[ConnectionsRow]) -> Vec<String> {
    rows.iter()
        .filter_map(|row| {
            let mean = row.mean_us?;
            let cpu = row.cpu_user_us_per_call? + row.cpu_system_us_per_call?;
            (mean >= 1_000.0 && cpu < 0.2 * mean).then(|| {
                format!(
                    "{} {} {}: {:.0}% of its {} per call on the bench's CPU: these calls \
                     mostly wait (on mock-rates, the kernel or a timer), they do not compute.",
                    row.client,
                    row.protocol,
                    row.mode,
                    100.0 * cpu / mean,
                    format_time(Some(mean), "us")
                )
            })
        })
        .collect()
}

/// What the tables do not show, and why: modes that do not apply, a protocol left out, rows
/// whose counts contradict their mode, failed calls and builds.
fn left_out(results: &Results) -> Vec<String> {
    let rows = &results.connections;
    let mut notes = Vec::new();
    for protocol in Protocol::ALL {
        if !rows.iter().any(|row| row.protocol == protocol) {
            if !results.settings.protocols.contains(&protocol) {
                continue;
            }
            let not_over = results
                .settings
                .plan()
                .suite(SuiteName::Connections)
                .is_some_and(|plan| {
                    plan.protocols_left_out
                        .iter()
                        .any(|&(left_out, _)| left_out == protocol)
                });
            notes.push(if not_over {
                format!(
                    "{protocol}: not measured here: a connection's set-up over HTTP/2 is the \
                     https one (TLS and ALPN) plus the HTTP/2 preface; the latency, load and \
                     fanout suites measure h2."
                )
            } else {
                format!(
                    "{protocol}: left out: it needs mock-rates of the bench's own, and \
                     --mock-url gives one over plain HTTP."
                )
            });
            continue;
        }
        for mode in ConnectionMode::ALL {
            if let Some(why) = mode.left_out_over(protocol) {
                notes.push(format!("{protocol}: {mode} left out: {why}."));
            }
        }
    }
    for row in rows {
        if let Some(why) = &row.withheld {
            notes.push(format!(
                "{} {} {}: no figures: {}.",
                row.client,
                row.protocol,
                row.mode,
                reasons::withheld(why)
            ));
        }
        if let Some(error) = &row.first_error {
            notes.push(format!(
                "{} {} {}: {} of {} calls failed; first: {error}",
                row.client, row.protocol, row.mode, row.failures, row.calls
            ));
        }
    }
    for row in &results.construction {
        if let Some(error) = &row.first_error {
            notes.push(format!(
                "{} build, {}: {} of {} builds failed; first: {error}",
                row.client, row.trust, row.failures, row.builds
            ));
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(client: ClientName, protocol: Protocol, mode: ConnectionMode) -> ConnectionsRow {
        let tls = protocol == Protocol::Https;
        ConnectionsRow {
            client,
            protocol,
            mode,
            tls_version: tls.then(|| "TLSv1.3".to_owned()),
            warmup_calls: 10,
            calls_per_sample: 40,
            calls: 400,
            failures: 0,
            mean_us: Some(250.0),
            error_us: Some(12.5),
            stddev_us: Some(5.0),
            ratio_to_pooled: Some(3.1),
            ratio_sd: Some(0.2),
            cpu_user_us_per_call: Some(100.0),
            cpu_system_us_per_call: Some(60.0),
            allocs_per_op: Some(140.0),
            bytes_per_op: Some(40_960.0),
            connections_opened: Some(410),
            connections_per_call: Some(1.0),
            full_handshakes_per_call: tls.then_some(0.0),
            resumed_handshakes_per_call: tls.then_some(1.0),
            sample_means_us: vec![Some(250.0); 10],
            round_means_us: vec![250.0; 3],
            withheld: None,
            not_measured: None,
            first_error: None,
        }
    }

    fn construction(client: ClientName, trust: ClientTrust) -> ConstructionRow {
        ConstructionRow {
            client,
            trust,
            builds_per_sample: 6,
            builds: 60,
            failures: 0,
            mean_us: Some(8_123.4),
            error_us: Some(321.0),
            stddev_us: Some(100.0),
            cpu_user_us_per_build: Some(7_000.0),
            cpu_system_us_per_build: Some(900.0),
            allocs_per_build: 2_500.0,
            bytes_per_build: 300_000.0,
            sample_means_us: vec![Some(8_123.4); 10],
            round_means_us: vec![8_123.4; 3],
            first_error: None,
        }
    }

    fn results() -> Results {
        // As `bench --suite connections --clients hyper,awc` resolves them.
        let mut settings = bench_model::test_rows::default_settings();
        settings.suites = vec![bench_model::SuiteName::Connections];
        settings.clients = vec![ClientName::Hyper, ClientName::Awc];
        settings.clients_named = true;
        let mut results = Results::new(
            bench_model::test_rows::environment("2026-01-01T00:00:00Z"),
            settings,
        );
        let mut reused = row(
            ClientName::Awc,
            Protocol::Http,
            ConnectionMode::NewConnection,
        );
        // As the suite leaves a row whose counts contradict its mode: the counts, no figure.
        reused.mean_us = None;
        reused.error_us = None;
        reused.stddev_us = None;
        reused.ratio_to_pooled = None;
        reused.cpu_user_us_per_call = None;
        reused.cpu_system_us_per_call = None;
        reused.allocs_per_op = None;
        reused.bytes_per_op = None;
        reused.sample_means_us.clear();
        reused.withheld = Some(bench_model::Withheld::NotOnePerCall {
            connections: 1,
            calls: 410,
        });
        let mut pooled = row(ClientName::Hyper, Protocol::Https, ConnectionMode::Pooled);
        pooled.connections_opened = Some(1);
        pooled.connections_per_call = Some(0.0);
        pooled.full_handshakes_per_call = Some(0.0);
        pooled.resumed_handshakes_per_call = Some(0.0);
        pooled.ratio_to_pooled = Some(1.0);
        let mut failing = row(
            ClientName::Hyper,
            Protocol::Http,
            ConnectionMode::BuiltPerCall,
        );
        failing.failures = 2;
        failing.first_error = Some("status 503".to_owned());
        results.connections = vec![
            row(ClientName::Hyper, Protocol::Http, ConnectionMode::Pooled),
            failing,
            reused,
            pooled,
            ConnectionsRow {
                mean_us: Some(44_000.0),
                ..row(
                    ClientName::Hyper,
                    Protocol::Https,
                    ConnectionMode::NewConnectionFull,
                )
            },
        ];
        results.construction = vec![
            construction(ClientName::Awc, ClientTrust::SystemRoots),
            construction(ClientName::Hyper, ClientTrust::SystemRootsAndCa),
            construction(ClientName::Hyper, ClientTrust::SystemRoots),
        ];
        results
    }

    /// Whether a table line of `text` has exactly `cells`, whatever their padding.
    fn has_row(text: &str, cells: &[&str]) -> bool {
        text.lines().any(|line| {
            let found: Vec<&str> = line
                .trim()
                .trim_matches('|')
                .split('|')
                .map(str::trim)
                .collect();
            found == cells
        })
    }

    #[test]
    fn a_table_per_protocol_then_the_builds() {
        let results = results();
        let section = section(&results).unwrap();
        let terminal = section.terminal();
        let http = terminal.find("connections over http:").unwrap();
        let https = terminal.find("connections over https:").unwrap();
        let builds = terminal.find("building one client").unwrap();
        assert!(http < https && https < builds, "{terminal}");
        for cells in [
            [
                "hyper",
                "pooled",
                "http",
                "10x40",
                "250.00 us",
                "12.500 us",
                "3.10",
                "160.00 us",
                "40.00 KB",
                "140.0",
                "1.00",
                "-",
                "-",
                "410",
            ],
            [
                "awc",
                "new_connection",
                "http",
                "10x40",
                "NA",
                "NA",
                "?",
                "NA",
                "NA",
                "NA",
                "1.00",
                "-",
                "-",
                "410",
            ],
            [
                "hyper",
                "pooled",
                "https TLSv1.3",
                "10x40",
                "250.00 us",
                "12.500 us",
                "1.00",
                "160.00 us",
                "40.00 KB",
                "140.0",
                "0.00",
                "0.00",
                "0.00",
                "1",
            ],
        ] {
            assert!(
                has_row(&terminal, &cells),
                "{cells:?} missing from\n{terminal}"
            );
        }
        // Builds in the run's client order, then trust order.
        let hyper_roots = terminal.find("| hyper  | https, system roots  ").unwrap();
        let hyper_ca = terminal
            .find("| hyper  | https, system roots + 1 CA")
            .unwrap();
        let awc_roots = terminal.find("| awc    | https, system roots  ").unwrap();
        assert!(hyper_roots < hyper_ca && hyper_ca < awc_roots, "{terminal}");
        assert!(has_row(
            &terminal,
            &[
                "awc",
                "https, system roots",
                "10x6",
                "8123.4 us",
                "321.00 us",
                "7900.0 us",
                "292.97 KB",
                "2500.0"
            ]
        ));
        assert!(
            !terminal.contains("CURLOPT_FORBID_REUSE"),
            "prose is for report.md"
        );
        let markdown = section.markdown();
        assert!(markdown.starts_with("\n## connections\n\n### connections over http:"));
        assert!(markdown.contains("CURLOPT_FORBID_REUSE"));
        assert!(markdown.contains("- pooled: one client"));
    }

    #[test]
    fn under_the_tables_what_each_mode_is_and_what_is_not_shown() {
        let terminal = section(&results()).unwrap().terminal();
        for text in [
            "pooled: one client, its pool kept",
            "new_connection_full: as new_connection",
            "built_per_call: a client built for every call",
            "Builds: `http (no roots)`",
            "mock-rates runs in another process",
            "http: new_connection_full left out: plain HTTP has no handshake to resume",
            "awc http new_connection: no figures: mock-rates accepted 1 connections for 410 \
             calls: not one connection per call.",
            "hyper http built_per_call: 2 of 400 calls failed; first: status 503",
            "hyper https new_connection_full: 0% of its 44000.0 us per call on the bench's CPU: \
             these calls mostly wait",
        ] {
            assert!(terminal.contains(text), "{text:?} missing from\n{terminal}");
        }
    }

    #[test]
    fn a_protocol_without_rows_is_said_to_be_left_out() {
        let mut results = results();
        results
            .connections
            .retain(|row| row.protocol == Protocol::Http);
        let notes = left_out(&results);
        assert!(
            notes.iter().any(|note| note.starts_with("https: left out")),
            "{notes:?}"
        );
        // Over https alone, nothing is said of http's modes.
        results
            .settings
            .edit(|settings| settings.protocols = vec![Protocol::Http]);
        assert!(
            !left_out(&results)
                .iter()
                .any(|note| note.starts_with("https"))
        );
        results.connections.clear();
        results.construction.clear();
        assert_eq!(section(&results), None);
    }
}
