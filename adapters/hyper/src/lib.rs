//! `RatesProvider` over hyper-util's pooled client: the low-level baseline the others are
//! measured against. HTTPS through hyper-rustls, rustls with aws-lc-rs (hyper-rustls's own
//! default provider, given explicitly), trusting the system's roots and `extra_ca_pem`.
//!
//! HTTP/2 (`http_version = "2"`): ALPN offers `h2` alone, and the client is `http2_only`, so
//! that its pool knows before the first handshake that the host's connection will be shared:
//! without it, hyper-util's pool cannot tell a burst of calls on a cold pool to wait for one
//! connection, races one connection per call and throws away all but the first once ALPN says
//! h2 (the bench's fanout suite counted 70 handshakes for 70 calls that way). An upstream that
//! refuses `h2` fails the handshake ("did not agree to HTTP/2"); one that ignores ALPN
//! altogether is sent the h2 preface, which it cannot read. hyper multiplexes every call on one
//! connection per host (it opens no second one past the server's stream limit, hyper#2197);
//! `UpstreamCall`'s slots still cap calls in flight at `max_connections`. With "1.1", ALPN
//! offers `http/1.1` alone.
//!
//! Stale connections: hyper runs each pooled connection in its own task, which sees the
//! server's FIN while the connection is idle and closes it, so the pool never hands out a
//! connection it knows is closed. A request that meets a closed reused connection before it is
//! written comes back to the pool and is retried on another connection
//! (`retry_canceled_requests`, on by default; hyper-util `client/legacy/client.rs`). One written
//! just as the server closes is not retried: `idle_timeout` below the server's keep-alive is
//! what keeps that window shut.

use application::{Quotes, RatesError, RatesProvider};
use async_trait::async_trait;
use bytes::Bytes;
use domain::CurrencyPair;
use http::{Request, Uri};
use http_body_util::{BodyExt, Empty, LengthLimitError, Limited};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use rates_common::{
    BodyDecode, BodyPieces, BoundedBody, BuildError, ClientSettings, HttpVersion, Received,
    TlsStack, UpstreamCall, broken_transfer, connect_timeout_error, describe, find_io_error,
    live_url, tls,
};
use std::io::ErrorKind;
use std::sync::Arc;

/// Fetches rates with one hyper-util client, built once.
#[derive(Debug)]
pub struct HyperRates {
    client: Client<HttpsConnector<HttpConnector>, Empty<Bytes>>,
    http_version: HttpVersion,
    decode: BodyDecode,
    call: UpstreamCall,
}

impl HyperRates {
    pub const NAME: &'static str = "hyper";

    /// The client as this adapter configured it (TLS, pool, timeouts), for calls that skip
    /// the port and the adapter's frame: the bench's bare calls, which measure what both cost.
    pub fn client(&self) -> &Client<HttpsConnector<HttpConnector>, Empty<Bytes>> {
        &self.client
    }
    /// Its one TLS stack: hyper-rustls.
    pub const TLS: TlsStack = TlsStack {
        backend: "rustls",
        provider: "aws-lc-rs",
    };
    /// The HTTP versions it speaks: HTTP/1.1, and HTTP/2 over TLS.
    pub const HTTP_VERSIONS: &'static [HttpVersion] = &HttpVersion::ALL;
    /// Both ways of decoding: streamed, from the body's frames as hyper received them.
    pub const DECODES: &'static [BodyDecode] = &BodyDecode::ALL;

    /// Builds the client and its pool from `settings`.
    ///
    /// # Errors
    /// A `BuildError` when the settings are unusable (see [`ClientSettings::check`]) or the
    /// base URL is not a valid URI.
    pub fn new(settings: &ClientSettings) -> Result<Self, BuildError> {
        settings.check_with_tls(Self::NAME)?;
        live_url(&settings.base_url, &[])
            .parse::<Uri>()
            .map_err(|error| BuildError {
                client: Self::NAME,
                reason: format!("invalid base URL {:?}: {error}", settings.base_url),
            })?;
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(settings.connect_timeout));
        // reqwest, ureq and libcurl set TCP_NODELAY by default; hyper's connector does not.
        connector.set_nodelay(true);
        // The TCP connector must let https:// through to the TLS layer above it.
        connector.enforce_http(false);
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        // From the config as it is, its ALPN (the one protocol of `http_version`) included:
        // hyper-rustls's builder would offer none for HTTP/1.1, and both with HTTP/2 enabled.
        // https:// and http:// both, as the builder's `https_or_http`.
        let tls = tls::client_config(settings, provider, Self::NAME)?;
        let connector = HttpsConnector::from((connector, tls));
        let client = Client::builder(TokioExecutor::new())
            .http2_only(settings.http_version == HttpVersion::Http2)
            .pool_max_idle_per_host(settings.max_idle_per_host)
            .pool_idle_timeout(settings.idle_timeout)
            // Without a timer the idle timeout is never enforced.
            .pool_timer(TokioTimer::new())
            .build(connector);
        Ok(Self {
            client,
            http_version: settings.http_version,
            decode: settings.decode,
            call: UpstreamCall::new(Self::NAME, settings),
        })
    }

    /// One GET, its status and its body: whole, or as the pieces hyper received.
    async fn exchange(&self, pairs: &[CurrencyPair]) -> Result<(u16, Received), RatesError> {
        // From the `String` itself: its buffer becomes the URI's, without a copy.
        let uri = Uri::try_from(self.call.url(pairs))
            .map_err(|error| RatesError::Connect(format!("invalid request URI: {error}")))?;
        let request = Request::get(uri)
            .body(Empty::new())
            .map_err(|error| RatesError::Connect(format!("invalid request: {error}")))?;
        let response = self
            .client
            .request(request)
            .await
            .map_err(|error| self.send_error(&error))?;
        self.http_version
            .check_answer(&response.version(), &http::Version::HTTP_2)?;
        let status = response.status().as_u16();
        let declared = hyper::body::Body::size_hint(response.body()).exact();
        if self.decode == BodyDecode::Streamed {
            let mut pieces = BodyPieces::new(declared, self.call.max_body_bytes)?;
            let mut body = response.into_body();
            while let Some(frame) = body.frame().await {
                let frame = frame.map_err(|error| self.body_error(&error))?;
                if let Ok(data) = frame.into_data() {
                    pieces.push(data)?;
                }
            }
            return Ok((status, pieces.into()));
        }
        BoundedBody::check_declared(declared, self.call.max_body_bytes)?;
        let body = Limited::new(response.into_body(), self.call.max_body_bytes)
            .collect()
            .await
            .map_err(|error| self.body_error(&*error))?
            .to_bytes();
        Ok((status, body.into()))
    }

    fn send_error(&self, error: &hyper_util::client::legacy::Error) -> RatesError {
        if let Some(failed) = tls::tls_failure(error, self.http_version) {
            return failed;
        }
        if error.is_connect() {
            // HttpConnector reports its connect timeout as an io error of kind TimedOut.
            return match find_io_error(error) {
                Some(io) if io.kind() == ErrorKind::TimedOut => {
                    connect_timeout_error(self.call.connect_timeout)
                }
                _ => RatesError::Connect(describe(error)),
            };
        }
        broken_transfer(describe(error))
    }

    fn body_error(&self, error: &(dyn std::error::Error + Send + Sync + 'static)) -> RatesError {
        if error.is::<LengthLimitError>() {
            return BoundedBody::too_large(self.call.max_body_bytes);
        }
        broken_transfer(describe(error))
    }
}

#[async_trait(?Send)]
impl RatesProvider for HyperRates {
    async fn fetch_quotes(&self, pairs: &[CurrencyPair]) -> Result<Quotes, RatesError> {
        self.call.run(pairs, self.exchange(pairs)).await
    }
}
