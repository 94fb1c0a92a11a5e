//! hyper 0.14's own pooled client (`hyper::Client`, features `client`, `http1`, `http2`,
//! `tcp`, `runtime`), with hyper-rustls 0.24 (rustls 0.21, on ring, its only crypto; TLS 1.2
//! and 1.3; ALPN `h2` and `http/1.1`), on a tokio current-thread runtime. It trusts the
//! system's roots, loaded as hyper-rustls 0.24's `with_native_roots` loads them
//! (rustls-native-certs 0.6), and the given CA, read as hyper-rustls's client example reads
//! a CA file (rustls-pemfile 1).
//!
//! The releases suite's `client.rs` for hyper 0.14.

use std::sync::Arc;
use std::time::{Duration, Instant};

use hyper::body::Bytes;
use hyper::client::HttpConnector;
use hyper_rustls::HttpsConnector;

use crate::{Answer, Options};

/// What the harness prints as `api`.
pub const API: &str = "hyper::Client (hyper 0.14, hyper-rustls 0.24, rustls 0.21 on ring)";

type Inner = hyper::Client<HttpsConnector<HttpConnector>, hyper::Body>;

pub struct Client {
    runtime: tokio::runtime::Runtime,
    inner: Inner,
    timeout: Duration,
}

impl Client {
    /// The client as built by default: its pool keeps idle connections.
    pub fn new(options: &Options) -> Result<Self, String> {
        Self::build(options, None)
    }

    /// A client whose pool keeps no idle connection (`pool_max_idle_per_host(0)`).
    pub fn unpooled(options: &Options) -> Result<Self, String> {
        Self::build(options, Some(0))
    }

    fn build(options: &Options, max_idle: Option<usize>) -> Result<Self, String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|error| format!("tokio runtime: {error}"))?;
        let tls = rustls::ClientConfig::builder()
            .with_safe_defaults()
            .with_root_certificates(roots(options.ca_pem.as_deref())?)
            .with_no_client_auth();
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(tls)
            .https_or_http()
            .enable_http1()
            .enable_http2()
            .build();
        let mut builder = hyper::Client::builder();
        if let Some(max_idle) = max_idle {
            builder.pool_max_idle_per_host(max_idle);
        }
        let client = builder.build::<_, hyper::Body>(connector);
        Ok(Self {
            runtime,
            inner: client,
            timeout: options.timeout,
        })
    }

    pub fn get(&self, url: &str) -> Result<Answer, String> {
        self.runtime
            .block_on(fetch(self.inner.clone(), url.to_owned(), self.timeout))
    }

    /// `count` GETs at once, each a task of its own on the runtime; each timed from its
    /// start to its body's end.
    pub fn get_concurrently(
        &self,
        url: &str,
        count: usize,
    ) -> Vec<Result<(Answer, Duration), String>> {
        self.runtime.block_on(async {
            let calls: Vec<_> = (0..count)
                .map(|_| {
                    let (client, url, timeout) =
                        (self.inner.clone(), url.to_owned(), self.timeout);
                    tokio::spawn(async move {
                        let started = Instant::now();
                        let answer = fetch(client, url, timeout).await?;
                        Ok((answer, started.elapsed()))
                    })
                })
                .collect();
            let mut answers = Vec::with_capacity(count);
            for call in calls {
                answers.push(call.await.unwrap_or_else(|error| Err(format!("task: {error}"))));
            }
            answers
        })
    }

    /// A POST whose streaming body (`Body::channel`) sends one chunk, stays open until
    /// `hold` has passed, then ends (its sender dropped). The call lasts at least as long as
    /// the body is held, whatever the answer (an error as soon as the peer half-closes, say):
    /// the connection's task, spawned on this runtime, runs only while the call does, so its
    /// work over the hold is counted.
    pub fn post_held_body(&self, url: &str, hold: Duration) -> Result<Answer, String> {
        let uri: hyper::Uri = url.parse().map_err(|error| format!("{url}: {error}"))?;
        let (mut sender, body) = hyper::Body::channel();
        let request = hyper::Request::post(uri)
            .header("content-type", "application/json")
            .body(body)
            .map_err(|error| format!("request: {error}"))?;
        self.runtime.block_on(async {
            let deadline = tokio::time::Instant::now() + hold;
            tokio::spawn(async move {
                if sender
                    .send_data(Bytes::from_static(br#"{"pairs":"EURUSD","#))
                    .await
                    .is_ok()
                {
                    tokio::time::sleep_until(deadline).await;
                }
                drop(sender);
            });
            let outcome = bounded(self.timeout, async {
                let response = self
                    .inner
                    .request(request)
                    .await
                    .map_err(|error| chain(&error))?;
                read(response).await
            })
            .await;
            tokio::time::sleep_until(deadline).await;
            outcome
        })
    }
}

async fn fetch(client: Inner, url: String, timeout: Duration) -> Result<Answer, String> {
    let uri: hyper::Uri = url.parse().map_err(|error| format!("{url}: {error}"))?;
    bounded(timeout, async {
        let response = client.get(uri).await.map_err(|error| chain(&error))?;
        read(response).await
    })
    .await
}

async fn read(response: hyper::Response<hyper::Body>) -> Result<Answer, String> {
    let status = response.status().as_u16();
    let version = version(response.version());
    let body = hyper::body::to_bytes(response.into_body())
        .await
        .map_err(|error| chain(&error))?;
    Ok(Answer {
        status,
        version,
        body: Vec::from(body),
    })
}

async fn bounded<T>(
    timeout: Duration,
    call: impl Future<Output = Result<T, String>>,
) -> Result<T, String> {
    tokio::time::timeout(timeout, call)
        .await
        .unwrap_or_else(|_| Err(format!("no answer within {timeout:?}")))
}

fn version(version: hyper::Version) -> &'static str {
    match version {
        hyper::Version::HTTP_2 => "HTTP/2",
        hyper::Version::HTTP_11 => "HTTP/1.1",
        hyper::Version::HTTP_10 => "HTTP/1.0",
        _ => "other",
    }
}

/// The system's roots and the given CA.
fn roots(ca_pem: Option<&[u8]>) -> Result<Arc<rustls::RootCertStore>, String> {
    let mut store = rustls::RootCertStore::empty();
    // As hyper-rustls's `with_native_roots`: every certificate the system offers that parses.
    if let Ok(native) = rustls_native_certs::load_native_certs() {
        let native: Vec<Vec<u8>> = native.into_iter().map(|certificate| certificate.0).collect();
        let (_, _) = store.add_parsable_certificates(&native);
    }
    if let Some(mut pem) = ca_pem {
        let certificates = rustls_pemfile::certs(&mut pem)
            .map_err(|error| format!("the CA's PEM: {error}"))?;
        for certificate in certificates {
            store
                .add(&rustls::Certificate(certificate))
                .map_err(|error| format!("the CA: {error}"))?;
        }
    }
    if store.is_empty() {
        return Err("no roots: neither the system's nor a CA".to_owned());
    }
    Ok(Arc::new(store))
}

/// An error with its sources.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
