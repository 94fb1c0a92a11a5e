//! A server the bench did not start as the upstream (`--upstream-url`, `--ca-file`): a
//! mock-rates started here, given by URL (and over TLS by its CA in a file) as any other
//! server would be, so that the bench can read none of its counters.

use mock_rates::{MockServer, Settings, TlsSettings};

use crate::{assert_success, bench, positive, read_json, scratch_dir};

#[test]
fn latency_runs_against_a_foreign_https_upstream_its_counters_not_measured() {
    let server = MockServer::start(Settings {
        tls: Some(TlsSettings::default()),
        ..Settings::default()
    })
    .unwrap();
    let out = scratch_dir("upstream-https");
    let ca_file = out.join("upstream-ca.pem");
    std::fs::write(&ca_file, server.ca_pem().unwrap()).unwrap();
    let url = server.base_url();
    assert!(url.starts_with("https://"), "{url}");
    let output = bench()
        .args(["--upstream-url", &url, "--ca-file"])
        .arg(&ca_file)
        .args(["--suite", "latency", "--suite", "faults"])
        .args(["--clients", "hyper,reqwest"])
        .args(["--samples", "2", "--iterations", "3", "--warmup", "1"])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_success(&output);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("faults: skipped with --upstream-url: it needs mock-rates' faults"),
        "{stderr}"
    );
    let results = read_json(&out.join("results.json"));
    let settings = &results["settings"];
    assert_eq!(settings["suites"], serde_json::json!(["latency"]));
    assert_eq!(settings["protocols"], serde_json::json!(["https", "h2"]));
    let upstream = &settings["foreign_upstream"];
    assert_eq!(upstream["url"], url.as_str());
    assert_eq!(upstream["foreign"], true);
    assert_eq!(upstream["ca_file"], ca_file.to_str().unwrap());
    let probes = upstream["probes"].as_array().unwrap();
    assert_eq!(probes.len(), 2, "{upstream}");
    assert_eq!(probes[1]["alpn"], "h2", "{upstream}");
    assert!(
        probes[0]["tls_version"]
            .as_str()
            .unwrap()
            .starts_with("TLSv1.")
    );

    let rows = results["latency"].as_array().unwrap();
    let labels: Vec<(&str, &str)> = rows
        .iter()
        .map(|row| {
            (
                row["client"].as_str().unwrap(),
                row["protocol"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        labels,
        [
            ("hyper", "https"),
            ("reqwest", "https"),
            ("hyper", "h2"),
            ("reqwest", "h2")
        ]
    );
    for row in rows {
        assert_eq!(
            (row["calls"].as_u64(), row["failures"].as_u64()),
            (Some(6), Some(0))
        );
        for field in ["mean_us", "median_us", "p99_us", "allocs_per_op"] {
            positive(row, field);
        }
        // What only mock-rates counts is not measured, and says so; never a number instead.
        assert!(row["connections_opened"].is_null(), "{row}");
        assert!(row["bare"]["connections_opened"].is_null(), "{row}");
        assert!(row.get("mock_cpu_us").is_none(), "{row}");
        assert!(row.get("tls").is_none(), "{row}");
        assert!(row.get("unchecked").is_none(), "a checked figure: {row}");
        let why = &row["not_measured"];
        assert_eq!(why["cause"], "foreign_upstream", "{why}");
        assert_eq!(why["url"], url.as_str(), "{why}");
    }
    assert!(results.get("calibration").is_none(), "{results}");
    assert!(results.get("latency_unpinned").is_none(), "{results}");
    // Every request it got was a client's call: no admin read, no calibration. Two protocols
    // x two clients x (1 warm-up + 2 x 3 timed calls) x (through the port, and bare).
    let stats = server.state().stats();
    assert_eq!(stats.live_requests, 56, "{stats:?}");
    assert_eq!(stats.requests, stats.live_requests, "{stats:?}");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    for text in [
        "a server the bench did not start",
        "(TLS not measured)",
        "Not measured (hyper over https, reqwest over https)",
        "left out: faults",
    ] {
        assert!(
            report.contains(text),
            "{text:?} missing from report.md:\n{report}"
        );
    }
}

#[test]
fn connections_run_against_a_foreign_http_upstream_without_counts() {
    let server = MockServer::start(Settings::default()).unwrap();
    let out = scratch_dir("upstream-http");
    let output = bench()
        .args(["--upstream-url", &server.base_url()])
        .args(["--suite", "connections", "--quick", "--clients", "hyper"])
        .args(["--connections-samples", "1", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_success(&output);
    let results = read_json(&out.join("results.json"));
    assert_eq!(
        results["settings"]["protocols"],
        serde_json::json!(["http"])
    );
    let rows = results["connections"].as_array().unwrap();
    let modes: Vec<&str> = rows
        .iter()
        .map(|row| row["mode"].as_str().unwrap())
        .collect();
    assert_eq!(modes, ["pooled", "new_connection", "built_per_call"]);
    for row in rows {
        // The times stay; the counts that would check the mode are not measured.
        positive(row, "mean_us");
        assert!(row.get("withheld").is_none(), "{row}");
        assert!(row["connections_opened"].is_null(), "{row}");
        assert_eq!(row["not_measured"]["cause"], "foreign_upstream", "{row}");
    }
    let stats = server.state().stats();
    assert_eq!(
        stats.requests, stats.live_requests,
        "no admin read: {stats:?}"
    );
}
