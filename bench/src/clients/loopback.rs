//! The one way the bench builds a ureq agent for its own calls to its servers.

use std::time::Duration;

/// Idle connections older than this are not reused: below the 5 s keep-alive of actix-web and
/// mock-rates, so that the bench never writes to a connection the server is closing.
const IDLE_AGE: Duration = Duration::from_secs(4);

/// An agent for loopback calls: no proxy from the environment (loopback traffic must not be
/// sent anywhere else), non-2xx statuses as answers to check, each call bounded by `timeout`,
/// and at most `idle` connections kept for reuse (0: a fresh connection per call).
pub fn agent(timeout: Option<Duration>, idle: usize) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(timeout)
        .max_idle_connections(idle)
        .max_idle_connections_per_host(idle)
        .max_idle_age(IDLE_AGE)
        .proxy(None)
        .http_status_as_error(false)
        .build()
        .into()
}
