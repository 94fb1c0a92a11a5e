//! HTTP/2 frames as bytes (RFC 9113 §4, §6): the 9-byte frame head read and written, and the
//! few frames mock-rates writes.

use super::hpack;
use crate::exchange::Answer;
use crate::settings::Framing;

/// What a client sends first (RFC 9113 §3.4).
pub(super) const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// The largest frame payload either side may send without a SETTINGS saying otherwise.
pub(super) const DEFAULT_MAX_FRAME: usize = 16_384;
/// The flow-control window every connection and stream starts with.
pub(super) const DEFAULT_WINDOW: i64 = 65_535;
/// The highest stream id.
pub(super) const MAX_STREAM: u32 = (1 << 31) - 1;
/// The largest a flow-control window may grow.
pub(super) const MAX_WINDOW: i64 = (1 << 31) - 1;

pub(super) const DATA: u8 = 0x0;
pub(super) const HEADERS: u8 = 0x1;
pub(super) const PRIORITY: u8 = 0x2;
pub(super) const RST_STREAM: u8 = 0x3;
pub(super) const SETTINGS: u8 = 0x4;
pub(super) const PUSH_PROMISE: u8 = 0x5;
pub(super) const PING: u8 = 0x6;
pub(super) const GOAWAY: u8 = 0x7;
pub(super) const WINDOW_UPDATE: u8 = 0x8;
pub(super) const CONTINUATION: u8 = 0x9;

pub(super) const END_STREAM: u8 = 0x1;
pub(super) const ACK: u8 = 0x1;
pub(super) const END_HEADERS: u8 = 0x4;
pub(super) const PADDED: u8 = 0x8;
pub(super) const PRIORITY_FLAG: u8 = 0x20;

pub(super) const SETTINGS_ENABLE_PUSH: u16 = 0x2;
pub(super) const SETTINGS_MAX_CONCURRENT_STREAMS: u16 = 0x3;
pub(super) const SETTINGS_INITIAL_WINDOW_SIZE: u16 = 0x4;
pub(super) const SETTINGS_MAX_FRAME_SIZE: u16 = 0x5;
pub(super) const SETTINGS_MAX_HEADER_LIST_SIZE: u16 = 0x6;

/// The error codes mock-rates sends (RFC 9113 §7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub(crate) enum Reason {
    NoError = 0x0,
    ProtocolError = 0x1,
    InternalError = 0x2,
    FlowControlError = 0x3,
    StreamClosed = 0x5,
    FrameSizeError = 0x6,
    RefusedStream = 0x7,
    Cancel = 0x8,
    CompressionError = 0x9,
    EnhanceYourCalm = 0xb,
}

/// The 9 bytes that start every frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FrameHead {
    pub len: usize,
    pub kind: u8,
    pub flags: u8,
    pub stream: u32,
}

impl FrameHead {
    pub(crate) const LEN: usize = 9;

    /// The head at the start of `bytes`, if all nine bytes are there.
    pub(crate) fn parse(bytes: &[u8]) -> Option<Self> {
        let head: &[u8; 9] = bytes.get(..Self::LEN)?.try_into().ok()?;
        Some(Self {
            len: usize::from(head[0]) << 16 | usize::from(head[1]) << 8 | usize::from(head[2]),
            kind: head[3],
            flags: head[4],
            // The reserved bit is ignored on receipt.
            stream: u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7fff_ffff,
        })
    }

    pub(crate) fn has(self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

/// A frame's payload without its padding (and, for HEADERS, without its priority fields):
/// `None` if the frame is too short for what its flags announce.
pub(super) fn unpadded(head: FrameHead, payload: &[u8]) -> Option<&[u8]> {
    let (pad, mut rest) = if head.has(PADDED) {
        let (&pad, rest) = payload.split_first()?;
        (usize::from(pad), rest)
    } else {
        (0, payload)
    };
    if head.kind == HEADERS && head.has(PRIORITY_FLAG) {
        rest = rest.get(5..)?;
    }
    rest.get(..rest.len().checked_sub(pad)?)
}

/// Appends a frame head.
pub(super) fn head(out: &mut Vec<u8>, len: usize, kind: u8, flags: u8, stream: u32) {
    debug_assert!(len < 1 << 24);
    out.extend_from_slice(&(len as u32).to_be_bytes()[1..]);
    out.push(kind);
    out.push(flags);
    out.extend_from_slice(&stream.to_be_bytes());
}

/// A SETTINGS frame with these settings.
pub(super) fn settings(out: &mut Vec<u8>, settings: &[(u16, u32)]) {
    head(out, settings.len() * 6, SETTINGS, 0, 0);
    for (id, value) in settings {
        out.extend_from_slice(&id.to_be_bytes());
        out.extend_from_slice(&value.to_be_bytes());
    }
}

pub(super) fn settings_ack(out: &mut Vec<u8>) {
    head(out, 0, SETTINGS, ACK, 0);
}

pub(super) fn ping(out: &mut Vec<u8>, payload: [u8; 8]) {
    head(out, 8, PING, 0, 0);
    out.extend_from_slice(&payload);
}

pub(super) fn ping_ack(out: &mut Vec<u8>, payload: &[u8]) {
    head(out, payload.len(), PING, ACK, 0);
    out.extend_from_slice(payload);
}

pub(super) fn window_update(out: &mut Vec<u8>, stream: u32, increment: u32) {
    head(out, 4, WINDOW_UPDATE, 0, stream);
    out.extend_from_slice(&increment.to_be_bytes());
}

pub(super) fn rst_stream(out: &mut Vec<u8>, stream: u32, reason: Reason) {
    head(out, 4, RST_STREAM, 0, stream);
    out.extend_from_slice(&(reason as u32).to_be_bytes());
}

pub(super) fn goaway(out: &mut Vec<u8>, last_stream: u32, reason: Reason) {
    head(out, 8, GOAWAY, 0, 0);
    out.extend_from_slice(&last_stream.to_be_bytes());
    out.extend_from_slice(&(reason as u32).to_be_bytes());
}

pub(super) fn data(out: &mut Vec<u8>, stream: u32, data: &[u8], end_stream: bool) {
    head(
        out,
        data.len(),
        DATA,
        if end_stream { END_STREAM } else { 0 },
        stream,
    );
    out.extend_from_slice(data);
}

/// The HEADERS of an answer, in one frame (its fields encoded by [`hpack::answer_fields`]).
pub(super) fn answer_headers(
    out: &mut Vec<u8>,
    stream: u32,
    answer: &Answer,
    framing: Framing,
    end_stream: bool,
) {
    let at = out.len();
    let flags = END_HEADERS | if end_stream { END_STREAM } else { 0 };
    head(out, 0, HEADERS, flags, stream);
    let start = out.len();
    hpack::answer_fields(out, answer, framing);
    let len = out.len() - start;
    debug_assert!(len <= DEFAULT_MAX_FRAME, "a header block of {len} bytes");
    out[at..at + 3].copy_from_slice(&(len as u32).to_be_bytes()[1..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_heads_read_back_what_was_written() {
        let mut out = Vec::new();
        head(&mut out, 70_000, DATA, END_STREAM, 0x8000_0007);
        let parsed = FrameHead::parse(&out).unwrap();
        assert_eq!(
            parsed,
            FrameHead {
                len: 70_000,
                kind: DATA,
                flags: END_STREAM,
                // The reserved bit is dropped.
                stream: 7,
            }
        );
        assert_eq!(FrameHead::parse(&out[..8]), None);
    }

    #[test]
    fn padding_and_priority_are_taken_off() {
        let head = |kind, flags| FrameHead {
            len: 0,
            kind,
            flags,
            stream: 1,
        };
        assert_eq!(unpadded(head(DATA, 0), b"abc"), Some(&b"abc"[..]));
        assert_eq!(
            unpadded(head(DATA, PADDED), b"\x02abcXX"),
            Some(&b"abc"[..])
        );
        assert_eq!(
            unpadded(head(HEADERS, PADDED | PRIORITY_FLAG), b"\x01PPPPPabcX"),
            Some(&b"abc"[..])
        );
        // More padding than payload, or no room for the priority fields: malformed.
        assert_eq!(unpadded(head(DATA, PADDED), b"\x09ab"), None);
        assert_eq!(unpadded(head(HEADERS, PRIORITY_FLAG), b"abc"), None);
        assert_eq!(unpadded(head(DATA, PADDED), b""), None);
    }

    #[test]
    fn answer_headers_decode_as_hpack() {
        let answer = Answer {
            status: 503,
            content_type: "application/json",
            headers: &[("retry-after", "1")],
            body: bytes::Bytes::from_static(b"{}"),
            framing: Framing::ContentLength,
            fault: None,
        };
        let mut out = Vec::new();
        answer_headers(&mut out, 3, &answer, Framing::ContentLength, false);
        let head = FrameHead::parse(&out).unwrap();
        assert_eq!(
            (head.kind, head.flags, head.stream),
            (HEADERS, END_HEADERS, 3)
        );
        assert_eq!(head.len, out.len() - FrameHead::LEN);
        let fields = loona_hpack::Decoder::new()
            .decode(&out[FrameHead::LEN..])
            .unwrap();
        let fields: Vec<(String, String)> = fields
            .into_iter()
            .map(|(name, value)| {
                (
                    String::from_utf8(name).unwrap(),
                    String::from_utf8(value).unwrap(),
                )
            })
            .collect();
        let expected = [
            (":status", "503"),
            ("content-type", "application/json"),
            ("content-length", "2"),
            ("retry-after", "1"),
        ];
        assert_eq!(
            fields,
            expected.map(|(name, value)| (name.to_owned(), value.to_owned()))
        );

        out.clear();
        let ok = Answer {
            status: 200,
            ..answer
        };
        answer_headers(&mut out, 5, &ok, Framing::Chunked, true);
        let fields = loona_hpack::Decoder::new()
            .decode(&out[FrameHead::LEN..])
            .unwrap();
        assert_eq!(fields[0], (b":status".to_vec(), b"200".to_vec()));
        assert!(!fields.iter().any(|(name, _)| name == b"content-length"));
        assert!(FrameHead::parse(&out).unwrap().has(END_STREAM));
    }
}
