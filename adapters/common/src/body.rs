//! A response body gathered under the size limit, the same rule for every adapter.

use application::RatesError;

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

#[cfg(test)]
mod tests {
    use super::*;

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
