//! Huffman-coded HPACK strings (RFC 7541 §5.2, the code of Appendix B), decoded a byte at a
//! time through a table.
//!
//! The code itself is httlib-huffman's `ENCODE_TABLE` (the RFC's Appendix B as data); its own
//! decoder walks 5 bits at a time with checks at each step, about 150 instructions per
//! character, a quarter of what an h2 request cost mock-rates. Here a code of up to 8 bits
//! (every letter, digit and the punctuation of a URL but `?`) is one lookup in a 256-entry
//! table; a longer one a binary search among the longer codes.

use std::sync::OnceLock;

use httlib_huffman::encoder::table::ENCODE_TABLE;

/// End of string: never in a string, 30 ones as padding's source.
const EOS: u16 = 256;

/// A Huffman string that is not valid: a connection error (COMPRESSION_ERROR).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct InvalidHuffman;

struct Table {
    /// By the next 8 bits: the symbol whose code of at most 8 bits starts them, as
    /// `symbol << 4 | length`; 0 when the code is longer.
    short: [u16; 256],
    /// The codes longer than 8 bits, left-aligned in 32 bits, in order: (start, length,
    /// symbol).
    long: Vec<(u32, u32, u16)>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut short = [0; 256];
        let mut long = Vec::new();
        for (symbol, &(length, code)) in (0_u16..).zip(ENCODE_TABLE.iter()) {
            let length = u32::from(length);
            if length <= 8 {
                let start = (code << (8 - length)) as usize;
                for entry in &mut short[start..start + (1 << (8 - length))] {
                    *entry = symbol << 4 | length as u16;
                }
            } else {
                long.push((code << (32 - length), length, symbol));
            }
        }
        long.sort_unstable();
        Table { short, long }
    })
}

impl Table {
    /// The symbol whose code starts the 32 bits of `peek`, and the code's length.
    fn lookup(&self, peek: u32) -> (u16, u32) {
        let entry = self.short[(peek >> 24) as usize];
        if entry != 0 {
            return (entry >> 4, u32::from(entry & 0xf));
        }
        // The code is complete: every value falls in the range of one code.
        let at = self.long.partition_point(|&(start, _, _)| start <= peek) - 1;
        let (_, length, symbol) = self.long[at];
        (symbol, length)
    }
}

/// Appends the decoded `input` to `out`.
pub(super) fn decode(input: &[u8], out: &mut Vec<u8>) -> Result<(), InvalidHuffman> {
    let table = table();
    // The bits not decoded yet, the newest lowest; `bits` of them.
    let mut pending: u64 = 0;
    let mut bits: u32 = 0;
    for &byte in input {
        pending = pending << 8 | u64::from(byte);
        bits += 8;
        loop {
            let (symbol, length) = if bits >= 8 {
                let entry = table.short[(pending >> (bits - 8)) as usize & 0xff];
                if entry != 0 {
                    (entry >> 4, u32::from(entry & 0xf))
                } else if bits >= 30 {
                    table.lookup((pending << (64 - bits) >> 32) as u32)
                } else {
                    break;
                }
            } else {
                break;
            };
            if symbol == EOS {
                return Err(InvalidHuffman);
            }
            out.push(symbol as u8);
            bits -= length;
        }
        pending &= (1 << bits) - 1;
    }
    // What is left: whole codes (shorter than the 30 bits waited for above), then padding,
    // which must be fewer than 8 bits, all ones (the start of EOS).
    while bits > 0 {
        let ones = (1_u64 << (32 - bits)) - 1;
        let (symbol, length) = table.lookup((pending << (32 - bits) | ones) as u32);
        if length <= bits {
            if symbol == EOS {
                return Err(InvalidHuffman);
            }
            out.push(symbol as u8);
            bits -= length;
            pending &= (1 << bits) - 1;
        } else if bits <= 7 && pending == (1 << bits) - 1 {
            break;
        } else {
            return Err(InvalidHuffman);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(text: &[u8]) -> Vec<u8> {
        let mut coded = Vec::new();
        httlib_huffman::encode(text, &mut coded).unwrap();
        coded
    }

    fn decoded(coded: &[u8]) -> Result<Vec<u8>, InvalidHuffman> {
        let mut out = Vec::new();
        decode(coded, &mut out).map(|()| out)
    }

    #[test]
    fn every_symbol_and_the_rfc_s_strings_decode() {
        // RFC 7541 C.4.1 and C.6.1.
        assert_eq!(
            decoded(&[
                0xf1, 0xe3, 0xc2, 0xe5, 0xf2, 0x3a, 0x6b, 0xa0, 0xab, 0x90, 0xf4, 0xff
            ]),
            Ok(b"www.example.com".to_vec())
        );
        assert_eq!(decoded(&[0x64, 0x02]), Ok(b"302".to_vec()));
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(decoded(&encode(&all)), Ok(all.clone()));
        for symbol in all {
            assert_eq!(decoded(&encode(&[symbol])), Ok(vec![symbol]), "{symbol}");
            let text = [b'/', symbol, b'?', symbol, b'a'];
            assert_eq!(decoded(&encode(&text)), Ok(text.to_vec()), "{symbol}");
        }
        assert_eq!(decoded(&[]), Ok(Vec::new()));
    }

    #[test]
    fn padding_must_be_short_and_all_ones() {
        // '0' is 00000: three bits of padding, all ones.
        assert_eq!(decoded(&[0x07]), Ok(b"0".to_vec()));
        // Padding of zeros, and padding of 8 bits or more.
        assert_eq!(decoded(&[0x00]), Err(InvalidHuffman));
        assert_eq!(decoded(&[0x07, 0xff]), Err(InvalidHuffman));
        assert_eq!(decoded(&[0xff]), Err(InvalidHuffman));
        // EOS itself (30 ones) inside a string.
        assert_eq!(decoded(&[0xff, 0xff, 0xff, 0xfc]), Err(InvalidHuffman));
    }
}
