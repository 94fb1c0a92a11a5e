//! The latency suite's section: the BenchmarkDotNet-style table and what it counts.

use crate::model::{ClientName, LatencyRow, Protocol, Results};
use crate::report::format::{TimeFormat, format_bytes, format_count, format_ratio, protocol_cell};
use crate::report::noise;
use crate::report::section::{Part, Section};
use crate::report::table::{Align, Table};

/// The section, when the suite ran; `charts` are the SVG files written beside report.md.
pub fn section(results: &Results, charts: &[String]) -> Option<Section> {
    if results.latency.is_empty() {
        return None;
    }
    let mut section = Section::new("latency")
        .with(Part::Table(latency_table(&results.latency)))
        .with(Part::Text(
            "Allocations: Rust heap only, all threads; libcurl's own malloc (isahc) is not \
             counted."
                .to_owned(),
        ))
        .with(Part::Prose(CALLS.to_owned()))
        .with(Part::Prose(noise::NOISE_NOTE.to_owned()));
    if results.latency.iter().any(|row| row.tls.is_some()) {
        section = section.with(Part::Prose(HTTPS.to_owned()));
    }
    if results.settings.latency_cpu.is_some() {
        section = section.with(Part::Prose(PINNED.to_owned()));
    }
    let mut notes = noise::notes(
        results.latency.iter().filter_map(|row| {
            let label = row.protocol.qualify(row.client);
            Some((label, row.noise.as_ref()?))
        }),
        "us",
    );
    notes.extend(https_costs(&results.latency));
    notes.extend(results.latency.iter().filter_map(|row| {
        let error = row.first_error.as_ref()?;
        Some(format!(
            "{} {}: {} of {} calls failed; first: {error}",
            row.client, row.protocol, row.failures, row.calls
        ))
    }));
    Some(section.with_notes(notes).with_charts(charts, "latency"))
}

const HTTPS: &str = "Over `https`, each client calls a mock-rates of the suite's own serving \
    TLS with a CA made at start, which the client trusts besides the system's roots; the \
    Protocol column gives the client's TLS library and crypto provider, as its adapter states \
    them, and the TLS version mock-rates counted, not what the client claims (a row over https \
    that negotiated none would stop the run). awc-openssl, reqwest-native-tls and \
    ureq-native-tls are awc, reqwest and ureq with another TLS backend: over http they would be \
    the same client as the bare name, so they have rows there only when named with `--clients`, \
    and their https/http ratio below divides by the bare name's http row. The connection, and \
    so the handshake, is made in the warm-up: these are pooled calls, what a kept-alive \
    connection costs per call once open.";

const CALLS: &str = "Each call is `fetch_quotes(&[EURUSD, USDJPY])` through `RatesProvider`, \
    awaited and checked (both pairs present) before the next; one reused client per adapter, all \
    in one actix runtime. Allocated/op and Allocs/op count no kernel socket buffers either; they \
    include the port's boxed future (async-trait), the same one allocation for every client. \
    Connections are the TCP connections mock-rates accepted during the client's warm-up and \
    samples: 1 means every call reused one connection.";

const PINNED: &str = "The suite ran pinned to one CPU, the bench's thread, the clients' own \
    threads (ureq's blocking pool, isahc's curl thread) and its own mock-rates alike: on a small \
    machine a call whose client and server sit on different CPUs pays for a cross-CPU wake-up \
    that changes from sample to sample (unpinned, one sample of hyper averaged 20 us and the \
    next 50 us), which would drown the clients' differences. Pinned, client and server take \
    turns on the CPU, so each figure includes the mock's share of the work, the same for every \
    client. `--no-pin` measures unpinned.";

fn latency_table(rows: &[LatencyRow]) -> Table {
    use Align::{Left, Right};
    let time = TimeFormat::for_means_ns(rows.iter().map(|row| row.mean_us.map(|us| us * 1_000.0)));
    Table {
        title: "latency: one call through the port (EURUSD + USDJPY, one upstream request); \
                Ratio to hyper over the same protocol"
            .to_owned(),
        columns: vec![
            ("Client", Left),
            ("Protocol", Left),
            ("Mean", Right),
            ("Error", Right),
            ("StdDev", Right),
            ("Median", Right),
            ("P99", Right),
            ("Ratio", Right),
            ("RatioSD", Right),
            ("Allocated/op", Right),
            ("Allocs/op", Right),
            ("Connections", Right),
            ("Failures", Right),
            ("Noise", Left),
        ],
        rows: rows
            .iter()
            .map(|row| {
                vec![
                    row.client.to_string(),
                    protocol_cell(row.protocol, row.tls.as_ref()),
                    time.format_us(row.mean_us),
                    time.format_us(row.error_us),
                    time.format_us(row.stddev_us),
                    time.format_us(row.median_us),
                    time.format_us(row.p99_us),
                    format_ratio(row.ratio),
                    format_ratio(row.ratio_sd),
                    format_bytes(row.bytes_per_op),
                    format_count(row.allocs_per_op),
                    row.connections_opened
                        .map_or_else(|| "?".to_owned(), |count| count.to_string()),
                    format!("{}/{}", row.failures, row.calls),
                    noise::cell(row.noise.as_ref()),
                ]
            })
            .collect(),
    }
}

/// Per client over both protocols: what a pooled call over TLS costs against one in the
/// clear (for another TLS backend, its library's default client in the clear: the same client
/// without TLS), the target being at most 1.3x for hyper.
fn https_costs(rows: &[LatencyRow]) -> Vec<String> {
    let mut parts = Vec::new();
    for row in rows.iter().filter(|row| row.protocol == Protocol::Https) {
        let plain = rows.iter().find(|plain| {
            plain.client == row.client.library_default() && plain.protocol == Protocol::Http
        });
        if let Some((https, http)) = row.mean_us.zip(plain.and_then(|plain| plain.mean_us)) {
            let times = https / http;
            let target = if row.client == ClientName::BASELINE {
                format!(
                    " (target at most 1.30x: {})",
                    if times <= 1.3 { "met" } else { "NOT met" }
                )
            } else {
                String::new()
            };
            parts.push(format!("{} {times:.2}x{target}", row.client));
        }
    }
    if parts.is_empty() {
        Vec::new()
    } else {
        vec![format!(
            "A pooled call over https against one over http (means): {}.",
            parts.join(", ")
        )]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(client: ClientName, protocol: Protocol, mean_us: f64) -> LatencyRow {
        LatencyRow {
            client,
            protocol,
            tls: None,
            calls: 10,
            failures: 0,
            mean_us: Some(mean_us),
            error_us: None,
            stddev_us: None,
            median_us: None,
            p99_us: None,
            ratio: None,
            ratio_sd: None,
            allocs_per_op: 0.0,
            bytes_per_op: 0.0,
            connections_opened: Some(1),
            sample_means_us: Vec::new(),
            first_error: None,
            noise: None,
        }
    }

    #[test]
    fn the_cost_of_https_follows_the_means_and_judges_hyper_against_its_target() {
        let rows = [
            row(ClientName::Hyper, Protocol::Http, 40.0),
            row(ClientName::Awc, Protocol::Http, 40.0),
            row(ClientName::Hyper, Protocol::Https, 48.0),
            row(ClientName::Awc, Protocol::Https, 60.0),
            row(ClientName::AwcOpenssl, Protocol::Https, 50.0),
        ];
        assert_eq!(
            https_costs(&rows),
            [
                "A pooled call over https against one over http (means): hyper 1.20x (target at \
              most 1.30x: met), awc 1.50x, awc-openssl 1.25x."
            ]
        );
        let slow = [
            row(ClientName::Hyper, Protocol::Http, 40.0),
            row(ClientName::Hyper, Protocol::Https, 60.0),
        ];
        assert!(https_costs(&slow)[0].contains("1.50x (target at most 1.30x: NOT met)"));
        assert!(https_costs(&rows[..2]).is_empty());
    }
}
