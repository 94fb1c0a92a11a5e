//! What a route sees and gives back: the parsed request, and the answer as data (status,
//! headers, body, fault) that each protocol's writer sends its own way: bytes for HTTP/1.1
//! ([`crate::connection`]), HEADERS and DATA frames for HTTP/2 ([`crate::http2`]).

use std::time::Duration;

use bytes::Bytes;
use serde::Serialize;

use crate::http::Method;
use crate::reply::reason;
use crate::settings::Framing;

/// One complete request, borrowed from the connection's read buffer (HTTP/1.1) or from the
/// stream's head (HTTP/2).
#[derive(Debug)]
pub(crate) struct Request<'a> {
    pub method: Method,
    pub path: &'a str,
    pub query: Option<&'a str>,
    pub body: &'a [u8],
    /// Whether the peer's address is a loopback one (the admin endpoints' default audience).
    pub peer_loopback: bool,
    /// The `Authorization` header's value, if the request had one.
    pub authorization: Option<&'a [u8]>,
}

/// What a route decided, and how long the connection waits before acting on it.
#[derive(Debug)]
pub(crate) struct Routed {
    /// The injected latency (and jitter) of `/api/live`; zero elsewhere.
    pub delay: Duration,
    pub outcome: Outcome,
}

impl From<Outcome> for Routed {
    fn from(outcome: Outcome) -> Self {
        Self {
            delay: Duration::ZERO,
            outcome,
        }
    }
}

impl From<Answer> for Routed {
    fn from(answer: Answer) -> Self {
        Outcome::Answer(answer).into()
    }
}

/// An answer, or one of the ways of not answering.
#[derive(Debug)]
pub(crate) enum Outcome {
    Answer(Answer),
    /// Abort: a TCP RST in HTTP/1.1, RST_STREAM(INTERNAL_ERROR) in HTTP/2.
    Reset,
    /// Answer nothing and wait for the client to go away.
    Hang,
    /// End the connection unanswered: GOAWAY in HTTP/2, a close in HTTP/1.1.
    GoAway,
    /// Refuse the request unprocessed: RST_STREAM(REFUSED_STREAM) in HTTP/2, a close in
    /// HTTP/1.1.
    Refuse,
}

/// One answer as data. The writers add what belongs to their protocol: the length or the
/// chunking, `Connection` in HTTP/1.1.
#[derive(Debug)]
pub(crate) struct Answer {
    pub status: u16,
    pub content_type: &'static str,
    /// Headers beyond Content-Type and the framing ones; names in lower case, as HTTP/2
    /// requires and HTTP/1.1 accepts.
    pub headers: &'static [(&'static str, &'static str)],
    pub body: Bytes,
    /// Content-Length, or chunked (in HTTP/2: one DATA frame per chunk).
    pub framing: Framing,
    /// How the answer breaks, if it does.
    pub fault: Option<AnswerFault>,
}

/// The faults that send part of an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AnswerFault {
    /// The head, announcing the whole body's length, then the end: a close in HTTP/1.1,
    /// RST_STREAM(INTERNAL_ERROR) in HTTP/2.
    HeadOnly,
    /// The head and the first half of the body, then the end as for `HeadOnly`.
    HalfBody,
    /// The head without a length, then the body one byte at a time, over and over, until the
    /// client leaves.
    Drip,
}

/// Largest chunk of a chunked body; smaller bodies go out in two halves, so that clients
/// always have to join chunks.
const MAX_CHUNK: usize = 16 * 1024;

impl Answer {
    /// A body that is already bytes, with Content-Length framing.
    pub(crate) fn bytes(status: u16, content_type: &'static str, body: Bytes) -> Self {
        Self {
            status,
            content_type,
            headers: &[],
            body,
            framing: Framing::ContentLength,
            fault: None,
        }
    }

    /// A JSON answer with Content-Length framing.
    pub(crate) fn json(status: u16, value: &impl Serialize) -> Self {
        match serde_json::to_vec(value) {
            Ok(body) => Self::bytes(status, "application/json", body.into()),
            Err(error) => {
                tracing::error!(%error, "could not serialize an answer");
                Self::problem(500, "could not serialize the answer", &[])
            }
        }
    }

    /// An RFC 9457 problem answer.
    pub(crate) fn problem(
        status: u16,
        detail: &str,
        headers: &'static [(&'static str, &'static str)],
    ) -> Self {
        let problem = serde_json::json!({
            "title": reason(status),
            "status": status,
            "detail": detail,
        });
        Self {
            headers,
            ..Self::bytes(
                status,
                "application/problem+json",
                problem.to_string().into(),
            )
        }
    }

    pub(crate) fn method_not_allowed(allow: &'static [(&'static str, &'static str)]) -> Self {
        Self::problem(405, "method not allowed", allow)
    }

    /// The body in the parts it is sent in: whole with Content-Length framing; chunked, in
    /// chunks of at most [`MAX_CHUNK`] bytes, and at least two (an empty part is skipped,
    /// as an empty chunk would end the body).
    pub(crate) fn parts(body: &Bytes, framing: Framing) -> impl Iterator<Item = Bytes> + '_ {
        let len = body.len();
        let count = match framing {
            Framing::ContentLength => 1,
            Framing::Chunked => len.div_ceil(MAX_CHUNK).max(2),
        };
        (0..count)
            .map(move |index| body.slice(len * index / count..len * (index + 1) / count))
            .filter(|part| !part.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lengths(len: usize, framing: Framing) -> Vec<usize> {
        let body = Bytes::from(vec![b'x'; len]);
        Answer::parts(&body, framing)
            .map(|part| part.len())
            .collect()
    }

    #[test]
    fn a_body_is_sent_whole_or_in_chunks_that_join_up() {
        assert_eq!(lengths(121, Framing::ContentLength), vec![121]);
        assert_eq!(lengths(0, Framing::ContentLength), Vec::<usize>::new());
        assert_eq!(lengths(121, Framing::Chunked), vec![60, 61]);
        assert_eq!(lengths(1, Framing::Chunked), vec![1]);
        let large = lengths(1_000_000, Framing::Chunked);
        assert_eq!(large.len(), 1_000_000usize.div_ceil(MAX_CHUNK));
        assert!(large.iter().all(|&len| len <= MAX_CHUNK));
        assert_eq!(large.iter().sum::<usize>(), 1_000_000);
        let body = Bytes::from_static(b"0123456789");
        let joined: Vec<u8> = Answer::parts(&body, Framing::Chunked).flatten().collect();
        assert_eq!(joined, b"0123456789");
    }
}
