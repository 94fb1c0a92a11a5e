//! The latency suite's section: the BenchmarkDotNet-style table and what it counts.

use crate::report::format::unable_note;
use crate::report::noise;
use crate::report::reasons;
use crate::report::section::{Part, Section};
use crate::report::upstream::not_measured_notes;
use bench_model::{Protocol, Results, SuiteName};

mod bodies;
mod overhead;
mod table;
mod unpinned;

use bodies::{BODIES, bodies_table};
use overhead::{h2_costs, https_costs, port_overhead_table};
use table::{calibration_table, calibration_target, latency_table};
use unpinned::{unpinned_table, unpinned_verdict};

/// The section, when the suite ran; `charts` are the SVG files written beside report.md.
pub fn section(results: &Results, charts: &[String]) -> Option<Section> {
    if results.latency.is_empty() {
        return None;
    }
    let rows = &results.latency;
    let mut section = Section::suite(SuiteName::Latency)
        .with(Part::Table(latency_table(rows)))
        .with(Part::Text(
            "Allocations: Rust heap only, all threads; libcurl's own malloc (isahc) is not \
             counted."
                .to_owned(),
        ))
        .with(Part::Prose(CALLS.to_owned()))
        .with(Part::Prose(ROUNDS.to_owned()))
        .with(Part::Prose(noise::NOISE_NOTE.to_owned()));
    if !results.calibration.is_empty() {
        section = section
            .with(Part::Table(calibration_table(&results.calibration)))
            .with(Part::Prose(CALIBRATION.to_owned()));
        if let Some(line) = calibration_target(&results.calibration) {
            section = section.with(Part::Prose(line));
        }
    }
    if rows.iter().any(|row| row.bare.is_some()) {
        section = section
            .with(Part::Table(port_overhead_table(rows)))
            .with(Part::Prose(BARE.to_owned()));
    }
    if rows.iter().any(|row| row.tls.is_some()) {
        section = section.with(Part::Prose(HTTPS.to_owned()));
    }
    if results.settings.latency_cpu.is_some() {
        section = section.with(Part::Prose(PINNED.to_owned()));
    }
    if !results.latency_by_body.is_empty() {
        section = section
            .with(Part::Table(bodies_table(rows, &results.latency_by_body)))
            .with(Part::Prose(BODIES.to_owned()));
    }
    if !results.latency_unpinned.is_empty() {
        section = section
            .with(Part::Table(unpinned_table(rows, &results.latency_unpinned)))
            .with(Part::Prose(unpinned_verdict(
                rows,
                &results.latency_unpinned,
            )));
    }
    let mut notes = noise::notes(
        rows.iter().filter_map(|row| {
            let label = row.protocol.qualify(row.client);
            Some((label, row.noise.as_ref()?))
        }),
        "us",
    );
    notes.extend(not_measured_notes(rows.iter().map(|row| {
        let why = row.not_measured.as_ref();
        (
            row.protocol.qualify(row.client),
            why.map(|why| reasons::not_counted(why, row.protocol)),
        )
    })));
    notes.extend(https_costs(rows));
    notes.extend(h2_costs(rows));
    notes.extend(unable_note(
        &results.settings,
        SuiteName::Latency,
        Protocol::H2,
    ));
    notes.extend(results.latency_by_body.iter().filter_map(|row| {
        let error = row.first_error.as_ref()?;
        Some(format!(
            "{} http, {} B answer, decoded {}: {} of {} calls failed; first: {error}",
            row.client,
            row.body_bytes.unwrap_or(0),
            row.decode.as_str(),
            row.failures,
            row.calls
        ))
    }));
    notes.extend(results.latency.iter().filter_map(|row| {
        let error = row.first_error.as_ref()?;
        Some(format!(
            "{} {}: {} of {} calls failed; first: {error}",
            row.client, row.protocol, row.failures, row.calls
        ))
    }));
    notes.extend(results.latency.iter().filter_map(|row| {
        let bare = row.bare.as_ref()?;
        let error = bare.first_error.as_ref()?;
        Some(format!(
            "{} {} called bare: {} of {} calls failed; first: {error}",
            row.client, row.protocol, bare.failures, bare.calls
        ))
    }));
    Some(section.with_notes(notes).with_charts(charts, "latency"))
}

const ROUNDS: &str = "The samples are taken in rounds spread over the suite (every \
    protocol's round 1, then every protocol's round 2, ...); **Rounds** gives each round's mean, \
    and what a client's mean moves between them is its noise in the verdict. **Mock CPU** is \
    mock-rates' own CPU time per call during the client's samples (read from its cgroup, or its \
    threads' schedstat), and its share of the client's mean: on the pinned CPU the mock's work \
    is part of every call's time, the same work for every client of a protocol.";

const CALIBRATION: &str = "**The instrument**: a minimal client of the bench's own calls the \
    same mock-rates in the same rotation as the clients: over http and https a request written \
    by hand on one kept-alive connection and the response read by its Content-Length, over h2 \
    the h2 crate alone; the body decoded as the adapters decode it. Its mean is the floor of \
    the set-up (mock-rates, the kernel, TLS and the decode), and **Mock CPU** what mock-rates \
    itself spends per call: what a client's row takes beyond this is the client's.";

const HTTPS: &str = "Over `https` (HTTP/1.1) and `h2` (HTTP/2, clients built with \
    `rates.http_version = \"2\"`, offering only `h2` by ALPN), each client calls a mock-rates \
    of the suite's own serving TLS with a CA made at start, which the client trusts besides the system's roots; the \
    Protocol column gives the client's TLS library and crypto provider, as its adapter states \
    them, and the TLS and HTTP versions mock-rates counted, not what the client claims (a row \
    over TLS that negotiated none, or a connection that spoke another HTTP version, is no \
    figure: it is left out of every table, named with why under the verdict, and ranked \
    nowhere). awc-openssl, reqwest-native-tls and \
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

const BARE: &str = "**Bare** is the same client called without the hexagon: the library's own \
    request for the same URL (built once) and the same decode (`decode_quotes`), on the client the \
    adapter built (same TLS, pool and timeouts), with status 200 required. It skips the port \
    (`RatesProvider`, whose async-trait boxes each call's future), the adapter's frame (the URL \
    built per call, the in-flight limit, the deadline, the bounded body, the error mapping, the \
    log line) and, for ureq and reqwest-blocking, the hop to the blocking pool: their bare calls \
    block the calling thread, as blocking code would. Each sample through the port was taken \
    beside a bare sample of the same size (port first in even samples, bare first in odd ones). \
    **Overhead** is the mean of the per-sample ratios, port over bare; **Beyond noise** says \
    whether the two means differ by more than their combined Error. The target is at most 1.10x \
    and at most 5 extra allocations per call.";

const PINNED: &str = "The suite ran pinned to one CPU, the bench's thread, the clients' own \
    threads (the blocking pool, reqwest-blocking's runtime thread, isahc's curl thread) and its \
    own mock-rates alike: on a small machine a call whose client and server sit on different CPUs \
    pays for a cross-CPU wake-up that changes from sample to sample (unpinned, one sample of hyper \
    averaged 20 us and the next 50 us), which would drown the clients' differences. Pinned, client \
    and server take turns on the CPU, so each figure includes the mock's share of the work, the \
    same for every client. `--no-pin` measures unpinned.";

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::{BareFigures, CalibrationRow, ClientName, LatencyRow};

    fn row(client: ClientName, protocol: Protocol, mean_us: f64) -> LatencyRow {
        LatencyRow {
            client,
            protocol,
            body_bytes: None,
            decode: bench_model::Decode::Whole,
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
            bare: None,
            round_means_us: Vec::new(),
            round_allocs_per_op: Vec::new(),
            mock_cpu_us: None,
            peak_bytes: None,
            unchecked: None,
            not_measured: None,
        }
    }

    #[test]
    fn the_cost_of_h2_is_against_the_same_client_over_https() {
        let rows = [
            row(ClientName::Hyper, Protocol::Https, 60.0),
            row(ClientName::Awc, Protocol::Https, 50.0),
            row(ClientName::Hyper, Protocol::H2, 120.0),
            row(ClientName::Awc, Protocol::H2, 55.0),
            row(ClientName::Reqwest, Protocol::H2, 70.0),
        ];
        let note = h2_costs(&rows).unwrap();
        assert_eq!(
            note,
            "A pooled call over h2 against one over https, the same TLS (means): hyper 2.00x \
             (+0 allocations), awc 1.10x (+0 allocations)."
        );
        assert_eq!(h2_costs(&rows[..2]), None);
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

    fn with_bare(mut row: LatencyRow, bare_mean_us: f64, extra_allocs: f64) -> LatencyRow {
        row.error_us = Some(0.5);
        row.allocs_per_op = 20.0;
        row.bare = Some(BareFigures {
            calls: 10,
            failures: 0,
            mean_us: Some(bare_mean_us),
            error_us: Some(0.5),
            overhead: row.mean_us.map(|mean| mean / bare_mean_us),
            overhead_sd: Some(0.01),
            allocs_per_op: 20.0 - extra_allocs,
            bytes_per_op: 0.0,
            connections_opened: Some(1),
            sample_means_us: Vec::new(),
            first_error: None,
        });
        row
    }

    #[test]
    fn the_port_overhead_is_judged_against_its_targets() {
        let rows = [
            with_bare(row(ClientName::Hyper, Protocol::Http, 40.0), 38.0, 2.0),
            with_bare(row(ClientName::Ureq, Protocol::Http, 60.0), 40.0, 2.0),
            with_bare(row(ClientName::Awc, Protocol::Http, 40.0), 39.9, 9.0),
            row(ClientName::Isahc, Protocol::Http, 50.0),
        ];
        let rendered = port_overhead_table(&rows).render();
        // hyper: 1.05x and 2 extra allocations, 2 us apart with a combined Error of 0.71 us.
        assert!(rendered.contains(" 1.05x |"), "{rendered}");
        assert!(rendered.contains("| yes "), "{rendered}");
        assert!(rendered.contains("| met"), "{rendered}");
        // ureq: 1.50x; awc: within noise in time, but 9 extra allocations.
        assert!(rendered.contains("NOT met: 1.50x"), "{rendered}");
        assert!(rendered.contains("| no "), "{rendered}");
        assert!(rendered.contains("NOT met: +9.0 allocs"), "{rendered}");
        // A row without bare figures has no line.
        assert_eq!(
            rendered
                .lines()
                .filter(|line| line.contains("isahc"))
                .count(),
            0
        );
    }

    fn calibration(protocol: Protocol, failures: u64, mock_cpu_us: f64) -> CalibrationRow {
        CalibrationRow {
            protocol,
            calls: 100,
            failures,
            mean_us: (failures < 100).then_some(25.0),
            error_us: None,
            round_means_us: Vec::new(),
            mock_cpu_us: Some(mock_cpu_us),
            first_error: (failures > 0).then(|| "the connection closed mid-response".to_owned()),
        }
    }

    #[test]
    fn the_mock_target_is_judged_only_on_calls_all_answered() {
        let answered = [
            calibration(Protocol::Https, 0, 10.0),
            calibration(Protocol::H2, 0, 20.0),
        ];
        let line = calibration_target(&answered).unwrap();
        assert!(
            line.contains("2.00x (target at most 1.15x: NOT met)"),
            "{line}"
        );
        let failed = [
            calibration(Protocol::Https, 100, 0.0),
            calibration(Protocol::H2, 0, 1.0),
        ];
        let line = calibration_target(&failed).unwrap();
        assert!(line.contains("not measured"), "{line}");
        assert!(line.contains("failed 100 of 100 calls"), "{line}");
        assert!(!line.contains("met"), "{line}");
    }

    #[test]
    fn larger_answers_are_a_table_of_their_own_against_the_ordinary_one() {
        let ordinary = [
            row(ClientName::Hyper, Protocol::Http, 40.0),
            row(ClientName::Hyper, Protocol::Https, 50.0),
            row(ClientName::Ureq, Protocol::Http, 80.0),
        ];
        let sized = |client, bytes, mean_us| LatencyRow {
            body_bytes: Some(bytes),
            ..row(client, Protocol::Http, mean_us)
        };
        let streamed = LatencyRow {
            decode: bench_model::Decode::Streamed,
            peak_bytes: Some(1_100_000.0),
            ..sized(ClientName::Hyper, 1_048_576, 2_400.0)
        };
        let bodies = [
            streamed,
            LatencyRow {
                peak_bytes: Some(2_200_000.0),
                ..sized(ClientName::Hyper, 1_048_576, 2_000.0)
            },
            sized(ClientName::Ureq, 16_384, 160.0),
            sized(ClientName::Hyper, 16_384, 120.0),
        ];
        let table = bodies_table(&ordinary, &bodies);
        let cells: Vec<(&str, &str, &str)> = table
            .rows
            .iter()
            .map(|row| (row[0].as_str(), row[2].as_str(), row[9].as_str()))
            .collect();
        assert_eq!(
            cells,
            [
                ("ureq", "whole", "2.0x"),
                ("hyper", "whole", "3.0x"),
                ("hyper", "whole", "50.0x"),
                ("hyper", "streamed", "60.0x")
            ],
            "by size, whole before streamed, then in the suite's order; against the same \
             client over http"
        );
        assert_eq!(table.rows[0][8], "not measured", "no peak in the row");
        // The streamed row against the same client's whole row: time, then peak heap.
        assert_eq!(table.rows[3][10], "1.20x, 0.50x");
        assert_eq!(table.rows[2][10], "-");
    }
}
