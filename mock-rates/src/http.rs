//! Reading HTTP/1.1 request heads with `httparse`, plus the rules this server adds: origin-form
//! targets only, one Content-Length, no chunked requests, bounded sizes; no allocation.

use std::mem::MaybeUninit;
use std::ops::Range;

/// Largest accepted request head (request line and headers).
pub(crate) const MAX_HEAD: usize = 16 * 1024;
/// Largest accepted request body; only the admin `PUT` carries one.
pub(crate) const MAX_BODY: usize = 64 * 1024;
/// Most headers accepted (httparse needs room for them up front; hyper's default is 100).
/// Clients send a handful; more is refused with 431, like an oversized head.
pub(crate) const MAX_HEADERS: usize = 128;

/// The request methods the routes tell apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Method {
    Get,
    Post,
    Put,
    Other,
}

impl Method {
    /// The method named by a request's method token (case-sensitive, as RFC 9110 says).
    pub(crate) fn from_token(token: &str) -> Self {
        match token {
            "GET" => Self::Get,
            "POST" => Self::Post,
            "PUT" => Self::Put,
            _ => Self::Other,
        }
    }
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
    /// Where the `Authorization` header's value is in the buffer, if there is one.
    pub authorization: Option<Range<usize>>,
    /// Bytes from the start of the buffer to the end of the blank line.
    pub len: usize,
}

/// Why a request head was refused; the connection answers and closes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HttpError {
    BadRequest(&'static str),
    HeadersTooLarge,
    TooManyHeaders,
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
            Self::HeadersTooLarge | Self::TooManyHeaders => 431,
            Self::ChunkedRequest => 501,
            Self::VersionNotSupported => 505,
        }
    }

    pub(crate) fn detail(self) -> &'static str {
        match self {
            Self::BadRequest(detail) => detail,
            Self::Timeout => "the request was not completed in time",
            Self::HeadersTooLarge => "the request head exceeds 16 KiB",
            Self::TooManyHeaders => "the request has more than 128 headers",
            Self::PayloadTooLarge => "the request body exceeds 64 KiB",
            Self::ChunkedRequest => "chunked request bodies are not supported",
            Self::VersionNotSupported => "only HTTP/1.0 and HTTP/1.1 are supported",
        }
    }
}

const MALFORMED_REQUEST_LINE: HttpError = HttpError::BadRequest("malformed request line");

/// Parses the request head at the start of `buf`: `Ok(None)` while it is incomplete.
///
/// An incomplete head is still checked as far as it goes (httparse stops at the first bad
/// byte), so garbage such as a TLS hello is refused at once rather than after a timeout.
pub(crate) fn parse_head(buf: &[u8]) -> Result<Option<Head>, HttpError> {
    // Only the first MAX_HEAD bytes can hold an acceptable head.
    let window = &buf[..buf.len().min(MAX_HEAD)];
    // RFC 9112 2.2: empty lines before the request line are ignored (old clients send a CRLF
    // after a body). Skipped here rather than by httparse, which refuses a lone CR.
    let skipped = window
        .iter()
        .take_while(|&&byte| byte == b'\r' || byte == b'\n')
        .count();
    let rest = &window[skipped..];
    let mut headers = [const { MaybeUninit::<httparse::Header<'_>>::uninit() }; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut []);
    let head_len = match request.parse_with_uninit_headers(rest, &mut headers) {
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) => {
            // What has arrived is judged now, so a bad start is refused without waiting.
            if let Some(target) = request.path {
                check_target(target.as_bytes())?;
            }
            check_line_ends(rest)?;
            return wait_for_more(buf);
        }
        Err(httparse::Error::Version) => {
            check_line_ends(rest)?;
            unknown_version(rest)?;
            return wait_for_more(buf);
        }
        Err(httparse::Error::TooManyHeaders) => return Err(HttpError::TooManyHeaders),
        Err(httparse::Error::HeaderName | httparse::Error::HeaderValue) => {
            return Err(HttpError::BadRequest("malformed header"));
        }
        Err(_) => return Err(MALFORMED_REQUEST_LINE),
    };
    let (Some(method), Some(target), Some(minor_version)) =
        (request.method, request.path, request.version)
    else {
        return Err(MALFORMED_REQUEST_LINE);
    };
    check_target(target.as_bytes())?;
    check_line_ends(&rest[..head_len])?;
    let len = skipped + head_len;
    // The target follows the method and a single space.
    let target_start = skipped + method.len() + 1;
    let http10 = minor_version == 0;
    let mut head = Head {
        method: Method::from_token(method),
        target: target_start..target_start + target.len(),
        http10,
        keep_alive: !http10,
        content_length: 0,
        expect_continue: false,
        authorization: None,
        len,
    };
    let mut content_length = None;
    for header in request.headers.iter() {
        let (name, value) = (header.name, trim(header.value));
        if name.eq_ignore_ascii_case("content-length") {
            let length = parse_content_length(value)?;
            if content_length.is_some_and(|seen| seen != length) {
                return Err(HttpError::BadRequest("conflicting Content-Length headers"));
            }
            content_length = Some(length);
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(HttpError::ChunkedRequest);
        } else if name.eq_ignore_ascii_case("connection") {
            for token in value.split(|&byte| byte == b',').map(trim) {
                if token.eq_ignore_ascii_case(b"close") {
                    head.keep_alive = false;
                    break;
                }
                if token.eq_ignore_ascii_case(b"keep-alive") {
                    head.keep_alive = true;
                }
            }
        } else if name.eq_ignore_ascii_case("expect") {
            head.expect_continue = value.eq_ignore_ascii_case(b"100-continue");
        } else if name.eq_ignore_ascii_case("authorization") {
            // `value` borrows from `buf`: its place there, so the request can lend it later.
            let start = value.as_ptr().addr() - buf.as_ptr().addr();
            head.authorization = Some(start..start + value.len());
        }
    }
    head.content_length = match usize::try_from(content_length.unwrap_or(0)) {
        Ok(length) if length <= MAX_BODY => length,
        _ => return Err(HttpError::PayloadTooLarge),
    };
    Ok(Some(head))
}

/// Origin form only: this server is never a proxy. (httparse also lets UTF-8 through.)
fn check_target(target: &[u8]) -> Result<(), HttpError> {
    if target.first() == Some(&b'/') && target.iter().all(u8::is_ascii_graphic) {
        Ok(())
    } else {
        Err(HttpError::BadRequest(
            "the request target must be an absolute path",
        ))
    }
}

/// Lines end in CRLF here; httparse would also take a bare LF.
fn check_line_ends(head: &[u8]) -> Result<(), HttpError> {
    let bare_lf = head
        .iter()
        .enumerate()
        .any(|(at, &byte)| byte == b'\n' && (at == 0 || head[at - 1] != b'\r'));
    if bare_lf {
        Err(HttpError::BadRequest("lines must end in CRLF"))
    } else {
        Ok(())
    }
}

/// An unfinished head: wait for the rest, unless it can no longer fit.
fn wait_for_more(buf: &[u8]) -> Result<Option<Head>, HttpError> {
    if buf.len() > MAX_HEAD {
        Err(HttpError::HeadersTooLarge)
    } else {
        Ok(None)
    }
}

/// A well-formed version, each `0` standing for any digit.
const VERSION_PATTERN: &[u8] = b"HTTP/0.0";

/// httparse knows only HTTP/1.0 and 1.1. Another well-formed version (`HTTP/2.0`) is a 505,
/// anything else a 400; `Ok` (wait) while the request line is unfinished and could still end
/// in a well-formed version.
fn unknown_version(request_line: &[u8]) -> Result<(), HttpError> {
    let line_end = request_line
        .iter()
        .position(|&byte| byte == b'\r' || byte == b'\n');
    let line = &request_line[..line_end.unwrap_or(request_line.len())];
    // httparse read the method and the target, each followed by one space; the target is
    // judged first, as for any other request.
    let mut parts = line.splitn(3, |&byte| byte == b' ').skip(1);
    check_target(parts.next().unwrap_or_default())?;
    let version = parts.next().unwrap_or_default();
    let well_formed_so_far = version.len() <= VERSION_PATTERN.len()
        && version
            .iter()
            .zip(VERSION_PATTERN)
            .all(|(&byte, &expected)| match expected {
                b'0' => byte.is_ascii_digit(),
                _ => byte == expected,
            });
    match line_end {
        Some(_) if well_formed_so_far && version.len() == VERSION_PATTERN.len() => {
            Err(HttpError::VersionNotSupported)
        }
        None if well_formed_so_far => Ok(()),
        _ => Err(MALFORMED_REQUEST_LINE),
    }
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
        assert!(parse("\n\r\rGET / HTTP/1.1\r\n\r\n").unwrap().is_some());
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
        assert_eq!(parse("GET / HTTP/2.0"), Ok(None));
        // The target is judged before the version, so HTTP/2's preface is a plain 400.
        assert!(matches!(
            parse("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
            Err(HttpError::BadRequest(_))
        ));
        assert!(matches!(
            parse("GET / HTTP/1.1\n\n"),
            Err(HttpError::BadRequest(_))
        ));
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
        let many = |count: usize| format!("GET / HTTP/1.1\r\n{}\r\n", "A: b\r\n".repeat(count));
        assert!(parse(&many(MAX_HEADERS)).unwrap().is_some());
        assert_eq!(
            parse(&many(MAX_HEADERS + 1)),
            Err(HttpError::TooManyHeaders)
        );
        let detail = HttpError::TooManyHeaders.detail();
        assert!(detail.contains(&MAX_HEADERS.to_string()), "{detail}");
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
