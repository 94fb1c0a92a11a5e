//! The contract's cases. Each starts its own mock-rates, builds its own client through `make`,
//! and checks the adapter through the port (and the payment use case where it says more).
//!
//! Timing: the only time bounds asserted are "a timeout did not fire early" and "a call did not
//! hang far past its timeout" (a generous guard), plus one lower bound that only a broken
//! concurrency cap could violate.

use std::net::SocketAddr;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use application::{
    PaymentRequest, ProcessedPayment, Quotes, RatesError, RatesErrorKind, RatesProvider,
    process_payment,
};
use domain::{Amount, Currency, CurrencyPair, Rate, RateTimestamp};
use mock_rates::{
    ContentType, FaultMode, Faults, Framing, MockServer, Settings, TimestampUnit, rate_table,
    rate_text,
};
use rates_common::ClientSettings;

use crate::MakeProvider;

/// Total timeout of most cases: short to keep the suite quick, ample for a loopback call.
const TIMEOUT: Duration = Duration::from_millis(400);
const CONNECT_TIMEOUT: Duration = Duration::from_millis(500);
/// How late past its timeout a failing call may return: a hang guard, not a performance target.
const HANG_GUARD: Duration = Duration::from_millis(1500);
/// How early a timeout may fire: clients schedule timers in whole milliseconds, and ureq's
/// connect timeout was seen to fire 0.3 ms before the test's own clock said it was due.
const TIMER_SLACK: Duration = Duration::from_millis(5);

fn start(settings: Settings) -> MockServer {
    MockServer::start(settings).expect("mock-rates starts on 127.0.0.1:0")
}

fn faulty(faults: Faults) -> Settings {
    Settings {
        faults,
        ..Settings::default()
    }
}

fn fault(mode: FaultMode) -> Faults {
    Faults {
        mode,
        ..Faults::default()
    }
}

fn status(code: u16) -> Faults {
    Faults {
        mode: FaultMode::Status,
        status: code,
        ..Faults::default()
    }
}

/// Short timeouts, everything else as configured by default.
fn client_settings(base_url: String) -> ClientSettings {
    ClientSettings {
        connect_timeout: CONNECT_TIMEOUT,
        timeout: TIMEOUT,
        pool_wait: Duration::from_millis(100),
        ..ClientSettings::for_base_url(base_url)
    }
}

fn settings_for(mock: &MockServer) -> ClientSettings {
    client_settings(mock.base_url())
}

fn currency(code: &str) -> Currency {
    Currency::parse(code).expect("a known currency")
}

fn pair(symbol: &str) -> CurrencyPair {
    CurrencyPair::new(currency(&symbol[..3]), currency(&symbol[3..]))
}

/// The rate mock-rates serves for `symbol`, from the exact text it sends.
fn served_rate(symbol: &str) -> Rate {
    let text = rate_text(symbol).expect("mock-rates serves the pair");
    Rate::parse(text).expect("mock-rates serves a valid rate")
}

fn payment(amount: &str, from: &str, to: &str) -> PaymentRequest {
    PaymentRequest {
        reference: Some("contract".to_owned()),
        amount: Amount::parse(amount, currency(from)).expect("a valid amount"),
        target_currency: currency(to),
    }
}

/// What the conversion must come to with `rate`, by the domain's own rule.
fn expected_amount(request: &PaymentRequest, rate: Rate) -> rust_decimal::Decimal {
    domain::convert(request.amount, rate, request.target_currency)
        .expect("the expected conversion is representable")
        .converted_amount
}

async fn pay(rates: &dyn RatesProvider, request: PaymentRequest) -> ProcessedPayment {
    process_payment(rates, request)
        .await
        .unwrap_or_else(|error| panic!("the payment failed: {error}"))
}

async fn fetch(rates: &dyn RatesProvider, symbols: &[&str]) -> Quotes {
    let pairs: Vec<CurrencyPair> = symbols.iter().map(|symbol| pair(symbol)).collect();
    rates
        .fetch_quotes(&pairs)
        .await
        .unwrap_or_else(|error| panic!("fetching {symbols:?} failed: {error}"))
}

async fn fetch_error(rates: &dyn RatesProvider, symbols: &[&str]) -> RatesError {
    let pairs: Vec<CurrencyPair> = symbols.iter().map(|symbol| pair(symbol)).collect();
    match rates.fetch_quotes(&pairs).await {
        Ok(quotes) => panic!("fetching {symbols:?} should have failed, got {quotes:?}"),
        Err(error) => error,
    }
}

/// Checks that `symbol` came back with exactly the digits mock-rates sent.
fn assert_exact(quotes: &Quotes, symbol: &str) {
    let quote = quotes
        .get(&pair(symbol))
        .unwrap_or_else(|| panic!("the answer has no {symbol}: {quotes:?}"));
    assert_eq!(
        quote.rate.to_string(),
        rate_text(symbol).expect("mock-rates serves the pair"),
        "{symbol} lost digits on the way"
    );
}

fn assert_kind(error: &RatesError, kind: RatesErrorKind) {
    assert_eq!(error.kind(), kind, "unexpected error: {error}");
}

/// A timeout that fired neither early nor long after it was due.
fn assert_timed_out(error: &RatesError, elapsed: Duration, timeout: Duration) {
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
fn assert_recent(timestamp: RateTimestamp) {
    let now_millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_millis() as i64);
    assert!(
        (timestamp.unix_millis() - now_millis).abs() < 60_000,
        "the rate timestamp {} ms is not now ({now_millis} ms)",
        timestamp.unix_millis()
    );
}

/// EUR->USD is quoted directly: its digits arrive intact and the payment uses them.
pub async fn direct_pair_keeps_the_exact_rate(make: &MakeProvider) {
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
pub async fn inverse_pair_is_fetched_and_inverted(make: &MakeProvider) {
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
pub async fn cross_rate_is_fetched_in_one_call(make: &MakeProvider) {
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
pub async fn same_currency_makes_no_call(make: &MakeProvider) {
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
pub async fn unknown_pair_is_unsupported(make: &MakeProvider) {
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

pub async fn status_500_is_upstream_status(make: &MakeProvider) {
    let mock = start(faulty(status(500)));
    let rates = make(&settings_for(&mock));
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_eq!(error, RatesError::UpstreamStatus(500));
}

/// 503 with `Retry-After`: reported as is, not retried by the client.
pub async fn status_503_is_upstream_status(make: &MakeProvider) {
    let mock = start(faulty(status(503)));
    let rates = make(&settings_for(&mock));
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_eq!(error, RatesError::UpstreamStatus(503));
    assert_eq!(mock.state().stats().live_requests, 1);
}

pub async fn malformed_body_is_malformed(make: &MakeProvider) {
    let mock = start(faulty(fault(FaultMode::Malformed)));
    let rates = make(&settings_for(&mock));
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_kind(&error, RatesErrorKind::Malformed);
}

/// A body longer than `max_body_bytes` is refused, whatever its framing.
pub async fn body_over_the_limit_is_malformed(make: &MakeProvider) {
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
pub async fn html_content_type_is_accepted(make: &MakeProvider) {
    let mock = start(Settings {
        content_type: ContentType::Html,
        ..Settings::default()
    });
    let rates = make(&settings_for(&mock));
    assert_exact(&fetch(&*rates, &["EURUSD"]).await, "EURUSD");
}

/// Chunked bodies are read whole, and the connection stays usable after them.
pub async fn chunked_body_is_accepted(make: &MakeProvider) {
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

/// Seconds or milliseconds on the wire, the same instant once read.
pub async fn millisecond_timestamps_mean_the_same_instant(make: &MakeProvider) {
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

/// Nothing listens on the port: `Connect` (the refusal is immediate, no timeout involved).
pub async fn connection_refused_is_connect(make: &MakeProvider) {
    let port = {
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("binds a free port");
        listener.local_addr().expect("has an address").port()
    };
    let rates = make(&client_settings(format!("http://127.0.0.1:{port}")));
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_kind(&error, RatesErrorKind::Connect);
}

/// A listener whose accept queue is full drops new SYNs, so connecting hangs until the
/// connect timeout (shorter here than the total timeout) fires.
pub async fn connect_timeout_is_timeout(make: &MakeProvider) {
    let full = full_listener();
    let connect_timeout = Duration::from_millis(200);
    let rates = make(&ClientSettings {
        connect_timeout,
        timeout: Duration::from_secs(3),
        ..client_settings(format!("http://{}", full.addr))
    });
    let started = Instant::now();
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_timed_out(&error, started.elapsed(), connect_timeout);
}

/// A loopback listener with a backlog of zero that never accepts, and the connections that
/// fill its accept queue (kept open, or the queue frees up).
struct FullListener {
    addr: SocketAddr,
    _listener: tokio::net::TcpListener,
    _queued: Vec<std::net::TcpStream>,
}

fn full_listener() -> FullListener {
    let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
    socket
        .bind(SocketAddr::from(([127, 0, 0, 1], 0)))
        .expect("binds a free port");
    let listener = socket.listen(0).expect("listens");
    let addr = listener.local_addr().expect("has an address");
    let mut queued = Vec::new();
    for _ in 0..8 {
        let Ok(stream) = std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(100))
        else {
            return FullListener {
                addr,
                _listener: listener,
                _queued: queued,
            };
        };
        queued.push(stream);
    }
    panic!("could not fill the accept queue of {addr}");
}

/// The upstream reads the request and never answers.
pub async fn hanging_upstream_times_out(make: &MakeProvider) {
    let mock = start(faulty(fault(FaultMode::Hang)));
    let rates = make(&settings_for(&mock));
    let started = Instant::now();
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_timed_out(&error, started.elapsed(), TIMEOUT);
}

/// Headers arrive, then one body byte every 100 ms, forever: the total timeout covers the body.
pub async fn endless_body_times_out(make: &MakeProvider) {
    let mock = start(faulty(fault(FaultMode::Drip)));
    let rates = make(&settings_for(&mock));
    let started = Instant::now();
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_timed_out(&error, started.elapsed(), TIMEOUT);
}

/// A TCP RST instead of an answer.
pub async fn reset_is_connect(make: &MakeProvider) {
    let mock = start(faulty(fault(FaultMode::Reset)));
    let rates = make(&settings_for(&mock));
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_kind(&error, RatesErrorKind::Connect);
}

/// Status line and headers, then the connection closes before the body.
pub async fn close_before_body_is_connect(make: &MakeProvider) {
    let mock = start(faulty(fault(FaultMode::Eof)));
    let rates = make(&settings_for(&mock));
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_kind(&error, RatesErrorKind::Connect);
}

/// Half of the declared body, then close: the transfer broke, so `Connect` (not `Malformed`).
pub async fn truncated_body_is_connect(make: &MakeProvider) {
    let mock = start(faulty(fault(FaultMode::Truncated)));
    let rates = make(&settings_for(&mock));
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_kind(&error, RatesErrorKind::Connect);
}

/// Added latency with jitter, all of it below the total timeout: each call waits for the
/// answer and succeeds.
pub async fn latency_under_the_timeout_succeeds(make: &MakeProvider) {
    let latency = Duration::from_millis(100);
    let mock = start(faulty(Faults {
        latency_ms: millis(latency),
        // At most 200 ms in all, half the 400 ms timeout.
        jitter_ms: 100,
        ..Faults::default()
    }));
    let rates = make(&settings_for(&mock));
    for _ in 0..3 {
        let started = Instant::now();
        assert_exact(&fetch(&*rates, &["EURUSD"]).await, "EURUSD");
        let elapsed = started.elapsed();
        assert!(
            elapsed + TIMER_SLACK >= latency,
            "answered after {elapsed:?}, before the upstream's {latency:?} latency"
        );
    }
    assert_eq!(mock.state().stats().live_requests, 3);
}

/// Added latency beyond the total timeout (and beyond the hang guard, so a client that ignored
/// its timeout would succeed instead): `Timeout`, on time.
pub async fn latency_over_the_timeout_times_out(make: &MakeProvider) {
    let mock = start(faulty(latency_over_the_timeout()));
    let rates = make(&settings_for(&mock));
    let started = Instant::now();
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_timed_out(&error, started.elapsed(), TIMEOUT);
}

fn latency_over_the_timeout() -> Faults {
    Faults {
        latency_ms: millis(TIMEOUT + HANG_GUARD + Duration::from_millis(500)),
        ..Faults::default()
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Calls made one after another against a fault that fires on a seeded share of requests.
const PERCENT_CALLS: u64 = 20;

/// Runs [`PERCENT_CALLS`] calls against `faults` (seeded) and returns the errors; checks that
/// the successes carry the exact rate and that the outcomes are a mix.
async fn percent_outcomes(make: &MakeProvider, faults: Faults) -> (MockServer, Vec<RatesError>) {
    let mock = start(Settings {
        faults,
        seed: 7,
        ..Settings::default()
    });
    let rates = make(&settings_for(&mock));
    let mut errors = Vec::new();
    for _ in 0..PERCENT_CALLS {
        match rates.fetch_quotes(&[pair("EURUSD")]).await {
            Ok(quotes) => assert_exact(&quotes, "EURUSD"),
            Err(error) => errors.push(error),
        }
    }
    assert!(
        !errors.is_empty() && (errors.len() as u64) < PERCENT_CALLS,
        "a seeded share of {PERCENT_CALLS} calls should fail, not all or none: {errors:?}"
    );
    (mock, errors)
}

/// Half the requests get a 503 (seeded, so the same mix every run): the others succeed, and
/// every failure is `UpstreamStatus(503)` from one request of its own (no retry).
pub async fn percent_of_calls_with_status_503(make: &MakeProvider) {
    let (mock, errors) = percent_outcomes(
        make,
        Faults {
            percent: 50,
            ..status(503)
        },
    )
    .await;
    for error in &errors {
        assert_eq!(*error, RatesError::UpstreamStatus(503));
    }
    let stats = mock.state().stats();
    assert_eq!(stats.live_requests, PERCENT_CALLS, "a call was retried");
    assert_eq!(errors.len() as u64, stats.faults_injected);
}

/// A third of the requests are reset: every failure is `Connect`, and the connections that
/// survive keep serving. A client may retry a reset on a reused connection (libcurl does, when
/// nothing of the answer arrived), so failures are at most the faults injected.
pub async fn percent_of_calls_reset(make: &MakeProvider) {
    let (mock, errors) = percent_outcomes(
        make,
        Faults {
            percent: 30,
            ..fault(FaultMode::Reset)
        },
    )
    .await;
    for error in &errors {
        assert_kind(error, RatesErrorKind::Connect);
    }
    let stats = mock.state().stats();
    assert!(
        errors.len() as u64 <= stats.faults_injected,
        "{} failures from {} resets",
        errors.len(),
        stats.faults_injected
    );
}

/// Sequential calls share one keep-alive connection.
pub async fn connections_are_reused(make: &MakeProvider) {
    let mock = start(Settings::default());
    let rates = make(&settings_for(&mock));
    for _ in 0..10 {
        assert_exact(&fetch(&*rates, &["EURUSD"]).await, "EURUSD");
    }
    let stats = mock.state().stats();
    assert_eq!((stats.live_requests, stats.connections), (10, 1));
}

/// `max_idle_per_host = 0` keeps no idle connection: every call opens its own.
pub async fn no_idle_connections_means_no_reuse(make: &MakeProvider) {
    let mock = start(Settings::default());
    let rates = make(&ClientSettings {
        max_idle_per_host: 0,
        ..settings_for(&mock)
    });
    for _ in 0..3 {
        assert_exact(&fetch(&*rates, &["EURUSD"]).await, "EURUSD");
    }
    assert_eq!(mock.state().stats().connections, 3);
}

/// Every fault leaves the client able to make the next clean call.
pub async fn a_fault_does_not_break_the_next_call(make: &MakeProvider) {
    let mock = start(Settings::default());
    let rates = make(&settings_for(&mock));
    let faults = [
        (status(500), RatesErrorKind::UpstreamStatus),
        (fault(FaultMode::Reset), RatesErrorKind::Connect),
        (fault(FaultMode::Eof), RatesErrorKind::Connect),
        (fault(FaultMode::Truncated), RatesErrorKind::Connect),
        (fault(FaultMode::Malformed), RatesErrorKind::Malformed),
        (fault(FaultMode::Hang), RatesErrorKind::Timeout),
        (fault(FaultMode::Drip), RatesErrorKind::Timeout),
        (status(503), RatesErrorKind::UpstreamStatus),
        (latency_over_the_timeout(), RatesErrorKind::Timeout),
    ];
    for (faults, kind) in faults {
        let label = format!("{faults:?}");
        mock.state().set_faults(faults);
        let error = fetch_error(&*rates, &["EURUSD"]).await;
        assert_eq!(error.kind(), kind, "{label}: {error}");
        mock.state().set_faults(Faults::default());
        let quotes = rates
            .fetch_quotes(&[pair("EURUSD")])
            .await
            .unwrap_or_else(|error| panic!("the clean call after {label} failed: {error}"));
        assert_exact(&quotes, "EURUSD");
    }
    // Every mode but the added latency counts as an injected fault.
    assert!(mock.state().stats().faults_injected >= 8);
}

/// The server drops idle connections after 200 ms; the client's idle timeout is longer. The
/// pooled connection is closed by the time of the second call, which must still succeed.
pub async fn stale_keep_alive_connection_is_not_used(make: &MakeProvider) {
    let mock = start(Settings {
        keep_alive: Duration::from_millis(200),
        ..Settings::default()
    });
    let rates = make(&settings_for(&mock));
    assert_exact(&fetch(&*rates, &["EURUSD"]).await, "EURUSD");
    tokio::time::sleep(Duration::from_millis(400)).await;
    let quotes = rates
        .fetch_quotes(&[pair("EURUSD")])
        .await
        .unwrap_or_else(|error| {
            panic!("the call after the server closed the idle connection failed: {error}")
        });
    assert_exact(&quotes, "EURUSD");
    assert_eq!(mock.state().stats().connections, 2);
}

/// The client's `idle_timeout` (1 s here, below the server's 5 s) retires pooled connections.
pub async fn idle_connections_are_dropped_after_idle_timeout(make: &MakeProvider) {
    let mock = start(Settings::default());
    let rates = make(&ClientSettings {
        idle_timeout: Duration::from_secs(1),
        ..settings_for(&mock)
    });
    fetch(&*rates, &["EURUSD"]).await;
    fetch(&*rates, &["EURUSD"]).await;
    assert_eq!(mock.state().stats().connections, 1);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    fetch(&*rates, &["EURUSD"]).await;
    assert_eq!(mock.state().stats().connections, 2);
}

/// Four concurrent calls through two slots: all succeed, two at a time, so they take at
/// least two upstream latencies.
pub async fn calls_beyond_max_connections_wait_for_a_slot(make: &MakeProvider) {
    let latency = Duration::from_millis(150);
    let mock = start(faulty(Faults {
        latency_ms: latency.as_millis() as u64,
        ..Faults::default()
    }));
    let rates = make(&ClientSettings {
        max_connections: 2,
        pool_wait: Duration::from_secs(2),
        timeout: Duration::from_secs(2),
        ..settings_for(&mock)
    });
    let pairs = [pair("EURUSD")];
    let started = Instant::now();
    let results = futures_util::future::join_all((0..4).map(|_| rates.fetch_quotes(&pairs))).await;
    let elapsed = started.elapsed();
    for result in results {
        assert_exact(
            &result.unwrap_or_else(|error| panic!("a queued call failed: {error}")),
            "EURUSD",
        );
    }
    assert!(
        elapsed >= latency * 2,
        "four calls through two slots took {elapsed:?}, less than two latencies"
    );
    assert_eq!(mock.state().stats().live_requests, 4);
}

/// One slot, held by a hanging call: a second call waits `pool_wait`, then is `Unavailable`
/// without reaching the upstream. The slot comes back when the first call times out.
pub async fn busy_slots_make_the_call_unavailable(make: &MakeProvider) {
    let mock = start(faulty(fault(FaultMode::Hang)));
    let timeout = Duration::from_secs(1);
    let rates = make(&ClientSettings {
        max_connections: 1,
        blocking_threads: 1,
        pool_wait: Duration::from_millis(100),
        timeout,
        ..settings_for(&mock)
    });
    let pairs = [pair("EURUSD")];
    let (first, second) = tokio::join!(rates.fetch_quotes(&pairs), async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        rates.fetch_quotes(&pairs).await
    });
    let first = first.expect_err("the hanging call cannot succeed");
    assert_kind(&first, RatesErrorKind::Timeout);
    let second = second.expect_err("the second call has no slot");
    assert_kind(&second, RatesErrorKind::Unavailable);
    assert_eq!(mock.state().stats().live_requests, 1);

    mock.state().set_faults(Faults::default());
    assert_exact(&fetch(&*rates, &["EURUSD"]).await, "EURUSD");
}
