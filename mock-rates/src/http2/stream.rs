//! One stream: its request head as decoded, and, while it waits, what it waits for.

use std::collections::VecDeque;
use std::time::Duration;

use bytes::Bytes;
use tokio::time::Instant;

use crate::exchange::{Outcome, Request};
use crate::http::{MAX_BODY, Method};

/// The pseudo-header fields of a request (RFC 9113 §8.3.1), as bits.
const METHOD: u8 = 1;
const SCHEME: u8 = 2;
const AUTHORITY: u8 = 4;
const PATH: u8 = 8;

/// The fields of a request head that a route reads, decoded from HPACK; reused from request
/// to request on a connection. What makes a request malformed (RFC 9113 §8.1.1, §8.2, §8.3)
/// is noted as the fields come, so that a malformed one is never kept whole.
#[derive(Debug, Default)]
pub(super) struct Head {
    method: String,
    path: String,
    authorization: Option<Vec<u8>>,
    /// The pseudo-header fields seen, as bits.
    pseudo: u8,
    /// A regular field was seen: no pseudo-header may follow.
    regular: bool,
    content_length: Option<u64>,
    /// A field that HTTP/2 does not allow, a pseudo-header out of place or twice.
    malformed: bool,
    /// The header list went past the limit the server announced.
    oversized: bool,
}

impl Head {
    pub(super) fn clear(&mut self) {
        self.method.clear();
        self.path.clear();
        self.authorization = None;
        self.pseudo = 0;
        self.regular = false;
        self.content_length = None;
        self.malformed = false;
        self.oversized = false;
    }

    /// Takes one decoded field.
    pub(super) fn field(&mut self, name: &[u8], value: &[u8]) {
        if self.malformed {
            return;
        }
        if !valid_value(value) {
            self.malformed = true;
            return;
        }
        if let Some(pseudo) = name.strip_prefix(b":") {
            let bit = match pseudo {
                b"method" => METHOD,
                b"scheme" => SCHEME,
                b"authority" => AUTHORITY,
                b"path" => PATH,
                _ => 0,
            };
            // Unknown, twice, or after a regular field (§8.3).
            if bit == 0 || self.pseudo & bit != 0 || self.regular {
                self.malformed = true;
                return;
            }
            self.pseudo |= bit;
            let text = std::str::from_utf8(value);
            match (bit, text) {
                (METHOD, Ok(method)) => self.method.push_str(method),
                (PATH, Ok(path)) => self.path.push_str(path),
                (METHOD | PATH, Err(_)) => self.malformed = true,
                _ => {}
            }
            return;
        }
        self.regular = true;
        if !valid_name(name) {
            self.malformed = true;
            return;
        }
        match name {
            b"authorization" => self.authorization = Some(value.to_vec()),
            b"content-length" => {
                let length = std::str::from_utf8(value)
                    .ok()
                    .filter(|digits| digits.bytes().all(|digit| digit.is_ascii_digit()))
                    .and_then(|digits| digits.parse().ok());
                match (length, self.content_length) {
                    (Some(length), None) => self.content_length = Some(length),
                    (Some(length), Some(before)) if length == before => {}
                    _ => self.malformed = true,
                }
            }
            // `te` may only say `trailers` (§8.2.2).
            b"te" => self.malformed |= value != b"trailers",
            // Connection-specific fields are malformed in HTTP/2 (§8.2.2).
            b"connection" | b"keep-alive" | b"proxy-connection" | b"transfer-encoding"
            | b"upgrade" => self.malformed = true,
            _ => {}
        }
    }

    /// The header list went past the limit while it was decoded.
    pub(super) fn set_oversized(&mut self) {
        self.oversized = true;
    }

    /// Whether the head is one a route can take: `:method`, `:scheme` and a `:path` that
    /// starts with `/`, nothing malformed (§8.3.1).
    pub(super) fn is_valid(&self) -> bool {
        !self.malformed
            && self.pseudo & (METHOD | SCHEME | PATH) == METHOD | SCHEME | PATH
            && !self.method.is_empty()
            && self.path.starts_with('/')
    }

    /// Whether the head is a well-formed CONNECT (§8.5): `:method` and `:authority` only,
    /// which the routes do not serve.
    pub(super) fn is_connect(&self) -> bool {
        !self.malformed && self.pseudo == METHOD | AUTHORITY && self.method == "CONNECT"
    }

    /// Whether the head is valid as trailers: regular fields only (§8.1).
    pub(super) fn is_valid_trailers(&self) -> bool {
        !self.malformed && self.pseudo == 0
    }

    /// Larger than the header-list limit.
    pub(super) fn is_too_large(&self) -> bool {
        self.oversized
    }

    /// The length the request announced for its body.
    pub(super) fn content_length(&self) -> Option<u64> {
        self.content_length
    }

    /// The bytes this head keeps.
    pub(super) fn retained(&self) -> usize {
        self.method.capacity()
            + self.path.capacity()
            + self.authorization.as_ref().map_or(0, Vec::capacity)
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

/// A field name as HTTP/2 allows it (RFC 9113 §8.2.1): not empty, no upper case, no
/// controls, space, colon or non-ASCII.
fn valid_name(name: &[u8]) -> bool {
    !name.is_empty()
        && name
            .iter()
            .all(|&byte| byte > 0x20 && byte < 0x7f && byte != b':' && !byte.is_ascii_uppercase())
}

/// A field value as HTTP/2 allows it (§8.2.1): no NUL, CR or LF, no whitespace at either end.
fn valid_value(value: &[u8]) -> bool {
    let blank = |byte: Option<&u8>| matches!(byte, Some(b' ' | b'\t'));
    !value.iter().any(|&byte| matches!(byte, 0 | b'\r' | b'\n'))
        && !blank(value.first())
        && !blank(value.last())
}

/// A stream that could not be answered at once: its send window, and what it waits for.
#[derive(Debug)]
pub(super) struct Waiting {
    /// What the client lets this stream send (RFC 9113 §6.9).
    pub send_window: i64,
    pub work: Work,
}

impl Waiting {
    /// Whether its request body is still arriving (the stream is open, not half-closed).
    pub(super) fn is_receiving(&self) -> bool {
        matches!(self.work, Work::Body(_))
    }

    /// Whether its request has not been routed yet (its body arriving, or parked).
    pub(super) fn is_unrouted(&self) -> bool {
        matches!(self.work, Work::Body(_) | Work::Parked(_))
    }
}

/// What a stream waits for.
#[derive(Debug)]
pub(super) enum Work {
    /// The rest of its request body; the request is routed when it has come.
    Body(Box<Upload>),
    /// The injected latency: its outcome is acted on at `due`.
    Delay { due: Instant, outcome: Outcome },
    /// Room in the flow-control windows for the rest of its body. Without `ends`, the
    /// stream is reset after the last part (a truncated answer). If no room comes by `due`,
    /// the stream is reset: a client that never opens its window holds nothing for long.
    Send {
        parts: VecDeque<Bytes>,
        ends: bool,
        due: Instant,
    },
    /// The next byte of a drip, due at `due` (when the windows let it out).
    Drip {
        body: Bytes,
        next: usize,
        due: Instant,
    },
    /// Nothing, until the client resets the stream or the connection ends: a hang, or a
    /// stream a `goaway` fault left unanswered.
    Hang,
    /// A whole request not routed yet: the answers that wait already hold as much as the
    /// connection keeps. It is routed, in stream order, once they hold less.
    Parked(Box<Upload>),
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
    /// What the client may still send on this stream before the server gives more.
    pub receive_window: i64,
}

impl Upload {
    pub(super) fn new(head: Head, timeout: Duration, receive_window: i64) -> Self {
        Self {
            head,
            body: Vec::new(),
            due: Instant::now() + timeout,
            unacked: 0,
            receive_window,
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

    /// Whether the body received so far is longer than its announced length, or (`ended`)
    /// not as long: a malformed request (RFC 9113 §8.1.1).
    pub(super) fn length_differs(&self, ended: bool) -> bool {
        self.head.content_length().is_some_and(|length| {
            let received = self.body.len() as u64;
            received > length || (ended && received != length)
        })
    }
}

impl Work {
    /// When this work must be looked at again without anything arriving.
    pub(super) fn due(&self) -> Option<Instant> {
        match self {
            Self::Body(upload) => Some(upload.due),
            Self::Delay { due, .. } | Self::Drip { due, .. } | Self::Send { due, .. } => Some(*due),
            Self::Hang | Self::Parked(_) => None,
        }
    }

    /// The bytes of an answer this work holds until it goes out.
    pub(super) fn held(&self) -> usize {
        match self {
            Self::Delay {
                outcome: Outcome::Answer(answer),
                ..
            } => answer.body.len(),
            Self::Send { parts, .. } => parts.iter().map(Bytes::len).sum(),
            Self::Drip { body, .. } => body.len(),
            Self::Body(_) | Self::Delay { .. } | Self::Hang | Self::Parked(_) => 0,
        }
    }

    /// The bytes of a request this work keeps.
    pub(super) fn retained(&self) -> usize {
        match self {
            Self::Body(upload) | Self::Parked(upload) => {
                upload.body.capacity() + upload.head.retained()
            }
            _ => 0,
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
            ("te", "trailers"),
            ("content-length", "0"),
        ]);
        assert!(head.is_valid());
        assert_eq!(head.content_length(), Some(0));
        let request = head.request(b"", true);
        assert_eq!(request.method, Method::Get);
        assert_eq!(
            (request.path, request.query),
            ("/api/live", Some("pairs=EURUSD"))
        );
        assert_eq!(request.authorization, Some(&b"Bearer t"[..]));
    }

    /// RFC 9113 §8.1.1, §8.2, §8.3: each of these makes the request malformed.
    #[test]
    fn malformed_heads_are_told() {
        let base = [(":method", "GET"), (":scheme", "https"), (":path", "/")];
        let with = |extra: &[(&str, &str)]| {
            let mut fields = base.to_vec();
            fields.extend_from_slice(extra);
            head(&fields)
        };
        assert!(with(&[]).is_valid());
        for (case, fields) in [
            ("no :path", &[(":method", "GET"), (":scheme", "https")][..]),
            ("no :scheme", &[(":method", "GET"), (":path", "/")][..]),
            ("no :method", &[(":scheme", "https"), (":path", "/")][..]),
            (
                "an empty :path",
                &[(":method", "GET"), (":scheme", "https"), (":path", "")][..],
            ),
        ] {
            assert!(!head(fields).is_valid(), "{case}");
        }
        for (case, extra) in [
            ("a pseudo-header twice", &[(":method", "GET")][..]),
            ("an unknown pseudo-header", &[(":protocol", "x")][..]),
            ("a response pseudo-header", &[(":status", "200")][..]),
            (
                "a pseudo-header after a regular field",
                &[("accept", "*/*"), (":authority", "a")][..],
            ),
            ("an upper-case name", &[("Accept", "*/*")][..]),
            ("a space in a name", &[("x y", "1")][..]),
            ("a colon in a name", &[("x:y", "1")][..]),
            ("an empty name", &[("", "1")][..]),
            ("a CR in a value", &[("x", "a\rb")][..]),
            ("a NUL in a value", &[("x", "a\0b")][..]),
            ("a value starting with a space", &[("x", " a")][..]),
            ("connection", &[("connection", "close")][..]),
            ("keep-alive", &[("keep-alive", "5")][..]),
            ("transfer-encoding", &[("transfer-encoding", "chunked")][..]),
            ("upgrade", &[("upgrade", "h2c")][..]),
            ("te other than trailers", &[("te", "gzip")][..]),
            (
                "a content-length not a number",
                &[("content-length", "1a")][..],
            ),
            (
                "two content-lengths that differ",
                &[("content-length", "1"), ("content-length", "2")][..],
            ),
        ] {
            assert!(!with(extra).is_valid(), "{case}");
        }
        // A doubled :method is not appended to the first (GETGET).
        let doubled = with(&[(":method", "GET")]);
        assert_eq!(doubled.method, "GET");
        let mut large = with(&[]);
        large.set_oversized();
        assert!(large.is_too_large());
        large.clear();
        assert!(!large.is_valid() && !large.is_too_large());
    }

    #[test]
    fn trailers_carry_no_pseudo_header() {
        assert!(head(&[("x-checksum", "1")]).is_valid_trailers());
        assert!(!head(&[(":path", "/")]).is_valid_trailers());
        let connect = head(&[(":method", "CONNECT"), (":authority", "a:443")]);
        assert!(connect.is_connect() && !connect.is_valid());
        let with_path = head(&[(":method", "CONNECT"), (":authority", "a"), (":path", "/")]);
        assert!(!with_path.is_connect());
        assert!(!head(&[("Upper", "1")]).is_valid_trailers());
    }

    #[test]
    fn an_upload_stops_at_the_largest_body_and_knows_its_length() {
        let mut upload = Upload::new(Head::default(), Duration::from_secs(1), 1 << 20);
        assert!(upload.take(&vec![0; MAX_BODY]));
        assert!(!upload.take(b"x"));
        assert_eq!(upload.body.len(), MAX_BODY);

        let mut head = Head::default();
        head.field(b"content-length", b"3");
        let mut upload = Upload::new(head, Duration::from_secs(1), 1 << 20);
        upload.take(b"ab");
        assert!(!upload.length_differs(false));
        assert!(upload.length_differs(true), "ended short");
        upload.take(b"cd");
        assert!(upload.length_differs(false), "longer than announced");
    }
}
