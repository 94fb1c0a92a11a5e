//! mock-rates' reading of an HTTP/2 request head: HPACK header blocks (RFC 7541), decoded one
//! after the other on one connection's decoder, and Huffman-coded strings.
//!
//! Input: the first byte says into how many blocks (1 to 4) the rest is cut, evenly.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mock_rates::fuzzing::{decode_header_blocks, huffman_decode, literal_block};

/// The dynamic table's size: no indexed field is larger (an entry counts 32 more).
const TABLE_SIZE: usize = 4096;

fuzz_target!(|data: &[u8]| {
    let Some((&count, rest)) = data.split_first() else {
        return;
    };
    let count = usize::from(count % 4) + 1;
    let size = rest.len().div_ceil(count).max(1);
    let blocks: Vec<&[u8]> = rest.chunks(size).collect();
    let decoded = decode_header_blocks(&blocks);
    // The first error ends the connection: nothing is decoded after it.
    if let Some(failed) = decoded.iter().position(Result::is_err) {
        assert_eq!(failed, decoded.len() - 1, "{decoded:?}");
    } else {
        assert_eq!(decoded.len(), blocks.len());
    }
    for (block, fields) in blocks.iter().zip(&decoded) {
        let Ok(fields) = fields else { continue };
        for (name, value) in fields {
            // A field comes from the block (a Huffman code is at least 5 bits, so a byte
            // gives at most 8/5 characters) or from a table entry.
            let from_block = block.len() * 8 / 5 + 1;
            assert!(
                name.len() + value.len() <= from_block.max(TABLE_SIZE),
                "{name:?}: {value:?}"
            );
        }
        // The same fields as raw literals decode back to themselves on a new connection.
        let pairs: Vec<(&[u8], &[u8])> = fields
            .iter()
            .map(|(name, value)| (name.as_slice(), value.as_slice()))
            .collect();
        let again = decode_header_blocks(&[&literal_block(&pairs)]);
        assert_eq!(again, vec![Ok(fields.clone())]);
    }
    // Huffman: whatever decodes, decodes to at most 8/5 characters a byte; and any text,
    // Huffman-coded, decodes back to itself.
    if let Some(text) = huffman_decode(rest) {
        assert!(
            text.len() <= rest.len() * 8 / 5,
            "{} bytes from {}",
            text.len(),
            rest.len()
        );
    }
    let mut coded = Vec::new();
    httlib_huffman::encode(rest, &mut coded).expect("any bytes can be coded");
    assert_eq!(huffman_decode(&coded).as_deref(), Some(rest));
});
