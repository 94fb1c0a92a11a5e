//! `rates_common::decode_quotes`, the adapters' reading of an upstream's answer, on any body;
//! and `decode_quotes_from_reader`, the same read from a stream, against it.
//!
//! Input: the first byte picks the pairs asked for (bit `i` asks for `PAIRS[i]`), the rest is
//! the body.

#![no_main]

use application::RatesError;
use domain::{Currency, CurrencyPair};
use libfuzzer_sys::fuzz_target;
use rates_common::{decode_quotes, decode_quotes_from_reader};
use rust_decimal::Decimal;

const PAIRS: [&str; 8] = [
    "EURUSD", "USDJPY", "GBPUSD", "EURGBP", "AUDUSD", "USDCHF", "USDKWD", "NZDUSD",
];

/// 3000-01-01T00:00:00Z, the latest instant `RateTimestamp` accepts.
const YEAR_3000_MILLIS: i64 = 32_503_680_000_000;

fn pair(symbol: &str) -> CurrencyPair {
    let currency = |code| Currency::parse(code).expect("PAIRS holds known currencies");
    CurrencyPair::new(currency(&symbol[..3]), currency(&symbol[3..]))
}

fuzz_target!(|data: &[u8]| {
    let Some((&mask, body)) = data.split_first() else {
        return;
    };
    let pairs: Vec<CurrencyPair> = PAIRS
        .iter()
        .enumerate()
        .filter(|(bit, _)| mask & (1 << bit) != 0)
        .map(|(_, symbol)| pair(symbol))
        .collect();

    let decoded = decode_quotes(body, &pairs);
    match &decoded {
        Ok(quotes) => {
            assert_eq!(quotes.len(), pairs.len(), "one quote per pair asked for");
            for pair in &pairs {
                let quote = quotes.get(pair).expect("every pair asked for is quoted");
                assert!(
                    quote.rate.value() > Decimal::ZERO,
                    "{pair}: {:?}",
                    quote.rate
                );
                let millis = quote.timestamp.unix_millis();
                assert!((0..=YEAR_3000_MILLIS).contains(&millis), "{pair}: {millis}");
            }
        }
        // A body is the upstream's fault or an unsupported pair, never another kind.
        Err(RatesError::Malformed(_) | RatesError::UnsupportedPair(_)) => {}
        Err(other) => panic!("a body gave {other:?}"),
    }

    // Read from a stream, the same answer. The stream's decoder owns what it keeps, so it also
    // reads a symbol written with escapes, which the borrowing one refuses: it may accept more,
    // never less, and never differently.
    let streamed = decode_quotes_from_reader(body, &pairs, |error| {
        panic!("reading a slice failed: {error}")
    });
    match (&decoded, &streamed) {
        (Ok(quotes), Ok(again)) => assert_eq!(quotes, again),
        (Err(RatesError::UnsupportedPair(first)), Err(RatesError::UnsupportedPair(again))) => {
            assert_eq!(first, again);
        }
        (Ok(_) | Err(RatesError::UnsupportedPair(_)), _) => {
            panic!("{decoded:?} but streamed {streamed:?}")
        }
        (Err(_), _) => {}
    }

    // The order pairs are asked in changes nothing that is found.
    let reversed: Vec<CurrencyPair> = pairs.iter().rev().copied().collect();
    match (&decoded, decode_quotes(body, &reversed)) {
        (Ok(quotes), Ok(again)) => {
            for pair in &pairs {
                assert_eq!(quotes.get(pair), again.get(pair), "{pair}");
            }
        }
        (Err(first), Err(again)) => assert_eq!(
            std::mem::discriminant(first),
            std::mem::discriminant(&again),
            "{first:?} but reversed {again:?}"
        ),
        (first, again) => panic!("{first:?} but reversed {again:?}"),
    }
});
