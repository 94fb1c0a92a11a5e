//! Writing HTTP/1.1 responses byte by byte, without allocating, so that faults can cut an
//! answer anywhere.

use crate::settings::Framing;

/// The head of one response; the body is written separately so faults can cut it short.
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

    /// Writes the whole response; a chunked body goes out as two chunks so clients
    /// have to join them.
    pub(crate) fn write(&self, body: &[u8], out: &mut Vec<u8>) {
        self.write_head(body.len(), out);
        match self.framing {
            Framing::ContentLength => out.extend_from_slice(body),
            Framing::Chunked => {
                let (first, second) = body.split_at(body.len() / 2);
                write_chunk(first, out);
                write_chunk(second, out);
                out.extend_from_slice(b"0\r\n\r\n");
            }
        }
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
pub(crate) fn push_decimal(out: &mut Vec<u8>, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[start..]);
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
    fn writes_content_length_and_chunked_replies() {
        let mut reply = Reply {
            status: 503,
            content_type: "application/json",
            framing: Framing::ContentLength,
            connection: Some("close"),
            extra_headers: &[("Retry-After", "1")],
        };
        let mut out = Vec::new();
        reply.write(b"{}", &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n\
             Content-Length: 2\r\nConnection: close\r\nRetry-After: 1\r\n\r\n{}"
        );

        reply.framing = Framing::Chunked;
        reply.connection = None;
        reply.extra_headers = &[];
        let mut out = Vec::new();
        reply.write(&[b'x'; 40], &mut out);
        let text = String::from_utf8(out).unwrap();
        assert!(text.ends_with(&format!(
            "\r\n\r\n14\r\n{0}\r\n14\r\n{0}\r\n0\r\n\r\n",
            "x".repeat(20)
        )));
        assert!(text.contains("Transfer-Encoding: chunked\r\n"));
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
