//! Rows for tests, with every figure filled in (here and, with the `fixtures` feature, in the
//! reports' tests).

use crate::{
    ClientName, CurvePoint, FailureCounts, LatencyRow, LatencySummary, LoadRound, LoadRow,
    Protocol, Scenario, SecondPoint, StatusCount,
};
use crate::{Environment, RunSettings};

/// The settings of a default run, as `bench` resolves a command line with no flags; the
/// runner's test `the_fixtures_are_what_the_command_line_resolves` keeps the file so.
pub fn default_settings() -> RunSettings {
    serde_json::from_str(include_str!("fixtures/default-settings.json"))
        .expect("fixtures/default-settings.json is a RunSettings")
}

/// The settings of `bench --quick`, kept the same way.
pub fn quick_settings() -> RunSettings {
    serde_json::from_str(include_str!("fixtures/quick-settings.json"))
        .expect("fixtures/quick-settings.json is a RunSettings")
}

/// A made-up machine's environment, the run started at `started_utc`.
pub fn environment(started_utc: &str) -> Environment {
    Environment {
        bench_version: "0.1.0".to_owned(),
        started_utc: started_utc.to_owned(),
        os: "Debian".to_owned(),
        kernel: "6".to_owned(),
        cpu_model: "Test CPU".to_owned(),
        logical_cores: 2,
        physical_cores: Some(2),
        load_average: None,
        rustc: "rustc 1.95.0".to_owned(),
        build_profile: "release".to_owned(),
        target: "x86_64-unknown-linux-gnu".to_owned(),
        crates: Vec::new(),
        tls_libraries: Vec::new(),
    }
}

/// A latency row over `protocol` with `mean_us` and its CI half-width `error_us`.
pub fn latency_row(
    client: ClientName,
    protocol: Protocol,
    mean_us: f64,
    error_us: f64,
    allocs_per_op: f64,
) -> LatencyRow {
    LatencyRow {
        client,
        protocol,
        body_bytes: None,
        decode: crate::Decode::Whole,
        tls: None,
        calls: 3000,
        failures: 0,
        mean_us: Some(mean_us),
        error_us: Some(error_us),
        stddev_us: Some(error_us / 2.0),
        median_us: Some(mean_us),
        p99_us: Some(mean_us * 2.0),
        ratio: None,
        ratio_sd: None,
        allocs_per_op,
        bytes_per_op: allocs_per_op * 100.0,
        connections_opened: Some(1),
        sample_means_us: vec![Some(mean_us); 30],
        first_error: None,
        noise: None,
        bare: None,
        // Three rounds spread by the Error: a margin beyond the Error beats them too.
        round_means_us: vec![mean_us - error_us / 2.0, mean_us, mean_us + error_us / 2.0],
        round_allocs_per_op: vec![allocs_per_op; 3],
        mock_cpu_us: Some(mean_us / 4.0),
        peak_bytes: None,
        unchecked: None,
        not_measured: None,
    }
}

pub fn load_row(client: Option<ClientName>, achieved_rps: f64, p99_us: f64, fail: u64) -> LoadRow {
    LoadRow {
        scenario: client.map_or(Scenario::Health, Scenario::Payments),
        protocol: Protocol::Http,
        body_bytes: None,
        tls: None,
        target_rps: 480,
        duration_s: 10.0,
        scheduled: 4800,
        skipped: 0,
        sent_late: 0,
        max_send_delay_us: 80.0,
        ok: 4800 - fail,
        fail,
        achieved_rps,
        latency: LatencySummary {
            min_us: Some(50.0),
            mean_us: Some(90.0),
            max_us: Some(3_000.0),
            stddev_us: Some(20.0),
            p50_us: Some(85.0),
            p75_us: Some(95.0),
            p95_us: Some(120.0),
            p99_us: Some(p99_us),
            p999_us: Some(900.0),
            uncorrected_p50_us: Some(70.0),
            uncorrected_p99_us: Some(150.0),
            uncorrected_p999_us: Some(700.0),
            curve: vec![
                CurvePoint {
                    percentile: 50.0,
                    corrected_us: 85.0,
                    uncorrected_us: 70.0,
                },
                CurvePoint {
                    percentile: 99.0,
                    corrected_us: p99_us,
                    uncorrected_us: 150.0,
                },
            ],
        },
        bytes_received: 4800 * 400,
        status_codes: vec![StatusCount {
            status: 200,
            count: 4800,
        }],
        failures: FailureCounts::default(),
        api_cpu_s: Some(0.52),
        api_peak_rss_kib: Some(20_480),
        mock_connections: Some(0),
        mock_tls_handshakes: None,
        pool_bound: None,
        api_busy_after_ms: Some(0),
        api_rss_start_kib: Some(20_000),
        upstream_calls: client.map(|_| 4800),
        reuse_ratio: None,
        first_error: None,
        per_second: (0..10)
            .map(|second| SecondPoint {
                second,
                span_s: 1.0,
                sent: 480,
                ok: 480 - fail / 10,
                fail: fail / 10,
                p99_us: Some(p99_us * (1.0 + f64::from(second) / 10.0)),
            })
            .collect(),
        rounds: (0..3)
            .map(|_| LoadRound {
                duration_s: 10.0 / 3.0,
                ok: (4800 - fail) / 3,
                fail: fail / 3,
                api_cpu_s: Some(0.52 / 3.0),
                p99_us: Some(p99_us),
            })
            .collect(),
        unchecked: None,
        not_measured: None,
    }
}
