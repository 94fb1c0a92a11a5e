//! The releases probe's client for isahc 2 (`isahc::HttpClient`), serving isahc 2.0.2: its
//! blocking API; libcurl's multi handle runs on isahc's own agent thread.
//!
//! isahc's DEFAULT features (`default-tls` = `rustls-tls`, `http2`, `log`, `static-curl`,
//! `text-decoding`): libcurl built from the curl-sys sources and linked statically, with
//! nghttp2 (HTTP/2 by ALPN over TLS, isahc's default version negotiation) and libcurl's rustls
//! backend over rustls-ffi (aws-lc-rs, rustls-ffi's default provider); no OpenSSL.
//!
//! Trust: isahc 2's `TrustStore` is the platform's verifier (`TrustStore::native()`, the
//! default: libcurl's `CURLSSLOPT_NATIVE_CA`, rustls-platform-verifier), a bundle file, or an
//! in-memory bundle (`TrustStore::builder().certificate_from_pem(..)`, libcurl's
//! `CURLOPT_CAINFO_BLOB`), each REPLACING the others; there is no way to add a certificate to
//! the platform's roots. So with a CA the client trusts that CA alone, from memory.

use std::io::Read;
use std::time::Duration;

use isahc::config::Configurable as _;
use isahc::http::Version;
use isahc::tls::{TlsConfig, TrustStore};
use isahc::{Body, HttpClient, HttpClientBuilder};

use crate::{Answer, Options};

/// What this module calls through.
pub const API: &str = "isahc 2 HttpClient";

pub struct Client {
    client: HttpClient,
}

impl Client {
    /// isahc's default connection cache (libcurl's, as big as isahc lets libcurl choose).
    pub fn new(options: &Options) -> Result<Self, String> {
        Self::build(options, |builder| builder)
    }

    /// No connection is reused: `connection_cache_size(0)`, which isahc documents as "disables
    /// connection caching" (it also makes libcurl close each connection after its request).
    pub fn unpooled(options: &Options) -> Result<Self, String> {
        Self::build(options, |builder| builder.connection_cache_size(0))
    }

    fn build(
        options: &Options,
        tune: impl FnOnce(HttpClientBuilder) -> HttpClientBuilder,
    ) -> Result<Self, String> {
        // `timeout`: the whole call, from its start to the end of the body.
        let mut builder = HttpClient::builder().timeout(options.timeout);
        if let Some(pem) = &options.ca_pem {
            let trust = TrustStore::builder().certificate_from_pem(pem).build();
            builder = builder.tls_config(TlsConfig::builder().trust_store(trust).build());
        }
        let client = tune(builder)
            .build()
            .map_err(|error| format!("building the client: {error}"))?;
        Ok(Self { client })
    }

    pub fn get(&self, url: &str) -> Result<Answer, String> {
        answer(self.client.get(url).map_err(describe)?)
    }

    /// `n` threads sharing the client, as isahc's `parallel_requests` example does; every
    /// request is driven by the client's one agent thread.
    pub fn get_concurrently(&self, url: &str, n: usize) -> Vec<Result<(Answer, Duration), String>> {
        crate::on_threads(n, || self.get(url))
    }

    /// `Body::from_reader`: a body of unknown length (sent chunked), read on the calling thread
    /// while the agent thread sends it.
    pub fn post_held_body(&self, url: &str, hold: Duration) -> Result<Answer, String> {
        let body = Body::from_reader(crate::HeldBody::new(hold));
        answer(self.client.post(url, body).map_err(describe)?)
    }
}

/// An error as isahc gives it, with its kind and its source: isahc's own message is only the
/// kind's description, "unknown error" for some (an I/O error among them).
fn describe(error: isahc::Error) -> String {
    match std::error::Error::source(&error) {
        Some(source) => format!("{error} ({:?}: {source})", error.kind()),
        None => format!("{error} ({:?})", error.kind()),
    }
}

/// The answer, its body read whole.
fn answer(mut response: isahc::Response<Body>) -> Result<Answer, String> {
    let status = response.status().as_u16();
    let version = match response.version() {
        Version::HTTP_10 => "HTTP/1.0",
        Version::HTTP_11 => "HTTP/1.1",
        Version::HTTP_2 => "HTTP/2",
        _ => "other",
    };
    let mut body = Vec::new();
    response
        .body_mut()
        .read_to_end(&mut body)
        .map_err(|error| format!("reading the body: {error}"))?;
    Ok(Answer {
        status,
        version,
        body,
    })
}
