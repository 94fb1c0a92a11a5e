//! The one way the bench builds a ureq agent for its own calls to its servers.

use std::sync::Arc;
use std::time::Duration;

use ureq::tls::{Certificate, RootCerts, TlsConfig, TlsProvider};

/// Idle connections older than this are not reused: below the 5 s keep-alive of actix-web and
/// mock-rates, so that the bench never writes to a connection the server is closing.
const IDLE_AGE: Duration = Duration::from_secs(4);

/// An agent for loopback calls: no proxy from the environment (loopback traffic must not be
/// sent anywhere else), non-2xx statuses as answers to check, each call bounded by `timeout`,
/// and at most `idle` connections kept for reuse (0: a fresh connection per call).
pub fn agent(timeout: Option<Duration>, idle: usize) -> ureq::Agent {
    builder(timeout, idle).build().into()
}

/// [`agent`] for a server over TLS whose CA is `ca_pem` (and only it: the bench talks to its
/// own servers), verifying as always.
pub fn tls_agent(timeout: Option<Duration>, idle: usize, ca_pem: &[u8]) -> ureq::Agent {
    let roots: Vec<Certificate<'static>> = ureq::tls::parse_pem(ca_pem)
        .filter_map(|item| match item {
            Ok(ureq::tls::PemItem::Certificate(certificate)) => Some(certificate),
            _ => None,
        })
        .collect();
    let tls = TlsConfig::builder()
        .provider(TlsProvider::Rustls)
        .unversioned_rustls_crypto_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .root_certs(RootCerts::from(roots))
        .build();
    builder(timeout, idle).tls_config(tls).build().into()
}

fn builder(
    timeout: Option<Duration>,
    idle: usize,
) -> ureq::config::ConfigBuilder<ureq::typestate::AgentScope> {
    ureq::Agent::config_builder()
        .timeout_global(timeout)
        .max_idle_connections(idle)
        .max_idle_connections_per_host(idle)
        .max_idle_age(IDLE_AGE)
        .proxy(None)
        .http_status_as_error(false)
}
