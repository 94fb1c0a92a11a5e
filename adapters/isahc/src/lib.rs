//! `RatesProvider` over isahc, which drives libcurl (built in, statically) on its own thread.
//!
//! TLS is libcurl's rustls backend, isahc's default. libcurl takes one CA file, so for an
//! `https://` upstream the adapter writes the roots every adapter trusts (the system's and
//! `extra_ca_pem`) to a temporary file with no name, which it holds open for its lifetime, and
//! hands isahc that file as `/proc/self/fd/N`: a process ended by SIGKILL leaves nothing. It
//! sets the HTTP version for every client so that ALPN offers `http/1.1` or `h2` alone, and
//! checks the answer's version; it adds no retry (libcurl resends a request that met a closed
//! pooled connection by itself). Why each of these, read from libcurl's and rustls-ffi's
//! sources: docs/findings/isahc-as-driven.md; what a call costs:
//! docs/findings/isahc-per-call-cost.md.

use std::fs::File;
use std::io::Write as _;
use std::os::fd::AsRawFd as _;
use std::path::PathBuf;
use std::time::Duration;

use application::{Quotes, RatesError, RatesProvider};
use async_trait::async_trait;
use domain::CurrencyPair;
use futures_util::AsyncReadExt as _;
use isahc::config::{Configurable, RedirectPolicy, VersionNegotiation};
use isahc::error::ErrorKind;
use isahc::tls::{TlsConfig, TrustStore};
use isahc::{AsyncBody, HttpClient};
use pem_rfc7468::LineEnding;
use rates_common::{
    BodyDecode, BoundedBody, BuildError, ClientSettings, HttpVersion, TlsStack, UpstreamCall,
    broken_transfer, connect_timeout_error, describe, find_in_chain, not_http2, timeout_error,
    tls_error,
};

/// Fetches rates with one isahc client (one libcurl multi handle and its thread), built once.
#[derive(Debug)]
pub struct IsahcRates {
    client: HttpClient,
    /// The trusted roots libcurl reads, for an `https://` upstream: kept open as long as the
    /// client (declared after it, so dropped after it).
    _trusted_roots: Option<TrustedRoots>,
    http_version: HttpVersion,
    call: UpstreamCall,
}

/// The libcurl isahc runs on, its TLS library and its HTTP/2 library, as libcurl reports
/// them at run time: `libcurl 8.22.0 with rustls-ffi/0.15.7/rustls/0.23.46 and nghttp2 1.68.1`.
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
    /// Over https it reads its CA file through a descriptor this adapter holds: a clone of it
    /// must not outlive the adapter.
    pub fn client(&self) -> &HttpClient {
        &self.client
    }
    /// Its one TLS stack: libcurl's rustls backend (isahc's default), on the provider
    /// rustls-ffi installs as the process default, aws-lc-rs (see the module's docs).
    pub const TLS: TlsStack = TlsStack {
        backend: "libcurl (rustls)",
        provider: "aws-lc-rs",
    };
    /// The HTTP versions it speaks: HTTP/1.1, and HTTP/2 over TLS (nghttp2).
    pub const HTTP_VERSIONS: &'static [HttpVersion] = &HttpVersion::ALL;
    /// Whole only. libcurl's agent thread writes the body into a pipe that this adapter's
    /// async body (`AsyncRead`) reads in the caller's buffer, so there are no received pieces
    /// to keep, and serde_json cannot decode from an async reader: a streamed decode would
    /// need isahc's blocking API on a thread of its own, another adapter.
    pub const DECODES: &'static [BodyDecode] = &[BodyDecode::Whole];

    /// Builds the client, its connection cache and its agent thread from `settings`.
    ///
    /// # Errors
    /// A `BuildError` when the settings are unusable (see [`ClientSettings::check_with_tls`]),
    /// libcurl cannot be initialised, or, for an `https://` upstream, the roots cannot be
    /// gathered (an unusable extra CA, none at all, no temporary file or no `/proc/self/fd`).
    pub fn new(settings: &ClientSettings) -> Result<Self, BuildError> {
        let name = Self::NAME;
        settings.check_with_tls(name)?;
        let fail = |reason: String| BuildError {
            client: name,
            reason,
        };
        if !Self::DECODES.contains(&settings.decode) {
            return Err(fail(format!(
                "isahc decodes the answer whole only, not {}",
                settings.decode.as_str()
            )));
        }
        let trusted_roots = if settings.is_https() {
            Some(trusted_roots(settings)?)
        } else {
            None
        };
        let mut builder = HttpClient::builder();
        if let Some(roots) = &trusted_roots {
            builder = builder.tls_config(
                TlsConfig::builder()
                    .trust_store(TrustStore::from_file(roots.path.clone()))
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

/// The CA file libcurl is handed: the system's roots and the extra CAs, as PEM.
///
/// A file, not an in-memory bundle (`CURLOPT_CAINFO_BLOB`, isahc's `TrustStore::builder`):
/// libcurl copies a blob into every connection and compares it whole, byte by byte, with the
/// request's each time it weighs reusing one, a cost no other adapter pays (`blobcmp` in
/// `vtls/vtls_config.c`; docs/findings/isahc-as-driven.md, and isahc-ca-reparse.md for a new
/// connection: 3.0 ms of CPU with the blob against 1.8 ms with the file). A file with no name:
/// created unlinked (`O_TMPFILE`, or unlinked as soon as created where the file system lacks
/// it), so that nothing is left in the temporary directory however the process ends (the bench
/// ends the payment service with SIGKILL). libcurl's rustls backend opens the file again for
/// each new connection, through `/proc/self/fd/N`, which leads to it while `_file` is open.
#[derive(Debug)]
struct TrustedRoots {
    _file: File,
    path: PathBuf,
}

fn trusted_roots(settings: &ClientSettings) -> Result<TrustedRoots, BuildError> {
    let fail = |reason: String| BuildError {
        client: IsahcRates::NAME,
        reason,
    };
    let mut bundle = String::new();
    for certificate in rates_common::tls::root_certificates(settings, IsahcRates::NAME)? {
        let pem = pem_rfc7468::encode_string("CERTIFICATE", LineEnding::LF, &certificate)
            .map_err(|error| fail(format!("cannot write a root as PEM: {error}")))?;
        bundle.push_str(&pem);
    }
    let mut file = tempfile::tempfile()
        .map_err(|error| fail(format!("cannot create the CA bundle file: {error}")))?;
    file.write_all(bundle.as_bytes())
        .and_then(|()| file.flush())
        .map_err(|error| fail(format!("cannot write the CA bundle file: {error}")))?;
    let path = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
    // libcurl reads the path only when it opens a connection: check now that it leads to the
    // bundle, rather than fail every handshake later.
    let reopened = std::fs::metadata(&path).map_err(|error| {
        fail(format!(
            "cannot reach the CA bundle as {}: {error}",
            path.display()
        ))
    })?;
    if reopened.len() != bundle.len() as u64 {
        return Err(fail(format!(
            "{} holds {} bytes, not the CA bundle's {}",
            path.display(),
            reopened.len(),
            bundle.len()
        )));
    }
    Ok(TrustedRoots { _file: file, path })
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
    use rustls_pki_types::CertificateDer;
    use rustls_pki_types::pem::PemObject as _;
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
    fn the_ca_file_holds_the_system_roots_and_the_extra_ca() {
        let extra = rcgen::generate_simple_self_signed(vec!["rates-isahc test CA".to_owned()])
            .unwrap()
            .cert;
        let settings = ClientSettings {
            extra_ca_pem: Some(Arc::from(extra.pem().as_bytes())),
            ..ClientSettings::for_base_url("https://localhost:8443")
        };
        let roots = trusted_roots(&settings).unwrap();
        let in_file = CertificateDer::pem_file_iter(&roots.path)
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        let system = rates_common::tls::root_certificates(
            &ClientSettings {
                extra_ca_pem: None,
                ..settings.clone()
            },
            IsahcRates::NAME,
        )
        .unwrap();
        assert!(!system.is_empty(), "this test needs the system's roots");
        assert_eq!(in_file.len(), system.len() + 1);
        assert_eq!(in_file.last(), Some(extra.der()));
    }

    #[test]
    fn libcurl_runs_on_rustls() {
        let version = curl::Version::get();
        assert!(
            version
                .ssl_version()
                .is_some_and(|tls| tls.contains("rustls")),
            "{}",
            libcurl_version()
        );
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
