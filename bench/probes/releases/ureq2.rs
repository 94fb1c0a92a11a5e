//! The releases probe's client for ureq 2 (`ureq::AgentBuilder`), serving ureq 2.12.1 and
//! 2.9.7: blocking, on the calling thread.
//!
//! ureq's DEFAULT features (`tls`, `gzip`): rustls with ring and the webpki-roots bundle. ureq 2
//! takes the rustls configuration whole (`AgentBuilder::tls_config(Arc<rustls::ClientConfig>)`),
//! so this module builds the one ureq builds for itself (`default_tls_config` in ureq's
//! `rtls.rs`: the ring provider, TLS 1.2 and 1.3, webpki-roots, no ALPN) and adds the mock's CA
//! to its roots. That needs the rustls the release itself depends on (0.23 with `ring` for
//! 2.12.1, 0.22 for 2.9.7), named in the manifest with ureq's own features so that nothing is
//! added to the build; the calls below are the same in both.
//!
//! ureq 2 speaks HTTP/1.1 only and offers no ALPN, so an h2 server answers it over HTTP/1.1.

use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject as _;

use crate::{Answer, Options};

/// What this module calls through.
pub const API: &str = "ureq 2 Agent";

pub struct Client {
    agent: ureq::Agent,
}

impl Client {
    /// ureq's default pool (100 idle connections, 1 per host).
    pub fn new(options: &Options) -> Result<Self, String> {
        Ok(Self {
            agent: builder(options)?.build(),
        })
    }

    /// No connection is kept: `max_idle_connections(0)`, which ureq documents as "would disable
    /// connection pooling".
    pub fn unpooled(options: &Options) -> Result<Self, String> {
        Ok(Self {
            agent: builder(options)?.max_idle_connections(0).build(),
        })
    }

    pub fn get(&self, url: &str) -> Result<Answer, String> {
        answer(self.agent.get(url).call())
    }

    /// `n` threads sharing the agent (a clone shares its pool), each making one call.
    pub fn get_concurrently(&self, url: &str, n: usize) -> Vec<Result<(Answer, Duration), String>> {
        crate::on_threads(n, || self.get(url))
    }

    /// `send(reader)`: ureq streams a `Read` as a chunked body.
    pub fn post_held_body(&self, url: &str, hold: Duration) -> Result<Answer, String> {
        answer(self.agent.post(url).send(crate::HeldBody::new(hold)))
    }
}

/// The agent builder every client starts from: trusting the mock's CA and `options.timeout` as
/// ureq's overall timeout (connection, request and the whole body).
fn builder(options: &Options) -> Result<ureq::AgentBuilder, String> {
    Ok(ureq::AgentBuilder::new()
        .timeout(options.timeout)
        .tls_config(Arc::new(tls_config(options.ca_pem.as_deref())?)))
}

/// ureq's own configuration (webpki-roots, ring, TLS 1.2 and 1.3), with `ca_pem` added.
fn tls_config(ca_pem: Option<&[u8]>) -> Result<rustls::ClientConfig, String> {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Some(pem) = ca_pem {
        for certificate in CertificateDer::pem_slice_iter(pem) {
            let certificate = certificate.map_err(|error| format!("the CA's PEM: {error}"))?;
            roots
                .add(certificate)
                .map_err(|error| format!("the CA's certificate: {error}"))?;
        }
    }
    // What ureq 2.12 calls itself; rustls 0.23.37 and later mark it deprecated (ring has no
    // post-quantum key exchange), 0.22 does not: the probe measures ureq's choice.
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS12, &rustls::version::TLS13])
        .map_err(|error| format!("rustls: {error}"))?
        .with_root_certificates(roots)
        .with_no_client_auth())
}

/// A call's outcome as an answer: ureq 2 turns a status of 400 and above into
/// `Error::Status`, which still carries the response.
fn answer(outcome: Result<ureq::Response, ureq::Error>) -> Result<Answer, String> {
    let response = match outcome {
        Ok(response) | Err(ureq::Error::Status(_, response)) => response,
        Err(error) => return Err(error.to_string()),
    };
    let status = response.status();
    let version = match response.http_version() {
        "HTTP/1.0" => "HTTP/1.0",
        "HTTP/1.1" => "HTTP/1.1",
        _ => "other",
    };
    let mut body = Vec::new();
    response
        .into_reader()
        .read_to_end(&mut body)
        .map_err(|error| format!("reading the body: {error}"))?;
    Ok(Answer {
        status,
        version,
        body,
    })
}
