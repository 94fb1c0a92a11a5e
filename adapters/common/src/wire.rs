//! The Free Forex API's wire format: the request path and the response body.
//!
//! `{"rates":{"EURUSD":{"rate":1.17,"timestamp":1732900000}},"code":200}` on success;
//! `{"message":"...","supportedPairs":[...],"code":1001|1002}` on a bad request (sent with
//! HTTP 200 by the real API). The body is decoded in one `serde_json::from_slice` into borrowed
//! types (an error body's message excepted): no `String` in between, and each rate is read
//! from its exact JSON text. [`decode_quotes_from_reader`] decodes the same types, owned, from
//! a stream.

use std::fmt::{self, Write as _};
use std::io::{self, BufReader, Read};
use std::marker::PhantomData;
use std::ops::Deref;

use application::{Quotes, RatesError};
use domain::{CurrencyPair, Quote, Rate, RateTimestamp};
use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::{Received, broken_transfer};

/// Appends the path and query for one call: `/api/live?pairs=EURUSD,USDJPY`.
fn push_live_path(url: &mut String, pairs: &[CurrencyPair]) {
    url.push_str(LIVE_PATH);
    for (index, pair) in pairs.iter().enumerate() {
        if index > 0 {
            url.push(',');
        }
        let _ = write!(url, "{pair}");
    }
}

const LIVE_PATH: &str = "/api/live?pairs=";

/// The full URL for one call, from a base URL with or without a trailing slash: one
/// allocation, of exactly the URL's length (six letters per pair, commas between), so that
/// turning it into `Bytes` (as `http::Uri::try_from(String)` does) needs no other.
pub fn live_url(base_url: &str, pairs: &[CurrencyPair]) -> String {
    let base = base_url.trim_end_matches('/');
    let pairs_len = (7 * pairs.len()).saturating_sub(1);
    let mut url = String::with_capacity(base.len() + LIVE_PATH.len() + pairs_len);
    url.push_str(base);
    push_live_path(&mut url, pairs);
    url
}

/// Turns an HTTP status and a complete body into quotes for `pairs`.
///
/// # Errors
/// `UpstreamStatus` for any non-2xx status; otherwise as [`decode_quotes`] (or the adapter's
/// own decoding, for a body it decoded as it read it).
pub(crate) fn interpret_response(
    status: u16,
    body: Received,
    pairs: &[CurrencyPair],
) -> Result<Quotes, RatesError> {
    if !(200..300).contains(&status) {
        return Err(RatesError::UpstreamStatus(status));
    }
    match body {
        Received::Whole(bytes) => decode_quotes(&bytes, pairs),
        // Through a buffer: serde_json reads a byte at a time, and the standard library reads
        // a byte from a `BufReader` without a call into the reader (measured: 6.2x the whole
        // decode's time for hyper's 1 MiB answer read from the pieces directly, against 2.8x
        // for ureq's reader through a `BufReader`). Reading pieces kept in memory does not fail.
        Received::Pieces(pieces) => {
            decode_quotes_from_reader(BufReader::new(pieces), pairs, broken_transfer)
        }
        Received::Decoded(quotes) => quotes,
    }
}

/// Decodes a Free Forex body and picks the quotes for `pairs`.
///
/// # Errors
/// `UnsupportedPair` for the API's code 1002; `Malformed` for a body that is not the expected
/// JSON, any other API error code, a rate that is not a positive number, a timestamp outside
/// 1970 to 3000 (see [`RateTimestamp::from_unix`]), or a missing pair.
pub fn decode_quotes(body: &[u8], pairs: &[CurrencyPair]) -> Result<Quotes, RatesError> {
    let live: LiveBody<&str, &RawValue> =
        serde_json::from_slice(body).map_err(|error| not_free_forex(&error))?;
    live.quotes(pairs)
}

/// As [`decode_quotes`], reading the body from `reader` as it comes (`serde_json::from_reader`)
/// instead of from one buffer: nothing is borrowed, so the few pair symbols and rate texts
/// kept are owned; everything else (an answer's history) is read past without being kept.
///
/// # Errors
/// As [`decode_quotes`]; a read that fails is `Malformed` too, unless `read_error` makes
/// another error of it (a transfer cut short, a body over the limit).
pub fn decode_quotes_from_reader<R: Read>(
    reader: R,
    pairs: &[CurrencyPair],
    read_error: impl FnOnce(io::Error) -> RatesError,
) -> Result<Quotes, RatesError> {
    let live: LiveBody<String, Box<RawValue>> = match serde_json::from_reader(reader) {
        Ok(live) => live,
        Err(error) if error.is_io() => return Err(read_error(io::Error::from(error))),
        Err(error) => return Err(not_free_forex(&error)),
    };
    live.quotes(pairs)
}

fn not_free_forex(error: &serde_json::Error) -> RatesError {
    RatesError::Malformed(format!("not a Free Forex body: {error}"))
}

/// A Free Forex body: `K` a pair symbol and `R` a rate's JSON text, borrowed from the body
/// (`&str`, `&RawValue`) or owned (`String`, `Box<RawValue>`) when read from a stream.
#[derive(Deserialize)]
struct LiveBody<K, R> {
    #[serde(default = "Option::default")]
    rates: Option<RatesMap<K, RawQuote<R>>>,
    #[serde(default)]
    code: Option<i64>,
    /// Owned: a `&str` cannot hold a string with an escape (`\"`, `\/`, `\u00e9`), which
    /// would fail the whole body; only error bodies carry a message.
    #[serde(default)]
    message: Option<String>,
}

impl<K: AsRef<str>, R: Deref<Target = RawValue>> LiveBody<K, R> {
    /// The quotes for `pairs`, or the error the body stands for.
    fn quotes(self, pairs: &[CurrencyPair]) -> Result<Quotes, RatesError> {
        match self.code {
            Some(200) | None if self.rates.is_some() => {}
            Some(1002) => {
                return Err(RatesError::UnsupportedPair(
                    self.message
                        .unwrap_or_else(|| "unsupported pair".to_owned()),
                ));
            }
            code => {
                return Err(RatesError::Malformed(format!(
                    "upstream code {}: {}",
                    code.map_or_else(|| "none".to_owned(), |c| c.to_string()),
                    self.message.as_deref().unwrap_or("no rates")
                )));
            }
        }
        let rates = self.rates.unwrap_or_default();
        let mut quotes = Quotes::with_capacity(pairs.len());
        for pair in pairs {
            let raw = rates.find(*pair).ok_or_else(|| {
                RatesError::Malformed(format!("the answer has no rate for {pair}"))
            })?;
            let malformed = |error| RatesError::Malformed(format!("{pair}: {error}"));
            let rate = Rate::parse(raw.rate.get()).map_err(malformed)?;
            let timestamp = RateTimestamp::from_unix(raw.timestamp).map_err(malformed)?;
            quotes.insert(*pair, Quote { rate, timestamp });
        }
        Ok(quotes)
    }
}

#[derive(Deserialize)]
struct RawQuote<R> {
    /// The number's own text, so no digit is lost to `f64`.
    rate: R,
    timestamp: i64,
}

/// The `rates` object kept as a small list of entries: it holds one to a few pairs, so a
/// linear scan beats hashing and costs one allocation.
struct RatesMap<K, Q>(Vec<(K, Q)>);

impl<K, Q> Default for RatesMap<K, Q> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<K: AsRef<str>, Q> RatesMap<K, Q> {
    fn find(&self, pair: CurrencyPair) -> Option<&Q> {
        let (base, quote) = (pair.base.code(), pair.quote.code());
        self.0
            .iter()
            .find(|(symbol, _)| {
                let symbol = symbol.as_ref();
                symbol.len() == 6 && symbol.starts_with(base) && symbol.ends_with(quote)
            })
            .map(|(_, raw)| raw)
    }
}

impl<'de, K: Deserialize<'de>, Q: Deserialize<'de>> Deserialize<'de> for RatesMap<K, Q> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor<K, Q>(PhantomData<(K, Q)>);
        impl<'de, K: Deserialize<'de>, Q: Deserialize<'de>> Visitor<'de> for EntriesVisitor<K, Q> {
            type Value = RatesMap<K, Q>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of pair symbol to {rate, timestamp}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(2).min(16));
                while let Some(entry) = map.next_entry::<K, Q>()? {
                    entries.push(entry);
                }
                Ok(RatesMap(entries))
            }
        }
        deserializer.deserialize_map(EntriesVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::Currency;
    use rust_decimal_macros::dec;

    fn pair(symbol: &str) -> CurrencyPair {
        CurrencyPair::new(
            Currency::parse(&symbol[..3]).unwrap(),
            Currency::parse(&symbol[3..]).unwrap(),
        )
    }

    const BODY: &[u8] = br#"{"rates":{"EURUSD":{"rate":1.160250,"timestamp":1732900000},"USDJPY":{"rate":156.4295,"timestamp":1732900000123}},"code":200}"#;

    #[test]
    fn builds_the_path_and_url() {
        let pairs = [pair("EURUSD"), pair("USDJPY")];
        let url = live_url("http://h:1/", &pairs);
        assert_eq!(url, "http://h:1/api/live?pairs=EURUSD,USDJPY");
        // Sized exactly: no reallocation on the way, nothing to copy into `Bytes`.
        assert_eq!(url.capacity(), url.len());
        assert_eq!(
            live_url("http://h:1", &pairs[..1]),
            "http://h:1/api/live?pairs=EURUSD"
        );
    }

    #[test]
    fn decodes_exact_rates_and_both_timestamp_units() {
        let quotes = decode_quotes(BODY, &[pair("EURUSD"), pair("USDJPY")]).unwrap();
        let eurusd = quotes.get(&pair("EURUSD")).unwrap();
        assert_eq!(eurusd.rate.to_string(), "1.160250");
        assert_eq!(eurusd.timestamp.unix_millis(), 1_732_900_000_000);
        let usdjpy = quotes.get(&pair("USDJPY")).unwrap();
        assert_eq!(usdjpy.rate.value(), dec!(156.4295));
        assert_eq!(usdjpy.timestamp.unix_millis(), 1_732_900_000_123);
    }

    #[test]
    fn maps_api_errors() {
        let unsupported = br#"{"message":"The currency pair 'USDXXX' was not recognised or supported","supportedPairs":["EURUSD"],"code":1002}"#;
        assert!(matches!(
            decode_quotes(unsupported, &[pair("EURUSD")]),
            Err(RatesError::UnsupportedPair(message)) if message.contains("USDXXX")
        ));
        let missing =
            br#"{"message":"'pairs' parameter is required","supportedPairs":[],"code":1001}"#;
        assert!(matches!(
            decode_quotes(missing, &[pair("EURUSD")]),
            Err(RatesError::Malformed(_))
        ));
    }

    /// Found by the `mock_request_head` fuzz target: mock-rates echoes an unknown pair, and
    /// `pairs=EURUSD%1C` gave a message with an escape, which was read as a malformed body.
    #[test]
    fn an_error_message_with_escapes_is_read() {
        let unsupported = br#"{"message":"The currency pair 'EURUSD\u001c' was not recognised or supported","code":1002}"#;
        assert_eq!(
            decode_quotes(unsupported, &[pair("EURUSD")]),
            Err(RatesError::UnsupportedPair(
                "The currency pair 'EURUSD\u{1c}' was not recognised or supported".to_owned()
            ))
        );
        let missing = br#"{"message":"'pairs' is required: \"EURUSD,USDJPY\"","code":1001}"#;
        assert!(matches!(
            decode_quotes(missing, &[pair("EURUSD")]),
            Err(RatesError::Malformed(message)) if message.contains(r#""EURUSD,USDJPY""#)
        ));
    }

    #[test]
    fn rejects_bodies_it_cannot_use() {
        let eurusd = [pair("EURUSD")];
        for body in [
            &b""[..],
            b"<html>",
            b"{\"rates\":{\"EURUSD\":{\"rate\":1.1",
            br#"{"rates":{"EURUSD":{"rate":"1.1","timestamp":1}},"code":200}"#,
            br#"{"rates":{"EURUSD":{"rate":-1.1,"timestamp":1}},"code":200}"#,
            br#"{"rates":{"GBPUSD":{"rate":1.3,"timestamp":1}},"code":200}"#,
            br#"{"rates":42,"code":200}"#,
        ] {
            assert!(
                matches!(decode_quotes(body, &eurusd), Err(RatesError::Malformed(_))),
                "{:?} was accepted",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn a_timestamp_out_of_range_is_malformed_and_names_the_pair() {
        let body =
            br#"{"rates":{"EURUSD":{"rate":1.1,"timestamp":-9223372036854775808}},"code":200}"#;
        assert!(matches!(
            decode_quotes(body, &[pair("EURUSD")]),
            Err(RatesError::Malformed(message)) if message.contains("EURUSD")
        ));
    }

    #[test]
    fn decoding_from_a_reader_gives_what_decoding_from_the_buffer_gives() {
        /// A reader whose every read fails.
        struct Failing;
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::new(io::ErrorKind::ConnectionReset, "cut"))
            }
        }
        let pairs = [pair("EURUSD"), pair("USDJPY")];
        let unexpected = |error: io::Error| panic!("a slice does not fail to read: {error}");
        assert_eq!(
            decode_quotes_from_reader(BODY, &pairs, unexpected),
            decode_quotes(BODY, &pairs)
        );
        let unsupported = br#"{"message":"'USDXXX' \"not\" supported","code":1002}"#;
        assert_eq!(
            decode_quotes_from_reader(&unsupported[..], &pairs, unexpected),
            decode_quotes(unsupported, &pairs)
        );
        for body in [
            &b"<html>"[..],
            b"{\"rates\":{\"EURUSD\":{\"rate\":1.1",
            b"{} trailing",
        ] {
            assert!(matches!(
                decode_quotes_from_reader(body, &pairs, unexpected),
                Err(RatesError::Malformed(_))
            ));
        }
        // A read that fails is the caller's to name.
        assert_eq!(
            decode_quotes_from_reader(Failing, &pairs, |error| {
                assert_eq!(error.kind(), io::ErrorKind::ConnectionReset);
                RatesError::Connect(error.to_string())
            }),
            Err(RatesError::Connect("cut".to_owned()))
        );
    }

    #[test]
    fn non_success_status_wins_over_the_body() {
        assert_eq!(
            interpret_response(503, Received::from(BODY.to_vec()), &[pair("EURUSD")]),
            Err(RatesError::UpstreamStatus(503))
        );
    }
}
