//! One stream: its request head as decoded, and, while it waits, what it waits for.

use std::collections::VecDeque;
use std::time::Duration;

use bytes::Bytes;
use tokio::time::Instant;

use crate::exchange::{Outcome, Request};
use crate::http::{MAX_BODY, MAX_HEAD, Method};

/// The fields of a request head that a route reads, decoded from HPACK; reused from request
/// to request on a connection.
#[derive(Debug, Default)]
pub(super) struct Head {
    method: String,
    path: String,
    authorization: Option<Vec<u8>>,
    /// The header list's size as HTTP/2 counts it (RFC 9113 §6.5.2).
    size: usize,
    /// A field that HTTP/2 does not allow, or a pseudo-header out of place.
    malformed: bool,
}

impl Head {
    pub(super) fn clear(&mut self) {
        self.method.clear();
        self.path.clear();
        self.authorization = None;
        self.size = 0;
        self.malformed = false;
    }

    /// Takes one decoded field.
    pub(super) fn field(&mut self, name: &[u8], value: &[u8]) {
        self.size += name.len() + value.len() + 32;
        match name {
            b":method" => self
                .method
                .push_str(std::str::from_utf8(value).unwrap_or("")),
            b":path" => match std::str::from_utf8(value) {
                Ok(path) => self.path.push_str(path),
                Err(_) => self.malformed = true,
            },
            b":scheme" | b":authority" => {}
            b"authorization" => self.authorization = Some(value.to_vec()),
            // Connection-specific fields are malformed in HTTP/2 (RFC 9113 §8.2.2).
            b"connection" | b"keep-alive" | b"transfer-encoding" | b"upgrade" => {
                self.malformed = true;
            }
            _ if name.first() == Some(&b':') => self.malformed = true,
            _ => {}
        }
    }

    /// Whether the head is one a route can take: a method and a path, nothing malformed.
    pub(super) fn is_valid(&self) -> bool {
        !self.malformed && !self.method.is_empty() && self.path.starts_with('/')
    }

    /// Larger than the HTTP/1.1 side accepts.
    pub(super) fn is_too_large(&self) -> bool {
        self.size > MAX_HEAD
    }

    /// The request as the routes read it.
    pub(super) fn request<'a>(&'a self, body: &'a [u8], peer_loopback: bool) -> Request<'a> {
        let (path, query) = match self.path.split_once('?') {
            Some((path, query)) => (path, Some(query)),
            None => (self.path.as_str(), None),
        };
        Request {
            method: Method::from_token(&self.method),
            path,
            query,
            body,
            peer_loopback,
            authorization: self.authorization.as_deref(),
        }
    }
}

/// A stream that could not be answered at once: its send window, and what it waits for.
#[derive(Debug)]
pub(super) struct Waiting {
    /// What the client lets this stream send (RFC 9113 §6.9).
    pub send_window: i64,
    pub work: Work,
}

/// What a stream waits for.
#[derive(Debug)]
pub(super) enum Work {
    /// The rest of its request body; the request is routed when it has come.
    Body(Box<Upload>),
    /// The injected latency: its outcome is acted on at `due`.
    Delay { due: Instant, outcome: Outcome },
    /// Room in the flow-control windows for the rest of its body. Without `ends`, the
    /// stream is reset after the last part (a truncated answer).
    Send { parts: VecDeque<Bytes>, ends: bool },
    /// The next byte of a drip, due at `due` (when the windows let it out).
    Drip {
        body: Bytes,
        next: usize,
        due: Instant,
    },
    /// Nothing, until the client resets the stream or the connection ends: a hang, or a
    /// stream a `goaway` fault left unanswered.
    Hang,
}

/// A request whose body is still arriving.
#[derive(Debug)]
pub(super) struct Upload {
    pub head: Head,
    pub body: Vec<u8>,
    /// When the body must have come, as over HTTP/1.1.
    pub due: Instant,
    /// What it received and has not given back to the client's window yet.
    pub unacked: u32,
}

impl Upload {
    pub(super) fn new(head: Head, timeout: Duration) -> Self {
        Self {
            head,
            body: Vec::new(),
            due: Instant::now() + timeout,
            unacked: 0,
        }
    }

    /// Takes a piece of the body: `false` once the body is larger than a route accepts.
    pub(super) fn take(&mut self, data: &[u8]) -> bool {
        if self.body.len() + data.len() > MAX_BODY {
            return false;
        }
        self.body.extend_from_slice(data);
        true
    }
}

impl Work {
    /// When this work must be looked at again without anything arriving.
    pub(super) fn due(&self) -> Option<Instant> {
        match self {
            Self::Body(upload) => Some(upload.due),
            Self::Delay { due, .. } | Self::Drip { due, .. } => Some(*due),
            Self::Send { .. } | Self::Hang => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(fields: &[(&str, &str)]) -> Head {
        let mut head = Head::default();
        for (name, value) in fields {
            head.field(name.as_bytes(), value.as_bytes());
        }
        head
    }

    #[test]
    fn a_head_gives_the_route_its_method_path_query_and_token() {
        let head = head(&[
            (":method", "GET"),
            (":scheme", "https"),
            (":authority", "localhost"),
            (":path", "/api/live?pairs=EURUSD"),
            ("authorization", "Bearer t"),
            ("accept", "*/*"),
        ]);
        assert!(head.is_valid());
        let request = head.request(b"", true);
        assert_eq!(request.method, Method::Get);
        assert_eq!(
            (request.path, request.query),
            ("/api/live", Some("pairs=EURUSD"))
        );
        assert_eq!(request.authorization, Some(&b"Bearer t"[..]));
    }

    #[test]
    fn malformed_heads_are_told() {
        assert!(!head(&[(":method", "GET")]).is_valid(), "no path");
        assert!(!head(&[(":method", "GET"), (":path", "/"), ("connection", "close")]).is_valid());
        assert!(!head(&[(":method", "GET"), (":path", "/"), (":protocol", "x")]).is_valid());
        let mut large = head(&[(":method", "GET"), (":path", "/")]);
        large.field(b"x-large", &vec![b'a'; MAX_HEAD]);
        assert!(large.is_too_large());
        large.clear();
        assert!(!large.is_valid() && !large.is_too_large());
    }

    #[test]
    fn an_upload_stops_at_the_largest_body() {
        let mut upload = Upload::new(Head::default(), Duration::from_secs(1));
        assert!(upload.take(&vec![0; MAX_BODY]));
        assert!(!upload.take(b"x"));
        assert_eq!(upload.body.len(), MAX_BODY);
    }
}
