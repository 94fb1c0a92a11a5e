//! The releases probe's client for ureq 3 (`ureq::Agent::config_builder()`), serving ureq
//! 3.0.12, 3.3.0 and 3.5.2: blocking, on the calling thread.
//!
//! ureq's DEFAULT features (`rustls`, `gzip`): rustls with ring (ureq's provider when none is
//! set, process-wide or on the `TlsConfig`), the webpki-roots bundle, no ALPN: ureq 3 speaks
//! HTTP/1.1 only, so an h2 server answers it over HTTP/1.1.
//!
//! Trust: ureq 3's `RootCerts` is either the webpki-roots bundle (`WebPki`, the default), the
//! platform's verifier, or a list of certificates (`Specific`) that REPLACES the bundle; its
//! API has no way to add a certificate to the bundle. So with a CA the agent trusts that CA
//! alone (`RootCerts::new_with_certs`), and without one ureq's default bundle.

use std::time::Duration;

use ureq::http::Version;
use ureq::tls::{Certificate, PemItem, RootCerts, TlsConfig};
use ureq::{Agent, SendBody};

use crate::{Answer, Options};

/// What this module calls through.
pub const API: &str = "ureq 3 Agent";

pub struct Client {
    agent: Agent,
}

impl Client {
    /// ureq's default pool (10 idle connections, 3 per host, each kept 15 s).
    pub fn new(options: &Options) -> Result<Self, String> {
        Ok(Self {
            agent: config(options)?.build().into(),
        })
    }

    /// No connection is kept: `max_idle_connections(0)` (and `max_idle_connections_per_host(0)`),
    /// the settings ureq's own pool test uses to keep nothing.
    pub fn unpooled(options: &Options) -> Result<Self, String> {
        Ok(Self {
            agent: config(options)?
                .max_idle_connections(0)
                .max_idle_connections_per_host(0)
                .build()
                .into(),
        })
    }

    pub fn get(&self, url: &str) -> Result<Answer, String> {
        let response = self
            .agent
            .get(url)
            .call()
            .map_err(|error| error.to_string())?;
        answer(response)
    }

    /// `n` threads sharing the agent (a clone shares its pool), each making one call.
    pub fn get_concurrently(&self, url: &str, n: usize) -> Vec<Result<(Answer, Duration), String>> {
        crate::on_threads(n, || self.get(url))
    }

    /// `SendBody::from_owned_reader`: a body of unknown length, sent chunked.
    pub fn post_held_body(&self, url: &str, hold: Duration) -> Result<Answer, String> {
        let response = self
            .agent
            .post(url)
            .send(SendBody::from_owned_reader(crate::HeldBody::new(hold)))
            .map_err(|error| error.to_string())?;
        answer(response)
    }
}

/// The agent's configuration every client starts from: `options.timeout` as ureq's
/// `timeout_global` (the whole call, body included), a status of 400 and above answered rather
/// than turned into an error (`http_status_as_error(false)`, for the harness to check), and the
/// mock's CA as the roots when there is one.
fn config(
    options: &Options,
) -> Result<ureq::config::ConfigBuilder<ureq::typestate::AgentScope>, String> {
    let builder = Agent::config_builder()
        .timeout_global(Some(options.timeout))
        .http_status_as_error(false);
    let Some(pem) = options.ca_pem.as_deref() else {
        return Ok(builder);
    };
    let certificates = ureq::tls::parse_pem(pem)
        .filter_map(|item| match item {
            Ok(PemItem::Certificate(certificate)) => Some(Ok(certificate)),
            Ok(_) => None,
            Err(error) => Some(Err(format!("the CA's PEM: {error}"))),
        })
        .collect::<Result<Vec<Certificate<'static>>, String>>()?;
    if certificates.is_empty() {
        return Err("the CA's PEM holds no certificate".to_owned());
    }
    let tls = TlsConfig::builder()
        .root_certs(RootCerts::new_with_certs(&certificates))
        .build();
    Ok(builder.tls_config(tls))
}

/// The answer, its body read whole; ureq's default limit (10 MiB) holds the 1 MiB answer.
fn answer(mut response: ureq::http::Response<ureq::Body>) -> Result<Answer, String> {
    let status = response.status().as_u16();
    let version = match response.version() {
        Version::HTTP_10 => "HTTP/1.0",
        Version::HTTP_11 => "HTTP/1.1",
        Version::HTTP_2 => "HTTP/2",
        _ => "other",
    };
    let body = response
        .body_mut()
        .read_to_vec()
        .map_err(|error| format!("reading the body: {error}"))?;
    Ok(Answer {
        status,
        version,
        body,
    })
}
