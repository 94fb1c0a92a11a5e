//! mock-rates' reading of a client's bytes: the HTTP/1.1 request head, then what the routes
//! read from it (the `pairs` query of `/api/live`, the admin `Authorization` header).
//!
//! Input: the bytes a client sent, from the start of a request.

#![no_main]

use application::RatesError;
use domain::{Currency, CurrencyPair};
use libfuzzer_sys::fuzz_target;
use mock_rates::fuzzing::{
    LivePairs, RequestHead, admin_authorized, live_answer, parse_request_head,
};
use rates_common::decode_quotes;

/// mock-rates' limits: a request head of 16 KiB at most, a body of 64 KiB.
const MAX_HEAD: usize = 16 * 1024;
const MAX_BODY: usize = 64 * 1024;
/// The statuses a refused head gets: 400, 413, 431, 501, 505.
const REFUSALS: [u16; 5] = [400, 413, 431, 501, 505];
/// The admin token the header is checked against.
const TOKEN: &str = "fuzz-token";
/// The timestamp (Unix seconds) the live answers quote.
const TIMESTAMP: u64 = 1_732_900_000;

fuzz_target!(|data: &[u8]| {
    let parsed = parse_request_head(data);
    match &parsed {
        Ok(Some(head)) => check_head(data, head),
        Ok(None) => assert!(data.len() <= MAX_HEAD, "{} bytes still wait", data.len()),
        Err(status) => assert!(REFUSALS.contains(status), "refused with {status}"),
    }
    // The bytes arrive in any number of reads: a head complete or refused after the first
    // part is the same head, or refused too, after all of it.
    let len = data.len();
    for split in [1, len / 3, len / 2, len - len / 3, len.saturating_sub(1)] {
        if split == 0 || split >= len {
            continue;
        }
        match (parse_request_head(&data[..split]), &parsed) {
            (Ok(Some(early)), Ok(Some(head))) => assert_eq!(&early, head, "split at {split}"),
            (Ok(None), _) | (Err(_), Err(_)) => {}
            (early, whole) => panic!("split at {split}: {early:?}, then {whole:?}"),
        }
    }
    if let Ok(Some(head)) = parsed {
        check_live_answer(head.query);
        check_admin_access(head.authorization);
    }
});

fn check_head(data: &[u8], head: &RequestHead<'_>) {
    assert!(head.len <= data.len() && head.len <= MAX_HEAD, "{head:?}");
    assert!(data[..head.len].ends_with(b"\r\n\r\n"), "{head:?}");
    assert!(head.content_length <= MAX_BODY, "{head:?}");
    assert!(
        head.path.starts_with('/') && !head.path.contains('?'),
        "{head:?}"
    );
    let target_bytes = head
        .path
        .bytes()
        .chain(head.query.into_iter().flat_map(str::bytes));
    assert!(
        target_bytes.into_iter().all(|byte| byte.is_ascii_graphic()),
        "{head:?}"
    );

    // The request line, after any empty lines: METHOD SP target SP HTTP/1.x CRLF.
    let line_start = data
        .iter()
        .position(|&byte| byte != b'\r' && byte != b'\n')
        .expect("a complete head has a request line");
    let line = &data[line_start..head.len];
    let method_len = line
        .iter()
        .position(|&byte| byte == b' ')
        .expect("a request line has a space");
    let method = &line[..method_len];
    let expected_method = match method {
        b"GET" | b"POST" | b"PUT" => std::str::from_utf8(method).expect("ASCII"),
        _ => "other",
    };
    assert_eq!(head.method, expected_method, "{head:?}");
    let mut target = head.path.to_owned();
    if let Some(query) = head.query {
        target = format!("{target}?{query}");
    }
    let rest = &line[method_len + 1..];
    assert!(rest.starts_with(target.as_bytes()), "{head:?}");
    let version = &rest[target.len()..];
    let expected_version: &[u8] = if head.http10 {
        b" HTTP/1.0\r\n"
    } else {
        b" HTTP/1.1\r\n"
    };
    assert!(version.starts_with(expected_version), "{head:?}");

    if let Some(authorization) = head.authorization {
        let start = authorization.as_ptr().addr() - data.as_ptr().addr();
        assert!(start + authorization.len() <= head.len, "{head:?}");
        let is_space = |byte: Option<&u8>| matches!(byte, Some(b' ' | b'\t'));
        assert!(!is_space(authorization.first()) && !is_space(authorization.last()));
    }
}

/// The live body for a query is what the adapters' decoder reads back as the same pairs and
/// digits, the API's 1002 for an unknown pair, or its 1001 when none is asked for.
fn check_live_answer(query: Option<&str>) {
    let (pairs, body) = live_answer(query, TIMESTAMP);
    let eurusd = [pair("EURUSD")];
    match pairs {
        LivePairs::Known(symbols) => {
            assert!(!symbols.is_empty(), "{query:?}");
            let asked: Vec<CurrencyPair> = symbols.iter().map(|symbol| pair(symbol)).collect();
            let quotes = decode_quotes(&body, &asked).unwrap_or_else(|error| {
                panic!("{query:?}: {error} in {}", String::from_utf8_lossy(&body))
            });
            assert_eq!(quotes.len(), symbols.len(), "{query:?}: {symbols:?}");
            for (symbol, pair) in symbols.iter().zip(&asked) {
                let quote = quotes.get(pair).expect("decoded above");
                assert_eq!(
                    Some(quote.rate.to_string().as_str()),
                    mock_rates::rate_text(symbol)
                );
                assert_eq!(
                    u64::try_from(quote.timestamp.unix_millis()),
                    Ok(TIMESTAMP * 1000)
                );
            }
        }
        LivePairs::Unknown(symbol) => {
            let expected = format!("The currency pair '{symbol}' was not recognised or supported");
            assert_eq!(
                decode_quotes(&body, &eurusd),
                Err(RatesError::UnsupportedPair(expected)),
                "{query:?}: {}",
                String::from_utf8_lossy(&body)
            );
        }
        LivePairs::Missing => assert!(
            matches!(
                decode_quotes(&body, &eurusd),
                Err(RatesError::Malformed(message)) if message.contains("1001")
            ),
            "{query:?}"
        ),
    }
}

/// Exactly `Bearer TOKEN`, the scheme in any case, opens the admin endpoints.
fn check_admin_access(authorization: Option<&[u8]>) {
    let expected = authorization.is_some_and(|value| {
        value.len() == "Bearer ".len() + TOKEN.len()
            && value[..7].eq_ignore_ascii_case(b"Bearer ")
            && &value[7..] == TOKEN.as_bytes()
    });
    assert_eq!(
        admin_authorized(TOKEN, authorization),
        expected,
        "{:?}",
        authorization.map(String::from_utf8_lossy)
    );
}

fn pair(symbol: &str) -> CurrencyPair {
    let currency = |code| Currency::parse(code).expect("mock-rates quotes known currencies");
    CurrencyPair::new(currency(&symbol[..3]), currency(&symbol[3..]))
}
