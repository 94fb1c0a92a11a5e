//! reqwest's async client with its default features (its default TLS: native-tls, the
//! system's OpenSSL, through 0.12; rustls on aws-lc-rs from 0.13) and `stream` (for
//! `Body::wrap_stream`), on a tokio current-thread runtime. It trusts what the default TLS
//! trusts and the given CA (`add_root_certificate`).
//!
//! The releases suite's `client.rs` for reqwest 0.11, 0.12 and 0.13: the calls used here are
//! the same in each, so the manifest's pin is all that changes.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use crate::{Answer, Options};

/// What the harness prints as `api`.
pub const API: &str = "reqwest::Client (default features, stream)";

pub struct Client {
    runtime: tokio::runtime::Runtime,
    client: reqwest::Client,
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
        let mut builder = reqwest::Client::builder().timeout(options.timeout);
        if let Some(pem) = &options.ca_pem {
            let certificate =
                reqwest::Certificate::from_pem(pem).map_err(|error| format!("the CA: {error}"))?;
            builder = builder.add_root_certificate(certificate);
        }
        if let Some(max_idle) = max_idle {
            builder = builder.pool_max_idle_per_host(max_idle);
        }
        let client = {
            let _entered = runtime.enter();
            builder.build().map_err(|error| chain(&error))?
        };
        Ok(Self { runtime, client })
    }

    pub fn get(&self, url: &str) -> Result<Answer, String> {
        self.runtime.block_on(fetch(self.client.clone(), url.to_owned()))
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
                    let (client, url) = (self.client.clone(), url.to_owned());
                    tokio::spawn(async move {
                        let started = Instant::now();
                        let answer = fetch(client, url).await?;
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

    /// A POST whose streaming body (`Body::wrap_stream`) sends one chunk, stays open until
    /// `hold` has passed, then ends. The call lasts at least as long as the body is held,
    /// whatever the answer (an error as soon as the peer half-closes, say): reqwest's
    /// connection tasks, spawned on this runtime, run only while the call does, so their
    /// work over the hold is counted.
    pub fn post_held_body(&self, url: &str, hold: Duration) -> Result<Answer, String> {
        self.runtime.block_on(async {
            let deadline = tokio::time::Instant::now() + hold;
            let outcome = async {
                let response = self
                    .client
                    .post(url)
                    .header("content-type", "application/json")
                    .body(reqwest::Body::wrap_stream(Held::new(deadline)))
                    .send()
                    .await
                    .map_err(|error| chain(&error))?;
                read(response).await
            }
            .await;
            tokio::time::sleep_until(deadline).await;
            outcome
        })
    }
}

async fn fetch(client: reqwest::Client, url: String) -> Result<Answer, String> {
    let response = client
        .get(&url)
        .send()
        .await
        .map_err(|error| chain(&error))?;
    read(response).await
}

async fn read(response: reqwest::Response) -> Result<Answer, String> {
    let status = response.status().as_u16();
    let version = version(response.version());
    let body = response.bytes().await.map_err(|error| chain(&error))?;
    Ok(Answer {
        status,
        version,
        body: body.to_vec(),
    })
}

fn version(version: reqwest::Version) -> &'static str {
    if version == reqwest::Version::HTTP_2 {
        "HTTP/2"
    } else if version == reqwest::Version::HTTP_11 {
        "HTTP/1.1"
    } else if version == reqwest::Version::HTTP_10 {
        "HTTP/1.0"
    } else {
        "other"
    }
}

/// An error with its sources: reqwest's own names the URL and little of the cause.
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

/// A body stream: one chunk, then open for a while, then its end.
enum Held {
    /// The chunk still to send, and when the stream ends.
    Chunk(Vec<u8>, tokio::time::Instant),
    /// Sent; the stream ends when this sleep does.
    Holding(Pin<Box<tokio::time::Sleep>>),
    Done,
}

impl Held {
    fn new(until: tokio::time::Instant) -> Self {
        Held::Chunk(br#"{"pairs":"EURUSD","#.to_vec(), until)
    }
}

impl futures_core::Stream for Held {
    type Item = Result<Vec<u8>, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        match this {
            Held::Done => Poll::Ready(None),
            Held::Chunk(chunk, until) => {
                let chunk = std::mem::take(chunk);
                *this = Held::Holding(Box::pin(tokio::time::sleep_until(*until)));
                Poll::Ready(Some(Ok(chunk)))
            }
            Held::Holding(sleep) => {
                std::task::ready!(sleep.as_mut().poll(cx));
                *this = Held::Done;
                Poll::Ready(None)
            }
        }
    }
}
