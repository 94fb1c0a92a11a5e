//! HPACK encoding of the answers' fields: static-table entries where there is one, else
//! literals that are not indexed, their strings raw, so that the encoder keeps no state.

use crate::exchange::Answer;
use crate::reply::decimal;
use crate::settings::Framing;

/// The fields of an answer: its status, its content type, the length with Content-Length
/// framing (as an HTTP/2 server may send it), and the answer's own headers. The names are
/// lower case, as [`Answer::headers`]'s are.
pub(in crate::http2) fn answer_fields(out: &mut Vec<u8>, answer: &Answer, framing: Framing) {
    // :status from the static table where it is there (RFC 7541 Appendix A), else a literal
    // with the name of index 8.
    match answer.status {
        200 => out.push(0x88),
        204 => out.push(0x89),
        206 => out.push(0x8a),
        304 => out.push(0x8b),
        400 => out.push(0x8c),
        404 => out.push(0x8d),
        500 => out.push(0x8e),
        status => literal_indexed_name(out, 8, decimal(u64::from(status), &mut [0; 20])),
    }
    literal_indexed_name(out, 31, answer.content_type.as_bytes());
    if framing == Framing::ContentLength {
        literal_indexed_name(out, 28, decimal(answer.body.len() as u64, &mut [0; 20]));
    }
    for (name, value) in answer.headers {
        literal(out, name.as_bytes(), value.as_bytes());
    }
}

/// A literal header field without indexing, its name a literal too (RFC 7541 §6.2.2).
pub(in crate::http2) fn literal(out: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    out.push(0x00);
    string(out, name);
    string(out, value);
}

/// A literal header field without indexing whose name is the static table's entry `index`
/// (RFC 7541 §6.2.2: a 4-bit prefix).
fn literal_indexed_name(out: &mut Vec<u8>, index: u8, value: &[u8]) {
    integer(out, 0x00, 4, usize::from(index));
    string(out, value);
}

/// A string literal, not Huffman-coded (RFC 7541 §5.2).
fn string(out: &mut Vec<u8>, value: &[u8]) {
    integer(out, 0x00, 7, value.len());
    out.extend_from_slice(value);
}

/// An HPACK integer with an `prefix`-bit prefix after the bits `first` (RFC 7541 §5.1).
fn integer(out: &mut Vec<u8>, first: u8, prefix: u32, value: usize) {
    let max = (1 << prefix) - 1;
    if value < max {
        out.push(first | value as u8);
        return;
    }
    out.push(first | max as u8);
    let mut rest = value - max;
    while rest >= 128 {
        out.push((rest % 128) as u8 | 0x80);
        rest /= 128;
    }
    out.push(rest as u8);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http2::hpack::Decoder;

    #[test]
    fn integers_use_their_prefix_then_continuation_bytes() {
        // RFC 7541 C.1.1-C.1.3.
        let mut out = Vec::new();
        integer(&mut out, 0, 5, 10);
        assert_eq!(out, [0x0a]);
        out.clear();
        integer(&mut out, 0, 5, 1337);
        assert_eq!(out, [0x1f, 0x9a, 0x0a]);
        out.clear();
        integer(&mut out, 0, 8, 42);
        assert_eq!(out, [0x2a]);
    }

    #[test]
    fn what_is_encoded_decodes_back_and_leaves_no_table() {
        let answer = Answer {
            status: 429,
            content_type: "application/problem+json",
            headers: &[
                ("retry-after", "1"),
                ("x-long", "a long value for a literal"),
            ],
            body: bytes::Bytes::from_static(b"{}"),
            framing: Framing::ContentLength,
            fault: None,
        };
        let mut out = Vec::new();
        answer_fields(&mut out, &answer, Framing::ContentLength);
        let mut decoder = Decoder::default();
        let mut fields = Vec::new();
        decoder
            .decode(&out, usize::MAX, |name, value| {
                fields.push((name.to_vec(), value.to_vec()));
            })
            .unwrap();
        let expected: Vec<(Vec<u8>, Vec<u8>)> = [
            (":status", "429"),
            ("content-type", "application/problem+json"),
            ("content-length", "2"),
            ("retry-after", "1"),
            ("x-long", "a long value for a literal"),
        ]
        .iter()
        .map(|(name, value)| (name.as_bytes().to_vec(), value.as_bytes().to_vec()))
        .collect();
        assert_eq!(fields, expected);
        assert_eq!(decoder.table_len(), 0, "nothing indexed");
    }
}
