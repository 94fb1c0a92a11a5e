//! The entry points of the fuzz targets in `fuzz/`: the code that reads a client's raw bytes,
//! wrapped to take and return plain data. Not an API: hidden from the docs, and shaped by
//! what the targets need.

use crate::{admin, connection, dns, http, http2, rates};

/// A complete request head, as the server reads it before routing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestHead<'a> {
    /// `"GET"`, `"POST"`, `"PUT"`, or `"other"` for any method the routes do not tell apart.
    pub method: &'static str,
    pub path: &'a str,
    /// The query string, without the `?`.
    pub query: Option<&'a str>,
    /// The `Authorization` header's value, trimmed.
    pub authorization: Option<&'a [u8]>,
    pub http10: bool,
    pub keep_alive: bool,
    pub expect_continue: bool,
    pub content_length: usize,
    /// Bytes from the start of the buffer to the end of the blank line.
    pub len: usize,
}

/// Reads the request head at the start of `buf` as a connection does: `Ok(None)` while it is
/// incomplete, `Err(status)` for the status the server refuses it with.
pub fn parse_request_head(buf: &[u8]) -> Result<Option<RequestHead<'_>>, u16> {
    let Some(head) = http::parse_head(buf).map_err(http::HttpError::status)? else {
        return Ok(None);
    };
    // The connection hands the routes a `Request` built the same way (with the body after
    // the head); it refuses with 400 when that fails.
    let request = connection::request(&buf[..head.len], &head, false).ok_or(400u16)?;
    Ok(Some(RequestHead {
        method: match request.method {
            http::Method::Get => "GET",
            http::Method::Post => "POST",
            http::Method::Put => "PUT",
            http::Method::Other => "other",
        },
        path: request.path,
        query: request.query,
        authorization: request.authorization,
        http10: head.http10,
        keep_alive: head.keep_alive,
        expect_continue: head.expect_continue,
        content_length: head.content_length,
        len: head.len,
    }))
}

/// What the `pairs` parameter of an `/api/live` query asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LivePairs {
    /// No pair asked for: code 1001.
    Missing,
    /// The distinct supported pairs, in the order first asked.
    Known(Vec<&'static str>),
    /// The first unsupported pair, upper-cased: code 1002.
    Unknown(String),
}

/// The pairs `/api/live` reads from `query` (without the `?`), and the body it answers with,
/// quoting `timestamp`.
pub fn live_answer(query: Option<&str>, timestamp: u64) -> (LivePairs, Vec<u8>) {
    let pairs = rates::parse_pairs(query);
    let mut body = bytes::BytesMut::new();
    rates::write_live_body(&pairs, timestamp, &mut body);
    let pairs = match pairs {
        rates::PairsQuery::Missing => LivePairs::Missing,
        rates::PairsQuery::Known(known) => {
            LivePairs::Known(known.into_iter().map(|(pair, _)| pair).collect())
        }
        rates::PairsQuery::Unknown(pair) => LivePairs::Unknown(pair),
    };
    (pairs, body.to_vec())
}

/// Whether an `Authorization` value opens the admin endpoints of a mock started with `token`.
pub fn admin_authorized(token: &str, authorization: Option<&[u8]>) -> bool {
    admin::access(Some(token), false, authorization) == admin::Access::Granted
}

/// One decoded header field: its name and value.
pub type Field = (Vec<u8>, Vec<u8>);

/// Decodes header blocks one after the other with one connection's HPACK decoder, as the
/// HTTP/2 server does: each block's fields, or why it is not valid HPACK (which ends the
/// connection: nothing after it is decoded).
pub fn decode_header_blocks(blocks: &[&[u8]]) -> Vec<Result<Vec<Field>, &'static str>> {
    http2::decode_header_blocks(blocks)
}

/// A header block that sends `fields` as literals that are not indexed, the strings raw.
pub fn literal_block(fields: &[(&[u8], &[u8])]) -> Vec<u8> {
    http2::literal_block(fields)
}

/// `coded` read as a Huffman-coded HPACK string as the server reads one; `None` if not valid.
pub fn huffman_decode(coded: &[u8]) -> Option<Vec<u8>> {
    http2::huffman_decode(coded)
}

/// What one HTTP/2 connection did with a client's bytes: see [`serve_h2_frames`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct H2Run {
    /// What the server wrote: its SETTINGS first, then frames.
    pub output: Vec<u8>,
    /// The connection ended (a GOAWAY, or the client's bytes ran out), rather than waiting.
    pub ended: bool,
    /// The most the connection kept between two reads, and the bound it must keep within.
    pub peak_retained: usize,
    pub memory_bound: usize,
}

/// Serves `frames` (sent after the client's preface, `chunk` bytes per read) as one HTTP/2
/// connection does, in memory and with the default settings, until the bytes run out.
pub fn serve_h2_frames(frames: &[u8], chunk: usize) -> H2Run {
    let run = http2::serve_from_memory(frames, chunk);
    H2Run {
        output: run.output,
        ended: run.ended,
        peak_retained: run.peak_retained,
        memory_bound: run.memory_bound,
    }
}

/// The largest datagram the DNS server reads and answers.
pub const DNS_MAX_DATAGRAM: usize = dns::MAX_DATAGRAM;

/// The DNS server's reply to one datagram, with the default settings: `None` if it is
/// dropped.
pub fn dns_reply(query: &[u8]) -> Option<Vec<u8>> {
    dns::answer(query, &dns::DnsSettings::default()).map(|(_, reply)| reply)
}
