//! The domain's reading of rates, timestamps and amounts, and the conversion and rate
//! arithmetic a hostile upstream rate reaches: inverse legs, cross products, rounding.
//!
//! Input: lines (`\n`), missing ones empty: a rate, a timestamp, an amount, the source
//! currency, the target currency, a second rate. A timestamp line that is not an integer is
//! read as the little-endian bytes of one; a currency line that is not a known code picks a
//! currency by its first byte.

#![no_main]

use domain::{
    Amount, ConversionError, Currency, CurrencyPair, MAX_AMOUNT, Quote, Rate, RatePlan,
    RateTimestamp, ResolveError, convert,
};
use libfuzzer_sys::fuzz_target;
use rust_decimal::Decimal;

/// 3000-01-01T00:00:00Z, the latest instant `RateTimestamp` accepts.
const YEAR_3000_MILLIS: i64 = 32_503_680_000_000;

fuzz_target!(|data: &[u8]| {
    let mut lines = data.split(|&byte| byte == b'\n');
    let mut next = || lines.next().unwrap_or_default();
    let (rate_line, timestamp_line, amount_line) = (next(), next(), next());
    let (source, target) = (currency(next()), currency(next()));
    let other_line = next();
    let text = |line| String::from_utf8_lossy(line).into_owned();
    let (rate_text, amount_text, other_text) =
        (text(rate_line), text(amount_line), text(other_line));

    let timestamp = check_timestamp(timestamp_line);
    let rate = check_rate(&rate_text);
    let other = check_rate(&other_text);
    let amount = Amount::parse(&amount_text, source).ok();
    if let Some(amount) = amount {
        assert!(amount.value() > Decimal::ZERO && amount.value() <= MAX_AMOUNT);
        assert!(amount.value().scale() <= source.minor_units(), "{amount:?}");
        assert_eq!(amount.currency(), source);
    }

    let mut rates: Vec<Rate> = rate.into_iter().chain(other).collect();
    if let Some(rate) = rate {
        let inverse = rate.inverse();
        assert_is_rate(inverse, || format!("1 / {rate}"));
        rates.push(inverse);
        if let Some(other) = other {
            let exact = rate.value().checked_mul(other.value());
            match rate.then(other) {
                Some(product) => {
                    assert_eq!(Some(product.value()), exact, "{rate} then {other}");
                    assert_is_rate(product, || format!("{rate} x {other}"));
                    rates.push(product);
                }
                None => assert!(
                    exact.is_none_or(|exact| Rate::new(exact).is_err()),
                    "{rate} then {other}"
                ),
            }
        }
    }
    // The application's path: the plan for source -> target, its legs quoted with the rates
    // read (the first leg with the first rate, the second with the second).
    let plan = RatePlan::for_conversion(source, target);
    let legs = plan.pairs();
    let quoted = |pair: &CurrencyPair| {
        let rate = if Some(pair) == legs.first() {
            rate
        } else {
            other
        };
        Some(Quote {
            rate: rate?,
            timestamp: timestamp?,
        })
    };
    match plan.resolve(quoted) {
        Ok(resolved) => {
            assert_is_rate(resolved.rate, || format!("{plan:?}"));
            rates.push(resolved.rate);
        }
        Err(ResolveError::MissingQuote(_)) => {
            assert!(timestamp.is_none() || rate.is_none() || (legs.len() == 2 && other.is_none()));
        }
        Err(ResolveError::OutOfRange) => assert!(matches!(plan, RatePlan::Cross(..))),
    }

    if let Some(amount) = amount {
        for rate in rates {
            check_conversion(amount, rate, target);
        }
    }
});

/// A known currency code, else the currency the first byte picks.
fn currency(line: &[u8]) -> Currency {
    let known = std::str::from_utf8(line)
        .ok()
        .and_then(|code| Currency::parse(code).ok());
    known.unwrap_or_else(|| {
        let index = usize::from(line.first().copied().unwrap_or(0));
        Currency::all()
            .nth(index % Currency::all().count())
            .expect("the index is below the count")
    })
}

/// An accepted rate is positive and prints as text that reads back to the same digits.
fn check_rate(text: &str) -> Option<Rate> {
    let rate = Rate::parse(text).ok()?;
    assert_is_rate(rate, || text.to_owned());
    let printed = rate.to_string();
    let again = Rate::parse(&printed).map(|again| again.to_string());
    assert_eq!(again.as_deref(), Ok(printed.as_str()), "{text:?}");
    Some(rate)
}

/// Positive, and what `Rate::new` accepts: a computed rate stays in the rates' range.
fn assert_is_rate(rate: Rate, context: impl Fn() -> String) {
    assert!(rate.value() > Decimal::ZERO, "{}: {rate:?}", context());
    assert_eq!(Rate::new(rate.value()), Ok(rate), "{}", context());
}

/// Seconds below 10^11 in magnitude, milliseconds from there; accepted exactly from 1970 to
/// the year 3000.
fn check_timestamp(line: &[u8]) -> Option<RateTimestamp> {
    let value = std::str::from_utf8(line)
        .ok()
        .and_then(|text| text.parse::<i64>().ok())
        .unwrap_or_else(|| {
            let mut bytes = [0u8; 8];
            let len = line.len().min(8);
            bytes[..len].copy_from_slice(&line[..len]);
            i64::from_le_bytes(bytes)
        });
    let millis = if value.unsigned_abs() < 100_000_000_000 {
        i128::from(value) * 1000
    } else {
        i128::from(value)
    };
    let timestamp = RateTimestamp::from_unix(value).ok();
    assert_eq!(
        timestamp.map(|at| i128::from(at.unix_millis())),
        Some(millis).filter(|millis| (0..=i128::from(YEAR_3000_MILLIS)).contains(millis)),
        "{value}"
    );
    timestamp
}

/// Rounded once, half-to-even, to the target's minor units: within half a unit of the product
/// whenever `Decimal` holds the product exactly.
fn check_conversion(amount: Amount, rate: Rate, target: Currency) {
    let product = amount.value().checked_mul(rate.value());
    let exact =
        product.filter(|product| product.scale() == amount.value().scale() + rate.value().scale());
    let minor_units = target.minor_units();
    let half_unit = Decimal::new(5, minor_units + 1);
    match convert(amount, rate, target) {
        Ok(conversion) => {
            assert_eq!(
                (conversion.source, conversion.rate, conversion.target),
                (amount, rate, target)
            );
            let converted = conversion.converted_amount;
            assert!(
                converted > Decimal::ZERO,
                "{amount:?} at {rate}: {converted}"
            );
            assert!(converted.scale() <= minor_units, "{converted} {target}");
            if let Some(exact) = exact {
                let error = (converted - exact).abs();
                assert!(
                    error <= half_unit,
                    "{amount:?} at {rate}: {converted} for {exact}"
                );
                if error == half_unit {
                    assert!(
                        converted.mantissa() % 2 == 0,
                        "{exact} rounded to odd {converted}"
                    );
                }
            }
        }
        Err(ConversionError::Overflow) => assert_eq!(product, None, "{amount:?} at {rate}"),
        Err(ConversionError::BelowSmallestUnit(currency)) => {
            assert_eq!(currency, target);
            if let Some(exact) = exact {
                assert!(exact <= half_unit, "{amount:?} at {rate}: {exact} {target}");
            }
        }
    }
}
