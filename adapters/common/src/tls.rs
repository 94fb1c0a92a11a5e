//! TLS for the adapters whose TLS is rustls: the roots they trust, and how their handshake
//! errors read.

use std::error::Error;
use std::sync::Arc;

use application::RatesError;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::CertificateDer;
use rustls::{AlertDescription, ClientConfig, RootCertStore};

use crate::{BuildError, ClientSettings, HttpVersion, describe, find_in_chain, not_http2};

/// A client config for `settings`, on `provider` (always given: with more than one provider
/// compiled in, rustls has no process-wide default), trusting the system's roots and
/// `extra_ca_pem`, verifying certificates and host names as rustls always does. For an
/// `http://` upstream the config is never used, so no roots are loaded. ALPN offers the one
/// protocol of `http_version` (`http/1.1` or `h2`), never both.
///
/// # Errors
/// A `BuildError` when the extra CAs are not PEM certificates, when an `https://` upstream
/// would be trusted by no root at all, or when the provider offers no safe protocol version.
pub fn client_config(
    settings: &ClientSettings,
    provider: Arc<CryptoProvider>,
    client: &'static str,
) -> Result<ClientConfig, BuildError> {
    let fail = |reason: String| BuildError { client, reason };
    let roots = if settings.is_https() {
        roots(settings).map_err(fail)?.store
    } else {
        RootCertStore::empty()
    };
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| fail(format!("no TLS version to offer: {error}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = settings.http_version.alpn_protocols();
    Ok(config)
}

/// The roots [`client_config`] trusts, as certificates, for a client that takes a list of
/// roots rather than a rustls config (ureq, with either of its TLS backends). For an `http://`
/// upstream, none: nothing is loaded.
///
/// # Errors
/// As [`client_config`]'s, for the roots.
pub fn root_certificates(
    settings: &ClientSettings,
    client: &'static str,
) -> Result<Vec<CertificateDer<'static>>, BuildError> {
    if !settings.is_https() {
        return Ok(Vec::new());
    }
    roots(settings)
        .map(|roots| roots.certificates)
        .map_err(|reason| BuildError { client, reason })
}

/// The system's roots and the extra CAs that are usable trust anchors: as a rustls store, and
/// as the certificates it was built from.
struct Roots {
    store: RootCertStore,
    certificates: Vec<CertificateDer<'static>>,
}

impl Roots {
    fn add(&mut self, certificate: CertificateDer<'static>) -> Result<(), rustls::Error> {
        self.store.add(certificate.clone())?;
        self.certificates.push(certificate);
        Ok(())
    }
}

/// The system's roots and the extra CAs.
fn roots(settings: &ClientSettings) -> Result<Roots, String> {
    let mut roots = Roots {
        store: RootCertStore::empty(),
        certificates: Vec::new(),
    };
    // Unreadable system roots are not fatal: the extra CAs may be all this upstream needs.
    // Nor are unusable ones: a system store may hold expired or odd certificates.
    let native = rustls_native_certs::load_native_certs();
    for certificate in native.certs {
        let _unusable = roots.add(certificate);
    }
    for certificate in settings.extra_ca_certificates()? {
        roots
            .add(certificate)
            .map_err(|error| format!("the extra CA is not a usable certificate: {error}"))?;
    }
    if roots.certificates.is_empty() {
        return Err(format!(
            "no trusted root for {}: the system has none readable ({} errors) and no extra CA \
             is given",
            settings.base_url,
            native.errors.len()
        ));
    }
    Ok(roots)
}

/// The TLS failure somewhere in `error`'s chain, if the call failed in the handshake. An
/// upstream that refused every protocol offered by ALPN (`h2` to one that speaks HTTP/1.1
/// only) is said to have refused HTTP/2 when that is what was offered.
pub fn tls_failure(error: &(dyn Error + 'static), offered: HttpVersion) -> Option<RatesError> {
    find_in_chain::<rustls::Error>(error).map(|handshake| match handshake {
        rustls::Error::AlertReceived(AlertDescription::NoApplicationProtocol)
        | rustls::Error::NoApplicationProtocol
            if offered == HttpVersion::Http2 =>
        {
            not_http2(format!("the handshake failed: {}", describe(handshake)))
        }
        _ => RatesError::Tls(describe(handshake)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;

    fn provider() -> Arc<CryptoProvider> {
        Arc::new(rustls::crypto::ring::default_provider())
    }

    #[test]
    fn refuses_an_extra_ca_that_is_no_certificate() {
        let settings = ClientSettings {
            extra_ca_pem: Some(Arc::from(&b"not a certificate"[..])),
            ..ClientSettings::for_base_url("https://localhost:8443")
        };
        let error = client_config(&settings, provider(), "test").unwrap_err();
        assert!(error.reason.contains("no certificate"), "{error}");
        // One protocol offered by ALPN, the one of `http_version`.
        let http2 = ClientSettings {
            extra_ca_pem: None,
            http_version: HttpVersion::Http2,
            base_url: "http://localhost:8081".to_owned(),
            ..settings.clone()
        };
        let config = client_config(&http2, provider(), "test").unwrap();
        assert_eq!(config.alpn_protocols, [b"h2".to_vec()]);
        // Plain HTTP loads no roots and so cannot fail on them.
        let plain = ClientSettings {
            base_url: "http://localhost:8081".to_owned(),
            ..settings
        };
        assert!(client_config(&plain, provider(), "test").is_ok());
        assert_eq!(root_certificates(&plain, "test"), Ok(Vec::new()));
        assert!(
            root_certificates(
                &ClientSettings {
                    base_url: "https://h".to_owned(),
                    ..plain
                },
                "test"
            )
            .is_err()
        );
    }

    #[test]
    fn finds_the_handshake_error_inside_an_io_error() {
        let handshake = rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer);
        let stream = io::Error::new(io::ErrorKind::InvalidData, handshake);
        // hyper-rustls wraps the stream's io error in one of its own.
        let connector = io::Error::other(stream);
        assert!(
            matches!(tls_failure(&connector, HttpVersion::Http11), Some(RatesError::Tls(message)) if message.contains("UnknownIssuer"))
        );
        let refused = io::Error::new(io::ErrorKind::ConnectionRefused, "refused");
        assert_eq!(tls_failure(&refused, HttpVersion::Http11), None);
    }

    #[test]
    fn a_refused_h2_says_so() {
        let alert = || {
            io::Error::new(
                io::ErrorKind::InvalidData,
                rustls::Error::AlertReceived(AlertDescription::NoApplicationProtocol),
            )
        };
        assert!(
            matches!(tls_failure(&alert(), HttpVersion::Http2), Some(RatesError::Tls(message)) if message.contains("did not agree to HTTP/2") && message.contains("NoApplicationProtocol")),
        );
        assert!(
            matches!(tls_failure(&alert(), HttpVersion::Http11), Some(RatesError::Tls(message)) if !message.contains("HTTP/2")),
        );
    }
}
