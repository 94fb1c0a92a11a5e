//! The frame every async adapter puts around its client's exchange.

use std::future::Future;
use std::time::Duration;

use application::{Quotes, RatesError};
use domain::CurrencyPair;

use crate::{ClientSettings, ConcurrencyLimit, interpret_response, live_url, with_deadline};

/// One upstream call as every async adapter makes it: take a slot of the in-flight limit,
/// bound the whole exchange (connect, send, status, body) by the total timeout, then
/// interpret the status and body. The adapter supplies only the exchange with its client.
#[derive(Clone, Debug)]
pub struct UpstreamCall {
    pub base_url: String,
    pub timeout: Duration,
    pub connect_timeout: Duration,
    pub max_body_bytes: usize,
    limit: ConcurrencyLimit,
}

impl UpstreamCall {
    pub fn new(settings: &ClientSettings) -> Self {
        Self {
            base_url: settings.base_url.clone(),
            timeout: settings.timeout,
            connect_timeout: settings.connect_timeout,
            max_body_bytes: settings.max_body_bytes,
            limit: ConcurrencyLimit::new(settings.max_connections, settings.pool_wait),
        }
    }

    /// The URL for `pairs` on this upstream.
    pub fn url(&self, pairs: &[CurrencyPair]) -> String {
        live_url(&self.base_url, pairs)
    }

    /// Runs `exchange` (lazy: nothing happens until a slot is taken) and interprets its
    /// `(status, whole body)`.
    ///
    /// # Errors
    /// `Unavailable` without a slot, `Timeout` past the total timeout, else the exchange's own
    /// error or what [`interpret_response`] makes of the answer.
    pub async fn run<B: AsRef<[u8]>>(
        &self,
        pairs: &[CurrencyPair],
        exchange: impl Future<Output = Result<(u16, B), RatesError>>,
    ) -> Result<Quotes, RatesError> {
        let _permit = self.limit.acquire().await?;
        let (status, body) = with_deadline(self.timeout, exchange).await?;
        interpret_response(status, body.as_ref(), pairs)
    }
}
