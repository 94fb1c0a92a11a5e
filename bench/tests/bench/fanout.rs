//! The fanout suite end to end: a child api in front of an in-process mock-rates.

use mock_rates::{Faults, MockServer, Settings};
use serde_json::Value;

use crate::{positive, run_ok, scratch_dir};

const LATENCY_MS: f64 = 20.0;

fn find<'a>(rows: &'a [Value], client: &str, mode: &str, size: u64) -> &'a Value {
    rows.iter()
        .find(|row| row["client"] == client && row["mode"] == mode && row["group_size"] == size)
        .unwrap_or_else(|| panic!("no row {client} {mode} {size}"))
}

#[test]
fn groups_overlap_in_concurrent_mode_and_every_payment_reaches_the_upstream() {
    let server = MockServer::start(Settings::default()).unwrap();
    let out = scratch_dir("fanout");
    let results = run_ok(
        &[
            "--suite",
            "fanout",
            "--clients",
            "hyper,ureq",
            "--group-sizes",
            "4,2",
            "--upstream-latency-ms",
            "20",
            "--fanout-repetitions",
            "1",
            "--mock-url",
            &server.base_url(),
        ],
        &out,
    );
    let settings = &results["settings"]["fanout"];
    assert_eq!(settings["upstream_latency_ms"], 20);
    assert_eq!(settings["group_sizes"], serde_json::json!([2, 4]));
    assert_eq!(settings["repetitions"], 1);
    assert_eq!(settings["sequential_repetitions"], 1);

    let rows = results["fanout"].as_array().unwrap();
    assert_eq!(rows.len(), 8, "2 clients x 2 modes x 2 sizes");
    for client in ["hyper", "ureq"] {
        for mode in ["sequential", "concurrent"] {
            for size in [2_u64, 4] {
                let row = find(rows, client, mode, size);
                assert_eq!(row["failures"], 0, "{row}");
                assert_eq!(row["repetitions"], 1, "{row}");
                assert_eq!(
                    row["upstream_calls"], size,
                    "one upstream call per payment: {row}"
                );
                let wall = positive(row, "wall_ms_median");
                positive(row, "efficiency");
                // The bench's request time contains the api's wall time.
                assert!(positive(row, "request_ms_median") >= wall, "{row}");
                let ideal = row["ideal_ms"].as_f64().unwrap();
                let expected = if mode == "sequential" {
                    size as f64 * LATENCY_MS
                } else {
                    LATENCY_MS
                };
                assert!((ideal - expected).abs() < 1e-9, "{row}");
                // Each upstream call sleeps the added latency: the mock really had it.
                assert!(wall >= ideal, "{row}");
                assert!(row["max_connections"].as_u64().unwrap() >= 1, "{row}");
                assert_eq!(
                    row["blocking_threads"].is_u64(),
                    client == "ureq",
                    "only ureq has a blocking pool: {row}"
                );
            }
        }
        // The overlap happened: four calls at once took less than four in a row.
        let concurrent = find(rows, client, "concurrent", 4)["wall_ms_median"].as_f64();
        let sequential = find(rows, client, "sequential", 4)["wall_ms_median"].as_f64();
        assert!(
            concurrent.unwrap() < sequential.unwrap(),
            "{client}: {rows:?}"
        );
    }

    // Per client: an un-timed warm-up group of 4, then 2 + 4 concurrent and 2 + 4 sequential.
    assert_eq!(server.state().stats().live_requests, 2 * (4 + 6 + 6));
    // The suite removed the latency it added.
    assert_eq!(server.state().faults(), Faults::default());

    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    for text in [
        "## fanout",
        "fanout, sequential, upstream over http: wall time of a group",
        "fanout, concurrent, upstream over http: wall time of a group",
        "| 4 requests |",
        "Overlap caps in effect",
        "ureq max_connections",
        "![fanout_wall_time.svg](fanout_wall_time.svg)",
    ] {
        assert!(report.contains(text), "report.md lacks {text:?}");
    }
    for file in ["fanout_wall_time.svg", "fanout_concurrent.svg"] {
        assert!(out.join(file).is_file(), "{file} missing");
    }
}

#[test]
fn over_h2_groups_are_streams_and_the_stream_limit_is_met_and_reported() {
    let out = scratch_dir("fanout-h2");
    let results = run_ok(
        &[
            "--suite",
            "fanout",
            "--protocol",
            "h2",
            "--clients",
            "hyper,ureq",
            "--group-sizes",
            "4,12",
            "--upstream-latency-ms",
            "20",
            "--fanout-repetitions",
            "1",
            "--h2-stream-limit",
            "4",
        ],
        &out,
    );
    assert_eq!(results["settings"]["fanout"]["h2_stream_limit"], 4);
    let rows = results["fanout"].as_array().unwrap();
    // hyper only (ureq speaks HTTP/1.1 only), concurrent only, without and with the limit.
    assert_eq!(rows.len(), 4, "{rows:?}");
    for row in rows {
        assert_eq!(row["client"], "hyper", "{row}");
        assert_eq!(row["protocol"], "h2", "{row}");
        assert_eq!(row["mode"], "concurrent", "{row}");
        assert_eq!(row["failures"], 0, "{row}");
        assert_eq!(row["tls"]["http_version"], "HTTP/2", "{row}");
        let size = row["group_size"].as_u64().unwrap();
        // One stream per payment, counted by the mock, and peaks that a batch can reach.
        assert_eq!(row["h2"]["streams"], size, "{row}");
        let peak_streams = row["h2"]["peak_streams"].as_u64().unwrap();
        let peak_connections = row["h2"]["peak_connections"].as_u64().unwrap();
        assert!(peak_streams >= 1 && peak_connections >= 1, "{row}");
        assert!(peak_streams * peak_connections >= size.min(4), "{row}");
        match row["stream_limit"].as_u64() {
            // The mock never lets more streams than its limit open on one connection.
            Some(limit) => {
                assert_eq!(limit, 4, "{row}");
                assert!(peak_streams <= limit, "{row}");
            }
            None => assert!(peak_streams <= size, "{row}"),
        }
        assert!(row["warm_up_connections"].as_u64().unwrap() >= 1, "{row}");
    }
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    for text in [
        "fanout, concurrent, upstream over h2: wall time of a group",
        "fanout, concurrent, upstream over h2 with a stream limit of 4: wall time",
        "fanout over h2 at the server's stream limit: a concurrent group of 12",
        "fanout over h2: a concurrent group of 12 against the targets",
        "| Opened (warm-up) |",
        "ureq speaks HTTP/1.1 only, by design: no rows over h2.",
        "hyper over h2 (4 streams) ",
    ] {
        assert!(report.contains(text), "report.md lacks {text:?}");
    }
}
