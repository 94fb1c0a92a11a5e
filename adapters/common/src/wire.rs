//! The Free Forex API's wire format: the request path and the response body.
//!
//! `{"rates":{"EURUSD":{"rate":1.17,"timestamp":1732900000}},"code":200}` on success;
//! `{"message":"...","supportedPairs":[...],"code":1001|1002}` on a bad request (sent with
//! HTTP 200 by the real API). The body is decoded in one `serde_json::from_slice` into borrowed
//! types (an error body's message excepted): no `String` in between, and each rate is read
//! from its exact JSON text.

use std::fmt::{self, Write as _};

use application::{Quotes, RatesError};
use domain::{CurrencyPair, Quote, Rate, RateTimestamp};
use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use serde_json::value::RawValue;

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
/// `UpstreamStatus` for any non-2xx status; otherwise as [`decode_quotes`].
pub(crate) fn interpret_response(
    status: u16,
    body: &[u8],
    pairs: &[CurrencyPair],
) -> Result<Quotes, RatesError> {
    if !(200..300).contains(&status) {
        return Err(RatesError::UpstreamStatus(status));
    }
    decode_quotes(body, pairs)
}

/// Decodes a Free Forex body and picks the quotes for `pairs`.
///
/// # Errors
/// `UnsupportedPair` for the API's code 1002; `Malformed` for a body that is not the expected
/// JSON, any other API error code, a rate that is not a positive number, a timestamp outside
/// 1970 to 3000 (see [`RateTimestamp::from_unix`]), or a missing pair.
pub fn decode_quotes(body: &[u8], pairs: &[CurrencyPair]) -> Result<Quotes, RatesError> {
    let live: LiveBody<'_> = serde_json::from_slice(body)
        .map_err(|error| RatesError::Malformed(format!("not a Free Forex body: {error}")))?;
    match live.code {
        Some(200) | None if live.rates.is_some() => {}
        Some(1002) => {
            return Err(RatesError::UnsupportedPair(
                live.message
                    .unwrap_or_else(|| "unsupported pair".to_owned()),
            ));
        }
        code => {
            return Err(RatesError::Malformed(format!(
                "upstream code {}: {}",
                code.map_or_else(|| "none".to_owned(), |c| c.to_string()),
                live.message.as_deref().unwrap_or("no rates")
            )));
        }
    }
    let rates = live.rates.unwrap_or_default();
    let mut quotes = Quotes::with_capacity(pairs.len());
    for pair in pairs {
        let raw = rates
            .find(*pair)
            .ok_or_else(|| RatesError::Malformed(format!("the answer has no rate for {pair}")))?;
        let malformed = |error| RatesError::Malformed(format!("{pair}: {error}"));
        let rate = Rate::parse(raw.rate.get()).map_err(malformed)?;
        let timestamp = RateTimestamp::from_unix(raw.timestamp).map_err(malformed)?;
        quotes.insert(*pair, Quote { rate, timestamp });
    }
    Ok(quotes)
}

#[derive(Deserialize)]
struct LiveBody<'a> {
    #[serde(borrow, default)]
    rates: Option<RatesMap<'a>>,
    #[serde(default)]
    code: Option<i64>,
    /// Owned: a `&str` cannot hold a string with an escape (`\"`, `\/`, `\u00e9`), which
    /// would fail the whole body; only error bodies carry a message.
    #[serde(default)]
    message: Option<String>,
}

#[derive(Deserialize)]
struct RawQuote<'a> {
    /// The number's own text, so no digit is lost to `f64`.
    #[serde(borrow)]
    rate: &'a RawValue,
    timestamp: i64,
}

/// The `rates` object kept as a small list of borrowed entries: it holds one to a few pairs,
/// so a linear scan beats hashing and costs one allocation.
#[derive(Default)]
struct RatesMap<'a>(Vec<(&'a str, RawQuote<'a>)>);

impl<'a> RatesMap<'a> {
    fn find(&self, pair: CurrencyPair) -> Option<&RawQuote<'a>> {
        let (base, quote) = (pair.base.code(), pair.quote.code());
        self.0
            .iter()
            .find(|(symbol, _)| {
                symbol.len() == 6 && symbol.starts_with(base) && symbol.ends_with(quote)
            })
            .map(|(_, raw)| raw)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for RatesMap<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor;
        impl<'de> Visitor<'de> for EntriesVisitor {
            type Value = RatesMap<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of pair symbol to {rate, timestamp}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(2).min(16));
                while let Some(entry) = map.next_entry::<&'de str, RawQuote<'de>>()? {
                    entries.push(entry);
                }
                Ok(RatesMap(entries))
            }
        }
        deserializer.deserialize_map(EntriesVisitor)
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
    fn non_success_status_wins_over_the_body() {
        assert_eq!(
            interpret_response(503, BODY, &[pair("EURUSD")]),
            Err(RatesError::UpstreamStatus(503))
        );
    }
}
