//! Writing HTTP/1.1 heads and chunk framing byte by byte, without allocating, so that faults
//! can cut an answer anywhere.

use crate::settings::Framing;

/// The head of one HTTP/1.1 response; the body is written separately so faults can cut it
/// short.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reply<'a> {
    pub status: u16,
    pub content_type: &'a str,
    pub framing: Framing,
    /// The `Connection` header to send, if any.
    pub connection: Option<&'static str>,
    pub extra_headers: &'a [(&'static str, &'a str)],
}

impl Reply<'_> {
    /// Writes the status line and headers; `body_len` is only sent with Content-Length framing.
    pub(crate) fn write_head(&self, body_len: usize, out: &mut Vec<u8>) {
        out.extend_from_slice(b"HTTP/1.1 ");
        push_decimal(out, u64::from(self.status));
        out.push(b' ');
        out.extend_from_slice(reason(self.status).as_bytes());
        out.extend_from_slice(b"\r\nContent-Type: ");
        out.extend_from_slice(self.content_type.as_bytes());
        match self.framing {
            Framing::ContentLength => {
                out.extend_from_slice(b"\r\nContent-Length: ");
                push_decimal(out, body_len as u64);
            }
            Framing::Chunked => out.extend_from_slice(b"\r\nTransfer-Encoding: chunked"),
        }
        if let Some(connection) = self.connection {
            out.extend_from_slice(b"\r\nConnection: ");
            out.extend_from_slice(connection.as_bytes());
        }
        for (name, value) in self.extra_headers {
            out.extend_from_slice(b"\r\n");
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b": ");
            out.extend_from_slice(value.as_bytes());
        }
        out.extend_from_slice(b"\r\n\r\n");
    }
}

/// Writes one chunk; an empty one is skipped because it would end the body.
pub(crate) fn write_chunk(data: &[u8], out: &mut Vec<u8>) {
    if data.is_empty() {
        return;
    }
    push_hex(out, data.len());
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(data);
    out.extend_from_slice(b"\r\n");
}

fn push_hex(out: &mut Vec<u8>, mut value: usize) {
    let mut digits = [0u8; 16];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b"0123456789abcdef"[value % 16];
        value /= 16;
        if value == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[start..]);
}

/// Appends `value` in decimal without allocating.
pub(crate) fn push_decimal(out: &mut Vec<u8>, value: u64) {
    out.extend_from_slice(decimal(value, &mut [0u8; 20]));
}

/// `value`'s decimal digits, written at the end of `digits`.
pub(crate) fn decimal(mut value: u64, digits: &mut [u8; 20]) -> &[u8] {
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    &digits[start..]
}

/// The standard reason phrase; clients ignore it, but people read it in traces.
pub(crate) fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Content Too Large",
        422 => "Unprocessable Content",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        505 => "HTTP Version Not Supported",
        _ => "Unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_content_length_and_chunked_heads() {
        let mut reply = Reply {
            status: 503,
            content_type: "application/json",
            framing: Framing::ContentLength,
            connection: Some("close"),
            extra_headers: &[("retry-after", "1")],
        };
        let mut out = Vec::new();
        reply.write_head(2, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n\
             Content-Length: 2\r\nConnection: close\r\nretry-after: 1\r\n\r\n"
        );

        reply.framing = Framing::Chunked;
        reply.connection = None;
        reply.extra_headers = &[];
        let mut out = Vec::new();
        reply.write_head(40, &mut out);
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.ends_with("Transfer-Encoding: chunked\r\n\r\n"),
            "{text}"
        );
        assert!(!text.contains("Content-Length"), "{text}");
    }

    #[test]
    fn chunks_are_framed_in_hex_and_empty_ones_skipped() {
        let mut out = Vec::new();
        write_chunk(&[b'x'; 20], &mut out);
        write_chunk(b"", &mut out);
        write_chunk(&[b'y'; 255], &mut out);
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            format!("14\r\n{}\r\nff\r\n{}\r\n", "x".repeat(20), "y".repeat(255))
        );
    }

    #[test]
    fn decimal_digits() {
        for value in [0, 7, 10, 1_732_900_000, u64::MAX] {
            let mut out = Vec::new();
            push_decimal(&mut out, value);
            assert_eq!(String::from_utf8(out).unwrap(), value.to_string());
        }
    }
}
