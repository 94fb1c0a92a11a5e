//! Just enough HTTP/1.1 for a mock: request heads in, no allocation per request.

use std::ops::Range;

/// Largest accepted request head (request line and headers).
pub(crate) const MAX_HEAD: usize = 16 * 1024;
/// Largest accepted request body; only the admin `PUT` carries one.
pub(crate) const MAX_BODY: usize = 64 * 1024;

/// The request methods the routes tell apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Method {
    Get,
    Post,
    Put,
    Other,
}

/// A parsed request head; `target` indexes the buffer it was parsed from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Head {
    pub method: Method,
    pub target: Range<usize>,
    /// HTTP/1.0: no chunked answers, and keep-alive only on request.
    pub http10: bool,
    pub keep_alive: bool,
    pub content_length: usize,
    pub expect_continue: bool,
    /// Bytes from the start of the buffer to the end of the blank line.
    pub len: usize,
}

/// Why a request head was refused; the connection answers and closes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HttpError {
    BadRequest(&'static str),
    HeadersTooLarge,
    PayloadTooLarge,
    VersionNotSupported,
    ChunkedRequest,
    /// The client stopped sending in the middle of a request.
    Timeout,
}

impl HttpError {
    pub(crate) fn status(self) -> u16 {
        match self {
            Self::BadRequest(_) => 400,
            Self::Timeout => 408,
            Self::PayloadTooLarge => 413,
            Self::HeadersTooLarge => 431,
            Self::ChunkedRequest => 501,
            Self::VersionNotSupported => 505,
        }
    }

    pub(crate) fn detail(self) -> &'static str {
        match self {
            Self::BadRequest(detail) => detail,
            Self::Timeout => "the request was not completed in time",
            Self::HeadersTooLarge => "the request head exceeds 16 KiB",
            Self::PayloadTooLarge => "the request body exceeds 64 KiB",
            Self::ChunkedRequest => "chunked request bodies are not supported",
            Self::VersionNotSupported => "only HTTP/1.0 and HTTP/1.1 are supported",
        }
    }
}

/// Parses the request head at the start of `buf`: `Ok(None)` while it is incomplete.
///
/// An incomplete head is still checked as far as it goes, so garbage is refused at once
/// rather than after a timeout.
pub(crate) fn parse_head(buf: &[u8]) -> Result<Option<Head>, HttpError> {
    // RFC 9112 2.2: ignore empty lines before the request line (old clients send a CRLF after a body).
    let start = buf
        .iter()
        .take_while(|&&byte| byte == b'\r' || byte == b'\n')
        .count();
    let rest = &buf[start..];
    let Some(end) = find(rest, b"\r\n\r\n") else {
        if buf.len() > MAX_HEAD {
            return Err(HttpError::HeadersTooLarge);
        }
        check_partial(rest)?;
        return Ok(None);
    };
    let len = start + end + 4;
    if len > MAX_HEAD {
        return Err(HttpError::HeadersTooLarge);
    }
    let mut lines = Lines(&rest[..end]);
    let request_line = lines.next().unwrap_or_default();
    let line = parse_request_line(request_line)?;
    let mut head = Head {
        method: line.method,
        target: start + line.target.start..start + line.target.end,
        http10: line.http10,
        keep_alive: !line.http10,
        content_length: 0,
        expect_continue: false,
        len,
    };
    let mut content_length = None;
    for header in lines {
        let (name, value) = parse_header(header)?;
        if name.eq_ignore_ascii_case(b"content-length") {
            let length = parse_content_length(value)?;
            if content_length.is_some_and(|seen| seen != length) {
                return Err(HttpError::BadRequest("conflicting Content-Length headers"));
            }
            content_length = Some(length);
        } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
            return Err(HttpError::ChunkedRequest);
        } else if name.eq_ignore_ascii_case(b"connection") {
            for token in value.split(|&byte| byte == b',').map(trim) {
                if token.eq_ignore_ascii_case(b"close") {
                    head.keep_alive = false;
                    break;
                }
                if token.eq_ignore_ascii_case(b"keep-alive") {
                    head.keep_alive = true;
                }
            }
        } else if name.eq_ignore_ascii_case(b"expect") {
            head.expect_continue = value.eq_ignore_ascii_case(b"100-continue");
        }
    }
    head.content_length = match usize::try_from(content_length.unwrap_or(0)) {
        Ok(length) if length <= MAX_BODY => length,
        _ => return Err(HttpError::PayloadTooLarge),
    };
    Ok(Some(head))
}

struct RequestLine {
    method: Method,
    target: Range<usize>,
    http10: bool,
}

fn parse_request_line(line: &[u8]) -> Result<RequestLine, HttpError> {
    const BAD: HttpError = HttpError::BadRequest("malformed request line");
    let mut parts = line.split(|&byte| byte == b' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(BAD);
    };
    if method.is_empty() || !method.iter().all(|&byte| is_token(byte)) {
        return Err(BAD);
    }
    // Origin form only: this server is never a proxy.
    if target.first() != Some(&b'/') || !target.iter().all(u8::is_ascii_graphic) {
        return Err(HttpError::BadRequest(
            "the request target must be an absolute path",
        ));
    }
    let http10 = match version {
        b"HTTP/1.1" => false,
        b"HTTP/1.0" => true,
        [b'H', b'T', b'T', b'P', b'/', major, b'.', minor]
            if major.is_ascii_digit() && minor.is_ascii_digit() =>
        {
            return Err(HttpError::VersionNotSupported);
        }
        _ => return Err(BAD),
    };
    let target_start = method.len() + 1;
    let method = match method {
        b"GET" => Method::Get,
        b"POST" => Method::Post,
        b"PUT" => Method::Put,
        _ => Method::Other,
    };
    Ok(RequestLine {
        method,
        target: target_start..target_start + target.len(),
        http10,
    })
}

fn check_partial(rest: &[u8]) -> Result<(), HttpError> {
    match find(rest, b"\r\n") {
        Some(end) => parse_request_line(&rest[..end]).map(|_| ()),
        // Control bytes can never start a request (a TLS hello, say): refuse without waiting.
        None if rest
            .iter()
            .any(|&byte| byte.is_ascii_control() && byte != b'\r') =>
        {
            Err(HttpError::BadRequest("malformed request line"))
        }
        None => Ok(()),
    }
}

fn parse_header(line: &[u8]) -> Result<(&[u8], &[u8]), HttpError> {
    const BAD: HttpError = HttpError::BadRequest("malformed header");
    let colon = line.iter().position(|&byte| byte == b':').ok_or(BAD)?;
    let (name, value) = (&line[..colon], trim(&line[colon + 1..]));
    // Folded lines (leading whitespace) and spaces before the colon are refused, per RFC 9112 5.
    if name.is_empty() || !name.iter().all(|&byte| is_token(byte)) {
        return Err(BAD);
    }
    if value
        .iter()
        .any(|&byte| (byte.is_ascii_control() && byte != b'\t') || byte == 0x7f)
    {
        return Err(BAD);
    }
    Ok((name, value))
}

fn parse_content_length(value: &[u8]) -> Result<u64, HttpError> {
    if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
        return Err(HttpError::BadRequest("invalid Content-Length"));
    }
    // Saturating: anything huge is refused as too large anyway.
    Ok(value.iter().fold(0u64, |length, &digit| {
        length
            .saturating_mul(10)
            .saturating_add(u64::from(digit - b'0'))
    }))
}

/// RFC 9110 `tchar`.
fn is_token(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

fn trim(bytes: &[u8]) -> &[u8] {
    let is_space = |byte: &u8| *byte == b' ' || *byte == b'\t';
    let start = bytes
        .iter()
        .position(|byte| !is_space(byte))
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|byte| !is_space(byte))
        .map_or(start, |end| end + 1);
    &bytes[start..end]
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// CRLF-separated lines.
struct Lines<'a>(&'a [u8]);

impl<'a> Iterator for Lines<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        if self.0.is_empty() {
            return None;
        }
        let (line, rest) = match find(self.0, b"\r\n") {
            Some(end) => (&self.0[..end], &self.0[end + 2..]),
            None => (self.0, &[][..]),
        };
        self.0 = rest;
        Some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(raw: &str) -> Result<Option<Head>, HttpError> {
        parse_head(raw.as_bytes())
    }

    #[test]
    fn parses_a_get() {
        let raw = "GET /api/live?pairs=EURUSD HTTP/1.1\r\nHost: x\r\n\r\nrest";
        let head = parse(raw).unwrap().unwrap();
        assert_eq!(head.method, Method::Get);
        assert_eq!(&raw[head.target.clone()], "/api/live?pairs=EURUSD");
        assert!(head.keep_alive && !head.http10);
        assert_eq!(head.content_length, 0);
        assert_eq!(head.len, raw.len() - 4);
    }

    #[test]
    fn skips_leading_empty_lines() {
        let raw = "\r\nPUT /x HTTP/1.1\r\ncontent-length: 12\r\n\r\n";
        let head = parse(raw).unwrap().unwrap();
        assert_eq!(
            (head.method, &raw[head.target.clone()]),
            (Method::Put, "/x")
        );
        assert_eq!(head.content_length, 12);
        assert_eq!(head.len, raw.len());
    }

    #[test]
    fn incomplete_heads_wait() {
        assert_eq!(parse(""), Ok(None));
        assert_eq!(parse("GET /api/li"), Ok(None));
        assert_eq!(parse("GET / HTTP/1.1\r\nHost: x\r\n"), Ok(None));
    }

    #[test]
    fn garbage_is_refused_before_the_head_ends() {
        assert!(matches!(
            parse("hello world\r\n"),
            Err(HttpError::BadRequest(_))
        ));
        assert!(matches!(
            parse("\x16\x03\x01\x02\x00"),
            Err(HttpError::BadRequest(_))
        ));
        assert!(matches!(
            parse("GET  / HTTP/1.1\r\n\r\n"),
            Err(HttpError::BadRequest(_))
        ));
        assert!(matches!(
            parse("GET http://x/ HTTP/1.1\r\n\r\n"),
            Err(HttpError::BadRequest(_))
        ));
        assert_eq!(
            parse("GET / HTTP/2.0\r\n\r\n"),
            Err(HttpError::VersionNotSupported)
        );
    }

    #[test]
    fn bad_headers_are_refused() {
        for raw in [
            "GET / HTTP/1.1\r\nno colon\r\n\r\n",
            "GET / HTTP/1.1\r\nName : v\r\n\r\n",
            "GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n",
            "GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
            "GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
            "GET / HTTP/1.1\r\nA: b\0c\r\n\r\n",
        ] {
            assert!(
                matches!(parse(raw), Err(HttpError::BadRequest(_))),
                "{raw:?}"
            );
        }
        assert_eq!(
            parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"),
            Err(HttpError::ChunkedRequest)
        );
        assert_eq!(
            parse("PUT / HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n"),
            Err(HttpError::PayloadTooLarge)
        );
    }

    #[test]
    fn oversized_heads_are_refused() {
        let big = format!("GET / HTTP/1.1\r\nX: {}\r\n", "a".repeat(MAX_HEAD));
        assert_eq!(parse(&big), Err(HttpError::HeadersTooLarge));
        assert_eq!(
            parse(&format!("{big}\r\n")),
            Err(HttpError::HeadersTooLarge)
        );
    }

    #[test]
    fn connection_and_version_decide_keep_alive() {
        let keep = |raw: &str| parse(raw).unwrap().unwrap().keep_alive;
        assert!(keep("GET / HTTP/1.1\r\n\r\n"));
        assert!(!keep("GET / HTTP/1.1\r\nConnection: Close\r\n\r\n"));
        assert!(!keep(
            "GET / HTTP/1.1\r\nConnection: keep-alive, close\r\n\r\n"
        ));
        assert!(!keep("GET / HTTP/1.0\r\n\r\n"));
        assert!(keep("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"));
    }

    #[test]
    fn expect_continue_is_noticed() {
        let head = parse("PUT / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n");
        assert!(head.unwrap().unwrap().expect_continue);
    }
}
