//! `RatesProvider` over awc, actix's own HTTP client.
//!
//! `awc::Client` holds an `Rc` (not `Send`) and needs an actix runtime: build an `AwcRates`
//! inside each actix worker (or inside `actix_rt::System`), never share it across threads.
//!
//! Stale connections: when it takes an idle connection from its pool, awc first polls the
//! socket once (`ConnectionCheckFuture` in `client/pool.rs`): end of stream or an error drops
//! it, unexpected bytes drop it, only "nothing to read" lets it be reused. awc never retries a
//! request. So a connection the server closed while idle is not used, once the FIN has reached
//! the runtime; one the server closes just as the request is written fails the call.
//! `idle_timeout` below the server's keep-alive is what keeps that window shut.
//!
//! Unlike the other four, awc does not set `TCP_NODELAY` (its connector offers no knob short of
//! replacing the TCP connector service). A GET is written in one piece, so Nagle's algorithm
//! has nothing to hold back.

use std::fmt;
use std::time::Duration;

use application::{Quotes, RatesError, RatesProvider};
use async_trait::async_trait;
use awc::error::{ConnectError, PayloadError, SendRequestError};
use awc::http::header::CONTENT_LENGTH;
use awc::{Client, Connector};
use bytes::Bytes;
use domain::CurrencyPair;
use rates_common::{
    BoundedBody, BuildError, ClientSettings, UpstreamCall, broken_transfer, connect_timeout_error,
    io_error,
};

/// awc caps a connection's whole life (75 s by default); no other client does, so the cap is
/// pushed out of the way and only the idle timeout retires connections, as everywhere else.
const CONNECTION_LIFETIME: Duration = Duration::from_secs(24 * 60 * 60);

/// Fetches rates with one awc client, built once per actix worker.
pub struct AwcRates {
    client: Client,
    call: UpstreamCall,
}

impl fmt::Debug for AwcRates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AwcRates")
            .field("call", &self.call)
            .finish_non_exhaustive()
    }
}

impl AwcRates {
    pub const NAME: &'static str = "awc";

    /// Builds the client and its pool from `settings`. Call it inside an actix runtime.
    ///
    /// # Errors
    /// A `BuildError` when the settings are unusable (see [`ClientSettings::check`]).
    pub fn new(settings: &ClientSettings) -> Result<Self, BuildError> {
        settings.check(Self::NAME)?;
        // awc has no cap on idle connections: they are bounded by `limit` (in-use connections
        // go back to the pool when released). Zero idle connections is honoured by retiring
        // every connection as soon as it is idle.
        let keep_alive = if settings.max_idle_per_host == 0 {
            Duration::ZERO
        } else {
            settings.idle_timeout
        };
        let connector = Connector::new()
            .timeout(settings.connect_timeout)
            .limit(settings.max_connections)
            .conn_keep_alive(keep_alive)
            .conn_lifetime(CONNECTION_LIFETIME);
        let client = Client::builder()
            .connector(connector)
            // `UpstreamCall`'s deadline is the one total timeout, as for every adapter; awc's own
            // (5 s by default) would otherwise cut calls that the settings allow.
            .disable_timeout()
            // Like every adapter: no redirects followed.
            .disable_redirects()
            .finish();
        Ok(Self {
            client,
            call: UpstreamCall::new(Self::NAME, settings),
        })
    }

    /// One GET, its status and its whole body. The body is read as bytes whatever the content
    /// type: awc's `.json()` would refuse the real API's `text/html`.
    async fn exchange(&self, pairs: &[CurrencyPair]) -> Result<(u16, Bytes), RatesError> {
        let url = self.call.url(pairs);
        let mut response = self
            .client
            .get(url.as_str())
            .send()
            .await
            .map_err(|error| self.send_error(error))?;
        let status = response.status().as_u16();
        let declared = response
            .headers()
            .get(CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok()?.parse::<usize>().ok());
        // `limit` also refuses a declared Content-Length over the limit before reading.
        let body = response
            .body()
            .limit(self.call.max_body_bytes)
            .await
            .map_err(|error| self.body_error(error))?;
        // awc ends the body quietly when the connection closes early (`PlStream` in
        // `client/h1proto.rs` takes end of stream for end of body), so a body cut short of its
        // Content-Length is caught here. A chunked body cut short cannot be told apart from a
        // complete one this way; it fails to decode (`Malformed`) instead.
        if let Some(declared) = declared
            && body.len() != declared
        {
            return Err(broken_transfer(format!(
                "the body ended after {} of its {declared} bytes",
                body.len()
            )));
        }
        Ok((status, body))
    }

    fn send_error(&self, error: SendRequestError) -> RatesError {
        match error {
            SendRequestError::Connect(ConnectError::Timeout) => {
                connect_timeout_error(self.call.connect_timeout)
            }
            SendRequestError::Connect(error) => {
                RatesError::Connect(format!("cannot connect: {error}"))
            }
            SendRequestError::Timeout => rates_common::timeout_error(self.call.timeout),
            SendRequestError::Send(io) => match io_error(&io, self.call.timeout) {
                RatesError::Connect(_) => broken_transfer(io),
                timeout => timeout,
            },
            other => broken_transfer(other),
        }
    }

    fn body_error(&self, error: PayloadError) -> RatesError {
        match error {
            PayloadError::Overflow => BoundedBody::too_large(self.call.max_body_bytes),
            PayloadError::Io(io) => io_error(&io, self.call.timeout),
            other => broken_transfer(other),
        }
    }
}

#[async_trait(?Send)]
impl RatesProvider for AwcRates {
    async fn fetch_quotes(&self, pairs: &[CurrencyPair]) -> Result<Quotes, RatesError> {
        self.call.run(pairs, self.exchange(pairs)).await
    }
}
