//! Which answer each request gets, written into the connection's output buffer.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::admin;
use crate::faults::FaultMode;
use crate::http::{Method, Reply};
use crate::rates;
use crate::settings::{Framing, TimestampUnit};
use crate::state::MockState;

/// One complete request, borrowed from the connection's read buffer.
#[derive(Debug)]
pub(crate) struct Request<'a> {
    pub method: Method,
    pub path: &'a str,
    pub query: Option<&'a str>,
    pub body: &'a [u8],
    pub keep_alive: bool,
    pub http10: bool,
}

/// What the connection does after a request was handled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Write the output buffer, then close if `close`, else read the next request.
    Reply { close: bool },
    /// Abort the connection so the client sees a TCP RST.
    Reset,
    /// Write the output buffer (a chunked head), then drip the body buffer forever.
    Drip,
    /// Answer nothing; wait for the client to go away.
    Hang,
}

/// Buffers a connection reuses from request to request.
#[derive(Debug, Default)]
pub(crate) struct Buffers {
    /// The bytes to send.
    pub out: Vec<u8>,
    /// Scratch space for a body before it is framed.
    pub body: Vec<u8>,
}

pub(crate) async fn handle(
    request: &Request<'_>,
    state: &MockState,
    buffers: &mut Buffers,
) -> Outcome {
    let responder = Responder::new(request);
    match request.path {
        "/api/live" if request.method == Method::Get => live(request, state, buffers).await,
        "/health" if request.method == Method::Get => {
            responder.json(200, &Health { status: "ok" }, &mut buffers.out)
        }
        "/api/live" | "/health" => responder.method_not_allowed("GET", &mut buffers.out),
        path if path.starts_with("/__admin/") => admin::handle(request, state, &mut buffers.out),
        _ => responder.problem(404, "no such resource", &[], &mut buffers.out),
    }
}

#[derive(Serialize)]
struct Health {
    status: &'static str,
}

async fn live(request: &Request<'_>, state: &MockState, buffers: &mut Buffers) -> Outcome {
    let decision = state.live_decision();
    if !decision.delay.is_zero() {
        tokio::time::sleep(decision.delay).await;
    }
    let Buffers { out, body } = buffers;
    body.clear();
    rates::write_live_body(
        &rates::parse_pairs(request.query),
        timestamp(state.timestamp_unit()),
        body,
    );
    let responder = Responder::new(request);
    let reply = Reply {
        status: 200,
        content_type: state.content_type().header_value(),
        // HTTP/1.0 clients cannot read chunked bodies.
        framing: if request.http10 {
            Framing::ContentLength
        } else {
            state.framing()
        },
        connection: responder.connection_header(),
        extra_headers: &[],
    };
    // Broken answers do not announce the close: the client should be surprised by it.
    let broken = Reply {
        framing: Framing::ContentLength,
        connection: None,
        ..reply
    };
    match decision.fault {
        None | Some(FaultMode::None) => {
            reply.write(body, out);
            responder.done()
        }
        Some(FaultMode::Status) => {
            let retry_after: &[(&str, &str)] = if decision.status == 503 {
                &[("Retry-After", "1")]
            } else {
                &[]
            };
            responder.problem(decision.status, "injected fault", retry_after, out)
        }
        Some(FaultMode::Reset) => Outcome::Reset,
        Some(FaultMode::Eof) => {
            broken.write_head(body.len(), out);
            Outcome::Reply { close: true }
        }
        Some(FaultMode::Truncated) => {
            broken.write_head(body.len(), out);
            out.extend_from_slice(&body[..body.len() / 2]);
            Outcome::Reply { close: true }
        }
        Some(FaultMode::Malformed) => {
            let mut malformed = body[..body.len() / 2].to_vec();
            malformed.extend_from_slice(b"<html>");
            reply.write(&malformed, out);
            responder.done()
        }
        Some(FaultMode::Drip) => {
            Reply {
                framing: Framing::Chunked,
                ..broken
            }
            .write_head(0, out);
            Outcome::Drip
        }
        Some(FaultMode::Hang) => Outcome::Hang,
    }
}

fn timestamp(unit: TimestampUnit) -> u64 {
    // A clock before 1970 is not worth failing a request over.
    let since_epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    match unit {
        TimestampUnit::Seconds => since_epoch.as_secs(),
        TimestampUnit::Millis => u64::try_from(since_epoch.as_millis()).unwrap_or(u64::MAX),
    }
}

/// Writes whole answers that follow the request's keep-alive wish.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Responder {
    keep_alive: bool,
    http10: bool,
}

impl Responder {
    pub(crate) fn new(request: &Request<'_>) -> Self {
        Self {
            keep_alive: request.keep_alive,
            http10: request.http10,
        }
    }

    /// For answers sent on a connection that is closing anyway (a refused request).
    pub(crate) fn closing() -> Self {
        Self {
            keep_alive: false,
            http10: false,
        }
    }

    fn connection_header(self) -> Option<&'static str> {
        match (self.keep_alive, self.http10) {
            (false, _) => Some("close"),
            // HTTP/1.0 closes by default, so keep-alive has to be confirmed.
            (true, true) => Some("keep-alive"),
            (true, false) => None,
        }
    }

    fn done(self) -> Outcome {
        Outcome::Reply {
            close: !self.keep_alive,
        }
    }

    /// A JSON answer with Content-Length framing.
    pub(crate) fn json(self, status: u16, value: &impl Serialize, out: &mut Vec<u8>) -> Outcome {
        match serde_json::to_vec(value) {
            Ok(body) => {
                self.write(status, "application/json", &body, &[], out);
                self.done()
            }
            Err(error) => {
                tracing::error!(%error, "could not serialize an answer");
                self.problem(500, "could not serialize the answer", &[], out)
            }
        }
    }

    /// An RFC 9457 problem answer.
    pub(crate) fn problem(
        self,
        status: u16,
        detail: &str,
        extra_headers: &[(&'static str, &str)],
        out: &mut Vec<u8>,
    ) -> Outcome {
        let problem = serde_json::json!({
            "title": crate::http::reason(status),
            "status": status,
            "detail": detail,
        });
        self.write(
            status,
            "application/problem+json",
            problem.to_string().as_bytes(),
            extra_headers,
            out,
        );
        self.done()
    }

    pub(crate) fn method_not_allowed(self, allow: &str, out: &mut Vec<u8>) -> Outcome {
        self.problem(405, "method not allowed", &[("Allow", allow)], out)
    }

    fn write(
        self,
        status: u16,
        content_type: &str,
        body: &[u8],
        extra_headers: &[(&'static str, &str)],
        out: &mut Vec<u8>,
    ) {
        Reply {
            status,
            content_type,
            framing: Framing::ContentLength,
            connection: self.connection_header(),
            extra_headers,
        }
        .write(body, out);
    }
}
