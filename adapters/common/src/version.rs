//! The HTTP version a client speaks to the upstream, and how it is negotiated and checked.

use std::fmt;
use std::str::FromStr;

use application::RatesError;
use serde::{Deserialize, Serialize};

/// The HTTP version every call of a client uses (`rates.http_version`).
///
/// HTTP/2 is negotiated by ALPN over TLS only (no h2c): with `Http2` a client offers `h2`
/// alone, so an upstream that does not speak it refuses the handshake, and an answer that
/// still comes back over HTTP/1.1 is refused by [`HttpVersion::check_answer`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum HttpVersion {
    /// HTTP/1.1, offering `http/1.1` alone by ALPN over TLS.
    #[default]
    #[serde(rename = "1.1")]
    Http11,
    /// HTTP/2, offering `h2` alone by ALPN; needs an `https://` upstream.
    #[serde(rename = "2")]
    Http2,
}

impl HttpVersion {
    pub const ALL: [Self; 2] = [Self::Http11, Self::Http2];

    /// The name in config and in `GET /clients`: "1.1" or "2".
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Http11 => "1.1",
            Self::Http2 => "2",
        }
    }

    /// The one ALPN protocol ID a client offers for this version.
    pub fn alpn(self) -> &'static [u8] {
        match self {
            Self::Http11 => b"http/1.1",
            Self::Http2 => b"h2",
        }
    }

    /// [`Self::alpn`] as rustls's `ClientConfig::alpn_protocols` takes it.
    pub fn alpn_protocols(self) -> Vec<Vec<u8>> {
        vec![self.alpn().to_vec()]
    }

    /// [`Self::alpn`] in ALPN's wire format (a length byte, then the ID), as OpenSSL takes it.
    pub fn alpn_wire(self) -> Vec<u8> {
        let alpn = self.alpn();
        let mut wire = Vec::with_capacity(alpn.len() + 1);
        wire.push(alpn.len() as u8);
        wire.extend_from_slice(alpn);
        wire
    }

    /// Checks that an answer came over the version asked for: `answered` is its version and
    /// `http2` HTTP/2, both as the client's own type names them. Only HTTP/2 can be missed: an
    /// upstream that ignores ALPN (rather than refusing `h2`) leaves a client on HTTP/1.1.
    ///
    /// # Errors
    /// `Tls` (ALPN is part of the handshake) when HTTP/2 was asked for and not used.
    pub fn check_answer<V: PartialEq + fmt::Debug>(
        self,
        answered: &V,
        http2: &V,
    ) -> Result<(), RatesError> {
        match self {
            Self::Http2 if answered != http2 => {
                Err(not_http2(format!("it answered over {answered:?}")))
            }
            Self::Http11 | Self::Http2 => Ok(()),
        }
    }
}

/// The error for an upstream that did not agree to HTTP/2, with what it did instead.
pub fn not_http2(detail: impl fmt::Display) -> RatesError {
    RatesError::Tls(format!(
        "the upstream did not agree to HTTP/2 (ALPN h2): {detail}"
    ))
}

/// A failed handshake as the port's `Tls`, for the TLS libraries whose errors reach the adapter
/// as text (OpenSSL, under native-tls, actix-tls and libcurl): an upstream that answered an
/// `h2` offer with OpenSSL's "no application protocol" alert refused HTTP/2, and is said to.
pub fn tls_error(message: String, offered: HttpVersion) -> RatesError {
    if offered == HttpVersion::Http2
        && message
            .to_ascii_lowercase()
            .contains("no application protocol")
    {
        not_http2(format!("the handshake failed: {message}"))
    } else {
        RatesError::Tls(message)
    }
}

impl fmt::Display for HttpVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An HTTP version that is neither "1.1" nor "2".
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown HTTP version {0:?}: use \"1.1\" or \"2\"")]
pub struct UnknownHttpVersion(pub String);

impl FromStr for HttpVersion {
    type Err = UnknownHttpVersion;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|version| version.as_str() == text.trim())
            .ok_or_else(|| UnknownHttpVersion(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_the_config_names() {
        assert_eq!("1.1".parse(), Ok(HttpVersion::Http11));
        assert_eq!("2".parse(), Ok(HttpVersion::Http2));
        for wrong in ["", "1", "2.0", "h2", "http/1.1", "HTTP/2"] {
            let error = wrong.parse::<HttpVersion>().unwrap_err();
            assert!(error.to_string().contains("\"1.1\" or \"2\""), "{error}");
        }
        assert_eq!(
            serde_json::to_string(&HttpVersion::Http2).unwrap(),
            r#""2""#
        );
        assert_eq!(
            serde_json::from_str::<HttpVersion>(r#""1.1""#).unwrap(),
            HttpVersion::Http11
        );
        assert!(serde_json::from_str::<HttpVersion>(r#""3""#).is_err());
        assert_eq!(HttpVersion::default(), HttpVersion::Http11);
    }

    #[test]
    fn an_openssl_alert_refusing_h2_says_so() {
        let alert =
            "error:0A000460:SSL routines:ssl3_read_bytes:tlsv1 alert no application protocol";
        let refused = tls_error(alert.to_owned(), HttpVersion::Http2);
        assert!(
            matches!(&refused, RatesError::Tls(message) if message.contains("did not agree to HTTP/2") && message.contains(alert)),
            "{refused}"
        );
        assert_eq!(
            tls_error(alert.to_owned(), HttpVersion::Http11),
            RatesError::Tls(alert.to_owned())
        );
        assert_eq!(
            tls_error("certificate verify failed".to_owned(), HttpVersion::Http2),
            RatesError::Tls("certificate verify failed".to_owned())
        );
    }

    #[test]
    fn offers_one_protocol_by_alpn() {
        assert_eq!(HttpVersion::Http2.alpn_protocols(), [b"h2".to_vec()]);
        assert_eq!(HttpVersion::Http2.alpn_wire(), b"\x02h2");
        assert_eq!(HttpVersion::Http11.alpn_wire(), b"\x08http/1.1");
    }

    #[test]
    fn refuses_an_http1_answer_to_an_http2_client() {
        let error = HttpVersion::Http2
            .check_answer(&"HTTP/1.1", &"HTTP/2.0")
            .unwrap_err();
        assert!(
            matches!(&error, RatesError::Tls(message) if message.contains("did not agree to HTTP/2") && message.contains("HTTP/1.1")),
            "{error}"
        );
        assert_eq!(
            HttpVersion::Http2.check_answer(&"HTTP/2.0", &"HTTP/2.0"),
            Ok(())
        );
        assert_eq!(
            HttpVersion::Http11.check_answer(&"HTTP/1.1", &"HTTP/2.0"),
            Ok(())
        );
    }
}
