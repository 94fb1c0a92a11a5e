//! Whole runs: what results.json, report.md and the charts hold.

use mock_rates::{FaultMode, Faults, MockServer, Settings};

use crate::{bench, positive, read_json, run_ok, scratch_dir};

const CLIENTS: [&str; 6] = [
    "hyper",
    "awc",
    "reqwest",
    "ureq",
    "reqwest-blocking",
    "isahc",
];
/// awc, reqwest and ureq with their other TLS backends: rows over https only, by default.
const OTHER_BACKENDS: [&str; 3] = ["awc-openssl", "reqwest-native-tls", "ureq-native-tls"];
/// The clients that speak HTTP/2: rows over h2, by default with their default backends.
const H2_CLIENTS: [&str; 5] = ["hyper", "awc", "reqwest", "reqwest-blocking", "isahc"];

#[test]
fn latency_runs_every_client_through_the_mock_child_process() {
    let out = scratch_dir("latency");
    let results = run_ok(
        &[
            "--suite",
            "latency",
            "--samples",
            "2",
            "--iterations",
            "5",
            "--warmup",
            "2",
        ],
        &out,
    );
    assert_eq!(results["schema_version"], 3);
    assert_eq!(results["settings"]["calls_per_sample"], 5);
    assert_eq!(results["settings"]["rounds"], 3);
    assert!(
        results["environment"]["rustc"]
            .as_str()
            .unwrap()
            .starts_with("rustc ")
    );
    let rows = results["latency"].as_array().unwrap();
    let clients: Vec<&str> = rows
        .iter()
        .map(|row| row["client"].as_str().unwrap())
        .collect();
    // Every client over http, then every client and backend over https, then the clients
    // that speak HTTP/2 over h2 (the default protocols).
    let https_rows = CLIENTS.len() + OTHER_BACKENDS.len();
    assert_eq!(
        clients,
        [
            &CLIENTS[..],
            &CLIENTS[..],
            &OTHER_BACKENDS[..],
            &H2_CLIENTS[..]
        ]
        .concat()
    );
    assert_eq!(
        results["settings"]["protocols"],
        serde_json::json!(["http", "https", "h2"])
    );
    for (index, row) in rows.iter().enumerate() {
        if index < CLIENTS.len() {
            assert_eq!(row["protocol"], "http", "{row}");
            assert!(row.get("tls").is_none(), "{row}");
        } else {
            let over_https = index < CLIENTS.len() + https_rows;
            check_tls(row, if over_https { "https" } else { "h2" });
        }
        assert_eq!(row["calls"], 10, "{row}");
        assert_eq!(row["failures"], 0, "{row}");
        for field in [
            "mean_us",
            "error_us",
            "stddev_us",
            "median_us",
            "p99_us",
            "ratio",
            "allocs_per_op",
            "bytes_per_op",
        ] {
            positive(row, field);
        }
        assert!(row["ratio_sd"].as_f64().unwrap() >= 0.0, "{row}");
        // Each client opens at least one connection of its own.
        assert!(row["connections_opened"].as_u64().unwrap() >= 1, "{row}");
        check_bare_and_rounds(row);
    }
    check_calibration_and_unpinned(&results);
    // Each protocol's rows are compared with hyper over the same protocol.
    assert_eq!(rows[0]["ratio"], 1.0);
    assert_eq!(rows[CLIENTS.len()]["ratio"], 1.0);
    assert_eq!(rows[CLIENTS.len() + https_rows]["ratio"], 1.0);
    assert!(report_mentions_ureq_over_h2(&out));
    assert!(results["decode"].as_array().unwrap().is_empty());
    for file in ["report.md", "latency_mean.svg", "latency_allocations.svg"] {
        assert!(out.join(file).is_file(), "{file} missing");
    }
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("libcurl's own malloc (isahc) is not counted"));
    assert!(report.contains("what the port and the adapter cost"));
    assert!(report.contains("the instrument, mock-rates called by a minimal client"));
    assert!(out.join("verdict.svg").is_file());
}

/// A latency row's bare call, rounds and the mock's CPU: two samples of five calls.
fn check_bare_and_rounds(row: &serde_json::Value) {
    // The same client called bare, sample for sample.
    let bare = &row["bare"];
    assert_eq!(bare["calls"], 10, "{row}");
    assert_eq!(bare["failures"], 0, "{row}");
    assert_eq!(
        bare["sample_means_us"].as_array().unwrap().len(),
        2,
        "{row}"
    );
    for field in ["mean_us", "overhead", "allocs_per_op"] {
        positive(bare, field);
    }
    // Its own client, so its own connection.
    assert!(bare["connections_opened"].as_u64().unwrap() >= 1, "{row}");
    // Two samples: two rounds (never more rounds than samples), each with its mean and
    // allocations; the mock's own CPU read around the samples.
    assert_eq!(row["round_means_us"].as_array().unwrap().len(), 2, "{row}");
    assert_eq!(
        row["round_allocs_per_op"].as_array().unwrap().len(),
        2,
        "{row}"
    );
    positive(row, "mock_cpu_us");
    assert!(row.get("unchecked").is_none(), "{row}");
}

/// The instrument (a minimal client per protocol, beside the clients) and, when the suite
/// pinned itself, the clients over http once more unpinned.
fn check_calibration_and_unpinned(results: &serde_json::Value) {
    // The instrument: a minimal client per protocol, beside the clients.
    let calibration = results["calibration"].as_array().unwrap();
    let protocols: Vec<&str> = calibration
        .iter()
        .map(|row| row["protocol"].as_str().unwrap())
        .collect();
    assert_eq!(protocols, ["http", "https", "h2"]);
    for row in calibration {
        assert_eq!(row["calls"], 10, "{row}");
        assert_eq!(row["failures"], 0, "{row}");
        positive(row, "mean_us");
        positive(row, "mock_cpu_us");
    }
    // Pinned (where the machine has a CPU to pin to), the clients over http once more,
    // unpinned.
    if !results["settings"]["latency_cpu"].is_null() {
        let unpinned: Vec<&str> = results["latency_unpinned"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| row["client"].as_str().unwrap())
            .collect();
        assert_eq!(unpinned, CLIENTS);
    }
}

/// A latency row over TLS: what mock-rates counted, one TLS 1.3 handshake per connection the
/// client opened, each choosing the protocol's HTTP version by ALPN, and the adapter's backend.
fn check_tls(row: &serde_json::Value, protocol: &str) {
    assert_eq!(row["protocol"], protocol, "{row}");
    let http_version = if protocol == "h2" {
        "HTTP/2"
    } else {
        "HTTP/1.1"
    };
    assert_eq!(row["tls"]["version"], "TLSv1.3", "{row}");
    assert_eq!(row["tls"]["http_version"], http_version, "{row}");
    assert_eq!(row["tls"]["handshakes"], row["connections_opened"], "{row}");
    // The backend is the adapter's: rustls for the bare names but isahc's libcurl (over rustls).
    let backend = row["tls"]["backend"].as_str().unwrap();
    let expected = match row["client"].as_str().unwrap() {
        "isahc" => "libcurl (rustls)",
        "awc-openssl" => "openssl",
        "reqwest-native-tls" | "ureq-native-tls" => "native-tls",
        _ => "rustls",
    };
    assert_eq!(backend, expected, "{row}");
}

/// Whether the report says why ureq has no h2 rows.
fn report_mentions_ureq_over_h2(out: &std::path::Path) -> bool {
    std::fs::read_to_string(out.join("report.md"))
        .unwrap()
        .contains("ureq speaks HTTP/1.1 only, by design: no rows over h2.")
}

#[test]
fn every_call_reaches_an_external_mock_and_is_counted() {
    let server = MockServer::start(Settings::default()).unwrap();
    let out = scratch_dir("external");
    let results = run_ok(
        &[
            "--suite",
            "latency",
            "--clients",
            "ureq,hyper",
            "--samples",
            "1",
            "--iterations",
            "3",
            "--warmup",
            "1",
            "--mock-url",
            &server.base_url(),
        ],
        &out,
    );
    // Two clients x (1 warm-up + 3 timed calls) x (through the port, and bare), and the
    // minimal client's 1 + 3, each one awaited upstream request.
    assert_eq!(server.state().stats().live_requests, 20);
    let rows = results["latency"].as_array().unwrap();
    for row in rows {
        assert_eq!(row["calls"], 3, "{row}");
        assert_eq!(row["bare"]["calls"], 3, "{row}");
    }
    // A mock given by URL serves plain HTTP: the https rows are left out.
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["client"], "ureq");
    assert_eq!(rows[0]["protocol"], "http");
    assert!(rows[0]["error_us"].is_null(), "one sample has no Error");
    assert_eq!(results["settings"]["mock"], server.base_url());
    // Not the bench's process: the mock's CPU is not read, and is not made up.
    assert!(rows[0].get("mock_cpu_us").is_none(), "{}", rows[0]);
    assert_eq!(results["calibration"][0]["calls"], 3);
}

#[test]
fn failed_calls_are_counted_and_never_timed() {
    let settings = Settings {
        faults: Faults {
            mode: FaultMode::Status,
            status: 503,
            ..Faults::default()
        },
        ..Settings::default()
    };
    let server = MockServer::start(settings).unwrap();
    let out = scratch_dir("failing");
    let results = run_ok(
        &[
            "--suite",
            "latency",
            "--clients",
            "hyper,awc",
            "--samples",
            "2",
            "--iterations",
            "2",
            "--warmup",
            "0",
            "--mock-url",
            &server.base_url(),
        ],
        &out,
    );
    for row in results["latency"].as_array().unwrap() {
        assert_eq!(row["failures"], 4, "{row}");
        assert!(row["mean_us"].is_null() && row["p99_us"].is_null(), "{row}");
        assert!(
            row["first_error"].as_str().unwrap().contains("503"),
            "{row}"
        );
        // The bare calls fail alike, and have no time either.
        let bare = &row["bare"];
        assert_eq!(bare["failures"], 4, "{row}");
        assert!(
            bare["mean_us"].is_null() && bare["overhead"].is_null(),
            "{row}"
        );
        assert!(
            bare["first_error"].as_str().unwrap().contains("503"),
            "{row}"
        );
    }
}

#[test]
fn decode_compares_five_ways_and_a_baseline_compares_two_runs() {
    let first_dir = scratch_dir("decode-first");
    let first = run_ok(
        &["--suite", "decode", "--quick", "--samples", "2"],
        &first_dir,
    );
    let rows = first["decode"].as_array().unwrap();
    assert_eq!(rows.len(), 10, "five ways x two bodies");
    for row in rows {
        for field in [
            "mean_ns",
            "error_ns",
            "median_ns",
            "ratio",
            "allocs_per_op",
            "bytes_per_op",
        ] {
            positive(row, field);
        }
    }
    assert!(first["latency"].as_array().unwrap().is_empty());

    let second_dir = scratch_dir("decode-second");
    let baseline = first_dir.join("results.json");
    let second = run_ok(
        &[
            "--suite",
            "decode",
            "--quick",
            "--samples",
            "2",
            "--baseline",
            baseline.to_str().unwrap(),
        ],
        &second_dir,
    );
    let changes = second["baseline"]["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 10);
    for change in changes {
        positive(change, "ratio");
        assert!(change["significant"].is_boolean(), "{change}");
    }
    let report = std::fs::read_to_string(second_dir.join("report.md")).unwrap();
    assert!(report.contains("Change against the baseline"));
    assert!(report.contains("The adapters use `borrowed_typed`"));
    assert!(second_dir.join("decode_small.svg").is_file());
    assert_eq!(read_json(&second_dir.join("results.json")), second);
}

#[test]
fn a_bad_baseline_fails_before_measuring() {
    let dir = scratch_dir("bad-baseline");
    let file = dir.join("results.json");
    std::fs::write(&file, r#"{"schema_version": 99}"#).unwrap();
    let output = bench()
        .args(["--suite", "decode", "--baseline"])
        .arg(&file)
        .arg("--out")
        .arg(dir.join("out"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("schema_version 99"));
    assert!(!dir.join("out").exists());
}

#[test]
fn cost_counts_instructions_per_call_under_callgrind_or_says_why_not() {
    let out = scratch_dir("cost");
    let results = run_ok(
        &[
            "--suite",
            "cost",
            "--clients",
            "hyper",
            "--protocol",
            "http",
            "--cost-calls",
            "2,12",
        ],
        &out,
    );
    let rows = results["cost"].as_array().unwrap();
    let valgrind = std::process::Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    if !valgrind {
        assert!(rows.is_empty());
        assert!(
            results["cost_skipped"]
                .as_str()
                .unwrap()
                .contains("valgrind")
        );
        return;
    }
    assert_eq!(rows.len(), 1, "{rows:?}");
    let row = &rows[0];
    assert_eq!(row["client"], "hyper");
    assert_eq!(row["calls"], serde_json::json!([2, 12]));
    let (shorter, longer) = (
        row["instructions"][0].as_u64().unwrap(),
        row["instructions"][1].as_u64().unwrap(),
    );
    assert!(longer > shorter, "{row}");
    // (longer - shorter) / 10 calls, as the row says.
    let per_call = positive(row, "instructions_per_call");
    assert!(
        (per_call - (longer - shorter) as f64 / 10.0).abs() < 1e-6,
        "{row}"
    );
    positive(row, "allocs_per_call");
    // A third run halfway (7 calls): the figure again from each half.
    let halves = row["round_instructions_per_call"].as_array().unwrap();
    assert_eq!(halves.len(), 2, "{row}");
    for half in halves {
        assert!(half.as_f64().unwrap() > 0.0, "{row}");
    }
    assert_eq!(row["ratio"], 1.0, "hyper is its own baseline: {row}");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("cost: CPU instructions per call under callgrind"));
}

#[test]
fn a_saved_run_is_rendered_again_without_measuring() {
    let first = scratch_dir("rerender-run");
    run_ok(&["--quick", "--suite", "decode"], &first);
    let again = scratch_dir("rerender-again");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_bench"))
        .arg("report")
        .arg(first.join("results.json"))
        .arg("--out")
        .arg(&again)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    // The answer, and where the report is; the suites' tables only with --tables.
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("The answer: a pick per use case")
            && stdout.contains(&again.join("report.html").display().to_string())
            && !stdout.contains("decode: small body"),
        "{stdout}"
    );
    let tables = std::process::Command::new(env!("CARGO_BIN_EXE_bench"))
        .arg("report")
        .arg(first.join("results.json"))
        .args(["--out", &again.display().to_string(), "--tables"])
        .output()
        .unwrap();
    assert!(tables.status.success(), "{tables:?}");
    let printed = String::from_utf8_lossy(&tables.stdout);
    assert!(printed.contains("decode: small body"), "{printed}");
    assert!(
        printed.find("decode: small body") < printed.find("The answer: a pick per use case"),
        "the tables, then the answer: {printed}"
    );
    let read = |dir: &std::path::Path| std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert_eq!(
        read(&again),
        read(&first),
        "the same results give the same report"
    );
    assert!(again.join("decode_small.svg").is_file());
    let page = |dir: &std::path::Path| std::fs::read_to_string(dir.join("report.html")).unwrap();
    let html = page(&again);
    assert_eq!(html, page(&first), "the same results give the same page");
    assert!(html.contains("<section id=\"decode\" data-suite=\"decode\">"));
    assert!(html.contains("<figure class=\"chart\" id=\"chart-decode-small-svg\">\n<svg"));
    assert!(!html.contains("<img"), "the charts are inlined");
    assert!(
        !again.join("results.json").exists(),
        "nothing is measured or rewritten"
    );
    // A file that is not a results.json is refused, saying so.
    let refused = std::process::Command::new(env!("CARGO_BIN_EXE_bench"))
        .arg("report")
        .arg(again.join("report.md"))
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("is not a results.json"));
}

#[test]
fn two_saved_runs_are_held_side_by_side_by_bench_verdict() {
    let runs: Vec<std::path::PathBuf> = (0..2)
        .map(|index| {
            let out = scratch_dir(&format!("verdict-run-{index}"));
            run_ok(
                &[
                    "--suite",
                    "latency",
                    "--protocol",
                    "http",
                    "--clients",
                    "hyper,awc",
                    "--samples",
                    "3",
                    "--iterations",
                    "5",
                    "--warmup",
                    "2",
                    "--no-pin",
                ],
                &out,
            );
            out.join("results.json")
        })
        .collect();
    let markdown = scratch_dir("verdict-out").join("verdict.md");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_bench"))
        .arg("verdict")
        .args(&runs)
        .arg("--out")
        .arg(&markdown)
        .output()
        .unwrap();
    crate::assert_success(&output);
    let printed = String::from_utf8_lossy(&output.stdout);
    for text in [
        "verdict across runs: the pick of each run",
        "verdict across runs: per criterion",
        "| Per-call latency, http",
        "Run 1",
        "Run 2",
        "verdict of the runs together",
    ] {
        assert!(printed.contains(text), "{text:?} missing from\n{printed}");
    }
    let written = std::fs::read_to_string(&markdown).unwrap();
    assert!(written.starts_with("\n## Verdict across runs"), "{written}");
    // One file is no comparison.
    let refused = std::process::Command::new(env!("CARGO_BIN_EXE_bench"))
        .arg("verdict")
        .arg(&runs[0])
        .output()
        .unwrap();
    assert!(!refused.status.success());
}
