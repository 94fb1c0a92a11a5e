//! What the servers did during a scenario, and the scenario's row made from its tally.

use std::time::Duration;

use crate::clients::Counted;
use crate::suites::load::schedule::{Schedule, achieved_rps};
use crate::suites::load::server::reuse_ratio;
use crate::suites::load::tally::Tally;
use bench_model::{LoadRow, NegotiatedTls, Protocol, Scenario, StatusCount};

/// What the servers did during a scenario's rounds.
#[derive(Clone, Debug, Default)]
pub(super) struct ServerReadings {
    pub(super) api_cpu_s: Option<f64>,
    pub(super) api_peak_rss_kib: Option<u64>,
    pub(super) api_rss_start_kib: Option<u64>,
    pub(super) mock: Option<Counted>,
    /// Over `https` and `h2`: the TLS mock-rates counted from the first warm-up on.
    pub(super) tls: Option<NegotiatedTls>,
    /// Over `https`: the most connections the service's pool may open.
    pub(super) pool_bound: Option<u64>,
    pub(super) api_busy_after_ms: Option<u64>,
}

/// A scenario's row from its merged rounds: `span` on the timetable in all, and how long past
/// their timetables the rounds' last answers came.
pub(super) fn load_row(
    scenario: Scenario,
    protocol: Protocol,
    rps: u32,
    (span, overrun): (Duration, Duration),
    tally: Tally,
    readings: ServerReadings,
) -> LoadRow {
    let mock_connections = readings.mock.map(|counted| counted.connections);
    let upstream_calls = readings.mock.map(|counted| counted.live_requests);
    LoadRow {
        scenario,
        protocol,
        body_bytes: None,
        tls: readings.tls,
        target_rps: rps,
        duration_s: span.as_secs_f64(),
        scheduled: Schedule::new(rps, span).count(),
        skipped: tally.skipped,
        sent_late: tally.lateness.late,
        max_send_delay_us: tally.lateness.worst.as_secs_f64() * 1e6,
        ok: tally.ok,
        fail: tally.failures.total(),
        achieved_rps: achieved_rps(tally.ok, span, span + overrun),
        latency: tally.latencies.summary(),
        bytes_received: tally.bytes,
        status_codes: tally
            .statuses
            .iter()
            .map(|(&status, &count)| StatusCount { status, count })
            .collect(),
        failures: tally.failures,
        api_cpu_s: readings.api_cpu_s,
        api_peak_rss_kib: readings.api_peak_rss_kib,
        api_rss_start_kib: readings.api_rss_start_kib,
        mock_connections,
        pool_bound: readings.pool_bound,
        api_busy_after_ms: readings.api_busy_after_ms,
        mock_tls_handshakes: readings
            .mock
            .filter(|_| protocol.is_tls())
            .map(|counted| counted.tls_handshakes),
        upstream_calls,
        reuse_ratio: upstream_calls
            .zip(mock_connections)
            .and_then(|(calls, connections)| reuse_ratio(calls, connections)),
        first_error: tally.first_error,
        per_second: Vec::new(),
        rounds: Vec::new(),
        unchecked: None,
        not_measured: None,
    }
}
