//! A connection of one capacity worker's own, driven inside the worker's task.
//!
//! hyper-util's pooled client runs every connection as a task of its own and hands each request
//! and response between that task and the caller's through channels: at least two wake-ups per
//! request, often across threads. wrk keeps a connection and its requests in one event loop.
//! Here, too, the worker polls its connection and its request in one future (`select!`), so a
//! request costs no hand-off between tasks; the closed model needs no pool, since each worker
//! has exactly one request in flight.

use std::pin::{Pin, pin};

use bytes::Bytes;
use http::{Response, Version, header};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::client::conn::http1::{self, Connection, SendRequest};
use hyper_util::rt::TokioIo;
use rates_common::describe;
use tokio::net::TcpStream;

use crate::model::FailureKind;
use crate::suites::load::http::{self as load_http, Exchange, REQUEST_TIMEOUT, Target};

type Io = TokioIo<TcpStream>;

struct Open {
    sender: SendRequest<Full<Bytes>>,
    connection: Pin<Box<Connection<Io, Full<Bytes>>>>,
}

/// A worker's connection: opened on the first request, and again after one that failed or that
/// the server closed.
#[derive(Default)]
pub struct Dedicated {
    open: Option<Open>,
    /// Connections opened, the first included.
    pub opened: u64,
}

impl std::fmt::Debug for Dedicated {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Dedicated")
            .field("open", &self.open.is_some())
            .field("opened", &self.opened)
            .finish()
    }
}

impl Dedicated {
    /// Sends request `index` of `target`, reads the whole response and checks it, within
    /// [`REQUEST_TIMEOUT`] (connecting included).
    pub async fn exchange(&mut self, target: &Target, index: u64) -> Exchange {
        let bounded = tokio::time::timeout(REQUEST_TIMEOUT, self.exchange_unbounded(target, index));
        if let Ok(exchange) = bounded.await {
            return exchange;
        }
        // Whatever the connection was doing, it is not reused.
        self.open = None;
        Exchange::failed(
            None,
            0,
            FailureKind::Timeout,
            format!(
                "no complete response within {} s",
                REQUEST_TIMEOUT.as_secs()
            ),
        )
    }

    async fn exchange_unbounded(&mut self, target: &Target, index: u64) -> Exchange {
        let request = match target.request_on_connection(index) {
            Ok(request) => request,
            Err(error) => return Exchange::failed(None, 0, FailureKind::Connect, describe(&error)),
        };
        let open = match self.open.take().and_then(still_open) {
            Some(open) => open,
            None => match connect(target).await {
                Ok(open) => {
                    self.opened += 1;
                    open
                }
                Err(exchange) => return exchange,
            },
        };
        let Open {
            mut sender,
            mut connection,
        } = open;
        // The sender goes into the answer and comes back with it, so that the connection can
        // be kept for the next request.
        let answer = async move {
            if let Err(error) = sender.ready().await {
                let failed = Exchange::failed(None, 0, FailureKind::Reset, describe(&error));
                return (failed, false, sender);
            }
            match sender.send_request(request).await {
                Ok(response) => {
                    let reusable = !closes_after(&response);
                    let exchange = load_http::read(response, target, index).await;
                    (exchange, reusable, sender)
                }
                Err(error) => {
                    let failed = Exchange::failed(None, 0, FailureKind::Reset, describe(&error));
                    (failed, false, sender)
                }
            }
        };
        let mut answer = pin!(answer);
        let first = tokio::select! {
            biased;
            answered = &mut answer => Ok(answered),
            ended = connection.as_mut() => Err(ended),
        };
        match first {
            Ok((exchange, reusable, sender)) => {
                // A response read whole (ok, or a wrong status or body) leaves the connection
                // ready for the next; one cut short leaves it in an unknown state.
                let read_whole = exchange.failure.as_ref().is_none_or(|(kind, _)| {
                    matches!(kind, FailureKind::Status | FailureKind::Body)
                });
                if reusable && read_whole {
                    self.open = Some(Open { sender, connection });
                }
                exchange
            }
            Err(ended) => {
                // The connection ended, maybe right after delivering the whole answer (a
                // `connection: close`): the answer completes from what it holds, or fails
                // once the connection is dropped.
                drop(connection);
                let (mut exchange, _, _) = answer.await;
                if exchange.status.is_none()
                    && let (Err(error), Some((_, message))) = (ended, exchange.failure.as_mut())
                {
                    *message = describe(&error);
                }
                exchange
            }
        }
    }
}

fn still_open(open: Open) -> Option<Open> {
    (!open.sender.is_closed()).then_some(open)
}

/// Whether the server said it closes the connection after this response: hyper's connection
/// only notices once it is polled again, which would fail the next request.
fn closes_after(response: &Response<Incoming>) -> bool {
    response.version() < Version::HTTP_11
        || response
            .headers()
            .get_all(header::CONNECTION)
            .iter()
            .any(|value| value.as_bytes().eq_ignore_ascii_case(b"close"))
}

async fn connect(target: &Target) -> Result<Open, Exchange> {
    let connect_failed = |message: String| Exchange::failed(None, 0, FailureKind::Connect, message);
    let stream = TcpStream::connect(target.address)
        .await
        .map_err(|error| connect_failed(format!("connecting to {}: {error}", target.address)))?;
    stream
        .set_nodelay(true)
        .map_err(|error| connect_failed(format!("setting TCP_NODELAY: {error}")))?;
    let (sender, connection) = http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|error| connect_failed(describe(&error)))?;
    Ok(Open {
        sender,
        connection: Box::pin(connection),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Scenario;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    use tokio::net::TcpListener;

    const HEALTHY: &str = r#"{"status":"ok"}"#;

    /// A server that answers every GET with a healthy body, closing the connection after
    /// `answers_per_connection` answers (or without answering, when 0); counts connections.
    async fn server(answers_per_connection: usize) -> (String, Arc<AtomicU64>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let accepted = Arc::new(AtomicU64::new(0));
        let counter = Arc::clone(&accepted);
        tokio::spawn(async move {
            loop {
                let (mut stream, _) = listener.accept().await.unwrap();
                counter.fetch_add(1, Ordering::Relaxed);
                tokio::spawn(async move {
                    let mut buffer = Vec::new();
                    for answered in 1..=answers_per_connection {
                        while !buffer.windows(4).any(|window| window == b"\r\n\r\n") {
                            let mut chunk = [0; 1024];
                            let read = stream.read(&mut chunk).await.unwrap();
                            if read == 0 {
                                return;
                            }
                            buffer.extend_from_slice(&chunk[..read]);
                        }
                        buffer.clear();
                        let close = if answered == answers_per_connection {
                            "connection: close\r\n"
                        } else {
                            ""
                        };
                        let response = format!(
                            "HTTP/1.1 200 OK\r\ncontent-length: {}\r\n{close}\r\n{HEALTHY}",
                            HEALTHY.len()
                        );
                        stream.write_all(response.as_bytes()).await.unwrap();
                    }
                });
            }
        });
        (url, accepted)
    }

    #[tokio::test]
    async fn one_connection_serves_every_request_while_the_server_keeps_it() {
        let (url, accepted) = server(usize::MAX).await;
        let target = Target::new(&url, Scenario::Health).unwrap();
        let mut connection = Dedicated::default();
        for index in 0..5 {
            let exchange = connection.exchange(&target, index).await;
            assert!(exchange.failure.is_none(), "{exchange:?}");
            assert_eq!(exchange.status, Some(200));
        }
        assert_eq!(connection.opened, 1);
        assert_eq!(accepted.load(Ordering::Relaxed), 1);
    }

    #[tokio::test]
    async fn a_connection_the_server_closed_is_opened_again() {
        let (url, accepted) = server(2).await;
        let target = Target::new(&url, Scenario::Health).unwrap();
        let mut connection = Dedicated::default();
        for index in 0..5 {
            let exchange = connection.exchange(&target, index).await;
            assert!(exchange.failure.is_none(), "{exchange:?}");
        }
        // Two answers per connection: 5 requests took 3 connections.
        assert_eq!(connection.opened, 3);
        assert_eq!(accepted.load(Ordering::Relaxed), 3);
    }

    #[tokio::test]
    async fn a_connection_closed_without_an_answer_is_a_reset() {
        let (url, _) = server(0).await;
        let target = Target::new(&url, Scenario::Health).unwrap();
        let mut connection = Dedicated::default();
        let exchange = connection.exchange(&target, 0).await;
        let (kind, message) = exchange.failure.expect("no answer came");
        assert_eq!(kind, FailureKind::Reset, "{message}");
        assert!(!message.is_empty());
        // The next request opens a new connection.
        let _ = connection.exchange(&target, 1).await;
        assert_eq!(connection.opened, 2);
    }
}
