//! `RatesProvider` over isahc, which drives libcurl (built in, statically) on its own thread.
//!
//! TLS: libcurl's OpenSSL backend (isahc `native-tls`: curl-sys `ssl`), linked to the system's
//! OpenSSL through openssl-sys; only libcurl itself is built from source. Certificates and host
//! names are verified, as libcurl always does unless told otherwise.
//!
//! Trust: libcurl takes one CA file (`CURLOPT_CAINFO`) or one in-memory bundle
//! (`CURLOPT_CAINFO_BLOB`, which overrides the file), not "the system's plus these". So for an
//! `https://` upstream the adapter writes one bundle, the system's roots (read by
//! rustls-native-certs, the same set every other adapter trusts) followed by `extra_ca_pem`,
//! to a temporary file it owns for its lifetime, and hands isahc that file. For `http://`
//! nothing is loaded.
//!
//! That file is parsed again for every new TLS connection, as isahc's own default (the system's
//! bundle, `/etc/ssl/certs/ca-certificates.crt`) is: libcurl keeps the X509 store it built only
//! when the store comes from a CA file alone (`Curl_ssl_setup_x509_store` in
//! `vtls/openssl.c`), and the `curl` crate sets `CURLOPT_CAPATH` (openssl-probe's
//! `/etc/ssl/certs`) on every handle it creates (`ssl_configure` in `easy/handler.rs`), which
//! isahc can neither unset nor override. With OpenSSL 3.0 that parse costs tens of
//! milliseconds of CPU on curl's one thread per new connection (docs/findings/isahc-ca-reparse.md).
//! [`IsahcTrust::CaDirectory`] is the variant that avoids it: the CA file holds the extra CAs
//! alone, and the system's roots come from that same directory, which OpenSSL reads only when
//! a chain needs one of them.
//!
//! HTTP/2: libcurl with nghttp2 (isahc's `http2` feature: curl-sys `http2`, libnghttp2-sys
//! built from its bundled source and linked statically, nothing fetched at build time). The
//! version is set for every client, `VersionNegotiation::http11()` or `::http2()`: libcurl's
//! `CURL_HTTP_VERSION_1_1` and `CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE`, which over TLS make ALPN
//! offer `http/1.1` alone or `h2` alone (`alpn_get_spec` in `vtls/vtls.c`). The default,
//! `latest_compatible`, would offer both. The answer's version is checked. libcurl multiplexes
//! on a connection it knows speaks h2; `max_connections` caps its connections, and
//! `UpstreamCall`'s slots the calls in flight.
//!
//! Stale connections: libcurl checks a cached connection before reuse (at most once a second:
//! `Curl_cpool_conn_seems_healthy` in `conncache.c`), and when a reused connection dies before
//! a single response byte arrives it retries the request on a fresh connection, up to five
//! times (`Curl_retry_request` in `transfer.c`: "Connection died, retrying a fresh connect").
//! It is the only one of the five clients that retries a request written to a connection the
//! server closed at that moment; nothing is added here.

use std::io::Write as _;
use std::path::Path;
use std::time::Duration;

use application::{Quotes, RatesError, RatesProvider};
use async_trait::async_trait;
use domain::CurrencyPair;
use futures_util::AsyncReadExt as _;
use isahc::config::{Configurable, RedirectPolicy, VersionNegotiation};
use isahc::error::ErrorKind;
use isahc::tls::{TlsConfig, TrustStore};
use isahc::{AsyncBody, HttpClient};
use openssl::x509::X509;
use rates_common::{
    BoundedBody, BuildError, ClientSettings, HttpVersion, TlsStack, UpstreamCall, broken_transfer,
    connect_timeout_error, describe, find_in_chain, not_http2, timeout_error, tls_error,
};
use tempfile::NamedTempFile;

/// How the adapter hands libcurl the roots it trusts; each is its own registry entry. Both
/// trust the same roots: the system's and `extra_ca_pem`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IsahcTrust {
    /// One CA file holding the system's roots and the extra CAs: as isahc's default, libcurl
    /// parses the whole bundle again for every new TLS connection.
    Bundle,
    /// The CA file holds the extra CAs alone (one system root when there is none, since libcurl
    /// needs a file), and the system's roots come from the CA directory the `curl` crate gives
    /// libcurl (openssl-probe's, `/etc/ssl/certs` on Debian): OpenSSL looks a root up there, by
    /// its subject's hash, only when a chain needs it (`SSL_CTX_load_verify_locations(3)`). So a
    /// new connection parses one or a few certificates. Building refuses a directory that does
    /// not hold every system root.
    CaDirectory,
}

impl IsahcTrust {
    pub const ALL: [Self; 2] = [Self::Bundle, Self::CaDirectory];

    /// The pair's registry name: the default keeps the bare `"isahc"`.
    pub fn client_name(self) -> &'static str {
        match self {
            Self::Bundle => IsahcRates::NAME,
            Self::CaDirectory => "isahc-ca-dir",
        }
    }
}

/// Fetches rates with one isahc client (one libcurl multi handle and its thread), built once.
#[derive(Debug)]
pub struct IsahcRates {
    client: HttpClient,
    /// The trusted roots libcurl reads, for an `https://` upstream: kept as long as the client.
    _trusted_roots: Option<NamedTempFile>,
    http_version: HttpVersion,
    call: UpstreamCall,
}

/// The libcurl isahc runs on, its TLS library and its HTTP/2 library, as libcurl reports
/// them at run time: `libcurl 8.22.0 with OpenSSL/3.0.19 and nghttp2 1.68.1`.
pub fn libcurl_version() -> String {
    let version = curl::Version::get();
    format!(
        "libcurl {} with {} and {}",
        version.version(),
        version.ssl_version().unwrap_or("no TLS library"),
        version.nghttp2_version().map_or_else(
            || "no HTTP/2".to_owned(),
            |nghttp2| format!("nghttp2 {nghttp2}")
        )
    )
}

impl IsahcRates {
    pub const NAME: &'static str = "isahc";

    /// The client as this adapter configured it (TLS, pool, timeouts), for calls that skip
    /// the port and the adapter's frame: the bench's bare calls, which measure what both cost.
    pub fn client(&self) -> &HttpClient {
        &self.client
    }
    /// Its one TLS stack: libcurl's OpenSSL backend, on the system's OpenSSL.
    pub const TLS: TlsStack = TlsStack {
        backend: "libcurl",
        provider: "OpenSSL (system)",
    };
    /// The HTTP versions it speaks: HTTP/1.1, and HTTP/2 over TLS (nghttp2).
    pub const HTTP_VERSIONS: &'static [HttpVersion] = &HttpVersion::ALL;

    /// Builds the client, its connection cache and its agent thread from `settings`, trusting
    /// one bundle ([`IsahcTrust::Bundle`]).
    ///
    /// # Errors
    /// As [`Self::with_trust`].
    pub fn new(settings: &ClientSettings) -> Result<Self, BuildError> {
        Self::with_trust(settings, IsahcTrust::Bundle)
    }

    /// Builds the client, its connection cache and its agent thread from `settings`, handing
    /// libcurl its roots as `trust` says.
    ///
    /// # Errors
    /// A `BuildError` when the settings are unusable (see [`ClientSettings::check_with_tls`]),
    /// libcurl cannot be initialised, or, for an `https://` upstream, the roots cannot be
    /// gathered (an unreadable extra CA, none at all, no temporary file; for
    /// [`IsahcTrust::CaDirectory`], a CA directory that lacks system roots).
    pub fn with_trust(settings: &ClientSettings, trust: IsahcTrust) -> Result<Self, BuildError> {
        let name = trust.client_name();
        settings.check_with_tls(name)?;
        let fail = |reason: String| BuildError {
            client: name,
            reason,
        };
        let trusted_roots = if settings.is_https() {
            Some(trusted_roots(settings, trust).map_err(fail)?)
        } else {
            None
        };
        let mut builder = HttpClient::builder();
        if let Some(roots) = &trusted_roots {
            builder = builder.tls_config(
                TlsConfig::builder()
                    .trust_store(TrustStore::from_file(roots.path()))
                    .build(),
            );
        }
        let client = builder
            .version_negotiation(match settings.http_version {
                HttpVersion::Http11 => VersionNegotiation::http11(),
                HttpVersion::Http2 => VersionNegotiation::http2(),
            })
            .connect_timeout(settings.connect_timeout)
            // libcurl's own total timeout, body included; `UpstreamCall`'s deadline wraps it as well.
            .timeout(settings.timeout)
            .max_connections(settings.max_connections)
            .max_connections_per_host(settings.max_connections)
            .connection_cache_size(settings.max_idle_per_host)
            .connection_cache_ttl(cache_ttl(settings.idle_timeout))
            // Like every adapter: no proxy from the environment, no redirects followed.
            .proxy(None)
            .redirect_policy(RedirectPolicy::None)
            .build()
            .map_err(|error| fail(describe(&error)))?;
        Ok(Self {
            client,
            _trusted_roots: trusted_roots,
            http_version: settings.http_version,
            call: UpstreamCall::new(name, settings),
        })
    }

    /// One GET, its status and its whole body.
    async fn exchange(&self, pairs: &[CurrencyPair]) -> Result<(u16, Vec<u8>), RatesError> {
        let mut response = self
            .client
            .get_async(self.call.url(pairs))
            .await
            .map_err(|error| self.error(&error))?;
        self.http_version
            .check_answer(&response.version(), &isahc::http::Version::HTTP_2)?;
        let status = response.status().as_u16();
        let body = read_bounded(response.body_mut(), self.call.max_body_bytes)
            .await
            .map_err(|error| match error {
                BodyError::TooLarge => BoundedBody::too_large(self.call.max_body_bytes),
                // isahc hands libcurl's errors through `AsyncRead` wrapped in io errors.
                BodyError::Io(io) => self.error(&isahc::Error::from(io)),
            })?;
        Ok((status, body))
    }

    fn error(&self, error: &isahc::Error) -> RatesError {
        if is_tls_failure(error) {
            return self.tls_error(error);
        }
        match error.kind() {
            // libcurl says "Timeout was reached" for both timeouts; only a call that got as far
            // as a connection knows its peer's address.
            ErrorKind::Timeout if error.remote_addr().is_none() => {
                connect_timeout_error(self.call.connect_timeout)
            }
            ErrorKind::Timeout => timeout_error(self.call.timeout),
            ErrorKind::ConnectionFailed | ErrorKind::NameResolution => {
                RatesError::Connect(describe(error))
            }
            _ => broken_transfer(describe(error)),
        }
    }
}

impl IsahcRates {
    /// A failed handshake. libcurl's reason (its error buffer) does not reach isahc's errors
    /// from a transfer: a refused `h2` comes as a bare `[35] SSL connect error`, the code of
    /// any handshake failure that is not a refused certificate. With `h2` offered alone, that
    /// is what an upstream that does not agree to HTTP/2 causes, and the error says so, as a
    /// likely cause rather than a certainty.
    fn tls_error(&self, error: &isahc::Error) -> RatesError {
        let description = describe(error);
        let bare_connect_error = self.http_version == HttpVersion::Http2
            && find_in_chain::<curl::Error>(error).is_some_and(|curl| {
                curl.is_ssl_connect_error() && curl.extra_description().is_none()
            });
        if bare_connect_error {
            return not_http2(format!(
                "the handshake failed ({description}); libcurl gives no reason, and with h2 \
                 offered alone this is how an upstream that does not speak it refuses"
            ));
        }
        tls_error(description, self.http_version)
    }
}

/// Whether the call failed in the TLS handshake. isahc files a refused certificate under
/// `BadServerCertificate`, but any other failed handshake (a protocol alert, no common cipher,
/// a reset mid-handshake: `CURLE_SSL_CONNECT_ERROR`) under `ConnectionFailed`, next to a refused
/// TCP connection: libcurl's own code, in the chain, tells them apart.
fn is_tls_failure(error: &isahc::Error) -> bool {
    error.is_tls()
        || error.kind() == ErrorKind::InvalidTlsConfiguration
        || find_in_chain::<curl::Error>(error).is_some_and(curl::Error::is_ssl_connect_error)
}

/// The CA file libcurl is handed, as `trust` says: the system's roots and the extra CAs
/// ([`IsahcTrust::Bundle`]), or the extra CAs alone, else one system root
/// ([`IsahcTrust::CaDirectory`]), as PEM in a temporary file.
fn trusted_roots(settings: &ClientSettings, trust: IsahcTrust) -> Result<NamedTempFile, String> {
    // Unreadable system roots are not fatal: the extra CAs may be all this upstream needs.
    let native = rustls_native_certs::load_native_certs();
    // As rustls's store does, a system certificate that does not parse is left out.
    let system: Vec<X509> = native
        .certs
        .iter()
        .filter_map(|certificate| X509::from_der(certificate).ok())
        .collect();
    let extra = settings
        .extra_ca_certificates()?
        .iter()
        .map(|certificate| {
            X509::from_der(certificate)
                .map_err(|error| format!("the extra CA is not a usable certificate: {error}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if system.is_empty() && extra.is_empty() {
        return Err(format!(
            "no trusted root for {}: the system has none readable ({} errors) and no extra CA \
             is given",
            settings.base_url,
            native.errors.len()
        ));
    }
    let in_file: Vec<&X509> = match trust {
        IsahcTrust::Bundle => system.iter().chain(&extra).collect(),
        IsahcTrust::CaDirectory => {
            let directory = openssl_probe::probe().cert_dir.ok_or_else(|| {
                "no CA directory found for libcurl (openssl-probe found none), so the system's \
                 roots cannot be left out of the CA file"
                    .to_owned()
            })?;
            check_directory_holds(&directory, &system)?;
            if extra.is_empty() {
                // libcurl needs a file; a root the directory holds too changes nothing trusted.
                system.iter().take(1).collect()
            } else {
                extra.iter().collect()
            }
        }
    };
    let mut bundle = Vec::new();
    for certificate in in_file {
        let pem = certificate
            .to_pem()
            .map_err(|error| format!("cannot write a root as PEM: {error}"))?;
        bundle.extend_from_slice(&pem);
    }
    let mut file = tempfile::Builder::new()
        .prefix("rates-isahc-roots-")
        .suffix(".pem")
        .tempfile()
        .map_err(|error| format!("cannot create the CA bundle file: {error}"))?;
    file.write_all(&bundle)
        .and_then(|()| file.flush())
        .map_err(|error| format!("cannot write the CA bundle file: {error}"))?;
    Ok(file)
}

/// Checks that OpenSSL finds every one of `roots` in `directory`: a file named for the hash of
/// its subject (`<hash>.0`, as `c_rehash` and Debian's ca-certificates make them).
fn check_directory_holds(directory: &Path, roots: &[X509]) -> Result<(), String> {
    let missing = roots
        .iter()
        .filter(|root| {
            !directory
                .join(format!("{:08x}.0", root.subject_name_hash()))
                .exists()
        })
        .count();
    if missing > 0 {
        return Err(format!(
            "{missing} of the system's {} roots have no hashed file in the CA directory {} that \
             libcurl is given, so they would not be trusted",
            roots.len(),
            directory.display()
        ));
    }
    Ok(())
}

/// libcurl counts the idle age of cached connections in whole seconds (`CURLOPT_MAXAGE_CONN`),
/// and 0 would mean "no limit". Rounded down, so connections leave no later than the other
/// clients' do; an idle timeout under a second becomes one second.
fn cache_ttl(idle_timeout: Duration) -> Duration {
    Duration::from_secs(idle_timeout.as_secs().max(1))
}

enum BodyError {
    TooLarge,
    Io(std::io::Error),
}

/// Reads the whole body, refusing more than `limit` bytes (a declared length over it before
/// reading a byte).
async fn read_bounded(body: &mut AsyncBody, limit: usize) -> Result<Vec<u8>, BodyError> {
    let declared = body.len();
    BoundedBody::check_declared(declared, limit).map_err(|_| BodyError::TooLarge)?;
    let mut bytes = Vec::with_capacity(declared.map_or(0, |length| length as usize));
    // One byte past the limit tells a body of exactly `limit` bytes from a longer one.
    body.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .await
        .map_err(BodyError::Io)?;
    if bytes.len() > limit {
        return Err(BodyError::TooLarge);
    }
    Ok(bytes)
}

#[async_trait(?Send)]
impl RatesProvider for IsahcRates {
    async fn fetch_quotes(&self, pairs: &[CurrencyPair]) -> Result<Quotes, RatesError> {
        self.call.run(pairs, self.exchange(pairs)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn refuses_an_extra_ca_that_is_no_certificate() {
        let settings = ClientSettings {
            extra_ca_pem: Some(Arc::from(&b"not a certificate"[..])),
            ..ClientSettings::for_base_url("https://localhost:8443")
        };
        let error = IsahcRates::new(&settings).unwrap_err();
        assert!(error.reason.contains("extra CA"), "{error}");
    }

    #[test]
    fn the_ca_directory_variant_keeps_the_system_roots_out_of_the_ca_file() {
        let extra = self_signed_ca_pem();
        let settings = ClientSettings {
            extra_ca_pem: Some(Arc::from(extra.as_bytes())),
            ..ClientSettings::for_base_url("https://localhost:8443")
        };
        let certificates_in = |trust| {
            let file = trusted_roots(&settings, trust).unwrap();
            X509::stack_from_pem(&std::fs::read(file.path()).unwrap())
                .unwrap()
                .len()
        };
        let system = rustls_native_certs::load_native_certs()
            .certs
            .iter()
            .filter(|certificate| X509::from_der(certificate).is_ok())
            .count();
        assert!(system > 1, "this test needs the system's roots");
        assert_eq!(certificates_in(IsahcTrust::CaDirectory), 1);
        assert_eq!(certificates_in(IsahcTrust::Bundle), system + 1);
        assert_eq!(IsahcTrust::CaDirectory.client_name(), "isahc-ca-dir");
    }

    /// A self-signed certificate, made with the system's OpenSSL.
    fn self_signed_ca_pem() -> String {
        use openssl::asn1::Asn1Time;
        use openssl::ec::{EcGroup, EcKey};
        use openssl::hash::MessageDigest;
        use openssl::nid::Nid;
        use openssl::pkey::PKey;
        use openssl::x509::{X509Builder, X509NameBuilder};
        let key = PKey::from_ec_key(
            EcKey::generate(&EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap()).unwrap(),
        )
        .unwrap();
        let mut name = X509NameBuilder::new().unwrap();
        name.append_entry_by_text("CN", "rates-isahc test CA")
            .unwrap();
        let name = name.build();
        let mut builder = X509Builder::new().unwrap();
        builder.set_version(2).unwrap();
        builder.set_subject_name(&name).unwrap();
        builder.set_issuer_name(&name).unwrap();
        builder.set_pubkey(&key).unwrap();
        builder
            .set_not_before(&Asn1Time::days_from_now(0).unwrap())
            .unwrap();
        builder
            .set_not_after(&Asn1Time::days_from_now(1).unwrap())
            .unwrap();
        builder.sign(&key, MessageDigest::sha256()).unwrap();
        String::from_utf8(builder.build().to_pem().unwrap()).unwrap()
    }

    #[test]
    fn libcurl_is_built_with_http2() {
        assert!(
            curl::Version::get().feature_http2(),
            "{}",
            libcurl_version()
        );
        assert!(
            libcurl_version().contains("nghttp2 1."),
            "{}",
            libcurl_version()
        );
    }

    #[test]
    fn cache_ttl_is_whole_seconds_rounded_down_and_never_zero() {
        assert_eq!(
            cache_ttl(Duration::from_millis(4900)),
            Duration::from_secs(4)
        );
        assert_eq!(cache_ttl(Duration::from_secs(4)), Duration::from_secs(4));
        assert_eq!(
            cache_ttl(Duration::from_millis(200)),
            Duration::from_secs(1)
        );
    }
}
