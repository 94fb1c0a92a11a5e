//! How a client's TLS is named in `GET /clients` and in the bench's tables.

/// The library that does a client's TLS handshakes, and the crypto under it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TlsStack {
    /// "rustls", "native-tls", "openssl", "libcurl (OpenSSL)".
    pub backend: &'static str,
    /// "aws-lc-rs", "ring", "OpenSSL (system)", ...
    pub provider: &'static str,
}
