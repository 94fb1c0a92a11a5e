//! The load suite end to end: tiny open-model runs in rounds against the bench's own child
//! processes, and failures counted against a server that answers wrongly.

use mock_rates::{MockServer, Settings};
use serde_json::Value;

use crate::{positive, run_ok, scratch_dir};

/// Over http, then over https (without the health check, which does not reach the upstream),
/// then over h2 (without ureq, which speaks HTTP/1.1 only).
const SCENARIOS: [&str; 6] = [
    "GET /health/live",
    "POST /payments/hyper",
    "POST /payments/ureq",
    "POST /payments/hyper",
    "POST /payments/ureq",
    "POST /payments/hyper",
];

fn rows_of<'a>(results: &'a Value, suite: &str) -> &'a Vec<Value> {
    results[suite].as_array().unwrap()
}

fn scenarios(rows: &[Value]) -> Vec<&str> {
    rows.iter()
        .map(|row| row["scenario"].as_str().unwrap())
        .collect()
}

#[test]
fn every_scenario_completes_its_requests_without_a_failure() {
    let out = scratch_dir("load");
    let results = run_ok(
        &[
            "--suite",
            "load",
            "--rps",
            "100",
            "--duration",
            "0.5",
            "--clients",
            "hyper,ureq",
            "--rounds",
            "2",
            "--load-body",
            "64k",
            "--load-body-rps",
            "20",
        ],
        &out,
    );
    let settings = &results["settings"]["load"];
    assert_eq!(settings["rps"], 100);
    assert_eq!(settings["duration_ms"], 500);
    assert_eq!(settings["large_body"]["bytes"], 65_536);
    let (rows, larger): (Vec<Value>, Vec<Value>) = rows_of(&results, "load")
        .iter()
        .cloned()
        .partition(|row| row.get("body_bytes").is_none());
    assert_eq!(scenarios(&rows), SCENARIOS);
    check_larger_answers(&larger);
    let rows = &rows;
    for row in rows {
        assert_eq!(row["scheduled"], 50, "{row}");
        assert!(row["ok"].as_u64().unwrap() > 0, "{row}");
        assert_eq!(row["fail"], 0, "{row}");
        assert_eq!(row["skipped"], 0, "{row}");
        assert_eq!(row["status_codes"][0]["status"], 200, "{row}");
        for field in [
            "achieved_rps",
            "min_us",
            "mean_us",
            "max_us",
            "p50_us",
            "p99_us",
            "p999_us",
            "uncorrected_p99_us",
            "bytes_received",
            "api_peak_rss_kib",
        ] {
            positive(row, field);
        }
        positive(row, "api_cpu_s");
        // Two rounds of 0.25 s, each with its own requests and the service's CPU.
        let rounds = row["rounds"].as_array().unwrap();
        assert_eq!(rounds.len(), 2, "{row}");
        for round in rounds {
            assert_eq!(round["ok"], 25, "{row}");
            positive(round, "api_cpu_s");
        }
        assert!(row["mock_connections"].as_u64().is_some(), "{row}");
        assert!(!row["percentiles"].as_array().unwrap().is_empty(), "{row}");
    }
    for (index, row) in rows.iter().enumerate() {
        if index < 3 {
            assert_eq!(row["protocol"], "http", "{row}");
            assert!(row.get("tls").is_none(), "{row}");
        } else {
            // Against the payment service of the bench's own that calls a mock over TLS:
            // what mock-rates counted, within the pool's bound.
            let (protocol, http_version) = if index < 5 {
                ("https", "HTTP/1.1")
            } else {
                ("h2", "HTTP/2")
            };
            assert_eq!(row["protocol"], protocol, "{row}");
            assert_eq!(row["tls"]["version"], "TLSv1.3", "{row}");
            assert_eq!(row["tls"]["http_version"], http_version, "{row}");
            let handshakes = row["tls"]["handshakes"].as_u64().unwrap();
            assert!(handshakes >= 1, "{row}");
            assert!(handshakes <= row["pool_bound"].as_u64().unwrap(), "{row}");
            assert!(row["mock_tls_handshakes"].as_u64().is_some(), "{row}");
        }
        assert!(row["api_busy_after_ms"].as_u64().is_some(), "{row}");
    }
    // The health check never reaches the upstream; every payment does.
    assert_eq!(rows[0]["upstream_calls"], 0);
    assert_eq!(rows[1]["upstream_calls"], rows[1]["ok"]);
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("## load"));
    assert!(report.contains("load: targets (measured, not asserted)"));
    assert!(report.contains("load over https: TLS handshakes mock-rates counted"));
    assert!(report.contains("load: what TLS to the upstream costs the service"));
    assert!(report.contains("load: payments whose upstream answer is 64 KiB (20 RPS)"));
    assert!(report.contains("| CPU per request, 64 KiB answer"));
    assert!(out.join("load_percentiles.svg").is_file());
}

/// The payments over http again, each upstream answer 64 KiB, at 20 RPS for 0.5 s.
fn check_larger_answers(larger: &[Value]) {
    assert_eq!(
        scenarios(larger),
        ["POST /payments/hyper", "POST /payments/ureq"]
    );
    for row in larger {
        assert_eq!(row["body_bytes"], 65_536, "{row}");
        assert_eq!(row["protocol"], "http", "{row}");
        assert_eq!(row["scheduled"], 10, "{row}");
        assert_eq!(row["fail"], 0, "{row}");
        assert_eq!(row["upstream_calls"], row["ok"], "{row}");
        positive(row, "api_cpu_s");
    }
}

#[test]
fn wrong_answers_are_counted_as_failures() {
    // mock-rates posing as the payment service: every path of the api is a 404 there.
    let server = MockServer::start(Settings::default()).unwrap();
    let out = scratch_dir("load-failing");
    let results = run_ok(
        &[
            "--suite",
            "load",
            "--rps",
            "40",
            "--duration",
            "0.25",
            "--clients",
            "hyper",
            "--rounds",
            "1",
            "--api-url",
            &server.base_url(),
            "--mock-url",
            &server.base_url(),
        ],
        &out,
    );
    for row in rows_of(&results, "load") {
        assert_eq!(row["ok"], 0, "{row}");
        assert_eq!(row["fail"], 10, "{row}");
        assert_eq!(row["failures"]["status"], 10, "{row}");
        assert_eq!(row["status_codes"][0]["status"], 404, "{row}");
        assert!(row["p99_us"].is_null(), "failures are never timed: {row}");
        assert!(row["api_cpu_s"].is_null(), "not our process: {row}");
        assert!(
            row["first_error"].as_str().unwrap().contains("404"),
            "{row}"
        );
    }
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("NOT met"));
}
