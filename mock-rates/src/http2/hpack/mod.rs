//! HPACK (RFC 7541): request heads decoded ([`decode`]), the answers' fields encoded
//! ([`encode`]). The encoder keeps no state: every field it writes is a literal that is not
//! indexed, or a static-table entry.

mod decode;
mod encode;

pub(super) use decode::{Block, Decoder};
pub(super) use encode::{answer_fields, literal};
