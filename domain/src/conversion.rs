//! Converting an amount with a rate, rounded once, at the end.

use rust_decimal::{Decimal, RoundingStrategy};

use crate::{Amount, Currency, Rate};

/// A converted payment: what was paid, at which rate, and what it comes to in the target.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Conversion {
    pub source: Amount,
    pub rate: Rate,
    pub target: Currency,
    /// amount x rate, rounded half-to-even to the target's minor units.
    pub converted_amount: Decimal,
}

/// Why an amount cannot be converted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConversionError {
    #[error("the converted amount is too large to represent")]
    Overflow,
    #[error("the amount is worth less than the smallest unit of {0}")]
    BelowSmallestUnit(Currency),
}

/// Converts `source` into `target` at `rate`. The product keeps full precision; only the final
/// amount is rounded, half-to-even (banker's rounding), to the target's minor units.
pub fn convert(
    source: Amount,
    rate: Rate,
    target: Currency,
) -> Result<Conversion, ConversionError> {
    let exact = source
        .value()
        .checked_mul(rate.value())
        .ok_or(ConversionError::Overflow)?;
    let converted_amount =
        exact.round_dp_with_strategy(target.minor_units(), RoundingStrategy::MidpointNearestEven);
    if converted_amount.is_zero() {
        return Err(ConversionError::BelowSmallestUnit(target));
    }
    Ok(Conversion {
        source,
        rate,
        target,
        converted_amount,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MAX_AMOUNT;
    use proptest::prelude::*;
    use rust_decimal_macros::dec;

    fn c(code: &str) -> Currency {
        Currency::parse(code).unwrap()
    }

    fn convert_str(
        amount: &str,
        from: &str,
        rate: &str,
        to: &str,
    ) -> Result<Decimal, ConversionError> {
        let source = Amount::parse(amount, c(from)).unwrap();
        convert(source, Rate::parse(rate).unwrap(), c(to)).map(|x| x.converted_amount)
    }

    #[test]
    fn rounds_half_to_even_to_target_minor_units() {
        assert_eq!(
            convert_str("100", "EUR", "1.16025", "USD"),
            Ok(dec!(116.02))
        );
        assert_eq!(
            convert_str("100", "EUR", "1.16035", "USD"),
            Ok(dec!(116.04))
        );
        assert_eq!(convert_str("10", "USD", "156.45", "JPY"), Ok(dec!(1564)));
        assert_eq!(convert_str("10", "USD", "156.55", "JPY"), Ok(dec!(1566)));
        assert_eq!(convert_str("1", "USD", "0.30695", "KWD"), Ok(dec!(0.307)));
        assert_eq!(convert_str("2.5", "EUR", "1", "EUR"), Ok(dec!(2.50)));
    }

    #[test]
    fn keeps_precision_until_the_end() {
        // 1/3 then x3 would lose a cent if the rate were rounded first.
        let third = Rate::new(dec!(3)).unwrap().inverse();
        let source = Amount::parse("300", c("USD")).unwrap();
        assert_eq!(
            convert(source, third, c("EUR")).unwrap().converted_amount,
            dec!(100.00)
        );
    }

    #[test]
    fn reports_amounts_below_the_smallest_unit() {
        assert_eq!(
            convert_str("1", "VND", "0.00004", "USD"),
            Err(ConversionError::BelowSmallestUnit(c("USD")))
        );
    }

    proptest! {
        #[test]
        fn result_has_target_scale_and_is_within_half_a_unit(
            cents in 1i64..=100_000_000_000_000_000,
            rate_mantissa in 1i64..100_000_000_000,
            rate_scale in 0u32..10,
        ) {
            let source = Amount::new(Decimal::new(cents, 2), c("EUR")).unwrap();
            let rate = Rate::new(Decimal::new(rate_mantissa, rate_scale)).unwrap();
            prop_assume!(source.value() <= MAX_AMOUNT);
            match convert(source, rate, c("JPY")) {
                Ok(conversion) => {
                    let exact = source.value() * rate.value();
                    prop_assert!(conversion.converted_amount.scale() == 0);
                    prop_assert!((conversion.converted_amount - exact).abs() <= dec!(0.5));
                }
                Err(ConversionError::BelowSmallestUnit(_)) => {
                    prop_assert!(source.value() * rate.value() <= dec!(0.5));
                }
                Err(ConversionError::Overflow) => prop_assert!(false, "no overflow expected below MAX_AMOUNT"),
            }
        }
    }
}
