//! The outbound port: where exchange rates come from.

use std::fmt;

use async_trait::async_trait;
use domain::{CurrencyPair, Quote};

/// A source of current exchange rates, one HTTP client library per implementation.
///
/// `?Send`: awc's client holds an `Rc`, so adapters live per actix worker behind
/// `Rc<dyn RatesProvider>`; no client is ever built per request.
#[async_trait(?Send)]
pub trait RatesProvider {
    /// Fetches the quotes for all of `pairs` in one upstream call.
    ///
    /// # Errors
    /// Every failure is one of the [`RatesError`] kinds, the same for every adapter:
    /// `Timeout` when the total or connect timeout expires; `Connect` when no connection
    /// could be made or it broke before a complete response; `Tls` when the TLS handshake
    /// failed (an untrusted certificate, a name it does not cover, no common protocol); `UpstreamStatus` for a non-success
    /// HTTP status; `Malformed` for a body that is not the expected JSON or lacks a pair;
    /// `UnsupportedPair` when the upstream does not quote a pair; `Unavailable` when the
    /// adapter's own capacity (connection pool, blocking pool) is exhausted.
    async fn fetch_quotes(&self, pairs: &[CurrencyPair]) -> Result<Quotes, RatesError>;
}

/// The quotes returned by one upstream call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Quotes {
    entries: Vec<(CurrencyPair, Quote)>,
}

impl Quotes {
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            entries: Vec::with_capacity(capacity),
        }
    }

    /// Adds or replaces the quote for `pair`.
    pub fn insert(&mut self, pair: CurrencyPair, quote: Quote) {
        match self.entries.iter_mut().find(|(known, _)| *known == pair) {
            Some(entry) => entry.1 = quote,
            None => self.entries.push((pair, quote)),
        }
    }

    pub fn get(&self, pair: &CurrencyPair) -> Option<Quote> {
        self.entries
            .iter()
            .find(|(known, _)| known == pair)
            .map(|(_, quote)| *quote)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Why rates could not be fetched. The kinds are the port's contract; the details are for logs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RatesError {
    #[error("the rates upstream timed out: {0}")]
    Timeout(String),
    #[error("could not reach the rates upstream: {0}")]
    Connect(String),
    #[error("the TLS handshake with the rates upstream failed: {0}")]
    Tls(String),
    #[error("the rates upstream answered with HTTP status {0}")]
    UpstreamStatus(u16),
    #[error("the rates upstream sent an unusable body: {0}")]
    Malformed(String),
    #[error("the rates upstream does not quote {0}")]
    UnsupportedPair(String),
    #[error("no capacity to call the rates upstream: {0}")]
    Unavailable(String),
}

/// The kind of a [`RatesError`], without its details: for metrics, tables and matching.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RatesErrorKind {
    Timeout,
    Connect,
    Tls,
    UpstreamStatus,
    Malformed,
    UnsupportedPair,
    Unavailable,
}

impl RatesError {
    pub fn kind(&self) -> RatesErrorKind {
        match self {
            RatesError::Timeout(_) => RatesErrorKind::Timeout,
            RatesError::Connect(_) => RatesErrorKind::Connect,
            RatesError::Tls(_) => RatesErrorKind::Tls,
            RatesError::UpstreamStatus(_) => RatesErrorKind::UpstreamStatus,
            RatesError::Malformed(_) => RatesErrorKind::Malformed,
            RatesError::UnsupportedPair(_) => RatesErrorKind::UnsupportedPair,
            RatesError::Unavailable(_) => RatesErrorKind::Unavailable,
        }
    }
}

impl RatesErrorKind {
    pub const ALL: [RatesErrorKind; 7] = [
        RatesErrorKind::Timeout,
        RatesErrorKind::Connect,
        RatesErrorKind::Tls,
        RatesErrorKind::UpstreamStatus,
        RatesErrorKind::Malformed,
        RatesErrorKind::UnsupportedPair,
        RatesErrorKind::Unavailable,
    ];

    /// A stable snake_case name ("upstream_status").
    pub fn as_str(self) -> &'static str {
        match self {
            RatesErrorKind::Timeout => "timeout",
            RatesErrorKind::Connect => "connect",
            RatesErrorKind::Tls => "tls",
            RatesErrorKind::UpstreamStatus => "upstream_status",
            RatesErrorKind::Malformed => "malformed",
            RatesErrorKind::UnsupportedPair => "unsupported_pair",
            RatesErrorKind::Unavailable => "unavailable",
        }
    }
}

impl fmt::Display for RatesErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
