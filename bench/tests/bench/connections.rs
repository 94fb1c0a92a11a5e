//! The connections suite end to end: its own mock-rates children, over http and https.

use mock_rates::{MockServer, Settings};
use serde_json::Value;

use crate::{positive, run_ok, scratch_dir};

fn rows<'a>(results: &'a Value, protocol: &str, mode: &str) -> Vec<&'a Value> {
    results["connections"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| row["protocol"] == protocol && row["mode"] == mode)
        .collect()
}

fn count(row: &Value, field: &str) -> u64 {
    row[field]
        .as_u64()
        .unwrap_or_else(|| panic!("{field} is not a count in {row}"))
}

#[test]
fn every_mode_opens_the_connections_it_says_and_https_rows_give_the_tls_counted() {
    let out = scratch_dir("connections");
    let results = run_ok(
        &[
            "--suite",
            "connections",
            "--quick",
            "--clients",
            "hyper,ureq",
            "--connections-samples",
            "2",
        ],
        &out,
    );
    let all = results["connections"].as_array().unwrap();
    // hyper and ureq: 3 modes over http (no full-vs-resumed there), 4 over https.
    assert_eq!(all.len(), 2 * (3 + 4), "{all:?}");
    for row in all {
        assert!(row.get("withheld").is_none(), "{row}");
        assert_eq!(row["failures"], 0, "{row}");
        positive(row, "mean_us");
        let cpu = row["cpu_user_us_per_call"].as_f64().unwrap()
            + row["cpu_system_us_per_call"].as_f64().unwrap();
        assert!(cpu > 0.0, "{row}");
        let calls = count(row, "calls") + count(row, "warmup_calls");
        if row["mode"] == "pooled" {
            // Opened in the warm-up, reused by every call after it.
            assert_eq!(row["connections_opened"], 1, "{row}");
            assert_eq!(row["ratio_to_pooled"], 1.0, "{row}");
        } else {
            assert_eq!(count(row, "connections_opened"), calls, "{row}");
            assert_eq!(row["connections_per_call"], 1.0, "{row}");
            assert!(row["ratio_to_pooled"].as_f64().unwrap() > 0.0, "{row}");
        }
        if row["protocol"] == "https" {
            assert_eq!(row["tls_version"], "TLSv1.3", "{row}");
        } else {
            assert!(row.get("tls_version").is_none(), "{row}");
        }
    }
    assert!(rows(&results, "http", "new_connection_full").is_empty());
    for row in rows(&results, "https", "new_connection_full") {
        assert_eq!(row["full_handshakes_per_call"], 1.0, "{row}");
        assert_eq!(row["resumed_handshakes_per_call"], 0.0, "{row}");
    }
    // Both keep their TLS sessions in their rustls config and resume them, after the first.
    for row in rows(&results, "https", "new_connection") {
        positive(row, "resumed_handshakes_per_call");
    }
    // A fresh client has no session to resume.
    for row in rows(&results, "https", "built_per_call") {
        assert_eq!(row["full_handshakes_per_call"], 1.0, "{row}");
    }
    let builds = results["construction"].as_array().unwrap();
    assert_eq!(
        builds.len(),
        2 * 3,
        "plain, system roots, + 1 CA per client"
    );
    for build in builds {
        positive(build, "mean_us");
        positive(build, "allocs_per_build");
    }
    assert_eq!(results["settings"]["connections"]["samples"], 2);
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    for text in [
        "### connections over http:",
        "### connections over https:",
        "### connections: building one client",
        "http: new_connection_full left out",
    ] {
        assert!(report.contains(text), "{text:?} missing from report.md");
    }
}

#[test]
fn against_a_mock_given_by_url_https_is_left_out_and_said_so() {
    let server = MockServer::start(Settings::default()).unwrap();
    let out = scratch_dir("connections-external");
    let results = run_ok(
        &[
            "--suite",
            "connections",
            "--quick",
            "--clients",
            "hyper",
            "--connections-samples",
            "1",
            "--mock-url",
            &server.base_url(),
        ],
        &out,
    );
    let modes: Vec<&str> = results["connections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["mode"].as_str().unwrap())
        .collect();
    assert_eq!(modes, ["pooled", "new_connection", "built_per_call"]);
    // Its connections were counted through its own admin endpoint.
    let stats = server.state().stats();
    assert!(stats.connections > 2, "{stats:?}");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("https: left out"), "{report}");
}
