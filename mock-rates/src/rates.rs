//! The rate table and the Free Forex API's JSON payloads built from it.

use std::sync::OnceLock;

use bytes::BytesMut;

use crate::reply::decimal;

/// Realistic late-2025 mid rates, kept as text so clients see exactly these digits.
///
/// Sorted by pair so lookups can binary-search; cross rates agree to about 1e-4.
const RATES: &[(&str, &str)] = &[
    ("AUDUSD", "0.65432"),
    ("EURGBP", "0.87611"),
    ("EURUSD", "1.16025"),
    ("GBPUSD", "1.32436"),
    ("NZDUSD", "0.57218"),
    ("USDAED", "3.6725"),
    ("USDAUD", "1.528304"),
    ("USDBHD", "0.376015"),
    ("USDBRL", "5.3385"),
    ("USDCAD", "1.39985"),
    ("USDCHF", "0.80465"),
    ("USDCLP", "925.3125"),
    ("USDCNY", "7.0748"),
    ("USDCOP", "3764.5025"),
    ("USDCZK", "20.8312"),
    ("USDDKK", "6.43722"),
    ("USDEGP", "47.4150"),
    ("USDEUR", "0.861883"),
    ("USDGBP", "0.755082"),
    ("USDHKD", "7.78425"),
    ("USDHUF", "328.4615"),
    ("USDIDR", "16652.3500"),
    ("USDILS", "3.26350"),
    ("USDINR", "89.4265"),
    ("USDISK", "127.3500"),
    ("USDJOD", "0.709015"),
    ("USDJPY", "156.4295"),
    ("USDKRW", "1468.2500"),
    ("USDKWD", "0.306920"),
    ("USDMXN", "18.3215"),
    ("USDMYR", "4.13350"),
    ("USDNGN", "1451.2500"),
    ("USDNOK", "10.1245"),
    ("USDNZD", "1.747702"),
    ("USDOMR", "0.384505"),
    ("USDPHP", "58.9350"),
    ("USDPKR", "281.3500"),
    ("USDPLN", "3.65485"),
    ("USDRUB", "78.2500"),
    ("USDSAR", "3.75020"),
    ("USDSEK", "9.43215"),
    ("USDSGD", "1.29735"),
    ("USDTHB", "32.1850"),
    ("USDTND", "2.94150"),
    ("USDTRY", "42.4885"),
    ("USDTWD", "31.3650"),
    ("USDUAH", "41.6550"),
    ("USDVND", "26372.5000"),
    ("USDZAR", "17.1385"),
];

/// Every supported pair with its rate as text, sorted by pair.
pub fn rate_table() -> &'static [(&'static str, &'static str)] {
    RATES
}

/// The rate of `pair` (upper case, e.g. `"EURUSD"`) as text, if supported.
pub fn rate_text(pair: &str) -> Option<&'static str> {
    RATES
        .binary_search_by(|(known, _)| (*known).cmp(pair))
        .ok()
        .map(|index| RATES[index].1)
}

/// What the `pairs` parameter of one `/api/live` query asks for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum PairsQuery {
    /// No `pairs` parameter, or no pair in it: code 1001.
    Missing,
    /// Every pair is supported: the distinct pairs in the order first asked.
    Known(Vec<(&'static str, &'static str)>),
    /// The first unsupported pair, upper-cased: code 1002.
    Unknown(String),
}

/// Reads the `pairs` parameter of a query string (without the `?`).
///
/// Pairs are case-insensitive, separated by commas (also `%2C`); empty items and
/// duplicates are ignored, as the answer is a JSON object keyed by pair.
pub(crate) fn parse_pairs(query: Option<&str>) -> PairsQuery {
    let Some(value) = query.and_then(|query| query_param(query, "pairs")) else {
        return PairsQuery::Missing;
    };
    let value = percent_decode(value);
    let mut known: Vec<(&'static str, &'static str)> = Vec::new();
    // The table entries already in `known`, one bit each.
    let mut seen = 0u64;
    for item in value
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
    {
        let Some(index) = lookup_ignoring_case(item) else {
            return PairsQuery::Unknown(item.to_ascii_uppercase());
        };
        if seen & (1 << index) == 0 {
            seen |= 1 << index;
            known.push(RATES[index]);
        }
    }
    if known.is_empty() {
        PairsQuery::Missing
    } else {
        PairsQuery::Known(known)
    }
}

// `parse_pairs` marks the entries it has seen in a u64.
const _: () = assert!(RATES.len() <= 64);

/// The index of `item`'s entry in the table, whatever its case.
fn lookup_ignoring_case(item: &str) -> Option<usize> {
    // Every pair is six ASCII letters: compared as one number, in the text's order.
    let letters: [u8; 6] = item.as_bytes().try_into().ok()?;
    let wanted = pair_key(letters.map(|letter| letter.to_ascii_uppercase()));
    RATES
        .binary_search_by_key(&wanted, |(pair, _)| {
            <[u8; 6]>::try_from(pair.as_bytes()).map_or(0, pair_key)
        })
        .ok()
}

/// Six letters as a number that sorts as the text does.
fn pair_key(letters: [u8; 6]) -> u64 {
    let mut key = [0u8; 8];
    key[2..].copy_from_slice(&letters);
    u64::from_be_bytes(key)
}

/// The raw value of the first `name` parameter in `query`.
pub(crate) fn query_param<'q>(query: &'q str, name: &str) -> Option<&'q str> {
    // By bytes: `&` and `=` are ASCII, so every cut falls between characters.
    let mut rest = query;
    loop {
        let end = rest
            .bytes()
            .position(|byte| byte == b'&')
            .unwrap_or(rest.len());
        let param = &rest[..end];
        match param.bytes().position(|byte| byte == b'=') {
            Some(equals) if &param[..equals] == name => return Some(&param[equals + 1..]),
            None if param == name => return Some(""),
            _ => {}
        }
        rest = rest.get(end + 1..)?;
    }
}

/// Decodes `%XX` escapes and `+` (a space in forms); malformed escapes stay as they are.
fn percent_decode(value: &str) -> std::borrow::Cow<'_, str> {
    if !value.bytes().any(|byte| byte == b'%' || byte == b'+') {
        return std::borrow::Cow::Borrowed(value);
    }
    let bytes = value.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'%' => {
                let escaped = bytes
                    .get(index + 1..index + 3)
                    .and_then(|hex| std::str::from_utf8(hex).ok())
                    .and_then(|hex| u8::from_str_radix(hex, 16).ok());
                if let Some(byte) = escaped {
                    decoded.push(byte);
                    index += 3;
                    continue;
                }
                decoded.push(b'%');
            }
            b'+' => decoded.push(b' '),
            byte => decoded.push(byte),
        }
        index += 1;
    }
    std::borrow::Cow::Owned(String::from_utf8_lossy(&decoded).into_owned())
}

/// Writes the answer to one `/api/live` query into `body`.
pub(crate) fn write_live_body(query: &PairsQuery, timestamp: u64, body: &mut BytesMut) {
    match query {
        PairsQuery::Known(pairs) => {
            body.extend_from_slice(b"{\"rates\":");
            write_quotes(pairs, timestamp, body);
            body.extend_from_slice(b",\"code\":200}");
        }
        PairsQuery::Missing => {
            body.extend_from_slice(b"{\"message\":\"'pairs' parameter is required\"");
            write_supported_pairs(body);
            body.extend_from_slice(b",\"code\":1001}");
        }
        PairsQuery::Unknown(pair) => {
            body.extend_from_slice(b"{\"message\":");
            let message = format!("The currency pair '{pair}' was not recognised or supported");
            body.extend_from_slice(json_string(&message).as_bytes());
            write_supported_pairs(body);
            body.extend_from_slice(b",\"code\":1002}");
        }
    }
}

/// Writes `{"EURUSD":{"rate":1.16025,"timestamp":1732900000},...}`: the `rates` object.
pub(crate) fn write_quotes(pairs: &[(&str, &str)], timestamp: u64, body: &mut BytesMut) {
    let mut digits = [0u8; 20];
    let timestamp = decimal(timestamp, &mut digits);
    body.extend_from_slice(b"{");
    for (index, (pair, rate)) in pairs.iter().enumerate() {
        if index > 0 {
            body.extend_from_slice(b",");
        }
        body.extend_from_slice(b"\"");
        body.extend_from_slice(pair.as_bytes());
        body.extend_from_slice(b"\":{\"rate\":");
        body.extend_from_slice(rate.as_bytes());
        body.extend_from_slice(b",\"timestamp\":");
        body.extend_from_slice(timestamp);
        body.extend_from_slice(b"}");
    }
    body.extend_from_slice(b"}");
}

fn write_supported_pairs(body: &mut BytesMut) {
    static SUPPORTED: OnceLock<String> = OnceLock::new();
    let supported = SUPPORTED.get_or_init(|| {
        let names: Vec<&str> = RATES.iter().map(|(pair, _)| *pair).collect();
        format!(",\"supportedPairs\":{}", json_string_array(&names))
    });
    body.extend_from_slice(supported.as_bytes());
}

/// A JSON string literal; the pair in a 1002 message comes from the client, so escape it.
fn json_string(value: &str) -> String {
    serde_json::Value::from(value).to_string()
}

fn json_string_array(values: &[&str]) -> String {
    serde_json::Value::from(values.to_vec()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(pairs: &[&'static str]) -> PairsQuery {
        PairsQuery::Known(
            pairs
                .iter()
                .map(|pair| (*pair, rate_text(pair).unwrap()))
                .collect(),
        )
    }

    #[test]
    fn table_is_sorted_unique_and_lookups_work() {
        assert!(RATES.windows(2).all(|pair| pair[0].0 < pair[1].0));
        for (pair, rate) in rate_table() {
            assert_eq!(rate_text(pair), Some(*rate));
        }
        assert_eq!(rate_text("EURUSD"), Some("1.16025"));
        assert_eq!(rate_text("eurusd"), None);
        assert_eq!(rate_text("XXXYYY"), None);
    }

    #[test]
    fn table_covers_the_required_pairs() {
        let required = [
            "AUDUSD", "EURGBP", "EURUSD", "GBPUSD", "NZDUSD", "USDJPY", "USDCHF", "USDCAD",
            "USDCNY", "USDHKD", "USDSEK", "USDNOK", "USDDKK", "USDPLN", "USDCZK", "USDHUF",
            "USDMXN", "USDBRL", "USDINR", "USDKRW", "USDSGD", "USDZAR", "USDTRY", "USDTHB",
            "USDIDR", "USDILS", "USDKWD", "USDBHD", "USDJOD", "USDOMR", "USDTND", "USDAED",
            "USDSAR", "USDPHP", "USDMYR", "USDTWD", "USDVND", "USDCLP", "USDCOP", "USDISK",
            "USDEGP", "USDNGN", "USDPKR", "USDRUB", "USDUAH", "USDGBP", "USDEUR", "USDAUD",
            "USDNZD",
        ];
        for pair in required {
            assert!(rate_text(pair).is_some(), "{pair} missing");
        }
        assert!(
            RATES
                .iter()
                .filter(|(pair, _)| pair.starts_with("USD"))
                .count()
                >= 40
        );
    }

    #[test]
    fn rates_are_json_numbers_with_four_to_six_decimals() {
        for (pair, rate) in RATES {
            let (whole, fraction) = rate.split_once('.').unwrap();
            assert!(
                !whole.is_empty() && whole.bytes().all(|b| b.is_ascii_digit()),
                "{pair}"
            );
            assert!(whole == "0" || !whole.starts_with('0'), "{pair}");
            assert!((4..=6).contains(&fraction.len()), "{pair}");
            assert!(fraction.bytes().all(|b| b.is_ascii_digit()), "{pair}");
            assert!(serde_json::from_str::<f64>(rate).unwrap() > 0.0, "{pair}");
        }
    }

    #[test]
    fn cross_rates_are_consistent() {
        let rate = |pair| rate_text(pair).unwrap().parse::<f64>().unwrap();
        let close = |a: f64, b: f64| (a - b).abs() / b < 5e-4;
        assert!(close(rate("EURUSD") * rate("USDEUR"), 1.0));
        assert!(close(rate("GBPUSD") * rate("USDGBP"), 1.0));
        assert!(close(rate("AUDUSD") * rate("USDAUD"), 1.0));
        assert!(close(rate("NZDUSD") * rate("USDNZD"), 1.0));
        assert!(close(rate("EURUSD") / rate("GBPUSD"), rate("EURGBP")));
    }

    #[test]
    fn parses_pairs_case_insensitively_in_order() {
        assert_eq!(
            parse_pairs(Some("pairs=EURUSD,usdjpy")),
            known(&["EURUSD", "USDJPY"])
        );
        assert_eq!(parse_pairs(Some("pairs=UsdChf")), known(&["USDCHF"]));
    }

    #[test]
    fn decodes_escaped_commas_and_ignores_duplicates_and_empty_items() {
        assert_eq!(
            parse_pairs(Some("pairs=EURUSD%2CUSDJPY%2cEURUSD,,")),
            known(&["EURUSD", "USDJPY"])
        );
        assert_eq!(
            parse_pairs(Some("pairs=EURUSD%2C+USDJPY")),
            known(&["EURUSD", "USDJPY"])
        );
    }

    #[test]
    fn finds_pairs_among_other_parameters() {
        assert_eq!(parse_pairs(Some("x=1&pairs=GBPUSD&y")), known(&["GBPUSD"]));
        assert_eq!(
            parse_pairs(Some("pairs=GBPUSD&pairs=XXXYYY")),
            known(&["GBPUSD"])
        );
    }

    #[test]
    fn query_parameters_are_found_by_exact_name() {
        let find = |query, name| query_param(query, name);
        assert_eq!(find("pairs=EURUSD&size=100", "size"), Some("100"));
        assert_eq!(find("a&size=1&size=2", "size"), Some("1"));
        assert_eq!(find("size", "size"), Some(""));
        assert_eq!(find("size=", "size"), Some(""));
        assert_eq!(find("sizes=1&xsize=2&size", "size"), Some(""));
        assert_eq!(find("sizes=1&", "size"), None);
        assert_eq!(find("", "size"), None);
        assert_eq!(find("é=1&size=é", "size"), Some("é"));
    }

    #[test]
    fn missing_or_empty_pairs_is_1001() {
        for query in [
            None,
            Some(""),
            Some("pairs"),
            Some("pairs="),
            Some("pairs=,"),
            Some("other=EURUSD"),
            Some("pairsx=EURUSD"),
        ] {
            assert_eq!(parse_pairs(query), PairsQuery::Missing, "{query:?}");
        }
    }

    #[test]
    fn names_the_first_unknown_pair() {
        assert_eq!(
            parse_pairs(Some("pairs=EURUSD,xxxyyy,ABCDEF")),
            PairsQuery::Unknown("XXXYYY".into())
        );
        assert_eq!(
            parse_pairs(Some("pairs=EUR")),
            PairsQuery::Unknown("EUR".into())
        );
        assert_eq!(
            parse_pairs(Some("pairs=%ZZ")),
            PairsQuery::Unknown("%ZZ".into())
        );
        assert_eq!(
            parse_pairs(Some("pairs=%C3%A9")),
            PairsQuery::Unknown("é".into())
        );
    }

    #[test]
    fn live_body_has_the_exact_format() {
        let mut body = BytesMut::new();
        write_live_body(&known(&["EURUSD", "USDJPY"]), 1_732_900_000, &mut body);
        assert_eq!(
            std::str::from_utf8(&body).unwrap(),
            r#"{"rates":{"EURUSD":{"rate":1.16025,"timestamp":1732900000},"USDJPY":{"rate":156.4295,"timestamp":1732900000}},"code":200}"#
        );
    }

    #[test]
    fn error_bodies_have_the_exact_format() {
        let mut body = BytesMut::new();
        write_live_body(&PairsQuery::Unknown("X\"Y".into()), 0, &mut body);
        let value: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            value["message"],
            "The currency pair 'X\"Y' was not recognised or supported"
        );
        assert_eq!(value["code"], 1002);
        assert_eq!(
            value["supportedPairs"].as_array().unwrap().len(),
            RATES.len()
        );

        body.clear();
        write_live_body(&PairsQuery::Missing, 0, &mut body);
        let text = std::str::from_utf8(&body).unwrap();
        assert!(text.starts_with(
            r#"{"message":"'pairs' parameter is required","supportedPairs":["AUDUSD","EURGBP","#
        ));
        assert!(text.ends_with(r#""USDZAR"],"code":1001}"#));
    }
}
