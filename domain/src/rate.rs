//! Exchange rates, exact to the digit, and when they were quoted.

use std::fmt;

use rust_decimal::Decimal;

use crate::money::parse_decimal;

/// A positive exchange rate, from 10^-12 to 10^12. Parsed from its decimal text, so it keeps
/// exactly the digits the upstream sent (0.891724 stays 0.891724; no binary floating point on
/// the way).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rate(Decimal);

/// Why a figure is not a rate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RateError {
    #[error("a rate is a decimal number, got {0:?}")]
    NotANumber(String),
    #[error("a rate must be greater than zero, got {0}")]
    NotPositive(Decimal),
    #[error("a rate must be from 10^-12 to 10^12, got {0}")]
    OutOfRange(Decimal),
    #[error(
        "a rate timestamp is Unix seconds or milliseconds from 1970 up to the year 3000, got {0}"
    )]
    TimestampOutOfRange(i64),
}

/// 10^-12 and 10^12, far beyond any real rate. The range is symmetric around 1, so a rate's
/// inverse is a rate too and never rounds to zero (`1 / rate` is 0 in `Decimal` from
/// 2 x 10^28 on); neither a product of two rates nor an amount up to `MAX_AMOUNT` times a
/// rate can overflow.
const SMALLEST_RATE: Decimal = Decimal::from_parts(1, 0, 0, false, 12);
const LARGEST_RATE: Decimal = Decimal::from_parts(0xD4A5_1000, 0xE8, 0, false, 0);

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
        if !(SMALLEST_RATE..=LARGEST_RATE).contains(&value) {
            return Err(RateError::OutOfRange(value));
        }
        Ok(Self(value))
    }

    pub fn value(&self) -> Decimal {
        self.0
    }

    /// 1 / rate, to `Decimal`'s full precision (28 significant digits, 16 at least in the
    /// rates' range, which holds it).
    #[must_use]
    pub fn inverse(&self) -> Rate {
        Rate(Decimal::ONE / self.0)
    }

    /// The rate of a chain of two conversions: (A->B) then (B->C) gives A->C. Full precision;
    /// `None` if the product is outside the rates' range.
    pub fn then(&self, next: Rate) -> Option<Rate> {
        self.0
            .checked_mul(next.0)
            .and_then(|product| Rate::new(product).ok())
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

/// Unix seconds from this magnitude on (year 5138) are read as milliseconds.
const LARGEST_PLAUSIBLE_SECONDS: u64 = 100_000_000_000;

/// 3000-01-01T00:00:00Z: no quote is dated later, and this bound keeps every accepted
/// timestamp far from `i64`'s edges for whoever computes with it.
const LATEST_PLAUSIBLE_MILLIS: i64 = 32_503_680_000_000;

impl RateTimestamp {
    /// Reads an upstream timestamp given in either seconds or milliseconds: a magnitude below
    /// 100_000_000_000 is seconds, anything else milliseconds. Only instants from
    /// 1970-01-01T00:00:00Z up to 3000-01-01T00:00:00Z (both included) are accepted.
    ///
    /// # Errors
    /// `RateError::TimestampOutOfRange` for an instant before 1970 or after the year 3000.
    pub fn from_unix(value: i64) -> Result<Self, RateError> {
        let unix_millis = if value.unsigned_abs() < LARGEST_PLAUSIBLE_SECONDS {
            // Below 10^11 in magnitude, so times 1000 stays far inside i64.
            value * 1000
        } else {
            value
        };
        if (0..=LATEST_PLAUSIBLE_MILLIS).contains(&unix_millis) {
            Ok(Self { unix_millis })
        } else {
            Err(RateError::TimestampOutOfRange(value))
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
    fn rates_are_from_ten_to_the_minus_12_to_ten_to_the_12() {
        assert_eq!(SMALLEST_RATE, dec!(0.000000000001));
        assert_eq!(LARGEST_RATE, dec!(1_000_000_000_000));
        for text in ["0.000000000001", "1e12", "1e-12"] {
            assert!(Rate::parse(text).is_ok(), "{text}");
        }
        for text in [
            "0.0000000000009",
            "1000000000000.1",
            "1e13",
            "79228162514264337593543950335",
        ] {
            assert!(
                matches!(Rate::parse(text), Err(RateError::OutOfRange(_))),
                "{text}"
            );
        }
    }

    /// Found by the `rate_and_conversion` fuzz target: 2.325036 x 10^28 was accepted, and its
    /// inverse (an inverted leg's rate) rounded to a rate of 0.
    #[test]
    fn a_rate_whose_inverse_rounds_to_zero_is_refused() {
        assert_eq!(
            Rate::parse("0023250360e021"),
            Err(RateError::OutOfRange(dec!(23250360000000000000000000000)))
        );
    }

    #[test]
    fn the_inverse_of_a_rate_at_either_end_is_the_other_end() {
        let (smallest, largest) = (
            Rate::new(SMALLEST_RATE).unwrap(),
            Rate::new(LARGEST_RATE).unwrap(),
        );
        assert_eq!(smallest.inverse(), largest);
        assert_eq!(largest.inverse(), smallest);
    }

    #[test]
    fn a_product_outside_the_range_is_none() {
        let rate = |text| Rate::parse(text).unwrap();
        assert_eq!(rate("1e6").then(rate("1e6")), Some(rate("1e12")));
        assert_eq!(rate("1e7").then(rate("1e6")), None);
        assert_eq!(rate("1e-12").then(rate("0.5")), None);
        assert_eq!(rate("1e12").then(rate("1e12")), None);
    }

    #[test]
    fn timestamps_in_seconds_and_millis_agree() {
        assert_eq!(
            RateTimestamp::from_unix(1_732_900_000),
            RateTimestamp::from_unix(1_732_900_000_000)
        );
        assert_eq!(
            RateTimestamp::from_unix(1_732_900_000).map(|at| at.unix_millis()),
            Ok(1_732_900_000_000)
        );
        assert_eq!(
            RateTimestamp::from_unix(1_732_900_000_123).map(|at| at.unix_millis()),
            Ok(1_732_900_000_123)
        );
        assert_eq!(
            RateTimestamp::from_unix(0).map(|at| at.unix_millis()),
            Ok(0)
        );
    }

    #[test]
    fn timestamps_outside_1970_to_3000_are_refused() {
        for value in [i64::MIN, i64::MAX, -1, -1_732_900_000_000] {
            assert_eq!(
                RateTimestamp::from_unix(value),
                Err(RateError::TimestampOutOfRange(value)),
                "{value}"
            );
        }
    }

    #[test]
    fn the_year_3000_is_the_last_instant_accepted() {
        let year_3000_seconds = 32_503_680_000;
        for value in [year_3000_seconds, LATEST_PLAUSIBLE_MILLIS] {
            assert_eq!(
                RateTimestamp::from_unix(value).map(|at| at.unix_millis()),
                Ok(LATEST_PLAUSIBLE_MILLIS)
            );
        }
        for value in [year_3000_seconds + 1, LATEST_PLAUSIBLE_MILLIS + 1] {
            assert_eq!(
                RateTimestamp::from_unix(value),
                Err(RateError::TimestampOutOfRange(value))
            );
        }
    }

    proptest! {
        #[test]
        fn any_decimal_text_round_trips(mantissa in 1i64..i64::MAX, scale in 0u32..20) {
            let value = Decimal::new(mantissa, scale);
            match Rate::parse(&value.to_string()) {
                Ok(rate) => prop_assert_eq!(rate.to_string(), value.to_string()),
                Err(error) => {
                    prop_assert_eq!(error, RateError::OutOfRange(value));
                    prop_assert!(value < SMALLEST_RATE || value > LARGEST_RATE);
                }
            }
        }

        #[test]
        fn the_inverse_of_a_rate_is_a_rate(mantissa in 1i64..i64::MAX, scale in 0u32..20) {
            if let Ok(rate) = Rate::new(Decimal::new(mantissa, scale)) {
                prop_assert_eq!(Rate::new(rate.inverse().value()), Ok(rate.inverse()));
            }
        }

        #[test]
        fn inverse_of_inverse_is_close(mantissa in 1i64..10_000_000_000, scale in 0u32..8) {
            let rate = Rate::new(Decimal::new(mantissa, scale)).unwrap();
            let back = rate.inverse().inverse().value();
            let relative = ((back - rate.value()) / rate.value()).abs();
            prop_assert!(relative < dec!(0.000000000000000001), "{rate} came back as {back}");
        }

        #[test]
        fn timestamp_reading_never_panics_and_stays_in_range(value in any::<i64>()) {
            if let Ok(at) = RateTimestamp::from_unix(value) {
                prop_assert!((0..=LATEST_PLAUSIBLE_MILLIS).contains(&at.unix_millis()));
            }
        }

        /// From 1973 on, when the same instant in milliseconds is too large to be seconds.
        #[test]
        fn seconds_and_millis_of_one_instant_agree(seconds in 100_000_000i64..=32_503_680_000) {
            let from_seconds = RateTimestamp::from_unix(seconds);
            prop_assert!(from_seconds.is_ok());
            prop_assert_eq!(from_seconds, RateTimestamp::from_unix(seconds * 1000));
        }
    }
}
