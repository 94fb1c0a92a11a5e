//! The releases probe's client for awc 3 (`awc::Client`, actix's HTTP client), serving awc
//! 3.0.1, 3.5.1 and 3.11.0, on an actix `System` (a current-thread Tokio runtime) that the
//! client holds; `get` blocks on it.
//!
//! TLS: awc's default features have none, so the manifest adds the `openssl` feature, the one
//! TLS choice every 3.x release offers under the same name (its rustls features moved from
//! rustls 0.20 to 0.23 over 3.x): the system's OpenSSL, dynamically linked. The `SslConnector`
//! is the one awc builds for itself (`Connector::new()`: `SslConnector::builder`, which loads
//! OpenSSL's default verify paths, the system's roots, and ALPN `h2`, `http/1.1`), with the
//! mock's CA added to its store, so the CA is trusted beside the system's roots. awc speaks
//! HTTP/2 where the handshake chose it.
//!
//! `awc::Client` is not `Send`: it lives on the thread that built it, with its runtime.

use std::convert::Infallible;
use std::time::{Duration, Instant};

use actix_rt::SystemRunner;
use awc::http::Version;
use bytes::Bytes;
use futures_util::{Stream, stream};
use openssl::ssl::{SslConnector, SslMethod};
use openssl::x509::X509;

use crate::{Answer, Options};

/// What this module calls through.
pub const API: &str = "awc 3 Client";

pub struct Client {
    /// The actix System the client's calls run on (one thread, the caller's).
    system: SystemRunner,
    /// Always `Some` but while the client is dropped (see `Drop`).
    client: Option<awc::Client>,
    /// Every request sent with `force_close()`: the pool keeps no connection.
    close: bool,
}

impl Client {
    /// awc's default pool (connections kept 15 s idle, at most 75 s, 100 per scheme).
    pub fn new(options: &Options) -> Result<Self, String> {
        Self::build(options, false)
    }

    /// No connection is kept: every request is sent with `ClientRequest::force_close()`, which
    /// awc documents as "Force close connection instead of returning it back to connections
    /// pool" (HTTP/1 only; it also sends `connection: close`). awc's connector has no setting
    /// that keeps nothing: `conn_keep_alive`/`conn_lifetime` only make an idle connection
    /// ineligible when the next call finds it, and `limit` bounds open connections.
    pub fn unpooled(options: &Options) -> Result<Self, String> {
        Self::build(options, true)
    }

    fn build(options: &Options, close: bool) -> Result<Self, String> {
        let tls = tls_connector(options.ca_pem.as_deref())?;
        let timeout = options.timeout;
        let system = actix_rt::System::new();
        // Built inside the System, where awc expects to run.
        let client = system.block_on(async move {
            awc::Client::builder()
                .connector(awc::Connector::new().openssl(tls))
                // awc's request timeout (5 s by default): until the answer's head, and the
                // body's read shares its deadline.
                .timeout(timeout)
                .finish()
        });
        Ok(Self {
            system,
            client: Some(client),
            close,
        })
    }

    pub fn get(&self, url: &str) -> Result<Answer, String> {
        self.system.block_on(self.get_async(url))
    }

    /// `n` calls joined on the client's runtime, all in flight together.
    pub fn get_concurrently(&self, url: &str, n: usize) -> Vec<Result<(Answer, Duration), String>> {
        let calls = (0..n).map(|_| async {
            let started = Instant::now();
            self.get_async(url)
                .await
                .map(|answer| (answer, started.elapsed()))
        });
        self.system.block_on(futures_util::future::join_all(calls))
    }

    /// `send_stream`: a body of unknown length, sent chunked over HTTP/1.1.
    pub fn post_held_body(&self, url: &str, hold: Duration) -> Result<Answer, String> {
        let chunks = stream::unfold(0_u8, move |step| async move {
            let chunk: &'static [u8] = match step {
                0 => b"first chunk.....",
                1 => {
                    actix_rt::time::sleep(hold).await;
                    b"last chunk......"
                }
                _ => return None,
            };
            Some((Ok::<_, Infallible>(Bytes::from_static(chunk)), step + 1))
        });
        self.system.block_on(async {
            let request = self.request(awc::http::Method::POST, url);
            let response = request.send_stream(chunks).await;
            answer(response.map_err(|error| error.to_string())?).await
        })
    }

    async fn get_async(&self, url: &str) -> Result<Answer, String> {
        let response = self
            .request(awc::http::Method::GET, url)
            .send()
            .await
            .map_err(|error| error.to_string())?;
        answer(response).await
    }

    fn request(&self, method: awc::http::Method, url: &str) -> awc::ClientRequest {
        let client = self
            .client
            .as_ref()
            .expect("the client is only taken when dropped");
        let request = client.request(method, url);
        if self.close {
            request.force_close()
        } else {
            request
        }
    }
}

/// The awc client is dropped inside its runtime: before 3.6.0 ("Prevent panics on connection
/// pool drop when Tokio runtime is shutdown early"), dropping a pool that holds an idle TLS
/// connection outside one panics ("there is no reactor running"), as closing it starts a timer.
impl Drop for Client {
    fn drop(&mut self) {
        if let Some(client) = self.client.take() {
            self.system.block_on(async move { drop(client) });
        }
    }
}

/// The answer, its body read whole; awc's default body limit (2 MiB) holds the 1 MiB answer.
async fn answer<S>(mut response: awc::ClientResponse<S>) -> Result<Answer, String>
where
    S: Stream<Item = Result<Bytes, awc::error::PayloadError>> + Unpin,
{
    let status = response.status().as_u16();
    let version = match response.version() {
        Version::HTTP_10 => "HTTP/1.0",
        Version::HTTP_11 => "HTTP/1.1",
        Version::HTTP_2 => "HTTP/2",
        _ => "other",
    };
    let body = response
        .body()
        .await
        .map_err(|error| format!("reading the body: {error}"))?;
    Ok(Answer {
        status,
        version,
        body: body.to_vec(),
    })
}

/// awc's own OpenSSL connector (`Connector::new()` builds the same: the system's roots, ALPN
/// `h2` then `http/1.1`), with every certificate of `ca_pem` added to its store.
fn tls_connector(ca_pem: Option<&[u8]>) -> Result<SslConnector, String> {
    let mut builder =
        SslConnector::builder(SslMethod::tls()).map_err(|error| format!("OpenSSL: {error}"))?;
    builder
        .set_alpn_protos(b"\x02h2\x08http/1.1")
        .map_err(|error| format!("OpenSSL ALPN: {error}"))?;
    if let Some(pem) = ca_pem {
        let certificates =
            X509::stack_from_pem(pem).map_err(|error| format!("the CA's PEM: {error}"))?;
        for certificate in certificates {
            builder
                .cert_store_mut()
                .add_cert(certificate)
                .map_err(|error| format!("the CA's certificate: {error}"))?;
        }
    }
    Ok(builder.build())
}
