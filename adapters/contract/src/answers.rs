//! Cases on what a healthy upstream answers: exact rates, inverse and cross rates, the API's
//! own errors, HTTP statuses, and the body's framing, size, content type and timestamp unit.

use application::{RatesError, RatesErrorKind};
use domain::{Currency, Rate};
use mock_rates::{ContentType, FaultMode, Framing, Settings, TimestampUnit, rate_table};
use rates_common::ClientSettings;

use crate::MakeProvider;
use crate::support::{
    assert_exact, assert_kind, assert_recent, expected_amount, fault, faulty, fetch, fetch_error,
    pair, pay, payment, served_rate, settings_for, start, status,
};

/// EUR->USD is quoted directly: its digits arrive intact and the payment uses them.
pub(crate) async fn direct_pair_keeps_the_exact_rate(make: &MakeProvider) {
    let mock = start(Settings::default());
    let rates = make(&settings_for(&mock));
    let quotes = fetch(&*rates, &["EURUSD"]).await;
    assert_eq!(quotes.len(), 1);
    assert_exact(&quotes, "EURUSD");

    let request = payment("100", "EUR", "USD");
    let expected = expected_amount(&request, served_rate("EURUSD"));
    let paid = pay(&*rates, request).await;
    assert_eq!(paid.conversion.rate, served_rate("EURUSD"));
    assert_eq!(paid.conversion.converted_amount, expected);
    assert_recent(paid.rate_timestamp.expect("a fetched rate has a timestamp"));
    assert_eq!(mock.state().stats().live_requests, 2);
}

/// GBP->EUR is not quoted; its inverse EURGBP is, and is inverted.
pub(crate) async fn inverse_pair_is_fetched_and_inverted(make: &MakeProvider) {
    let mock = start(Settings::default());
    let rates = make(&settings_for(&mock));
    let request = payment("100", "GBP", "EUR");
    let inverse = served_rate("EURGBP").inverse();
    let expected = expected_amount(&request, inverse);
    let paid = pay(&*rates, request).await;
    assert_eq!(paid.conversion.rate, inverse);
    assert_eq!(paid.conversion.converted_amount, expected);
    assert_eq!(mock.state().stats().live_requests, 1);
}

/// EUR->JPY goes through USD: EURUSD and USDJPY in one upstream call.
pub(crate) async fn cross_rate_is_fetched_in_one_call(make: &MakeProvider) {
    let mock = start(Settings::default());
    let rates = make(&settings_for(&mock));
    let request = payment("100", "EUR", "JPY");
    let cross = served_rate("EURUSD")
        .then(served_rate("USDJPY"))
        .expect("the cross rate is in range");
    let expected = expected_amount(&request, cross);
    let paid = pay(&*rates, request).await;
    assert_eq!(paid.conversion.rate, cross);
    assert_eq!(paid.conversion.converted_amount, expected);
    assert_eq!(mock.state().stats().live_requests, 1);

    let quotes = fetch(&*rates, &["EURUSD", "USDJPY"]).await;
    assert_eq!(quotes.len(), 2);
    assert_exact(&quotes, "EURUSD");
    assert_exact(&quotes, "USDJPY");
    assert_eq!(mock.state().stats().live_requests, 2);
}

/// EUR->EUR needs no rate: nothing reaches the upstream.
pub(crate) async fn same_currency_makes_no_call(make: &MakeProvider) {
    let mock = start(Settings::default());
    let rates = make(&settings_for(&mock));
    let request = payment("12.50", "EUR", "EUR");
    let amount = request.amount.value();
    let paid = pay(&*rates, request).await;
    assert_eq!(paid.conversion.rate, Rate::ONE);
    assert_eq!(paid.conversion.converted_amount, amount);
    assert_eq!(paid.rate_timestamp, None);
    let stats = mock.state().stats();
    assert_eq!((stats.live_requests, stats.connections), (0, 0));
}

/// A USDxxx pair the upstream does not know: code 1002 in an HTTP 200 answer.
pub(crate) async fn unknown_pair_is_unsupported(make: &MakeProvider) {
    let mock = start(Settings::default());
    let rates = make(&settings_for(&mock));
    let unserved = Currency::all()
        .map(|currency| format!("USD{currency}"))
        .find(|symbol| symbol != "USDUSD" && !rate_table().iter().any(|(known, _)| known == symbol))
        .expect("mock-rates does not serve every currency");
    let error = fetch_error(&*rates, &[&unserved]).await;
    assert!(
        matches!(&error, RatesError::UnsupportedPair(message) if message.contains(&unserved)),
        "{error:?}"
    );
}

pub(crate) async fn status_500_is_upstream_status(make: &MakeProvider) {
    let mock = start(faulty(status(500)));
    let rates = make(&settings_for(&mock));
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_eq!(error, RatesError::UpstreamStatus(500));
}

/// 503 with `Retry-After`: reported as is, not retried by the client.
pub(crate) async fn status_503_is_upstream_status(make: &MakeProvider) {
    let mock = start(faulty(status(503)));
    let rates = make(&settings_for(&mock));
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_eq!(error, RatesError::UpstreamStatus(503));
    assert_eq!(mock.state().stats().live_requests, 1);
}

pub(crate) async fn malformed_body_is_malformed(make: &MakeProvider) {
    let mock = start(faulty(fault(FaultMode::Malformed)));
    let rates = make(&settings_for(&mock));
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_kind(&error, RatesErrorKind::Malformed);
}

/// A body longer than `max_body_bytes` is refused, whatever its framing.
pub(crate) async fn body_over_the_limit_is_malformed(make: &MakeProvider) {
    for framing in [Framing::ContentLength, Framing::Chunked] {
        let mock = start(Settings {
            framing,
            ..Settings::default()
        });
        let rates = make(&ClientSettings {
            max_body_bytes: 16,
            ..settings_for(&mock)
        });
        let error = fetch_error(&*rates, &["EURUSD"]).await;
        assert_kind(&error, RatesErrorKind::Malformed);
    }
}

/// The real API sends JSON as `text/html`: the content type must not matter.
pub(crate) async fn html_content_type_is_accepted(make: &MakeProvider) {
    let mock = start(Settings {
        content_type: ContentType::Html,
        ..Settings::default()
    });
    let rates = make(&settings_for(&mock));
    assert_exact(&fetch(&*rates, &["EURUSD"]).await, "EURUSD");
}

/// Chunked bodies are read whole, and the connection stays usable after them.
pub(crate) async fn chunked_body_is_accepted(make: &MakeProvider) {
    let mock = start(Settings {
        framing: Framing::Chunked,
        ..Settings::default()
    });
    let rates = make(&settings_for(&mock));
    for _ in 0..3 {
        let quotes = fetch(&*rates, &["EURUSD", "USDJPY"]).await;
        assert_exact(&quotes, "EURUSD");
        assert_exact(&quotes, "USDJPY");
    }
    assert_eq!(mock.state().stats().connections, 1);
}

/// A 1 MiB answer (mock-rates' `/size/N`: the pairs asked for, then a history of points the
/// decoder reads past) under a limit above it: the exact rates, in content-length and chunked
/// framing, two calls on one connection.
pub(crate) async fn a_large_answer_is_read_whole(make: &MakeProvider) {
    const SIZE: usize = 1024 * 1024;
    for framing in [Framing::ContentLength, Framing::Chunked] {
        let mock = start(Settings {
            framing,
            ..Settings::default()
        });
        let settings = settings_for(&mock);
        let rates = make(&ClientSettings {
            base_url: format!("{}/size/{SIZE}", settings.base_url),
            max_body_bytes: 2 * SIZE,
            // Ample for 2 MiB through a debug build.
            timeout: std::time::Duration::from_secs(5),
            ..settings
        });
        for _ in 0..2 {
            let quotes = fetch(&*rates, &["EURUSD", "USDJPY"]).await;
            assert_exact(&quotes, "EURUSD");
            assert_exact(&quotes, "USDJPY");
        }
        let stats = mock.state().stats();
        assert_eq!(
            (stats.live_requests, stats.connections),
            (2, 1),
            "{framing:?}"
        );
    }
}

/// Seconds or milliseconds on the wire, the same instant once read.
pub(crate) async fn millisecond_timestamps_mean_the_same_instant(make: &MakeProvider) {
    let mut instants = Vec::new();
    for timestamp_unit in [TimestampUnit::Seconds, TimestampUnit::Millis] {
        let mock = start(Settings {
            timestamp_unit,
            ..Settings::default()
        });
        let rates = make(&settings_for(&mock));
        let quotes = fetch(&*rates, &["EURUSD"]).await;
        let quote = quotes.get(&pair("EURUSD")).expect("the answer has EURUSD");
        assert_recent(quote.timestamp);
        instants.push(quote.timestamp.unix_millis());
    }
    assert!(
        (instants[0] - instants[1]).abs() < 5_000,
        "seconds and milliseconds disagree: {instants:?}"
    );
}
