//! One log line per upstream call, the same for every adapter.

use std::fmt;
use std::time::Instant;

use application::{Quotes, RatesError};
use domain::CurrencyPair;

/// Logs the outcome of one call at `debug` (never above: failures are the caller's to report,
/// and a success must cost nothing on the hot path when debug is off).
pub(crate) fn record_outcome(
    client: &'static str,
    pairs: &[CurrencyPair],
    started: Instant,
    result: &Result<Quotes, RatesError>,
) {
    match result {
        Ok(_) => tracing::debug!(
            client,
            pairs = %Pairs(pairs),
            elapsed_us = started.elapsed().as_micros() as u64,
            "rates fetched"
        ),
        Err(error) => tracing::debug!(
            client,
            pairs = %Pairs(pairs),
            elapsed_us = started.elapsed().as_micros() as u64,
            kind = %error.kind(),
            %error,
            "rates call failed"
        ),
    }
}

/// `EURUSD,USDJPY`, written only if the line is logged.
struct Pairs<'a>(&'a [CurrencyPair]);

impl fmt::Display for Pairs<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, pair) in self.0.iter().enumerate() {
            if index > 0 {
                f.write_str(",")?;
            }
            write!(f, "{pair}")?;
        }
        Ok(())
    }
}
