use serde_json::json;

use super::*;

fn results_with(comparison: serde_json::Value) -> Results {
    let settings = bench_model::test_rows::default_settings();
    let mut results = Results::new(bench_model::test_rows::environment("now"), settings);
    results.baseline = Some(serde_json::from_value(comparison).unwrap());
    results
}

fn judged(
    baseline: &serde_json::Value,
    now: &serde_json::Value,
    significant: Option<bool>,
    rule: &str,
) -> serde_json::Value {
    json!({"baseline": baseline, "now": now, "significant": significant, "rule": rule})
}

fn comparison() -> serde_json::Value {
    let same_failures = judged(&json!(0), &json!(0), Some(false), "none in either run");
    let outcome = |kind: &str, status: u16, next_ok: bool| json!({"kind": kind, "status": status, "next_ok": next_ok, "hung": false});
    json!({
        "file": "then/results.json",
        "baseline_started_utc": "2026-01-01T00:00:00Z",
        "changes": [],
        "load": [{
            "scenario": "POST /payments/hyper", "client": "hyper", "protocol": "http",
            "target_rps": {"baseline": 480, "now": 480},
            "mean_us": judged(&json!(300.0), &json!(600.0), Some(true), "|+300.0| > 13.4 us (3.29 SE)"),
            "p99_us": {"baseline": 900.0, "now": 1800.0},
            "failures": same_failures,
        }, {
            "scenario": "GET /health/live", "client": null, "protocol": "http",
            "target_rps": {"baseline": 480, "now": 200},
            "mean_us": judged(&json!(170.0), &json!(172.0), Some(false), "|+2.0| <= 13.4 us (3.29 SE)"),
            "p99_us": {"baseline": 650.0, "now": 640.0},
            "failures": judged(&json!(0), &json!(3), Some(true), "0 -> 3: none and some always differ"),
        }],
        "fanout": [{
            "client": "ureq", "protocol": "http", "mode": "concurrent", "group_size": 70,
            "batches": {"baseline": 3, "now": 3},
            "wall_ms_median": judged(&json!(105.0), &json!(55.0), None, "3 and 3 batches: too few for p <= 0.001 (7 each)"),
            "failures": same_failures,
            "connections_opened": judged(&json!(64), &json!(70), Some(false), "64 of 210 -> 70 of 210: |+2.86%| <= 17.49% (3.29 Poisson SE)"),
        }],
        "faults": [{
            "client": "awc", "fault": "reset",
            "outcome": {
                "baseline": outcome("connect", 502, true),
                "now": outcome("timeout", 504, true),
                "significant": true, "rule": "kind connect -> timeout, status 502 -> 504",
            },
            "elapsed_ms": judged(&json!(2.0), &json!(2001.0), Some(false), "within 1.5 x the timeout in both runs"),
            "timeout_ms": {"baseline": 2000, "now": 2000},
        }, {
            "client": "hyper", "fault": "reset",
            "outcome": {
                "baseline": outcome("connect", 502, true),
                "now": outcome("connect", 502, true),
                "significant": false, "rule": "kind, status, next payment and hang the same",
            },
            "elapsed_ms": judged(&json!(2.0), &json!(3.0), Some(false), "within 1.5 x the timeout in both runs"),
            "timeout_ms": {"baseline": 2000, "now": 2000},
        }],
        "not_compared": ["decode: the baseline has no decode rows"],
    })
}

#[test]
fn every_suite_gets_its_table_and_the_rule_under_it() {
    let results = results_with(comparison());
    let section = section(&results).unwrap();
    let terminal = section.terminal();
    for text in [
        "Rows changed beyond their noise: load 2 of 2, fanout 0 of 1 (1 cannot tell), faults 1 of 2.",
        "load: open model, change against then/results.json",
        "| POST /payments/hyper ",
        "0.300 ms -> 0.600 ms",
        "2.000 |",
        "| slower ",
        "mean: |+300.0| > 13.4 us (3.29 SE)",
        "GET /health/live (at 480 then, 200 RPS now)",
        "| failures appeared ",
        "failures: 0 -> 3: none and some always differ",
        "lower bound on the noise",
        "| ureq   | concurrent |",
        "105 ms -> 55.0 ms",
        "| wall: cannot tell; rest same |",
        "wall: 3 and 3 batches: too few for p <= 0.001 (7 each)",
        "Mann-Whitney U",
        "--fanout-repetitions 7",
        "502 connect -> 504 timeout",
        "| outcome changed ",
        "1 of 2 cells are the same in every respect",
        "Not compared: decode: the baseline has no decode rows.",
    ] {
        assert!(terminal.contains(text), "{text:?} missing from\n{terminal}");
    }
    // Unchanged fault cells are counted, not listed; no latency rows, no latency table.
    assert!(!terminal.contains("| hyper  | reset"), "{terminal}");
    assert!(!terminal.contains("latency, decode and cost"), "{terminal}");
    let markdown = section.markdown();
    assert!(markdown.contains("Baseline: `then/results.json`, started 2026-01-01T00:00:00Z"));
    assert!(markdown.contains("### fanout: change against then/results.json"));
}

#[test]
fn an_older_comparison_shows_its_mean_rows_alone() {
    let results = results_with(json!({
        "file": "old.json",
        "baseline_started_utc": null,
        "changes": [{
            "suite": "latency", "row": "hyper http", "unit": "us", "baseline_mean": 100.0,
            "mean": 90.0, "ratio": 0.9, "combined_error": 5.0, "significant": true,
            "baseline_allocs_per_op": 19.0, "allocs_per_op": 19.0,
        }],
    }));
    let terminal = section(&results).unwrap().terminal();
    assert!(
        terminal.contains("Rows changed beyond their noise: latency 1 of 1."),
        "{terminal}"
    );
    assert!(terminal.contains("| faster "), "{terminal}");
    assert!(
        terminal.contains("Decided by the combined Error"),
        "{terminal}"
    );
    for absent in ["load:", "capacity:", "fanout:", "faults:", "Not compared"] {
        assert!(!terminal.contains(absent), "{absent:?} in\n{terminal}");
    }
}
