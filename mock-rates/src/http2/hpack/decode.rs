//! HPACK decoding (RFC 7541) of request heads: the static and dynamic tables, integers, and
//! string literals (Huffman-coded ones through [`huffman`]), with the header-list limit kept
//! while decoding.
//!
//! Written here because the HPACK crates at hand decode Huffman strings slowly for an
//! instrument (loona-hpack builds a hash map for every string: 250k instructions per request
//! whose `:path` is Huffman-coded, as h2's and nghttp2's clients send it), and the `h2` crate
//! keeps its own decoder private. Fields come out borrowed, from the block, the table or a
//! scratch buffer; only a field the client asks to index is copied.

use std::collections::VecDeque;

use crate::http2::huffman;

/// The dynamic table's size before the client changes it, and the most it may: the default,
/// as mock-rates' SETTINGS do not announce another (RFC 9113 §6.5.2).
pub(in crate::http2) const TABLE_SIZE: usize = 4096;

/// The scratch buffers of Huffman-coded strings keep this much room from block to block; a
/// larger string's room is given back after its block.
const SCRATCH_KEPT: usize = 4096;

/// How a header block decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::http2) enum Block {
    /// Every field was handed over.
    Whole,
    /// The header list grew past the limit: the fields after it were decoded (the dynamic
    /// table must stay the client's) but not handed over.
    Oversized,
}

/// A header block that is not valid HPACK: a connection error (COMPRESSION_ERROR).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::http2) struct DecodeError(pub &'static str);

/// A dynamic table entry: a name and a value.
type Entry = (Box<[u8]>, Box<[u8]>);

#[derive(Debug)]
pub(in crate::http2) struct Decoder {
    /// Newest first, as the table is indexed (RFC 7541 §2.3.3).
    dynamic: VecDeque<Entry>,
    /// The table's size as HPACK counts it: each entry's name and value, plus 32.
    size: usize,
    max_size: usize,
    name: Vec<u8>,
    value: Vec<u8>,
}

impl Default for Decoder {
    fn default() -> Self {
        Self {
            dynamic: VecDeque::new(),
            size: 0,
            max_size: TABLE_SIZE,
            name: Vec::new(),
            value: Vec::new(),
        }
    }
}

impl Decoder {
    /// Decodes a whole header block, handing each field to `field` in order while the header
    /// list (each field's name and value, plus 32: RFC 9113 §6.5.2) is within `max_list`.
    /// Past it nothing more is handed over, so that what a block can make the caller keep is
    /// bounded by the limit however often the block references a large entry.
    pub(in crate::http2) fn decode(
        &mut self,
        block: &[u8],
        max_list: usize,
        mut field: impl FnMut(&[u8], &[u8]),
    ) -> Result<Block, DecodeError> {
        let mut list = 0usize;
        let mut take = |name: &[u8], value: &[u8]| {
            if list <= max_list {
                list = list.saturating_add(name.len() + value.len() + 32);
                if list <= max_list {
                    field(name, value);
                }
            }
        };
        let decoded = self.decode_fields(block, &mut take);
        if self.name.capacity() > SCRATCH_KEPT {
            self.name = Vec::new();
        }
        if self.value.capacity() > SCRATCH_KEPT {
            self.value = Vec::new();
        }
        decoded?;
        Ok(if list <= max_list {
            Block::Whole
        } else {
            Block::Oversized
        })
    }

    /// The bytes the decoder keeps between blocks: its table's entries and its scratch room.
    pub(in crate::http2) fn retained(&self) -> usize {
        self.dynamic
            .iter()
            .map(|(name, value)| name.len() + value.len())
            .sum::<usize>()
            + self.dynamic.capacity() * std::mem::size_of::<Entry>()
            + self.name.capacity()
            + self.value.capacity()
    }

    /// The entries in the dynamic table.
    #[cfg(test)]
    pub(in crate::http2) fn table_len(&self) -> usize {
        self.dynamic.len()
    }

    fn decode_fields(
        &mut self,
        block: &[u8],
        field: &mut impl FnMut(&[u8], &[u8]),
    ) -> Result<(), DecodeError> {
        let mut rest = block;
        let mut first = true;
        while let Some(&octet) = rest.first() {
            if octet & 0x80 != 0 {
                // An indexed field (§6.1).
                let (index, after) = integer(rest, 7)?;
                rest = after;
                let (name, value) = entry(&self.dynamic, index)?;
                field(name, value);
            } else if octet & 0xe0 == 0x20 {
                // A dynamic table size update (§6.3), only before the first field.
                if !first {
                    return Err(DecodeError("a table size update after a field"));
                }
                let (size, after) = integer(rest, 5)?;
                rest = after;
                if size > TABLE_SIZE {
                    return Err(DecodeError("a table size over the limit"));
                }
                self.max_size = size;
                self.evict(0);
                continue;
            } else {
                // A literal (§6.2): with incremental indexing (01), without (0000) or never
                // indexed (0001); its name indexed, or a literal when the index is 0.
                let indexing = octet & 0x40 != 0;
                let (index, after) = integer(rest, if indexing { 6 } else { 4 })?;
                let (name, after) = if index == 0 {
                    string(after, &mut self.name)?
                } else {
                    (entry(&self.dynamic, index)?.0, after)
                };
                let (value, after) = string(after, &mut self.value)?;
                rest = after;
                field(name, value);
                if indexing {
                    let added = (Box::from(name), Box::from(value));
                    self.add(added);
                }
            }
            first = false;
        }
        Ok(())
    }

    fn add(&mut self, (name, value): Entry) {
        let size = name.len() + value.len() + 32;
        self.evict(size);
        // An entry larger than the whole table empties it and is not added (§4.4).
        if size <= self.max_size {
            self.size += size;
            self.dynamic.push_front((name, value));
        }
    }

    /// Evicts the oldest entries until `room` more fits (§4.4).
    fn evict(&mut self, room: usize) {
        while self.size + room > self.max_size {
            let Some((name, value)) = self.dynamic.pop_back() else {
                break;
            };
            self.size -= name.len() + value.len() + 32;
        }
    }
}

/// The field at `index` of the static table, then the dynamic one (§2.3.3).
fn entry(dynamic: &VecDeque<Entry>, index: usize) -> Result<(&[u8], &[u8]), DecodeError> {
    match index {
        0 => Err(DecodeError("index 0")),
        1..=61 => Ok(STATIC[index - 1]),
        _ => dynamic
            .get(index - 62)
            .map(|(name, value)| (&name[..], &value[..]))
            .ok_or(DecodeError("an index past the table")),
    }
}

/// An integer with a `prefix`-bit prefix (§5.1), and the bytes after it.
fn integer(input: &[u8], prefix: u32) -> Result<(usize, &[u8]), DecodeError> {
    let (&first, mut rest) = input.split_first().ok_or(DecodeError("no integer"))?;
    let max = (1 << prefix) - 1;
    let mut value = usize::from(first) & max;
    if value < max {
        return Ok((value, rest));
    }
    let mut shift = 0;
    loop {
        let (&byte, after) = rest
            .split_first()
            .ok_or(DecodeError("an integer cut short"))?;
        rest = after;
        // Four continuation bytes hold 28 bits: more than any length or index here.
        if shift > 21 {
            return Err(DecodeError("an integer too large"));
        }
        value += usize::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            return Ok((value, rest));
        }
    }
}

/// A string literal (§5.2), decoded into `scratch` if Huffman-coded, and the bytes after it.
fn string<'i: 's, 's>(
    input: &'i [u8],
    scratch: &'s mut Vec<u8>,
) -> Result<(&'s [u8], &'i [u8]), DecodeError> {
    let huffman = input.first().is_some_and(|octet| octet & 0x80 != 0);
    let (len, rest) = integer(input, 7)?;
    if len > rest.len() {
        return Err(DecodeError("a string cut short"));
    }
    let (raw, rest) = rest.split_at(len);
    if !huffman {
        return Ok((raw, rest));
    }
    scratch.clear();
    huffman::decode(raw, scratch).map_err(|_| DecodeError("an invalid Huffman string"))?;
    Ok((scratch, rest))
}

/// RFC 7541 Appendix A.
const STATIC: [(&[u8], &[u8]); 61] = [
    (b":authority", b""),
    (b":method", b"GET"),
    (b":method", b"POST"),
    (b":path", b"/"),
    (b":path", b"/index.html"),
    (b":scheme", b"http"),
    (b":scheme", b"https"),
    (b":status", b"200"),
    (b":status", b"204"),
    (b":status", b"206"),
    (b":status", b"304"),
    (b":status", b"400"),
    (b":status", b"404"),
    (b":status", b"500"),
    (b"accept-charset", b""),
    (b"accept-encoding", b"gzip, deflate"),
    (b"accept-language", b""),
    (b"accept-ranges", b""),
    (b"accept", b""),
    (b"access-control-allow-origin", b""),
    (b"age", b""),
    (b"allow", b""),
    (b"authorization", b""),
    (b"cache-control", b""),
    (b"content-disposition", b""),
    (b"content-encoding", b""),
    (b"content-language", b""),
    (b"content-length", b""),
    (b"content-location", b""),
    (b"content-range", b""),
    (b"content-type", b""),
    (b"cookie", b""),
    (b"date", b""),
    (b"etag", b""),
    (b"expect", b""),
    (b"expires", b""),
    (b"from", b""),
    (b"host", b""),
    (b"if-match", b""),
    (b"if-modified-since", b""),
    (b"if-none-match", b""),
    (b"if-range", b""),
    (b"if-unmodified-since", b""),
    (b"last-modified", b""),
    (b"link", b""),
    (b"location", b""),
    (b"max-forwards", b""),
    (b"proxy-authenticate", b""),
    (b"proxy-authorization", b""),
    (b"range", b""),
    (b"referer", b""),
    (b"refresh", b""),
    (b"retry-after", b""),
    (b"server", b""),
    (b"set-cookie", b""),
    (b"strict-transport-security", b""),
    (b"transfer-encoding", b""),
    (b"user-agent", b""),
    (b"vary", b""),
    (b"via", b""),
    (b"www-authenticate", b""),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(decoder: &mut Decoder, block: &[u8]) -> Result<Vec<(String, String)>, DecodeError> {
        let mut fields = Vec::new();
        decoder.decode(block, usize::MAX, |name, value| {
            fields.push((
                String::from_utf8(name.to_vec()).unwrap(),
                String::from_utf8(value.to_vec()).unwrap(),
            ));
        })?;
        Ok(fields)
    }

    fn pairs(fields: &[(&str, &str)]) -> Vec<(String, String)> {
        fields
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    fn huffman(text: &str) -> Vec<u8> {
        let mut coded = Vec::new();
        httlib_huffman::encode(text.as_bytes(), &mut coded).unwrap();
        let mut out = vec![0x80 | u8::try_from(coded.len()).unwrap()];
        out.extend(coded);
        out
    }

    /// RFC 7541 C.4: three requests on one connection, Huffman-coded, the dynamic table
    /// carried from one to the next.
    #[test]
    fn the_rfc_s_requests_with_huffman_coding() {
        let mut decoder = Decoder::default();
        let first = [
            0x82, 0x86, 0x84, 0x41, 0x8c, 0xf1, 0xe3, 0xc2, 0xe5, 0xf2, 0x3a, 0x6b, 0xa0, 0xab,
            0x90, 0xf4, 0xff,
        ];
        assert_eq!(
            decode(&mut decoder, &first).unwrap(),
            pairs(&[
                (":method", "GET"),
                (":scheme", "http"),
                (":path", "/"),
                (":authority", "www.example.com"),
            ])
        );
        assert_eq!(decoder.size, 57);
        let second = [
            0x82, 0x86, 0x84, 0xbe, 0x58, 0x86, 0xa8, 0xeb, 0x10, 0x64, 0x9c, 0xbf,
        ];
        assert_eq!(
            decode(&mut decoder, &second).unwrap(),
            pairs(&[
                (":method", "GET"),
                (":scheme", "http"),
                (":path", "/"),
                (":authority", "www.example.com"),
                ("cache-control", "no-cache"),
            ])
        );
        assert_eq!(decoder.size, 110);
        let third = [
            0x82, 0x87, 0x85, 0xbf, 0x40, 0x88, 0x25, 0xa8, 0x49, 0xe9, 0x5b, 0xa9, 0x7d, 0x7f,
            0x89, 0x25, 0xa8, 0x49, 0xe9, 0x5b, 0xb8, 0xe8, 0xb4, 0xbf,
        ];
        assert_eq!(
            decode(&mut decoder, &third).unwrap(),
            pairs(&[
                (":method", "GET"),
                (":scheme", "https"),
                (":path", "/index.html"),
                (":authority", "www.example.com"),
                ("custom-key", "custom-value"),
            ])
        );
        assert_eq!(decoder.size, 164);
    }

    #[test]
    fn literals_without_and_never_indexed_leave_the_table_alone() {
        let mut decoder = Decoder::default();
        // :path by name index 4, without indexing; a new name, never indexed.
        let mut block = vec![0x04];
        block.extend(huffman("/api/live?pairs=EURUSD,USDJPY"));
        block.push(0x10);
        block.extend([13]);
        block.extend(b"authorization");
        block.extend([8]);
        block.extend(b"Bearer t");
        assert_eq!(
            decode(&mut decoder, &block).unwrap(),
            pairs(&[
                (":path", "/api/live?pairs=EURUSD,USDJPY"),
                ("authorization", "Bearer t"),
            ])
        );
        assert_eq!((decoder.size, decoder.dynamic.len()), (0, 0));
    }

    #[test]
    fn the_table_evicts_the_oldest_and_obeys_size_updates() {
        let mut decoder = Decoder::default();
        // Two entries of 32 + 1 + 1 each under a table size of 60: the first is evicted.
        let block = [0x3f, 0x1d, 0x40, 1, b'a', 1, b'1', 0x40, 1, b'b', 1, b'2'];
        decode(&mut decoder, &block).unwrap();
        assert_eq!(decoder.max_size, 60);
        assert_eq!(decoder.dynamic.len(), 1);
        assert_eq!(decode(&mut decoder, &[0xbe]).unwrap(), pairs(&[("b", "2")]));
        assert_eq!(
            decode(&mut decoder, &[0xbf]),
            Err(DecodeError("an index past the table"))
        );
        // A size update after a field, or over the limit, is an error.
        assert!(decode(&mut decoder, &[0x82, 0x20]).is_err());
        assert!(decode(&mut decoder, &[0x3f, 0xe2, 0x1f]).is_err());
        // Size 0 empties the table.
        decode(&mut decoder, &[0x20]).unwrap();
        assert_eq!((decoder.size, decoder.dynamic.len()), (0, 0));
    }

    #[test]
    fn malformed_blocks_are_errors() {
        let mut decoder = Decoder::default();
        for block in [
            &[0x80][..],                               // index 0
            &[0xff, 0x80][..],                         // an integer cut short
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0x0f][..], // an integer too large
            &[0x04, 0x05, b'a'][..],                   // a string cut short
            &[0x04, 0x84, 0xff, 0xff, 0xff, 0xff][..], // a Huffman string holding EOS
            &[0x40][..],                               // a literal name missing
        ] {
            assert!(decode(&mut decoder, block).is_err(), "{block:02x?}");
        }
    }

    /// The amplification of issue #38: one 4 000-byte entry for `:path`, then a block that
    /// references it as often as 64 KiB allow. The fields handed over stop at the limit, and
    /// what the decoder keeps is its table and a little scratch room, not the block's worth.
    #[test]
    fn a_block_that_references_a_large_entry_over_and_over_stops_at_the_limit() {
        let mut decoder = Decoder::default();
        // A literal with incremental indexing, name `:path` (index 4), its value 4 000 raw
        // bytes: a length of 127 + 33 + 30 * 128.
        let mut block = vec![0x44, 0x7f, 0xa1, 30];
        block.extend(vec![b'a'; 4000]);
        let mut handed = 0usize;
        assert_eq!(
            decoder.decode(&block, 16_384, |name, value| {
                handed += name.len() + value.len();
            }),
            Ok(Block::Whole)
        );
        assert_eq!(decoder.table_len(), 1);
        let amplified = vec![0xbe; 64 * 1024];
        handed = 0;
        assert_eq!(
            decoder.decode(&amplified, 16_384, |name, value| {
                handed += name.len() + value.len();
            }),
            Ok(Block::Oversized)
        );
        assert!(handed <= 16_384, "{handed} bytes handed over");
        assert!(
            decoder.retained() <= TABLE_SIZE + 2 * SCRATCH_KEPT + 1024,
            "{} bytes kept",
            decoder.retained()
        );
    }

    #[test]
    fn a_large_huffman_string_s_room_is_given_back() {
        let mut decoder = Decoder::default();
        let mut block = vec![0x04];
        let text = "a".repeat(10_000);
        let mut coded = Vec::new();
        httlib_huffman::encode(text.as_bytes(), &mut coded).unwrap();
        block.push(0xff);
        let mut rest = coded.len() - 127;
        while rest >= 128 {
            block.push((rest % 128) as u8 | 0x80);
            rest /= 128;
        }
        block.push(rest as u8);
        block.extend(coded);
        let mut len = 0;
        decoder
            .decode(&block, usize::MAX, |_, value| len = value.len())
            .unwrap();
        assert_eq!(len, 10_000);
        assert!(decoder.retained() <= 2 * SCRATCH_KEPT);
    }

    /// The same blocks read by loona-hpack, another decoder, field for field.
    #[test]
    fn agrees_with_another_decoder() {
        let mut block = Vec::new();
        for (index, text) in ["/api/live?pairs=EURUSD,USDJPY", "localhost:8443", "h2 t/1"]
            .iter()
            .enumerate()
        {
            // With incremental indexing, names by static index 4, 1 and 58.
            block.push(0x40 | [4, 1, 58][index]);
            block.extend(huffman(text));
        }
        block.extend([0x82, 0x87, 0xbe, 0xbf, 0xc0]);
        let ours = decode(&mut Decoder::default(), &block).unwrap();
        let theirs: Vec<(String, String)> = loona_hpack::Decoder::new()
            .decode(&block)
            .unwrap()
            .into_iter()
            .map(|(name, value)| {
                (
                    String::from_utf8(name).unwrap(),
                    String::from_utf8(value).unwrap(),
                )
            })
            .collect();
        assert_eq!(ours, theirs);
        assert_eq!(ours.len(), 8);
    }
}
