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

/// What [`tls_agent`] trusts: the CA `ca_pem` (and only it: the bench talks to its own
/// servers), verifying as always.
pub fn tls_config(ca_pem: &[u8]) -> TlsConfig {
    let roots: Vec<Certificate<'static>> = ureq::tls::parse_pem(ca_pem)
        .filter_map(|item| match item {
            Ok(ureq::tls::PemItem::Certificate(certificate)) => Some(certificate),
            _ => None,
        })
        .collect();
    TlsConfig::builder()
        .provider(TlsProvider::Rustls)
        .unversioned_rustls_crypto_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .root_certs(RootCerts::from(roots))
        .build()
}

/// [`agent`] for a server over TLS, trusting what `tls` says (see [`tls_config`]).
///
/// ureq builds its rustls config once per agent, at the agent's first TLS connection, and
/// keeps rustls's default session cache in it, with no setting to turn it off: so each agent
/// may resume the sessions of its own earlier connections, and only a fresh agent is sure to
/// make a full handshake.
pub fn tls_agent(timeout: Option<Duration>, idle: usize, tls: &TlsConfig) -> ureq::Agent {
    builder(timeout, idle)
        .tls_config(tls.clone())
        .build()
        .into()
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
