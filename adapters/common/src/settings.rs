//! The settings every adapter takes, so that the comparison is like for like.

use std::sync::Arc;
use std::time::Duration;

use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;

use crate::{BuildError, HttpVersion};

/// How an adapter's client is built. Every adapter applies every field the same way; where a
/// library has no knob for one (hyper and reqwest cannot cap open connections), the adapter
/// enforces it with a [`crate::ConcurrencyLimit`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientSettings {
    /// The upstream's base URL, e.g. `http://127.0.0.1:8081` (no trailing slash needed).
    pub base_url: String,
    /// Limit on establishing a TCP connection.
    pub connect_timeout: Duration,
    /// Limit on one whole upstream call: connect, request, status line and the complete body.
    pub timeout: Duration,
    /// Most calls in flight at once per client (and so most open connections).
    pub max_connections: usize,
    /// Most idle connections kept for reuse per host.
    pub max_idle_per_host: usize,
    /// Idle pooled connections older than this are dropped. Below the upstream's keep-alive
    /// (5 s for actix-web and mock-rates) so that a reused connection is not already closed.
    pub idle_timeout: Duration,
    /// How long a call may wait for a free slot (connection or blocking thread) before it
    /// fails as `Unavailable`.
    pub pool_wait: Duration,
    /// Threads of the blocking pool that blocking clients (ureq) run on.
    pub blocking_threads: usize,
    /// Largest upstream body read; a longer one is `Malformed`.
    pub max_body_bytes: usize,
    /// CAs trusted for an `https://` upstream besides the system's roots, as PEM (the api's
    /// `rates.ca_file`). Certificate and host-name verification is never turned off.
    pub extra_ca_pem: Option<Arc<[u8]>>,
    /// The HTTP version of every call (`rates.http_version`). HTTP/2 is negotiated by ALPN over
    /// TLS, so it needs an `https://` upstream. `max_connections` still counts connections and
    /// caps calls in flight; over HTTP/2 those calls are streams, on as few connections as the
    /// client opens.
    pub http_version: HttpVersion,
    /// How the answer is decoded: from one buffer holding it whole (the default), or as the
    /// client receives it, where the adapter offers that.
    pub decode: BodyDecode,
}

/// How an adapter decodes the upstream's answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BodyDecode {
    /// Read whole into one buffer, then decoded from it (`serde_json::from_slice`, borrowing
    /// from the buffer): every adapter.
    #[default]
    Whole,
    /// Decoded from the body as the client receives it, with no buffer holding it whole
    /// (`serde_json::from_reader`, keeping owned copies of the few values it needs): ureq
    /// from the connection as it reads it; hyper, reqwest and awc from the pieces they
    /// received, read in turn once the last is in (serde_json's parser pulls from a blocking
    /// reader, which an async client's body is not). Each adapter says whether it offers it.
    Streamed,
}

impl BodyDecode {
    pub const ALL: [BodyDecode; 2] = [BodyDecode::Whole, BodyDecode::Streamed];

    pub fn as_str(self) -> &'static str {
        match self {
            BodyDecode::Whole => "whole",
            BodyDecode::Streamed => "streamed",
        }
    }
}

impl ClientSettings {
    /// The defaults of `config/default.toml`, pointed at `base_url`.
    pub fn for_base_url(base_url: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            connect_timeout: Duration::from_secs(1),
            timeout: Duration::from_secs(2),
            max_connections: 100,
            max_idle_per_host: 100,
            idle_timeout: Duration::from_secs(4),
            pool_wait: Duration::from_secs(1),
            blocking_threads: 64,
            max_body_bytes: 64 * 1024,
            extra_ca_pem: None,
            http_version: HttpVersion::Http11,
            decode: BodyDecode::Whole,
        }
    }

    /// Whether the upstream is reached over TLS.
    pub fn is_https(&self) -> bool {
        self.base_url.starts_with("https://")
    }

    /// The certificates of `extra_ca_pem`, as DER, for each TLS backend to add to its store:
    /// empty when none is given. One reader for every backend, so that they all accept the
    /// same PEM and refuse it with the same words.
    ///
    /// # Errors
    /// Why the PEM cannot be used: a `CERTIFICATE` block that does not decode, or no such
    /// block at all.
    pub fn extra_ca_certificates(&self) -> Result<Vec<CertificateDer<'static>>, String> {
        let Some(pem) = &self.extra_ca_pem else {
            return Ok(Vec::new());
        };
        let certificates = CertificateDer::pem_slice_iter(pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| format!("the extra CA PEM is unreadable: {error}"))?;
        if certificates.is_empty() {
            return Err("the extra CA PEM holds no certificate".to_owned());
        }
        Ok(certificates)
    }

    /// Checks what an adapter that speaks plain HTTP only needs: as [`Self::check_with_tls`],
    /// and an `http://` base URL.
    ///
    /// # Errors
    /// A `BuildError` naming `client` and the first setting that is wrong.
    pub fn check(&self, client: &'static str) -> Result<(), BuildError> {
        if self.is_https() {
            return Err(BuildError {
                client,
                reason: format!(
                    "this adapter has no TLS built in yet, so it cannot reach {:?}",
                    self.base_url
                ),
            });
        }
        self.check_with_tls(client)
    }

    /// Checks what every adapter needs before building its client: an `http://` or `https://`
    /// base URL without query or fragment, `https://` for HTTP/2, and non-zero limits.
    ///
    /// # Errors
    /// A `BuildError` naming `client` and the first setting that is wrong.
    pub fn check_with_tls(&self, client: &'static str) -> Result<(), BuildError> {
        let fail = |reason: String| Err(BuildError { client, reason });
        let authority = self
            .base_url
            .strip_prefix("http://")
            .or_else(|| self.base_url.strip_prefix("https://"))
            .map(|rest| rest.split('/').next().unwrap_or_default());
        match authority {
            None => {
                return fail(format!(
                    "the base URL must start with http:// or https://, got {:?}",
                    self.base_url
                ));
            }
            Some("") => return fail(format!("the base URL has no host: {:?}", self.base_url)),
            Some(_) => {}
        }
        if self
            .base_url
            .contains(|c: char| c == '?' || c == '#' || c.is_whitespace())
        {
            return fail(format!(
                "the base URL must have no query, fragment or spaces: {:?}",
                self.base_url
            ));
        }
        if self.http_version == HttpVersion::Http2 && !self.is_https() {
            return fail(format!(
                "HTTP/2 is negotiated by ALPN over TLS, so it needs an https:// base URL (h2c, \
                 HTTP/2 in the clear, is not offered), got {:?}",
                self.base_url
            ));
        }
        for (name, duration) in [
            ("connect_timeout", self.connect_timeout),
            ("timeout", self.timeout),
        ] {
            if duration.is_zero() {
                return fail(format!("{name} must be above zero"));
            }
        }
        for (name, value) in [
            ("max_connections", self.max_connections),
            ("blocking_threads", self.blocking_threads),
            ("max_body_bytes", self.max_body_bytes),
        ] {
            if value == 0 {
                return fail(format!("{name} must be above zero"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_defaults_and_refuses_what_no_adapter_can_use() {
        assert_eq!(
            ClientSettings::for_base_url("http://127.0.0.1:8081/").check("test"),
            Ok(())
        );
        assert!(
            ClientSettings::for_base_url("https://example.com")
                .check("test")
                .is_err(),
            "an adapter without TLS refuses an https:// upstream"
        );
        assert_eq!(
            ClientSettings::for_base_url("https://localhost:8443").check_with_tls("test"),
            Ok(())
        );
        for base_url in [
            "ftp://example.com",
            "127.0.0.1:8081",
            "http://",
            "http:///api",
            "http://h/?x=1",
            "http://h /",
        ] {
            assert!(
                ClientSettings::for_base_url(base_url)
                    .check("test")
                    .is_err(),
                "{base_url}"
            );
        }
        let settings = ClientSettings {
            max_body_bytes: 0,
            ..ClientSettings::for_base_url("http://h")
        };
        assert!(settings.check("test").is_err());
    }

    #[test]
    fn http2_needs_tls() {
        let http2 = |base_url: &str| ClientSettings {
            http_version: HttpVersion::Http2,
            ..ClientSettings::for_base_url(base_url)
        };
        let error = http2("http://127.0.0.1:8081")
            .check_with_tls("test")
            .unwrap_err();
        assert!(
            error.reason.contains("ALPN over TLS") && error.reason.contains("https://"),
            "{error}"
        );
        assert_eq!(
            http2("https://localhost:8443").check_with_tls("test"),
            Ok(())
        );
    }

    #[test]
    fn reads_the_extra_ca_pem_once_for_every_backend() {
        let with = |pem: &str| ClientSettings {
            extra_ca_pem: Some(Arc::from(pem.as_bytes())),
            ..ClientSettings::for_base_url("https://localhost:8443")
        };
        assert_eq!(
            ClientSettings::for_base_url("https://h").extra_ca_certificates(),
            Ok(Vec::new())
        );
        let error = with("not a certificate")
            .extra_ca_certificates()
            .unwrap_err();
        assert!(error.contains("no certificate"), "{error}");
        let broken = "-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n";
        let error = with(broken).extra_ca_certificates().unwrap_err();
        assert!(error.contains("unreadable"), "{error}");
        // Two blocks, with text around them as CA files often have.
        let block = "-----BEGIN CERTIFICATE-----\nAQID\n-----END CERTIFICATE-----\n";
        let two = format!("# first\n{block}# second\n{block}");
        let certificates = with(&two).extra_ca_certificates().unwrap();
        assert_eq!(certificates.len(), 2);
        assert_eq!(certificates[0].as_ref(), [1, 2, 3]);
    }
}
