//! The releases probe's client for isahc 1 (`isahc::HttpClient`), serving isahc 1.7.2 and
//! 1.8.3: its blocking API; libcurl's multi handle runs on isahc's own agent thread.
//!
//! isahc's DEFAULT features (`http2`, `static-curl`, `text-decoding`): libcurl built from the
//! curl-sys sources and linked statically, with nghttp2 (HTTP/2 by ALPN over TLS, isahc's
//! default version negotiation) and curl's own default TLS on Linux, the system's OpenSSL
//! (curl's `ssl` feature, linked dynamically through openssl-sys).
//!
//! Trust: isahc 1 takes one CA bundle by path (`ssl_ca_certificate(CaCertificate::file(..))`,
//! libcurl's `CURLOPT_CAINFO`), which REPLACES the bundle libcurl would load; there is no way
//! to add a certificate to it. So with a CA the PEM is written to a temporary file, owned by
//! the client for its lifetime, and the client trusts that CA alone.

use std::io::Read;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use isahc::config::{CaCertificate, Configurable as _};
use isahc::http::Version;
use isahc::{Body, HttpClient, HttpClientBuilder};

use crate::{Answer, Options};

/// What this module calls through.
pub const API: &str = "isahc 1 HttpClient";

pub struct Client {
    client: HttpClient,
    /// The CA's bundle while the client may read it (libcurl reads it on every handshake).
    _ca_file: Option<TempFile>,
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
        let ca_file = options
            .ca_pem
            .as_deref()
            .map(|pem| TempFile::write("release-probe-ca", pem))
            .transpose()?;
        if let Some(file) = &ca_file {
            builder = builder.ssl_ca_certificate(CaCertificate::file(file.path.clone()));
        }
        let client = tune(builder)
            .build()
            .map_err(|error| format!("building the client: {error}"))?;
        Ok(Self {
            client,
            _ca_file: ca_file,
        })
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

/// A file of its own in the temporary directory, removed when dropped.
struct TempFile {
    path: PathBuf,
}

impl TempFile {
    fn write(name: &str, contents: &[u8]) -> Result<Self, String> {
        // The process and a count: one file per client, however many the process builds.
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let count = COUNT.fetch_add(1, Ordering::Relaxed);
        let file = format!("{name}-{}-{count}.pem", std::process::id());
        let path = std::env::temp_dir().join(file);
        std::fs::write(&path, contents)
            .map_err(|error| format!("writing {}: {error}", path.display()))?;
        Ok(Self { path })
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        // Best effort: a file left behind in the temporary directory harms nothing.
        let _ = std::fs::remove_file(&self.path);
    }
}
