//! The faults suite end to end: its own api child in front of an in-process mock-rates.

use mock_rates::{Faults, MockServer, Settings};
use serde_json::Value;

use crate::{run_ok, scratch_dir};

const CLIENTS: [&str; 2] = ["hyper", "isahc"];
/// Fault name on the command line, in results.json, and the kind and status the api must give.
const FAULTS: [(&str, &str, &str, u64); 5] = [
    ("none", "none", "ok", 200),
    ("status-503", "status_503", "upstream_status", 502),
    ("reset", "reset", "connect", 502),
    ("malformed", "malformed", "malformed", 502),
    ("hang", "hang", "timeout", 504),
];
const TIMEOUT_MS: u64 = 300;
const STORM_PER_CLIENT: u64 = 10;

#[test]
fn every_fault_maps_to_its_kind_and_status_and_nothing_hangs() {
    let server = MockServer::start(Settings::default()).unwrap();
    let out = scratch_dir("faults");
    let faults: Vec<&str> = FAULTS.iter().map(|(flag, ..)| *flag).collect();
    let results = run_ok(
        &[
            "--suite",
            "faults",
            "--clients",
            &CLIENTS.join(","),
            "--faults",
            &faults.join(","),
            "--fault-timeout-ms",
            &TIMEOUT_MS.to_string(),
            "--storm-requests",
            &STORM_PER_CLIENT.to_string(),
            "--mock-url",
            &server.base_url(),
        ],
        &out,
    );
    assert_eq!(results["settings"]["faults"]["timeout_ms"], TIMEOUT_MS);

    let rows = results["faults"].as_array().unwrap();
    assert_eq!(rows.len(), CLIENTS.len() * FAULTS.len());
    for (_, fault, kind, status) in FAULTS {
        for client in CLIENTS {
            let row = find(rows, client, fault);
            assert_eq!(row["expected_kind"], kind, "{row}");
            assert_eq!(row["kind"], kind, "{row}");
            assert_eq!(row["expected_status"], status, "{row}");
            assert_eq!(row["status"], status, "{row}");
            assert_eq!(row["hung"], false, "{row}");
            assert_eq!(row["next_ok"], true, "{row}");
            // The suite's own api child runs with the timeout asked for.
            assert_eq!(row["timeout_ms"], TIMEOUT_MS, "{row}");
            assert!(row["elapsed_ms"].as_f64().unwrap() > 0.0, "{row}");
        }
    }

    let check = &results["fd_check"];
    assert!(check["pid"].is_u64(), "{check}");
    for count in ["before", "after_storm", "after_idle", "after_reuse"] {
        assert!(check[count].as_u64().unwrap() > 0, "{count}: {check}");
    }
    assert_eq!(
        check["storm_requests"],
        STORM_PER_CLIENT * CLIENTS.len() as u64
    );
    assert_eq!(check["storm_unexpected"], 0, "{check}");
    assert_eq!(check["storm_hung"], 0, "{check}");
    assert_eq!(check["reuse_failures"], 0, "{check}");

    // Faults are removed when the suite ends, so later suites find a clean upstream.
    assert_eq!(server.state().faults(), Faults::default());
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("## faults"), "{report}");
    assert!(report.contains("| hang "), "{report}");
}

fn find<'a>(rows: &'a [Value], client: &str, fault: &str) -> &'a Value {
    rows.iter()
        .find(|row| row["client"] == client && row["fault"] == fault)
        .unwrap_or_else(|| panic!("no row for {client} under {fault}"))
}
