//! What both of reqwest's clients are built from: the TLS backend ([`ReqwestTls`]), the
//! settings of the findings' rows ([`ReqwestOptions`]: the resolver, [`ReqwestResolver`], and
//! the retry policy, [`ReqwestRetry`] with [`resend_unanswered`]), reqwest's async builder with
//! every setting of the adapter ([`configured`]; the blocking client wraps it in reqwest's
//! blocking builder), and the reading of a reqwest error into the port's taxonomy
//! ([`rates_error`]).

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

/// The settings of reqwest's client that a findings page describes, beyond its TLS backend.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ReqwestOptions {
    pub resolver: ReqwestResolver,
    pub retry: ReqwestRetry,
}

impl ReqwestOptions {
    /// reqwest as its documentation sets it up (the resolver set explicitly: see
    /// [`ReqwestResolver::System`]).
    pub const DEFAULT: Self = Self {
        resolver: ReqwestResolver::System,
        retry: ReqwestRetry::ProtocolNacks,
    };

    /// The registry name of reqwest with `backend` and these options: the defaults keep the
    /// backend's.
    pub fn client_name(self, backend: ReqwestTls) -> &'static str {
        use ReqwestResolver::{HickoryDns, System};
        use ReqwestRetry::{ProtocolNacks, UnansweredIdempotent};
        use ReqwestTls::{NativeTls, Rustls};
        match (backend, self.resolver, self.retry) {
            (backend, System, ProtocolNacks) => backend.client_name(),
            (Rustls, HickoryDns, ProtocolNacks) => "reqwest-hickory-dns",
            (NativeTls, HickoryDns, ProtocolNacks) => "reqwest-native-tls-hickory-dns",
            (Rustls, System, UnansweredIdempotent) => "reqwest-retry",
            (NativeTls, System, UnansweredIdempotent) => "reqwest-native-tls-retry",
            (Rustls, HickoryDns, UnansweredIdempotent) => "reqwest-hickory-dns-retry",
            (NativeTls, HickoryDns, UnansweredIdempotent) => "reqwest-native-tls-hickory-dns-retry",
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

/// Which failed requests a reqwest client sends again by itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ReqwestRetry {
    /// reqwest's default policy: only the refusals that say a request was not processed
    /// (HTTP/2's GOAWAY without an error and REFUSED_STREAM), never over HTTP/1.1. A request
    /// written on a kept connection just as the server closed it fails the call
    /// (docs/findings/idle-close-race.md).
    #[default]
    ProtocolNacks,
    /// [`resend_unanswered`]: to the upstream's host, a GET or HEAD that failed on a
    /// connection before any answer came is sent again, within reqwest's default budget.
    UnansweredIdempotent,
}

impl ReqwestRetry {
    fn apply(
        self,
        builder: reqwest::ClientBuilder,
        settings: &ClientSettings,
        name: &'static str,
    ) -> Result<reqwest::ClientBuilder, BuildError> {
        match self {
            // Left unset: reqwest's own default, which a policy given would replace.
            Self::ProtocolNacks => Ok(builder),
            Self::UnansweredIdempotent => {
                let host = reqwest::Url::parse(&settings.base_url)
                    .ok()
                    .and_then(|url| url.host_str().map(str::to_owned))
                    .ok_or_else(|| BuildError {
                        client: name,
                        reason: format!(
                            "the base URL has no host reqwest can read: {:?}",
                            settings.base_url
                        ),
                    })?;
                Ok(builder.retry(resend_unanswered(host)))
            }
        }
    }
}

/// reqwest's documented retry policy (`ClientBuilder::retry`, reqwest 0.13's `retry` module)
/// set to resend, to `host` only, an idempotent request (GET or HEAD) that failed on a
/// connection before any answer came: what meets a kept connection the server closed as the
/// request went out (hyper's "connection closed before message completed"), a reset, an
/// HTTP/2 stream ended without an answer. The request reached no handler, or one that may
/// safely run twice, and with no body to replay (an empty body is always cloned) reqwest can
/// send it again, on a new connection when the old one is gone.
///
/// Never resent: an answer, whatever its status (the classifier sees only a response's head;
/// an error in its body comes after it and is the caller's); a connection that could not be
/// made (`is_connect`: refused, its handshake failed, or its connect timeout fired, which
/// three times over would outlast the total timeout); other methods. reqwest's total timeout
/// covers the first request and its resends together.
///
/// A policy given replaces reqwest's default ("protocol NACKs"), which this classifier covers
/// (those are errors before an answer too). The limits are reqwest's defaults, kept: at most 2
/// resends per call, within a budget of 20% more requests than the calls made (10 a second at
/// the least) over 10 s, so that an upstream that fails every call is not sent three times its
/// load. The function is self-contained, to copy as it is; used as:
///
/// ```no_run
/// # fn main() -> Result<(), reqwest::Error> {
/// let client = reqwest::Client::builder()
///     .retry(rates_reqwest::resend_unanswered("rates.example.com"))
///     .build()?;
/// # Ok(())
/// # }
/// ```
pub fn resend_unanswered(host: impl Into<String>) -> reqwest::retry::Builder {
    reqwest::retry::for_host(host.into()).classify_fn(|req_rep| {
        let idempotent = matches!(
            *req_rep.method(),
            reqwest::Method::GET | reqwest::Method::HEAD
        );
        // The error is the `reqwest::Error` the call would have returned; none when an
        // answer came.
        let unanswered = req_rep
            .error()
            .and_then(|error| error.downcast_ref::<reqwest::Error>())
            .is_some_and(|error| !error.is_connect());
        if idempotent && unanswered {
            req_rep.retryable()
        } else {
            req_rep.success()
        }
    })
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
/// HTTP version, timeouts, pool, no proxy, no redirects) and of `options` (the resolver, the
/// retry policy): the async adapter builds it, the blocking one wraps it in reqwest's blocking
/// builder.
pub(crate) fn configured(
    settings: &ClientSettings,
    backend: ReqwestTls,
    options: ReqwestOptions,
    name: &'static str,
) -> Result<reqwest::ClientBuilder, BuildError> {
    settings.check_with_tls(name)?;
    let builder = options.resolver.apply(reqwest::Client::builder(), name)?;
    let builder = options.retry.apply(builder, settings, name)?;
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

    #[test]
    fn each_setting_names_its_row_and_the_defaults_keep_the_backends_name() {
        let names = ReqwestTls::ALL.map(|backend| ReqwestOptions::DEFAULT.client_name(backend));
        assert_eq!(names, ["reqwest", "reqwest-native-tls"]);
        let hickory = ReqwestOptions {
            resolver: ReqwestResolver::HickoryDns,
            ..ReqwestOptions::DEFAULT
        };
        assert_eq!(
            hickory.client_name(ReqwestTls::Rustls),
            "reqwest-hickory-dns"
        );
        let retry = ReqwestOptions {
            retry: ReqwestRetry::UnansweredIdempotent,
            ..ReqwestOptions::DEFAULT
        };
        assert_eq!(retry.client_name(ReqwestTls::Rustls), "reqwest-retry");
        assert_eq!(ReqwestOptions::default(), ReqwestOptions::DEFAULT);
    }
}
