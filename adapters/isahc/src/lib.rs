//! `RatesProvider` over isahc, which drives libcurl (built in, statically) on its own thread.
//!
//! Stale connections: libcurl checks a cached connection before reuse (at most once a second:
//! `Curl_cpool_conn_seems_healthy` in `conncache.c`), and when a reused connection dies before
//! a single response byte arrives it retries the request on a fresh connection, up to five
//! times (`Curl_retry_request` in `transfer.c`: "Connection died, retrying a fresh connect").
//! It is the only one of the five clients that retries a request written to a connection the
//! server closed at that moment; nothing is added here.

use std::time::Duration;

use application::{Quotes, RatesError, RatesProvider};
use async_trait::async_trait;
use domain::CurrencyPair;
use futures_util::AsyncReadExt as _;
use isahc::config::{Configurable, RedirectPolicy};
use isahc::error::ErrorKind;
use isahc::{AsyncBody, HttpClient};
use rates_common::{
    BoundedBody, BuildError, ClientSettings, UpstreamCall, broken_transfer, connect_timeout_error,
    describe, timeout_error,
};

/// Fetches rates with one isahc client (one libcurl multi handle and its thread), built once.
#[derive(Debug)]
pub struct IsahcRates {
    client: HttpClient,
    call: UpstreamCall,
}

impl IsahcRates {
    pub const NAME: &'static str = "isahc";

    /// Builds the client, its connection cache and its agent thread from `settings`.
    ///
    /// # Errors
    /// A `BuildError` when the settings are unusable (see [`ClientSettings::check`]) or libcurl
    /// cannot be initialised.
    pub fn new(settings: &ClientSettings) -> Result<Self, BuildError> {
        settings.check(Self::NAME)?;
        let client = HttpClient::builder()
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
            .map_err(|error| BuildError {
                client: Self::NAME,
                reason: describe(&error),
            })?;
        Ok(Self {
            client,
            call: UpstreamCall::new(Self::NAME, settings),
        })
    }

    /// One GET, its status and its whole body.
    async fn exchange(&self, pairs: &[CurrencyPair]) -> Result<(u16, Vec<u8>), RatesError> {
        let mut response = self
            .client
            .get_async(self.call.url(pairs))
            .await
            .map_err(|error| self.error(&error))?;
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
