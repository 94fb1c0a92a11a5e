//! What the cases share: the mock-rates they start, the client settings they choose, and the
//! checks they make.
//!
//! Timing: the only time bounds asserted are "a timeout did not fire early" and "a call did not
//! hang far past its timeout" (a generous guard), plus one lower bound that only a broken
//! concurrency cap could violate. A case that expects an answer gives its call
//! [`CALL_TIMEOUT`], which no call on loopback meets however loaded the machine; only the cases
//! that expect a timeout set the short [`TIMEOUT`] ([`timing_settings_for`]).

use std::cell::Cell;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use application::{
    PaymentRequest, ProcessedPayment, Quotes, RatesError, RatesErrorKind, RatesProvider,
    process_payment,
};
use domain::{Amount, Currency, CurrencyPair, Rate, RateTimestamp};
use mock_rates::{FaultMode, Faults, MockServer, Settings, TlsSettings, rate_text};
use rates_common::{BodyDecode, ClientSettings, HttpVersion};

/// Builds the adapter under test from the settings a case chooses.
pub type MakeProvider = dyn Fn(&ClientSettings) -> Box<dyn RatesProvider>;

/// Total timeout of the cases that expect one to fire: short to keep the suite quick.
pub(crate) const TIMEOUT: Duration = Duration::from_millis(400);
const CONNECT_TIMEOUT: Duration = Duration::from_millis(500);
/// Total timeout, connect timeout and wait for a pool slot of the cases that expect an answer
/// (or an error the upstream causes at once): far above any loopback call, so that the outcome
/// never depends on how busy the machine is.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// How late past its timeout a failing call may return: a hang guard, not a performance target.
pub(crate) const HANG_GUARD: Duration = Duration::from_millis(1500);

/// How early a timeout may fire: clients schedule timers in whole milliseconds, and ureq's
/// connect timeout was seen to fire 0.3 ms before the test's own clock said it was due.
pub(crate) const TIMER_SLACK: Duration = Duration::from_millis(5);

/// What the upstream speaks in a case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// HTTP/1.1 in the clear.
    Http,
    /// HTTP/1.1 over TLS, mock-rates' CA trusted through `extra_ca_pem`. The mock offers `h2`
    /// as well by ALPN; the client, on `http_version` "1.1", offers `http/1.1` alone.
    Https,
    /// HTTP/2 over TLS, by ALPN: the client built with `http_version` "2".
    H2,
}

thread_local! {
    /// The protocol of the case running on this thread (each test has its own thread).
    static PROTOCOL: Cell<Protocol> = const { Cell::new(Protocol::Http) };
    /// How the clients of the case running on this thread decode the answer.
    static DECODE: Cell<BodyDecode> = const { Cell::new(BodyDecode::Whole) };
}

/// Makes the cases run on this thread from now on go over `protocol`; the generated tests call
/// it before their case.
pub fn run_over(protocol: Protocol) {
    PROTOCOL.with(|cell| cell.set(protocol));
}

/// Makes the clients of the cases run on this thread from now on decode the answer as
/// `decode` says; the generated tests of `streamed_contract_tests!` call it before their case.
pub fn decode_with(decode: BodyDecode) {
    DECODE.with(|cell| cell.set(decode));
}

pub(crate) fn protocol() -> Protocol {
    PROTOCOL.with(Cell::get)
}

/// The URL scheme of this thread's protocol.
pub(crate) fn scheme() -> &'static str {
    match protocol() {
        Protocol::Http => "http",
        Protocol::Https | Protocol::H2 => "https",
    }
}

/// The HTTP version clients are built with for this thread's protocol.
pub(crate) fn http_version() -> HttpVersion {
    match protocol() {
        Protocol::Http | Protocol::Https => HttpVersion::Http11,
        Protocol::H2 => HttpVersion::Http2,
    }
}

/// Starts mock-rates with `settings`, over this thread's protocol.
pub(crate) fn start(settings: Settings) -> MockServer {
    let tls = (protocol() != Protocol::Http).then(TlsSettings::default);
    MockServer::start(Settings { tls, ..settings }).expect("mock-rates starts on 127.0.0.1:0")
}

pub(crate) fn faulty(faults: Faults) -> Settings {
    Settings {
        faults,
        ..Settings::default()
    }
}

pub(crate) fn fault(mode: FaultMode) -> Faults {
    Faults {
        mode,
        ..Faults::default()
    }
}

pub(crate) fn status(code: u16) -> Faults {
    Faults {
        mode: FaultMode::Status,
        status: code,
        ..Faults::default()
    }
}

/// Timeouts no answered call meets, and this thread's HTTP version and decoding, everything
/// else as configured by default.
pub(crate) fn client_settings(base_url: String) -> ClientSettings {
    ClientSettings {
        http_version: http_version(),
        decode: DECODE.with(Cell::get),
        connect_timeout: CALL_TIMEOUT,
        timeout: CALL_TIMEOUT,
        pool_wait: CALL_TIMEOUT,
        ..ClientSettings::for_base_url(base_url)
    }
}

/// The settings for `mock` in a case that expects the total timeout ([`TIMEOUT`]) to fire.
pub(crate) fn timing_settings_for(mock: &MockServer) -> ClientSettings {
    ClientSettings {
        connect_timeout: CONNECT_TIMEOUT,
        timeout: TIMEOUT,
        ..settings_for(mock)
    }
}

/// The settings for `mock`: its URL, and its CA when it speaks TLS.
pub(crate) fn settings_for(mock: &MockServer) -> ClientSettings {
    ClientSettings {
        extra_ca_pem: mock.ca_pem().map(|pem| Arc::from(pem.as_bytes())),
        ..client_settings(mock.base_url())
    }
}

pub(crate) fn currency(code: &str) -> Currency {
    Currency::parse(code).expect("a known currency")
}

pub(crate) fn pair(symbol: &str) -> CurrencyPair {
    CurrencyPair::new(currency(&symbol[..3]), currency(&symbol[3..]))
}

/// The rate mock-rates serves for `symbol`, from the exact text it sends.
pub(crate) fn served_rate(symbol: &str) -> Rate {
    let text = rate_text(symbol).expect("mock-rates serves the pair");
    Rate::parse(text).expect("mock-rates serves a valid rate")
}

pub(crate) fn payment(amount: &str, from: &str, to: &str) -> PaymentRequest {
    PaymentRequest {
        reference: Some("contract".to_owned()),
        amount: Amount::parse(amount, currency(from)).expect("a valid amount"),
        target_currency: currency(to),
    }
}

/// What the conversion must come to with `rate`, by the domain's own rule.
pub(crate) fn expected_amount(request: &PaymentRequest, rate: Rate) -> rust_decimal::Decimal {
    domain::convert(request.amount, rate, request.target_currency)
        .expect("the expected conversion is representable")
        .converted_amount
}

pub(crate) async fn pay(rates: &dyn RatesProvider, request: PaymentRequest) -> ProcessedPayment {
    process_payment(rates, request)
        .await
        .unwrap_or_else(|error| panic!("the payment failed: {error}"))
}

pub(crate) async fn fetch(rates: &dyn RatesProvider, symbols: &[&str]) -> Quotes {
    let pairs: Vec<CurrencyPair> = symbols.iter().map(|symbol| pair(symbol)).collect();
    rates
        .fetch_quotes(&pairs)
        .await
        .unwrap_or_else(|error| panic!("fetching {symbols:?} failed: {error}"))
}

pub(crate) async fn fetch_error(rates: &dyn RatesProvider, symbols: &[&str]) -> RatesError {
    let pairs: Vec<CurrencyPair> = symbols.iter().map(|symbol| pair(symbol)).collect();
    match rates.fetch_quotes(&pairs).await {
        Ok(quotes) => panic!("fetching {symbols:?} should have failed, got {quotes:?}"),
        Err(error) => error,
    }
}

/// Checks that `symbol` came back with exactly the digits mock-rates sent.
pub(crate) fn assert_exact(quotes: &Quotes, symbol: &str) {
    let quote = quotes
        .get(&pair(symbol))
        .unwrap_or_else(|| panic!("the answer has no {symbol}: {quotes:?}"));
    assert_eq!(
        quote.rate.to_string(),
        rate_text(symbol).expect("mock-rates serves the pair"),
        "{symbol} lost digits on the way"
    );
}

pub(crate) fn assert_kind(error: &RatesError, kind: RatesErrorKind) {
    assert_eq!(error.kind(), kind, "unexpected error: {error}");
}

/// A timeout that fired neither early nor long after it was due.
pub(crate) fn assert_timed_out(error: &RatesError, elapsed: Duration, timeout: Duration) {
    assert_kind(error, RatesErrorKind::Timeout);
    assert!(
        elapsed + TIMER_SLACK >= timeout,
        "timed out after {elapsed:?}, before the {timeout:?} timeout"
    );
    assert!(
        elapsed <= timeout + HANG_GUARD,
        "timed out only after {elapsed:?}, long past the {timeout:?} timeout"
    );
}

/// Within a minute of now: rules out a seconds/milliseconds mix-up (a factor of 1000).
pub(crate) fn assert_recent(timestamp: RateTimestamp) {
    let now_millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_millis() as i64);
    assert!(
        (timestamp.unix_millis() - now_millis).abs() < 60_000,
        "the rate timestamp {} ms is not now ({now_millis} ms)",
        timestamp.unix_millis()
    );
}
