//! What both of reqwest's clients are built from: the TLS backend ([`ReqwestTls`]), the
//! resolver ([`ReqwestResolver`]), reqwest's async builder with every setting of the adapter
//! ([`configured`]; the blocking client wraps it in reqwest's blocking builder), and the
//! reading of a reqwest error into the port's taxonomy ([`rates_error`]).

use std::sync::Arc;
use std::time::Duration;

use application::RatesError;
use rates_common::{
    BuildError, ClientSettings, HttpVersion, TlsStack, broken_transfer, connect_timeout_error,
    describe, find_in_chain, timeout_error, tls, tls_error,
};

/// The registry name of reqwest's async client with its default TLS backend.
pub(crate) const NAME: &str = "reqwest";

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
            Self::Rustls => NAME,
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

/// reqwest's async client builder with every setting of `settings` (the TLS of `backend`, the
/// HTTP version, timeouts, pool, no proxy, no redirects) and the resolver `resolver`: the
/// async adapter builds it, the blocking one wraps it in reqwest's blocking builder.
pub(crate) fn configured(
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

pub(crate) fn build_failed(client: &'static str, error: &reqwest::Error) -> BuildError {
    BuildError {
        client,
        reason: describe(error),
    }
}

/// A reqwest error (of either client) in the port's taxonomy: a failed handshake, a connect
/// timeout, the total timeout, a connection that could not be made, or a broken transfer.
pub(crate) fn rates_error(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_backend_is_its_own_registry_entry() {
        let names = ReqwestTls::ALL.map(ReqwestTls::client_name);
        assert_eq!(names, ["reqwest", "reqwest-native-tls"]);
        assert_eq!(ReqwestTls::NativeTls.stack().backend, "native-tls");
    }
}
