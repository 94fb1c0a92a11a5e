//! The frame every adapter puts around its client's exchange.

use std::future::Future;
use std::time::{Duration, Instant};

use application::{Quotes, RatesError};
use domain::CurrencyPair;

use crate::outcome::record_outcome;
use crate::wire::interpret_response;
use crate::{ClientSettings, ConcurrencyLimit, Permit, Received, live_url, timeout_error};

/// One upstream call as every adapter makes it: take a slot of the in-flight limit, bound the
/// whole exchange (connect, send, status, body) by the total timeout, interpret the status and
/// body, and log the outcome under the client's name. The adapter supplies only the exchange
/// with its client.
#[derive(Clone, Debug)]
pub struct UpstreamCall {
    client: &'static str,
    pub base_url: String,
    pub timeout: Duration,
    pub connect_timeout: Duration,
    pub max_body_bytes: usize,
    limit: ConcurrencyLimit,
}

impl UpstreamCall {
    /// The frame for `client`, with `max_connections` slots.
    pub fn new(client: &'static str, settings: &ClientSettings) -> Self {
        Self::with_slots(client, settings, settings.max_connections)
    }

    /// The frame for `client`, with `slots` slots instead of `max_connections` (ureq is also
    /// bounded by its blocking threads).
    pub fn with_slots(client: &'static str, settings: &ClientSettings, slots: usize) -> Self {
        Self {
            client,
            base_url: settings.base_url.clone(),
            timeout: settings.timeout,
            connect_timeout: settings.connect_timeout,
            max_body_bytes: settings.max_body_bytes,
            limit: ConcurrencyLimit::new(slots, settings.pool_wait),
        }
    }

    /// The URL for `pairs` on this upstream.
    pub fn url(&self, pairs: &[CurrencyPair]) -> String {
        live_url(&self.base_url, pairs)
    }

    /// The in-flight limit, for metrics: its queue depth and the slots in use.
    pub fn slots(&self) -> &ConcurrencyLimit {
        &self.limit
    }

    /// Runs `exchange` (lazy: nothing happens until a slot is taken) and interprets its
    /// `(status, body)`. The slot is held until the exchange is over.
    ///
    /// # Errors
    /// `Unavailable` without a slot, `Timeout` past the total timeout, else the exchange's own
    /// error, `UpstreamStatus` for a non-2xx status, or what [`crate::decode_quotes`] makes of
    /// the body.
    pub async fn run<B: Into<Received>>(
        &self,
        pairs: &[CurrencyPair],
        exchange: impl Future<Output = Result<(u16, B), RatesError>>,
    ) -> Result<Quotes, RatesError> {
        // One flat body, no inner async block: each layer of futures would store the
        // exchange's future again, and the port boxes the whole of it on every call.
        let started = Instant::now();
        let result = match self.limit.acquire().await {
            Ok(_slot) => interpret(pairs, with_deadline(self.timeout, exchange).await),
            Err(unavailable) => Err(unavailable),
        };
        record_outcome(self.client, pairs, started, &result);
        result
    }

    /// As [`UpstreamCall::run`], for an exchange that must hold its slot itself: `exchange` is
    /// given the slot once it is taken, so that work outliving the caller (a blocking thread
    /// still running when the deadline ends the call) keeps the slot busy until it is done.
    /// The total timeout covers the future `exchange` returns, not the wait for the slot.
    ///
    /// # Errors
    /// As [`UpstreamCall::run`].
    pub async fn run_with_slot<B, F>(
        &self,
        pairs: &[CurrencyPair],
        exchange: impl FnOnce(Permit) -> F,
    ) -> Result<Quotes, RatesError>
    where
        B: Into<Received>,
        F: Future<Output = Result<(u16, B), RatesError>>,
    {
        let started = Instant::now();
        let result = match self.limit.acquire().await {
            Ok(slot) => interpret(pairs, with_deadline(self.timeout, exchange(slot)).await),
            Err(unavailable) => Err(unavailable),
        };
        record_outcome(self.client, pairs, started, &result);
        result
    }
}

/// The quotes in an exchange's `(status, body)`, or its error.
fn interpret<B: Into<Received>>(
    pairs: &[CurrencyPair],
    exchanged: Result<(u16, B), RatesError>,
) -> Result<Quotes, RatesError> {
    let (status, body) = exchanged?;
    interpret_response(status, body.into(), pairs)
}

/// Runs one whole upstream call (connect, send, status, body) under the total timeout.
/// The same outer deadline wraps every adapter, so "timeout" means the same everywhere.
///
/// # Errors
/// `RatesError::Timeout` when `timeout` expires first; otherwise the call's own result.
async fn with_deadline<T>(
    timeout: Duration,
    call: impl Future<Output = Result<T, RatesError>>,
) -> Result<T, RatesError> {
    tokio::time::timeout(timeout, call)
        .await
        .unwrap_or_else(|_| Err(timeout_error(timeout)))
}
