//! How long the suite runs: the planned time the progress bar counts down (what it runs over
//! is the run plan's).

use crate::suites::resilience::{against_wrk, capacity, slow};
use bench_model::{ClientName, Protocol, ResilienceSettings, Run};

/// The planned time of the suite, for the progress bar: per protocol and client its parts and
/// its capacity rounds (over http also those under each CPU quota), the wait for the slow
/// connections to close, and over http the generator against wrk.
pub fn planned_ms(settings: &Run, over: &[(Protocol, Vec<ClientName>)]) -> u64 {
    let sizes = &settings.resilience;
    let round_ms = u64::from(settings.rounds.max(1))
        * capacity::round_ms(sizes.ramp_step_ms, sizes.confirm_ms);
    over.iter()
        .map(|(protocol, clients)| {
            let quotas = if protocol.is_tls() {
                0
            } else {
                sizes.cpu_quotas_millicpus.len() as u64
            };
            let against_wrk = if protocol.is_tls() {
                0
            } else {
                4 * against_wrk::DURATION.as_millis() as u64
            };
            clients.len() as u64 * (per_client_ms(sizes) + (1 + quotas) * round_ms)
                + slow::CLOSE_WAIT_LIMIT.as_millis() as u64
                + against_wrk
        })
        .sum()
}

/// The planned time of one client's parts, for the progress bar (capacity rounds apart).
fn per_client_ms(sizes: &ResilienceSettings) -> u64 {
    sizes.restart_before_ms
        + sizes.restart_outage_ms
        + sizes.restart_after_ms
        + sizes.overload_before_ms
        + sizes.overload_ms
        + sizes.overload_after_ms
        + 2 * sizes.slow_phase_ms
        + sizes.soak_ms
}
