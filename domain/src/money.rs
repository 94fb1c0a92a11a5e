//! Payment amounts: exact decimals, positive, bounded, within the currency's minor units.

use std::fmt;

use rust_decimal::Decimal;

use crate::Currency;

/// The largest amount accepted: a thousand trillion units. Bigger figures are typos or attacks,
/// and keeping amounts this small leaves the conversion product far from `Decimal`'s limit.
pub const MAX_AMOUNT: Decimal = Decimal::from_parts(0xA4C6_8000, 0x0003_8D7E, 0, false, 0);

/// A positive amount of money in one currency, with no more decimals than the currency has.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Amount {
    value: Decimal,
    currency: Currency,
}

/// Why a figure is not an amount of a given currency.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AmountError {
    #[error("an amount is a decimal number such as \"12.50\", got {0:?}")]
    NotANumber(String),
    #[error("the amount must be greater than zero")]
    NotPositive,
    #[error("the amount must not exceed {MAX_AMOUNT}")]
    TooLarge,
    #[error("{currency} has {allowed} decimal places, the amount has {found}")]
    TooManyDecimals {
        currency: Currency,
        allowed: u32,
        found: u32,
    },
}

impl Amount {
    /// Parses a decimal figure exactly as written ("12.50", "1e3", "0.001"), then checks it
    /// against `currency`. Trailing zeros do not count as decimals ("100.00" JPY is 100 JPY).
    pub fn parse(figure: &str, currency: Currency) -> Result<Self, AmountError> {
        let value = parse_decimal(figure)
            .ok_or_else(|| AmountError::NotANumber(figure.chars().take(40).collect()))?;
        Self::new(value, currency)
    }

    /// Checks a decimal against `currency`.
    pub fn new(value: Decimal, currency: Currency) -> Result<Self, AmountError> {
        let value = value.normalize();
        if value <= Decimal::ZERO {
            return Err(AmountError::NotPositive);
        }
        if value > MAX_AMOUNT {
            return Err(AmountError::TooLarge);
        }
        let allowed = currency.minor_units();
        if value.scale() > allowed {
            return Err(AmountError::TooManyDecimals {
                currency,
                allowed,
                found: value.scale(),
            });
        }
        Ok(Self { value, currency })
    }

    pub fn value(&self) -> Decimal {
        self.value
    }

    pub fn currency(&self) -> Currency {
        self.currency
    }
}

/// Parses plain ("12.5") or scientific ("1.25e1") notation without going through `f64`.
/// Returns `None` for anything else, including values beyond `Decimal`'s range.
pub(crate) fn parse_decimal(text: &str) -> Option<Decimal> {
    // Bounded so that hostile input costs nothing: no real figure is longer than this.
    if text.is_empty() || text.len() > 64 {
        return None;
    }
    if text.contains(['e', 'E']) {
        Decimal::from_scientific(text).ok()
    } else {
        Decimal::from_str_exact(text).ok()
    }
    .filter(|_| is_plain_number(text))
}

/// JSON-number syntax (optionally signed): digits, an optional fraction, an optional exponent.
/// `Decimal::from_str` alone accepts "1_000" and ".5", which no JSON number contains.
fn is_plain_number(text: &str) -> bool {
    let body = text.strip_prefix('-').unwrap_or(text);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], Some(&body[at + 1..])),
        None => (body, None),
    };
    let (integer, fraction) = match mantissa.split_once('.') {
        Some((integer, fraction)) => (integer, Some(fraction)),
        None => (mantissa, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    digits(integer)
        && fraction.is_none_or(digits)
        && exponent.is_none_or(|e| digits(e.strip_prefix(['+', '-']).unwrap_or(e)))
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.value, self.currency)
    }
}

impl fmt::Debug for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Amount({} {})", self.value, self.currency)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rust_decimal_macros::dec;

    fn currency(code: &str) -> Currency {
        Currency::parse(code).unwrap()
    }

    #[test]
    fn max_amount_is_one_thousand_trillion() {
        assert_eq!(MAX_AMOUNT, dec!(1_000_000_000_000_000));
    }

    #[test]
    fn reads_figures_exactly() {
        let amount = Amount::parse("0.10", currency("EUR")).unwrap();
        assert_eq!(amount.value(), dec!(0.1));
        assert_eq!(
            Amount::parse("1e3", currency("JPY")).unwrap().value(),
            dec!(1000)
        );
        assert_eq!(
            Amount::parse("100.00", currency("JPY")).unwrap().value(),
            dec!(100)
        );
        assert_eq!(
            Amount::parse("1.234", currency("KWD")).unwrap().value(),
            dec!(1.234)
        );
    }

    #[test]
    fn rejects_what_is_not_an_amount() {
        let eur = currency("EUR");
        for bad in [
            "", "abc", "1_000", ".5", "5.", "+5", "1e", "NaN", "1,5", " 1", "0x10",
        ] {
            assert!(
                matches!(Amount::parse(bad, eur), Err(AmountError::NotANumber(_))),
                "{bad:?} was accepted"
            );
        }
        assert_eq!(Amount::parse("0", eur), Err(AmountError::NotPositive));
        assert_eq!(Amount::parse("-1", eur), Err(AmountError::NotPositive));
        assert_eq!(Amount::parse("1e16", eur), Err(AmountError::TooLarge));
        assert_eq!(
            Amount::parse("1.5", currency("JPY")),
            Err(AmountError::TooManyDecimals {
                currency: currency("JPY"),
                allowed: 0,
                found: 1
            })
        );
        assert!(matches!(
            Amount::parse("1.001", eur),
            Err(AmountError::TooManyDecimals { .. })
        ));
        assert!(matches!(
            Amount::parse(&"9".repeat(100), eur),
            Err(AmountError::NotANumber(_))
        ));
    }

    proptest! {
        #[test]
        fn parsing_never_panics(text in "\\PC{0,70}") {
            let _ = Amount::parse(&text, currency("EUR"));
        }

        #[test]
        fn any_cent_amount_round_trips(cents in 1i64..=100_000_000_000_000_000) {
            let value = Decimal::new(cents, 2);
            let amount = Amount::parse(&value.to_string(), currency("USD")).unwrap();
            prop_assert_eq!(amount.value(), value);
        }

        #[test]
        fn extra_decimals_are_rejected(units in 1i64..1_000_000, extra in 1u32..6) {
            let value = Decimal::new(units * 10 + 1, 2 + extra);
            prop_assert!(
                matches!(
                    Amount::new(value, currency("EUR")),
                    Err(AmountError::TooManyDecimals { .. })
                ),
                "value was accepted"
            );
        }
    }
}
