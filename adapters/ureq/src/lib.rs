//! `RatesProvider` over ureq, a blocking client, run on tokio's blocking pool (the pool actix
//! itself uses for `web::block`), with either of the TLS backends ureq offers ([`UreqTls`]):
//! - rustls with ring (ureq's own default provider), given explicitly;
//! - native-tls, the system's OpenSSL on Linux.
//!
//! Both trust the same roots, given to ureq as a list: the system's (read by
//! rustls-native-certs, from the places OpenSSL reads them) and `extra_ca_pem`; ureq can add
//! no extra root to its platform verifier. Both verify certificates and host names. ureq
//! builds its TLS connector at the first `https://` connection, so over `http://` no TLS runs
//! and no root is loaded.
//!
//! HTTP/1.1 only: ureq 3 has no HTTP/2, so `http_version = "2"` is refused at build time.
//!
//! Stale connections: before it hands out an idle connection, ureq probes the socket with a
//! non-blocking one-byte read (`probe_tcp_stream` in `unversioned/transport/tcp.rs`): end of
//! stream, an error or unexpected bytes drop it; only "would block" lets it be reused. ureq
//! never retries a request. So a connection the server closed while idle is not used; one the
//! server closes just as the request is written fails the call. `idle_timeout` below the
//! server's keep-alive is what keeps that window shut.

use std::io::{BufReader, ErrorKind};
use std::time::Duration;

use application::{Quotes, RatesError, RatesProvider};
use async_trait::async_trait;
use domain::CurrencyPair;
use rates_common::{
    BodyDecode, BoundedBody, BuildError, ClientSettings, ConcurrencyLimit, HttpVersion, Permit,
    Received, TlsStack, UpstreamCall, broken_transfer, connect_timeout_error,
    decode_quotes_from_reader, describe, find_in_chain, io_error, on_blocking_pool, timeout_error,
    tls,
};
use std::sync::Arc;
use tokio::sync::OnceCell;
use ureq::tls::{Certificate, RootCerts, TlsConfig, TlsProvider};
use ureq::unversioned::transport::DefaultConnector;
use ureq::{Agent, Error, Timeout};

mod resolve;

use resolve::IpAddressInline;
pub use resolve::Resolve;

/// The TLS backend a ureq agent is built with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UreqTls {
    /// rustls with ring, ureq's default.
    Rustls,
    /// native-tls: the system's OpenSSL on Linux.
    NativeTls,
}

impl UreqTls {
    pub const ALL: [Self; 2] = [Self::Rustls, Self::NativeTls];

    /// The registry name of ureq with this backend: the default keeps the bare name.
    pub fn client_name(self) -> &'static str {
        match self {
            Self::Rustls => UreqRates::NAME,
            Self::NativeTls => "ureq-native-tls",
        }
    }

    /// The TLS library and crypto of this backend, for `GET /clients` and the bench's rows.
    pub fn stack(self) -> TlsStack {
        match self {
            Self::Rustls => TlsStack {
                backend: "rustls",
                provider: "ring",
            },
            Self::NativeTls => TlsStack {
                backend: "native-tls",
                provider: "OpenSSL (system)",
            },
        }
    }

    /// ureq's TLS settings for this backend: the roots of `settings`, verification on.
    fn config(self, settings: &ClientSettings) -> Result<TlsConfig, BuildError> {
        let roots = tls::root_certificates(settings, self.client_name())?;
        let roots = RootCerts::from(
            roots
                .iter()
                .map(|root| Certificate::from_der(root).to_owned()),
        );
        let builder = TlsConfig::builder().root_certs(roots);
        Ok(match self {
            Self::Rustls => builder
                .provider(TlsProvider::Rustls)
                .unversioned_rustls_crypto_provider(Arc::new(
                    rustls::crypto::ring::default_provider(),
                )),
            Self::NativeTls => builder.provider(TlsProvider::NativeTls),
        }
        .build())
    }
}

/// How calls meet ureq's TLS connector, which ureq builds on the first `https://` connection
/// and caches only once that build is done (`get_cached_native_tls_connector` in
/// `src/tls/native_tls.rs`; the rustls one likewise): every connection opened while the first
/// build runs builds one too. With native-tls on OpenSSL 3.0 a build parses the system's CA
/// bundle twice (docs/findings/ureq-native-tls-connector-storm.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TlsWarmUp {
    /// As ureq does it: calls go at once, each connection opened before the first build is
    /// done building its own.
    Lazy,
    /// The first call goes alone, and the calls that come meanwhile wait until it has
    /// returned, whatever its outcome: then one build has run (unless the call never
    /// connected), and they go on at once.
    FirstCallAlone,
}

/// The options of a ureq agent beyond its TLS backend; each combination is its own registry
/// entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UreqOptions {
    pub warm_up: TlsWarmUp,
    pub resolve: Resolve,
}

impl UreqOptions {
    /// ureq as its documentation sets it up.
    pub const DEFAULT: Self = Self {
        warm_up: TlsWarmUp::Lazy,
        resolve: Resolve::ThreadPerCall,
    };

    /// The registry name of ureq with `backend` and these options: the defaults keep the
    /// backend's.
    pub fn client_name(self, backend: UreqTls) -> &'static str {
        use Resolve::{IpAddressInline, ThreadPerCall};
        use TlsWarmUp::{FirstCallAlone, Lazy};
        use UreqTls::{NativeTls, Rustls};
        match (backend, self.warm_up, self.resolve) {
            (backend, Lazy, ThreadPerCall) => backend.client_name(),
            (Rustls, FirstCallAlone, ThreadPerCall) => "ureq-first-alone",
            (NativeTls, FirstCallAlone, ThreadPerCall) => "ureq-native-tls-first-alone",
            (Rustls, Lazy, IpAddressInline) => "ureq-inline-ip",
            (NativeTls, Lazy, IpAddressInline) => "ureq-native-tls-inline-ip",
            (Rustls, FirstCallAlone, IpAddressInline) => "ureq-first-alone-inline-ip",
            (NativeTls, FirstCallAlone, IpAddressInline) => "ureq-native-tls-first-alone-inline-ip",
        }
    }
}

/// Fetches rates with one ureq agent, built once, on at most `blocking_threads` threads.
#[derive(Debug)]
pub struct UreqRates {
    agent: Agent,
    /// Its slots cap calls in flight at `max_connections`, and at `blocking_threads` threads.
    call: UpstreamCall,
    decode: BodyDecode,
    /// With [`TlsWarmUp::FirstCallAlone`] over `https://`: set once the first call returned.
    first_call_done: Option<OnceCell<()>>,
}

impl UreqRates {
    pub const NAME: &'static str = "ureq";
    /// The HTTP versions it speaks, with either backend: HTTP/1.1 only.
    pub const HTTP_VERSIONS: &'static [HttpVersion] = &[HttpVersion::Http11];
    /// Both ways of decoding: streamed, from the connection as ureq reads the body, on the
    /// blocking thread.
    pub const DECODES: &'static [BodyDecode] = &BodyDecode::ALL;

    /// The agent as this adapter configured it (TLS, pool, timeouts), for calls that skip
    /// the port and the adapter's frame: the bench's bare calls, which measure what both cost.
    pub fn agent(&self) -> &Agent {
        &self.agent
    }

    /// Builds the agent and its pool from `settings`, with ureq's default TLS backend.
    ///
    /// # Errors
    /// As [`Self::with_tls`].
    pub fn new(settings: &ClientSettings) -> Result<Self, BuildError> {
        Self::with_tls(settings, UreqTls::Rustls)
    }

    /// Builds the agent and its pool from `settings`, with the TLS backend `backend`.
    ///
    /// # Errors
    /// A `BuildError` when the settings are unusable (see [`ClientSettings::check_with_tls`]),
    /// ask for HTTP/2, or, for an `https://` upstream, the extra CAs are unusable or no root is
    /// trusted.
    pub fn with_tls(settings: &ClientSettings, backend: UreqTls) -> Result<Self, BuildError> {
        Self::with_options(settings, backend, UreqOptions::DEFAULT)
    }

    /// As [`Self::with_tls`], with `options` beyond ureq's defaults.
    ///
    /// # Errors
    /// As [`Self::with_tls`].
    pub fn with_options(
        settings: &ClientSettings,
        backend: UreqTls,
        options: UreqOptions,
    ) -> Result<Self, BuildError> {
        let name = options.client_name(backend);
        if !Self::HTTP_VERSIONS.contains(&settings.http_version) {
            return Err(BuildError {
                client: name,
                reason: format!(
                    "ureq speaks HTTP/1.1 only, so it cannot use rates.http_version = {:?}",
                    settings.http_version.as_str()
                ),
            });
        }
        settings.check_with_tls(name)?;
        let in_flight = settings.max_connections.min(settings.blocking_threads);
        let config = Agent::config_builder()
            .timeout_connect(Some(settings.connect_timeout))
            // The whole call, body included, as `UpstreamCall`'s deadline is for the others.
            .timeout_global(Some(settings.timeout))
            // A non-2xx status is an answer to interpret, not a transport error.
            .http_status_as_error(false)
            // ureq's default pool (10 idle, 3 per host) is far smaller than the blocking pool:
            // with 64 calls in flight it reconnected on about every other request. The idle
            // pool takes `max_idle_per_host` like every client (one upstream host, so the total
            // is the same figure); the defaults keep it above `blocking_threads`.
            .max_idle_connections(settings.max_idle_per_host)
            .max_idle_connections_per_host(settings.max_idle_per_host)
            .max_idle_age(settings.idle_timeout)
            // Like every adapter: no proxy from the environment, no redirects followed.
            .proxy(None)
            .max_redirects(0)
            .tls_config(backend.config(settings)?)
            .build();
        let agent = match options.resolve {
            Resolve::ThreadPerCall => Agent::new_with_config(config),
            Resolve::IpAddressInline => {
                Agent::with_parts(config, DefaultConnector::new(), IpAddressInline::default())
            }
        };
        Ok(Self {
            agent,
            call: UpstreamCall::with_slots(name, settings, in_flight),
            decode: settings.decode,
            first_call_done: (options.warm_up == TlsWarmUp::FirstCallAlone && settings.is_https())
                .then(OnceCell::new),
        })
    }

    /// The slots that cap ureq's calls (and so its blocking threads): `waiting()` is the
    /// blocking-pool queue depth, `in_use()` the threads busy, for metrics.
    pub fn blocking_slots(&self) -> &ConcurrencyLimit {
        self.call.slots()
    }

    /// Hands the exchange, and the slot, to a blocking thread ([`on_blocking_pool`]).
    /// `UpstreamCall`'s deadline, the same as the async clients', also covers the wait for a
    /// blocking thread.
    async fn on_blocking_thread(
        &self,
        pairs: &[CurrencyPair],
        slot: Permit,
    ) -> Result<(u16, Received), RatesError> {
        let call = Call {
            agent: self.agent.clone(),
            url: self.call.url(pairs),
            timeout: self.call.timeout,
            connect_timeout: self.call.connect_timeout,
            max_body_bytes: self.call.max_body_bytes,
            // Only a streamed decode needs the pairs on the blocking thread.
            streamed: (self.decode == BodyDecode::Streamed).then(|| pairs.to_vec()),
        };
        on_blocking_pool(slot, move || call.exchange()).await
    }
}

/// What one blocking call needs, moved onto its thread.
struct Call {
    agent: Agent,
    url: String,
    timeout: Duration,
    connect_timeout: Duration,
    max_body_bytes: usize,
    /// For a streamed decode, the pairs to decode.
    streamed: Option<Vec<CurrencyPair>>,
}

impl Call {
    /// One GET, its status and its body: whole, or for a successful status with a streamed
    /// decode, the quotes decoded from the connection as ureq reads the body.
    fn exchange(&self) -> Result<(u16, Received), RatesError> {
        let mut response = self
            .agent
            .get(&self.url)
            .call()
            .map_err(|error| self.error(error))?;
        let status = response.status().as_u16();
        let body = response.body_mut();
        BoundedBody::check_declared(body.content_length(), self.max_body_bytes)?;
        let reading = body.with_config().limit(self.max_body_bytes as u64);
        if let Some(pairs) = &self.streamed
            && (200..300).contains(&status)
        {
            // serde_json reads a byte at a time: through a buffer, not one call into ureq's
            // body reader per byte.
            let reader = BufReader::new(reading.reader());
            let quotes = decode_quotes_from_reader(reader, pairs, |io| self.error(io.into()));
            return Ok((status, Received::Decoded(quotes)));
        }
        let bytes = reading.read_to_vec().map_err(|error| self.error(error))?;
        Ok((status, bytes.into()))
    }

    fn error(&self, error: Error) -> RatesError {
        match error {
            // rustls reports a failed handshake as an io error that wraps its own.
            Error::Io(io) if find_in_chain::<rustls::Error>(&io).is_some() => {
                RatesError::Tls(describe(&io))
            }
            Error::Rustls(handshake) => RatesError::Tls(describe(&handshake)),
            Error::NativeTls(handshake) => RatesError::Tls(describe(&handshake)),
            Error::Tls(reason) => RatesError::Tls(reason.to_owned()),
            Error::Timeout(Timeout::Resolve | Timeout::Connect) => {
                connect_timeout_error(self.connect_timeout)
            }
            Error::Timeout(_) => timeout_error(self.timeout),
            Error::BodyExceedsLimit(_) => BoundedBody::too_large(self.max_body_bytes),
            Error::Io(io) if io.kind() == ErrorKind::ConnectionRefused => {
                RatesError::Connect(format!("cannot connect: {io}"))
            }
            Error::Io(io) => match io_error(&io, self.timeout) {
                RatesError::Connect(_) => broken_transfer(io),
                timeout => timeout,
            },
            Error::ConnectionFailed | Error::HostNotFound => {
                RatesError::Connect(format!("cannot connect: {error}"))
            }
            other => broken_transfer(describe(&other)),
        }
    }
}

#[async_trait(?Send)]
impl RatesProvider for UreqRates {
    async fn fetch_quotes(&self, pairs: &[CurrencyPair]) -> Result<Quotes, RatesError> {
        self.call
            .run_with_slot(pairs, |slot| self.after_warm_up(pairs, slot))
            .await
    }
}

impl UreqRates {
    /// [`Self::on_blocking_thread`], once the first call has returned with
    /// [`TlsWarmUp::FirstCallAlone`]. A call waits holding its slot, inside its deadline, so
    /// that the wait counts as any other wait for the upstream does.
    async fn after_warm_up(
        &self,
        pairs: &[CurrencyPair],
        slot: Permit,
    ) -> Result<(u16, Received), RatesError> {
        let mut slot = Some(slot);
        if let Some(first_call_done) = &self.first_call_done
            && !first_call_done.initialized()
        {
            // One call runs inside the cell's initialisation; the others wait on the cell.
            let mut first = None;
            let (first_result, first_slot) = (&mut first, &mut slot);
            first_call_done
                .get_or_init(|| async move {
                    if let Some(slot) = first_slot.take() {
                        *first_result = Some(self.on_blocking_thread(pairs, slot).await);
                    }
                })
                .await;
            if let Some(result) = first {
                return result;
            }
        }
        match slot {
            Some(slot) => self.on_blocking_thread(pairs, slot).await,
            // Taken only by the call that ran inside the initialisation, which returned above.
            None => Err(RatesError::Unavailable(
                "the call lost its blocking-pool slot".to_owned(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_backend_is_its_own_registry_entry() {
        let names = UreqTls::ALL.map(UreqTls::client_name);
        assert_eq!(names, ["ureq", "ureq-native-tls"]);
        assert_eq!(UreqTls::Rustls.stack().provider, "ring");
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
        for backend in UreqTls::ALL {
            let error = UreqRates::with_tls(&settings, backend).unwrap_err();
            assert_eq!(error.client, backend.client_name());
            assert!(error.reason.contains("no certificate"), "{error}");
            // Plain HTTP loads no roots and so cannot fail on them.
            assert!(UreqRates::with_tls(&plain, backend).is_ok());
        }
    }

    #[test]
    fn each_option_is_its_own_registry_entry() {
        let first_alone = UreqOptions {
            warm_up: TlsWarmUp::FirstCallAlone,
            ..UreqOptions::DEFAULT
        };
        let names = UreqTls::ALL.map(|backend| first_alone.client_name(backend));
        assert_eq!(names, ["ureq-first-alone", "ureq-native-tls-first-alone"]);
        assert_eq!(
            UreqOptions::DEFAULT.client_name(UreqTls::NativeTls),
            "ureq-native-tls"
        );
        let inline = UreqOptions {
            resolve: Resolve::IpAddressInline,
            ..UreqOptions::DEFAULT
        };
        assert_eq!(inline.client_name(UreqTls::Rustls), "ureq-inline-ip");
    }

    #[test]
    fn every_backend_refuses_http2() {
        let settings = ClientSettings {
            http_version: HttpVersion::Http2,
            ..ClientSettings::for_base_url("https://localhost:8443")
        };
        for backend in UreqTls::ALL {
            let error = UreqRates::with_tls(&settings, backend).unwrap_err();
            assert_eq!(error.client, backend.client_name());
            assert!(
                error.reason.contains("ureq speaks HTTP/1.1 only"),
                "{error}"
            );
        }
        let http11 = ClientSettings {
            http_version: HttpVersion::Http11,
            ..ClientSettings::for_base_url("http://localhost:8081")
        };
        assert!(UreqRates::new(&http11).is_ok());
    }
}
