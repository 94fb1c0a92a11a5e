//! `RatesProvider` over reqwest's async client.
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
    BoundedBody, BuildError, ClientSettings, UpstreamCall, broken_transfer, connect_timeout_error,
    describe, timeout_error,
};

/// Fetches rates with one reqwest client, built once.
#[derive(Debug)]
pub struct ReqwestRates {
    client: reqwest::Client,
    call: UpstreamCall,
}

impl ReqwestRates {
    pub const NAME: &'static str = "reqwest";

    /// Builds the client and its pool from `settings`.
    ///
    /// # Errors
    /// A `BuildError` when the settings are unusable (see [`ClientSettings::check`]) or reqwest
    /// cannot build its client.
    pub fn new(settings: &ClientSettings) -> Result<Self, BuildError> {
        settings.check(Self::NAME)?;
        let client = reqwest::Client::builder()
            .connect_timeout(settings.connect_timeout)
            .timeout(settings.timeout)
            .pool_max_idle_per_host(settings.max_idle_per_host)
            .pool_idle_timeout(settings.idle_timeout)
            // Like every adapter: no proxy from the environment, no redirects followed.
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
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
            .get(self.call.url(pairs))
            .send()
            .await
            .map_err(|error| self.error(&error))?;
        let status = response.status().as_u16();
        let mut body = BoundedBody::new(response.content_length(), self.call.max_body_bytes)?;
        while let Some(chunk) = response.chunk().await.map_err(|error| self.error(&error))? {
            body.extend(&chunk)?;
        }
        Ok((status, body.into_vec()))
    }

    fn error(&self, error: &reqwest::Error) -> RatesError {
        match (error.is_timeout(), error.is_connect()) {
            (true, true) => connect_timeout_error(self.call.connect_timeout),
            (true, false) => timeout_error(self.call.timeout),
            (false, true) => RatesError::Connect(describe(error)),
            (false, false) => broken_transfer(describe(error)),
        }
    }
}

#[async_trait(?Send)]
impl RatesProvider for ReqwestRates {
    async fn fetch_quotes(&self, pairs: &[CurrencyPair]) -> Result<Quotes, RatesError> {
        self.call.run(pairs, self.exchange(pairs)).await
    }
}
