//! `RatesProvider` over reqwest: its async client ([`ReqwestRates`]), and its blocking client
//! on the blocking pool ([`ReqwestBlockingRates`], module `blocking`), built from the same
//! settings and reading errors the same way. The async client takes either of the TLS
//! backends reqwest offers ([`ReqwestTls`]):
//! - rustls with aws-lc-rs (reqwest's own default provider), given explicitly: reqwest is built
//!   with `rustls-no-provider` and takes our rustls config (`tls_backend_preconfigured`),
//!   trusting the system's roots (rustls-native-certs) and `extra_ca_pem`;
//! - native-tls, the system's OpenSSL on Linux, trusting OpenSSL's own system roots (found by
//!   openssl-probe) and `extra_ca_pem`.
//!
//! HTTP/2 (`http_version = "2"`): `http2_prior_knowledge`, which over TLS means ALPN offers
//! `h2` alone (reqwest sets native-tls's ALPN so; the rustls config is ours and offers only
//! `h2` already) and hyper-util speaks nothing else; with "1.1", `http1_only`, ALPN `http/1.1`
//! alone. Either way the answer's version is checked. Calls multiplex on one connection per
//! host (hyper-util's pool); `UpstreamCall`'s slots still cap them at `max_connections`.
//!
//! Both verify certificates and host names. For an `http://` upstream no TLS ever runs, so
//! either backend builds the same client, on a rustls config that loads no roots: native-tls
//! would read the system's CA file as soon as its connector is built.
//!
//! Stale connections: reqwest pools through hyper-util's legacy client, so it behaves as the
//! hyper adapter does: each idle connection's task notices the server's FIN and leaves the pool,
//! and a request that meets a closed reused connection before it is written is retried on
//! another (`retry_canceled_requests`, on by default and left on by reqwest). reqwest's own
//! retry policy (0.13 `retry`, default "protocol NACKs") only covers HTTP/2 and HTTP/3
//! refusals, never HTTP/1.1. One written just as the server closes is not retried:
//! `idle_timeout` below the server's keep-alive is what keeps that window shut.

use application::{Quotes, RatesError, RatesProvider};
use async_trait::async_trait;
use domain::CurrencyPair;
use rates_common::{
    BodyDecode, BodyPieces, BoundedBody, BuildError, ClientSettings, HttpVersion, Received,
    TlsStack, UpstreamCall, broken_transfer, connect_timeout_error, describe, find_in_chain,
    timeout_error, tls, tls_error,
};
use std::sync::Arc;
use std::time::Duration;

mod blocking;

pub use blocking::ReqwestBlockingRates;

/// The TLS backend a reqwest client is built with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReqwestTls {
    /// rustls with aws-lc-rs, reqwest's default.
    Rustls,
    /// native-tls: the system's OpenSSL on Linux.
    NativeTls,
}

impl ReqwestTls {
    pub const ALL: [Self; 2] = [Self::Rustls, Self::NativeTls];

    /// The registry name of reqwest with this backend: the default keeps the bare name.
    pub fn client_name(self) -> &'static str {
        match self {
            Self::Rustls => ReqwestRates::NAME,
            Self::NativeTls => "reqwest-native-tls",
        }
    }

    /// The TLS library and crypto of this backend, for `GET /clients` and the bench's rows.
    pub fn stack(self) -> TlsStack {
        match self {
            Self::Rustls => TlsStack {
                backend: "rustls",
                provider: "aws-lc-rs",
            },
            Self::NativeTls => TlsStack {
                backend: "native-tls",
                provider: "OpenSSL (system)",
            },
        }
    }
}

/// How a reqwest client looks host names up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ReqwestResolver {
    /// The system's resolver (`getaddrinfo`) on a blocking thread per new connection, no
    /// cache: reqwest's default. Set explicitly (`no_hickory_dns`), so that a build where
    /// another crate turns reqwest's `hickory-dns` feature on keeps it.
    #[default]
    System,
    /// hickory-dns, reqwest's async resolver (its `hickory-dns` feature), which reads the
    /// system's `resolv.conf` and keeps answers for their time to live.
    HickoryDns,
}

impl ReqwestResolver {
    /// The name of reqwest (rustls) with hickory-dns, as the bench's rows name it.
    pub const HICKORY_DNS_NAME: &'static str = "reqwest-hickory-dns";

    fn apply(
        self,
        builder: reqwest::ClientBuilder,
        name: &'static str,
    ) -> Result<reqwest::ClientBuilder, BuildError> {
        match self {
            Self::System => Ok(builder.no_hickory_dns()),
            Self::HickoryDns => hickory_dns(builder, name),
        }
    }
}

#[cfg(feature = "hickory-dns")]
#[allow(clippy::unnecessary_wraps)] // the same signature as without the feature, which fails
fn hickory_dns(
    builder: reqwest::ClientBuilder,
    _name: &'static str,
) -> Result<reqwest::ClientBuilder, BuildError> {
    Ok(builder.hickory_dns(true))
}

#[cfg(not(feature = "hickory-dns"))]
fn hickory_dns(
    _builder: reqwest::ClientBuilder,
    name: &'static str,
) -> Result<reqwest::ClientBuilder, BuildError> {
    Err(BuildError {
        client: name,
        reason: "rates-reqwest was built without its hickory-dns feature".to_owned(),
    })
}

/// Fetches rates with one reqwest client, built once.
#[derive(Debug)]
pub struct ReqwestRates {
    client: reqwest::Client,
    http_version: HttpVersion,
    decode: BodyDecode,
    call: UpstreamCall,
}

impl ReqwestRates {
    pub const NAME: &'static str = "reqwest";
    /// The HTTP versions it speaks, with either backend: HTTP/1.1, and HTTP/2 over TLS.
    pub const HTTP_VERSIONS: &'static [HttpVersion] = &HttpVersion::ALL;
    /// Both ways of decoding: streamed, from the chunks as reqwest received them.
    pub const DECODES: &'static [BodyDecode] = &BodyDecode::ALL;

    /// The client as this adapter configured it (TLS, pool, timeouts), for calls that skip
    /// the port and the adapter's frame: the bench's bare calls, which measure what both cost.
    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// Builds the client and its pool from `settings`, with reqwest's default TLS backend.
    ///
    /// # Errors
    /// As [`Self::with_tls`].
    pub fn new(settings: &ClientSettings) -> Result<Self, BuildError> {
        Self::with_tls(settings, ReqwestTls::Rustls)
    }

    /// Builds the client and its pool from `settings`, with the TLS backend `backend`.
    ///
    /// # Errors
    /// A `BuildError` when the settings are unusable (see [`ClientSettings::check_with_tls`]),
    /// the extra CAs are unusable or no root is trusted, or reqwest cannot build its client.
    pub fn with_tls(settings: &ClientSettings, backend: ReqwestTls) -> Result<Self, BuildError> {
        Self::with_resolver(settings, backend, ReqwestResolver::System)
    }

    /// Builds the client and its pool from `settings`, with the TLS backend `backend`, looking
    /// host names up with `resolver`.
    ///
    /// # Errors
    /// As [`Self::with_tls`]; and [`ReqwestResolver::HickoryDns`] in a build without this
    /// crate's `hickory-dns` feature.
    pub fn with_resolver(
        settings: &ClientSettings,
        backend: ReqwestTls,
        resolver: ReqwestResolver,
    ) -> Result<Self, BuildError> {
        let name = match resolver {
            ReqwestResolver::System => backend.client_name(),
            ReqwestResolver::HickoryDns => ReqwestResolver::HICKORY_DNS_NAME,
        };
        let client = configured(settings, backend, resolver, name)?
            .build()
            .map_err(|error| build_failed(name, &error))?;
        Ok(Self {
            client,
            http_version: settings.http_version,
            decode: settings.decode,
            call: UpstreamCall::new(name, settings),
        })
    }

    /// One GET, its status and its body: whole, or as the chunks reqwest received.
    async fn exchange(&self, pairs: &[CurrencyPair]) -> Result<(u16, Received), RatesError> {
        let mut response = self
            .client
            .get(self.call.url(pairs))
            .send()
            .await
            .map_err(|error| self.error(&error))?;
        self.http_version
            .check_answer(&response.version(), &reqwest::Version::HTTP_2)?;
        let status = response.status().as_u16();
        let declared = response.content_length();
        if self.decode == BodyDecode::Streamed {
            let mut pieces = BodyPieces::new(declared, self.call.max_body_bytes)?;
            while let Some(chunk) = response.chunk().await.map_err(|error| self.error(&error))? {
                pieces.push(chunk)?;
            }
            return Ok((status, pieces.into()));
        }
        let mut body = BoundedBody::new(declared, self.call.max_body_bytes)?;
        while let Some(chunk) = response.chunk().await.map_err(|error| self.error(&error))? {
            body.extend(&chunk)?;
        }
        Ok((status, body.into_vec().into()))
    }

    fn error(&self, error: &reqwest::Error) -> RatesError {
        rates_error(
            error,
            self.http_version,
            self.call.connect_timeout,
            self.call.timeout,
        )
    }
}

/// reqwest's async client builder with every setting of `settings` (the TLS of `backend`, the
/// HTTP version, timeouts, pool, no proxy, no redirects) and the resolver `resolver`: the
/// async adapter builds it, the blocking one wraps it in reqwest's blocking builder.
fn configured(
    settings: &ClientSettings,
    backend: ReqwestTls,
    resolver: ReqwestResolver,
    name: &'static str,
) -> Result<reqwest::ClientBuilder, BuildError> {
    settings.check_with_tls(name)?;
    let builder = resolver.apply(reqwest::Client::builder(), name)?;
    let builder = match backend {
        ReqwestTls::NativeTls if settings.is_https() => native_tls(builder, settings, name)?,
        // Over http:// the backend never runs: the same client, without roots, for both.
        ReqwestTls::Rustls | ReqwestTls::NativeTls => {
            let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
            builder.tls_backend_preconfigured(tls::client_config(settings, provider, name)?)
        }
    };
    let builder = match settings.http_version {
        HttpVersion::Http11 => builder.http1_only(),
        HttpVersion::Http2 => builder.http2_prior_knowledge(),
    };
    Ok(builder
        .connect_timeout(settings.connect_timeout)
        .timeout(settings.timeout)
        .pool_max_idle_per_host(settings.max_idle_per_host)
        .pool_idle_timeout(settings.idle_timeout)
        // Like every adapter: no proxy from the environment, no redirects followed.
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none()))
}

fn build_failed(client: &'static str, error: &reqwest::Error) -> BuildError {
    BuildError {
        client,
        reason: describe(error),
    }
}

/// A reqwest error (of either client) in the port's taxonomy: a failed handshake, a connect
/// timeout, the total timeout, a connection that could not be made, or a broken transfer.
fn rates_error(
    error: &reqwest::Error,
    http_version: HttpVersion,
    connect_timeout: Duration,
    timeout: Duration,
) -> RatesError {
    if let Some(failed) = tls::tls_failure(error, http_version) {
        return failed;
    }
    if let Some(handshake) = find_in_chain::<native_tls::Error>(error) {
        return tls_error(describe(handshake), http_version);
    }
    match (error.is_timeout(), error.is_connect()) {
        (true, true) => connect_timeout_error(connect_timeout),
        (true, false) => timeout_error(timeout),
        (false, true) => RatesError::Connect(describe(error)),
        (false, false) => broken_transfer(describe(error)),
    }
}

/// native-tls, trusting OpenSSL's system roots and the extra CAs.
fn native_tls(
    builder: reqwest::ClientBuilder,
    settings: &ClientSettings,
    client: &'static str,
) -> Result<reqwest::ClientBuilder, BuildError> {
    let fail = |reason: String| BuildError { client, reason };
    let extra = settings
        .extra_ca_certificates()
        .map_err(fail)?
        .iter()
        .map(|certificate| {
            reqwest::Certificate::from_der(certificate).map_err(|error| {
                fail(format!(
                    "the extra CA is not a usable certificate: {}",
                    describe(&error)
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(builder.tls_backend_native().tls_certs_merge(extra))
}

#[async_trait(?Send)]
impl RatesProvider for ReqwestRates {
    async fn fetch_quotes(&self, pairs: &[CurrencyPair]) -> Result<Quotes, RatesError> {
        self.call.run(pairs, self.exchange(pairs)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_backend_is_its_own_registry_entry() {
        let names = ReqwestTls::ALL.map(ReqwestTls::client_name);
        assert_eq!(names, ["reqwest", "reqwest-native-tls"]);
        assert_eq!(ReqwestTls::NativeTls.stack().backend, "native-tls");
    }

    #[test]
    fn every_backend_refuses_an_extra_ca_that_is_no_certificate() {
        let settings = ClientSettings {
            extra_ca_pem: Some(Arc::from(&b"not a certificate"[..])),
            ..ClientSettings::for_base_url("https://localhost:8443")
        };
        let plain = ClientSettings {
            base_url: "http://localhost:8081".to_owned(),
            ..settings.clone()
        };
        for backend in ReqwestTls::ALL {
            let error = ReqwestRates::with_tls(&settings, backend).unwrap_err();
            assert_eq!(error.client, backend.client_name());
            assert!(error.reason.contains("no certificate"), "{error}");
            // Plain HTTP loads no roots and so cannot fail on them.
            assert!(ReqwestRates::with_tls(&plain, backend).is_ok());
            // HTTP/2 is negotiated by ALPN, over TLS only.
            let h2c = ClientSettings {
                http_version: HttpVersion::Http2,
                ..plain.clone()
            };
            let error = ReqwestRates::with_tls(&h2c, backend).unwrap_err();
            assert!(error.reason.contains("https://"), "{error}");
        }
    }
}
