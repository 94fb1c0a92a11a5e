//! A response body gathered under the size limit, the same rule for every adapter: whole, in
//! one buffer ([`BoundedBody`]), or as the pieces it arrived in ([`BodyPieces`]); and how an
//! adapter hands it over ([`Received`]).

use std::collections::VecDeque;
use std::io::{self, Read};

use application::{Quotes, RatesError};
use bytes::{Buf, Bytes};

/// A response body read chunk by chunk, refused as soon as it outgrows its limit.
#[derive(Debug)]
pub struct BoundedBody {
    bytes: Vec<u8>,
    limit: usize,
}

impl BoundedBody {
    /// Starts a body of at most `limit` bytes. `declared` is the `Content-Length`, if any: over
    /// the limit it is refused before a byte is read; within it, it sizes the buffer once.
    ///
    /// # Errors
    /// `Malformed` when the declared length is over the limit.
    pub fn new(declared: Option<u64>, limit: usize) -> Result<Self, RatesError> {
        Self::check_declared(declared, limit)?;
        Ok(Self {
            bytes: Vec::with_capacity(declared.map_or(0, |length| length as usize)),
            limit,
        })
    }

    /// Refuses a declared `Content-Length` over the limit, for clients that gather the body
    /// themselves and only enforce the limit while reading.
    ///
    /// # Errors
    /// `Malformed` when the declared length is over the limit.
    pub fn check_declared(declared: Option<u64>, limit: usize) -> Result<(), RatesError> {
        match declared {
            Some(length) if length > limit as u64 => Err(Self::too_large(limit)),
            _ => Ok(()),
        }
    }

    /// Appends one chunk.
    ///
    /// # Errors
    /// `Malformed` when the body grows past the limit.
    pub fn extend(&mut self, chunk: &[u8]) -> Result<(), RatesError> {
        if chunk.len() > self.limit - self.bytes.len() {
            return Err(Self::too_large(self.limit));
        }
        self.bytes.extend_from_slice(chunk);
        Ok(())
    }

    pub fn into_vec(self) -> Vec<u8> {
        self.bytes
    }

    /// The error for a body longer than `limit` bytes, for clients that enforce the limit
    /// themselves (awc, ureq, hyper's `Limited`).
    pub fn too_large(limit: usize) -> RatesError {
        RatesError::Malformed(format!("the body is longer than {limit} bytes"))
    }
}

/// A response body kept as the pieces the client received it in, without joining them into
/// one buffer, under the same limit as [`BoundedBody`]; read back with [`io::Read`].
#[derive(Debug)]
pub struct BodyPieces {
    pieces: VecDeque<Bytes>,
    len: usize,
    limit: usize,
}

impl BodyPieces {
    /// Starts a body of at most `limit` bytes; a declared `Content-Length` over it is refused
    /// before a byte is read.
    ///
    /// # Errors
    /// `Malformed` when the declared length is over the limit.
    pub fn new(declared: Option<u64>, limit: usize) -> Result<Self, RatesError> {
        BoundedBody::check_declared(declared, limit)?;
        Ok(Self {
            pieces: VecDeque::new(),
            len: 0,
            limit,
        })
    }

    /// Keeps one more piece (a reference to the client's buffer, not a copy).
    ///
    /// # Errors
    /// `Malformed` when the body grows past the limit.
    pub fn push(&mut self, piece: Bytes) -> Result<(), RatesError> {
        if piece.len() > self.limit - self.len {
            return Err(BoundedBody::too_large(self.limit));
        }
        self.len += piece.len();
        if !piece.is_empty() {
            self.pieces.push_back(piece);
        }
        Ok(())
    }

    /// Bytes kept.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many pieces the body came in.
    pub fn pieces(&self) -> usize {
        self.pieces.len()
    }
}

impl Read for BodyPieces {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Some(front) = self.pieces.front_mut() else {
            return Ok(0);
        };
        let count = front.len().min(buf.len());
        buf[..count].copy_from_slice(&front[..count]);
        front.advance(count);
        if front.is_empty() {
            self.pieces.pop_front();
        }
        Ok(count)
    }
}

/// A response body as an adapter hands it to [`crate::UpstreamCall`] to be decoded.
#[derive(Debug)]
pub enum Received {
    /// In one buffer: decoded with [`crate::decode_quotes`].
    Whole(Bytes),
    /// As the pieces it arrived in: decoded by reading them in turn
    /// ([`crate::decode_quotes_from_reader`]), with no buffer joining them.
    Pieces(BodyPieces),
    /// Already decoded by the adapter as it read the body from the connection (a blocking
    /// client), for a successful status; or why it could not be.
    Decoded(Result<Quotes, RatesError>),
}

impl From<Vec<u8>> for Received {
    fn from(body: Vec<u8>) -> Self {
        Self::Whole(Bytes::from(body))
    }
}

impl From<Bytes> for Received {
    fn from(body: Bytes) -> Self {
        Self::Whole(body)
    }
}

impl From<BodyPieces> for Received {
    fn from(body: BodyPieces) -> Self {
        Self::Pieces(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_pieces_up_to_the_limit_and_reads_them_back_in_order() {
        let mut body = BodyPieces::new(Some(6), 6).unwrap();
        body.push(Bytes::from_static(b"ab")).unwrap();
        body.push(Bytes::new()).unwrap();
        body.push(Bytes::from_static(b"cdef")).unwrap();
        assert_eq!((body.len(), body.pieces()), (6, 2));
        assert!(matches!(
            body.push(Bytes::from_static(b"g")),
            Err(RatesError::Malformed(_))
        ));
        // Small reads cross the pieces' edges.
        let mut read = Vec::new();
        let mut buf = [0_u8; 3];
        loop {
            let count = body.read(&mut buf).unwrap();
            if count == 0 {
                break;
            }
            read.extend_from_slice(&buf[..count]);
        }
        assert_eq!(read, b"abcdef");
        assert!(matches!(
            BodyPieces::new(Some(7), 6),
            Err(RatesError::Malformed(_))
        ));
    }

    #[test]
    fn takes_chunks_up_to_the_limit_and_no_further() {
        let mut body = BoundedBody::new(None, 5).unwrap();
        body.extend(b"ab").unwrap();
        body.extend(b"cde").unwrap();
        assert!(matches!(body.extend(b"f"), Err(RatesError::Malformed(_))));
        assert_eq!(body.into_vec(), b"abcde");
    }

    #[test]
    fn refuses_a_declared_length_over_the_limit() {
        assert!(matches!(
            BoundedBody::new(Some(6), 5),
            Err(RatesError::Malformed(_))
        ));
        assert!(BoundedBody::new(Some(5), 5).is_ok());
    }
}
