//! Exchange rates, exact to the digit, and when they were quoted.

use std::fmt;

use rust_decimal::Decimal;

use crate::money::parse_decimal;

/// A positive exchange rate. Parsed from its decimal text, so it keeps exactly the digits the
/// upstream sent (0.891724 stays 0.891724; no binary floating point on the way).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rate(Decimal);

/// Why a figure is not a rate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RateError {
    #[error("a rate is a decimal number, got {0:?}")]
    NotANumber(String),
    #[error("a rate must be greater than zero, got {0}")]
    NotPositive(Decimal),
}

impl Rate {
    pub const ONE: Rate = Rate(Decimal::ONE);

    /// Parses a JSON number's text ("1.17", "156.4295", "1.2e-5") exactly.
    pub fn parse(text: &str) -> Result<Self, RateError> {
        let value = parse_decimal(text)
            .ok_or_else(|| RateError::NotANumber(text.chars().take(40).collect()))?;
        Self::new(value)
    }

    pub fn new(value: Decimal) -> Result<Self, RateError> {
        if value <= Decimal::ZERO {
            return Err(RateError::NotPositive(value));
        }
        Ok(Self(value))
    }

    pub fn value(&self) -> Decimal {
        self.0
    }

    /// 1 / rate, to `Decimal`'s full precision (28 significant digits).
    #[must_use]
    pub fn inverse(&self) -> Rate {
        Rate(Decimal::ONE / self.0)
    }

    /// The rate of a chain of two conversions: (A->B) then (B->C) gives A->C. Full precision;
    /// `None` only if the product leaves `Decimal`'s range.
    pub fn then(&self, next: Rate) -> Option<Rate> {
        self.0.checked_mul(next.0).map(Rate)
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Debug for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Rate({})", self.0)
    }
}

/// When a rate was quoted. The upstream sends Unix time in seconds or in milliseconds
/// (both are seen in the wild); values too large to be seconds are taken as milliseconds.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct RateTimestamp {
    unix_millis: i64,
}

/// Unix seconds beyond this (year 5138) are read as milliseconds.
const LARGEST_PLAUSIBLE_SECONDS: i64 = 100_000_000_000;

impl RateTimestamp {
    /// Reads an upstream timestamp given in either seconds or milliseconds.
    pub fn from_unix(value: i64) -> Self {
        if value.abs() >= LARGEST_PLAUSIBLE_SECONDS {
            Self { unix_millis: value }
        } else {
            Self {
                unix_millis: value.saturating_mul(1000),
            }
        }
    }

    pub fn unix_millis(&self) -> i64 {
        self.unix_millis
    }
}

/// A rate for one pair and when it was quoted.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Quote {
    pub rate: Rate,
    pub timestamp: RateTimestamp,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rust_decimal_macros::dec;

    #[test]
    fn keeps_the_digits_it_was_given() {
        assert_eq!(Rate::parse("0.891724").unwrap().to_string(), "0.891724");
        assert_eq!(Rate::parse("1.170").unwrap().to_string(), "1.170");
        assert_eq!(Rate::parse("1.2e-5").unwrap().value(), dec!(0.000012));
    }

    #[test]
    fn rejects_non_positive_and_non_numbers() {
        assert!(matches!(Rate::parse("0"), Err(RateError::NotPositive(_))));
        assert!(matches!(
            Rate::parse("-1.1"),
            Err(RateError::NotPositive(_))
        ));
        assert!(matches!(
            Rate::parse("\"1.1\""),
            Err(RateError::NotANumber(_))
        ));
        assert!(matches!(Rate::parse("null"), Err(RateError::NotANumber(_))));
    }

    #[test]
    fn timestamps_in_seconds_and_millis_agree() {
        assert_eq!(
            RateTimestamp::from_unix(1_732_900_000),
            RateTimestamp::from_unix(1_732_900_000_000)
        );
        assert_eq!(
            RateTimestamp::from_unix(1_732_900_000).unix_millis(),
            1_732_900_000_000
        );
    }

    proptest! {
        #[test]
        fn any_decimal_text_round_trips(mantissa in 1i64..i64::MAX, scale in 0u32..12) {
            let value = Decimal::new(mantissa, scale);
            let rate = Rate::parse(&value.to_string()).unwrap();
            prop_assert_eq!(rate.to_string(), value.to_string());
        }

        #[test]
        fn inverse_of_inverse_is_close(mantissa in 1i64..10_000_000_000, scale in 0u32..8) {
            let rate = Rate::new(Decimal::new(mantissa, scale)).unwrap();
            let back = rate.inverse().inverse().value();
            let relative = ((back - rate.value()) / rate.value()).abs();
            prop_assert!(relative < dec!(0.000000000000000001), "{rate} came back as {back}");
        }

        #[test]
        fn timestamp_reading_never_panics(value in any::<i64>()) {
            let _ = RateTimestamp::from_unix(value);
        }
    }
}
