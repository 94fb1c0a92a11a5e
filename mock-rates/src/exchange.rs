//! What a route sees and gives back: the parsed request, what the connection does next, the
//! buffers it reuses, and the writer of whole answers.

use serde::Serialize;

use crate::http::Method;
use crate::reply::{Reply, reason};
use crate::settings::Framing;

/// One complete request, borrowed from the connection's read buffer.
#[derive(Debug)]
pub(crate) struct Request<'a> {
    pub method: Method,
    pub path: &'a str,
    pub query: Option<&'a str>,
    pub body: &'a [u8],
    pub keep_alive: bool,
    pub http10: bool,
    /// Whether the peer's address is a loopback one (the admin endpoints' default audience).
    pub peer_loopback: bool,
    /// The `Authorization` header's value, if the request had one.
    pub authorization: Option<&'a [u8]>,
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
    /// End the connection without answering: GOAWAY in HTTP/2, a close in HTTP/1.1.
    GoAway,
    /// Refuse this request unprocessed: RST_STREAM(REFUSED_STREAM) in HTTP/2, a close in
    /// HTTP/1.1.
    Refuse,
}

/// Buffers a connection reuses from request to request.
#[derive(Debug, Default)]
pub(crate) struct Buffers {
    /// The bytes to send.
    pub out: Vec<u8>,
    /// Scratch space for a body before it is framed.
    pub body: Vec<u8>,
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

    pub(crate) fn connection_header(self) -> Option<&'static str> {
        match (self.keep_alive, self.http10) {
            (false, _) => Some("close"),
            // HTTP/1.0 closes by default, so keep-alive has to be confirmed.
            (true, true) => Some("keep-alive"),
            (true, false) => None,
        }
    }

    pub(crate) fn done(self) -> Outcome {
        Outcome::Reply {
            close: !self.keep_alive,
        }
    }

    /// A JSON answer with Content-Length framing.
    pub(crate) fn json(self, status: u16, value: &impl Serialize, out: &mut Vec<u8>) -> Outcome {
        match serde_json::to_vec(value) {
            Ok(body) => self.bytes(status, "application/json", &body, out),
            Err(error) => {
                tracing::error!(%error, "could not serialize an answer");
                self.problem(500, "could not serialize the answer", &[], out)
            }
        }
    }

    /// A body that is already bytes, with Content-Length framing.
    pub(crate) fn bytes(
        self,
        status: u16,
        content_type: &str,
        body: &[u8],
        out: &mut Vec<u8>,
    ) -> Outcome {
        self.write(status, content_type, body, &[], out);
        self.done()
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
            "title": reason(status),
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
