//! hyper 1 through hyper-util's pooled client (`client::legacy::Client`, `TokioExecutor`),
//! with hyper-rustls 0.27 (rustls 0.23 on aws-lc-rs, TLS 1.2 and 1.3, ALPN `h2` and
//! `http/1.1`), on a tokio current-thread runtime. It trusts the system's roots (what
//! hyper-rustls's `native-tokio` feature loads, rustls-native-certs) and the given CA.
//!
//! The releases suite's `client.rs` for every hyper 1.x: the manifest pins `hyper`, the rest
//! of this source is the same for each.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http_body_util::BodyExt as _;
use hyper::body::{Body, Bytes, Frame, SizeHint};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client as Pooled;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject as _;

use crate::{Answer, Options};

/// What the harness prints as `api`.
pub const API: &str = "hyper_util::client::legacy::Client (hyper 1, hyper-rustls 0.27, aws-lc-rs)";

type Inner = Pooled<HttpsConnector<HttpConnector>, Outgoing>;

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
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|error| format!("rustls: {error}"))?
            .with_root_certificates(roots(options.ca_pem.as_deref())?)
            .with_no_client_auth();
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(tls)
            .https_or_http()
            .enable_http1()
            .enable_http2()
            .build();
        let mut builder = Pooled::builder(TokioExecutor::new());
        if let Some(max_idle) = max_idle {
            builder.pool_max_idle_per_host(max_idle);
        }
        let client = builder.build(connector);
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

    /// A POST whose streaming body sends one chunk, stays open until `hold` has passed,
    /// then ends. The call lasts at least as long as the body is held, whatever the answer
    /// (an error as soon as the peer half-closes, say): the connection's task, spawned on
    /// this runtime, runs only while the call does, so its work over the hold is counted.
    pub fn post_held_body(&self, url: &str, hold: Duration) -> Result<Answer, String> {
        let uri: hyper::Uri = url.parse().map_err(|error| format!("{url}: {error}"))?;
        let deadline = tokio::time::Instant::now() + hold;
        let request = hyper::Request::post(uri)
            .header("content-type", "application/json")
            .body(Outgoing::held(deadline))
            .map_err(|error| format!("request: {error}"))?;
        self.runtime.block_on(async {
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

async fn read(response: hyper::Response<hyper::body::Incoming>) -> Result<Answer, String> {
    let status = response.status().as_u16();
    let version = version(response.version());
    let body = response
        .into_body()
        .collect()
        .await
        .map_err(|error| chain(&error))?
        .to_bytes();
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
fn roots(ca_pem: Option<&[u8]>) -> Result<rustls::RootCertStore, String> {
    let mut store = rustls::RootCertStore::empty();
    let native = rustls_native_certs::load_native_certs();
    let (_, _) = store.add_parsable_certificates(native.certs);
    if let Some(pem) = ca_pem {
        for certificate in CertificateDer::pem_slice_iter(pem) {
            let certificate = certificate.map_err(|error| format!("the CA's PEM: {error}"))?;
            store
                .add(certificate)
                .map_err(|error| format!("the CA: {error}"))?;
        }
    }
    if store.is_empty() {
        return Err(format!("no roots: {:?}", native.errors));
    }
    Ok(store)
}

/// An error with its sources: hyper-util's own says little more than "client error".
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

/// A request body: none (a GET), or one chunk then held open for a while, then its end.
#[derive(Default)]
pub enum Outgoing {
    #[default]
    Empty,
    /// The chunk still to send, and when the body ends.
    Chunk(Bytes, tokio::time::Instant),
    /// Sent; the body ends when this sleep does.
    Holding(Pin<Box<tokio::time::Sleep>>),
    Done,
}

impl Outgoing {
    fn held(until: tokio::time::Instant) -> Self {
        Outgoing::Chunk(Bytes::from_static(br#"{"pairs":"EURUSD","#), until)
    }
}

impl Body for Outgoing {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        match this {
            Outgoing::Empty | Outgoing::Done => Poll::Ready(None),
            Outgoing::Chunk(chunk, until) => {
                let chunk = std::mem::take(chunk);
                *this = Outgoing::Holding(Box::pin(tokio::time::sleep_until(*until)));
                Poll::Ready(Some(Ok(Frame::data(chunk))))
            }
            Outgoing::Holding(sleep) => {
                std::task::ready!(sleep.as_mut().poll(cx));
                *this = Outgoing::Done;
                Poll::Ready(None)
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, Outgoing::Empty | Outgoing::Done)
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            Outgoing::Empty | Outgoing::Done => SizeHint::with_exact(0),
            _ => SizeHint::default(),
        }
    }
}
