//! Currency pairs as the Free Forex API names them ("EURUSD": one EUR buys `rate` USD).

use std::fmt;

use crate::Currency;

/// An ordered pair: one unit of `base` costs `rate` units of `quote`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CurrencyPair {
    pub base: Currency,
    pub quote: Currency,
}

/// The pairs the Free Forex API quotes besides USDxxx.
const NON_USD_BASE: &[(&str, &str)] = &[
    ("AUD", "USD"),
    ("EUR", "GBP"),
    ("EUR", "USD"),
    ("GBP", "USD"),
    ("NZD", "USD"),
];

impl CurrencyPair {
    pub fn new(base: Currency, quote: Currency) -> Self {
        Self { base, quote }
    }

    /// Whether the upstream quotes this pair: USDxxx for any other currency, or one of the
    /// five non-USD pairs. (The upstream still decides: it may not know an exotic USDxxx.)
    pub fn is_quoted_upstream(&self) -> bool {
        if self.base == self.quote {
            return false;
        }
        self.base == Currency::USD
            || NON_USD_BASE
                .iter()
                .any(|(base, quote)| self.base.code() == *base && self.quote.code() == *quote)
    }

    #[must_use]
    pub fn inverse(&self) -> Self {
        Self::new(self.quote, self.base)
    }
}

impl fmt::Display for CurrencyPair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.base, self.quote)
    }
}

impl fmt::Debug for CurrencyPair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CurrencyPair({self})")
    }
}
