//! Cases on a failing upstream: refused and hanging connections, timeouts, resets, bodies
//! cut short, added latency, faults on a share of the calls, and recovery after each fault.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use application::{RatesError, RatesErrorKind};
use mock_rates::{FaultMode, Faults, MockServer, Settings};
use rates_common::ClientSettings;

use crate::MakeProvider;
use crate::support::{
    HANG_GUARD, TIMEOUT, TIMER_SLACK, assert_exact, assert_kind, assert_timed_out, client_settings,
    fault, faulty, fetch, fetch_error, pair, scheme, settings_for, start, status,
    timing_settings_for,
};

/// Nothing listens on the port: `Connect` (the refusal is immediate, no timeout involved).
pub(crate) async fn connection_refused_is_connect(make: &MakeProvider) {
    let port = {
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("binds a free port");
        listener.local_addr().expect("has an address").port()
    };
    let rates = make(&client_settings(format!("{}://127.0.0.1:{port}", scheme())));
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_kind(&error, RatesErrorKind::Connect);
}

/// A listener whose accept queue is full drops new SYNs, so connecting hangs until the
/// connect timeout (shorter here than the total timeout) fires.
pub(crate) async fn connect_timeout_is_timeout(make: &MakeProvider) {
    let full = full_listener();
    let connect_timeout = Duration::from_millis(200);
    let rates = make(&ClientSettings {
        connect_timeout,
        timeout: Duration::from_secs(3),
        ..client_settings(format!("{}://{}", scheme(), full.addr))
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
pub(crate) async fn hanging_upstream_times_out(make: &MakeProvider) {
    let mock = start(faulty(fault(FaultMode::Hang)));
    let rates = make(&timing_settings_for(&mock));
    let started = Instant::now();
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_timed_out(&error, started.elapsed(), TIMEOUT);
}

/// Headers arrive, then one body byte every 100 ms, forever: the total timeout covers the body.
pub(crate) async fn endless_body_times_out(make: &MakeProvider) {
    let mock = start(faulty(fault(FaultMode::Drip)));
    let rates = make(&timing_settings_for(&mock));
    let started = Instant::now();
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_timed_out(&error, started.elapsed(), TIMEOUT);
}

/// A TCP RST instead of an answer.
pub(crate) async fn reset_is_connect(make: &MakeProvider) {
    let mock = start(faulty(fault(FaultMode::Reset)));
    let rates = make(&settings_for(&mock));
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_kind(&error, RatesErrorKind::Connect);
}

/// Status line and headers, then the connection closes before the body.
pub(crate) async fn close_before_body_is_connect(make: &MakeProvider) {
    let mock = start(faulty(fault(FaultMode::Eof)));
    let rates = make(&settings_for(&mock));
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_kind(&error, RatesErrorKind::Connect);
}

/// Half of the declared body, then close: the transfer broke, so `Connect` (not `Malformed`).
pub(crate) async fn truncated_body_is_connect(make: &MakeProvider) {
    let mock = start(faulty(fault(FaultMode::Truncated)));
    let rates = make(&settings_for(&mock));
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_kind(&error, RatesErrorKind::Connect);
}

/// Added latency with jitter, all of it below the total timeout: each call waits for the
/// answer and succeeds.
pub(crate) async fn latency_under_the_timeout_succeeds(make: &MakeProvider) {
    let latency = Duration::from_millis(100);
    let mock = start(faulty(Faults {
        latency_ms: millis(latency),
        // At most 200 ms in all, far below the call's timeout.
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
pub(crate) async fn latency_over_the_timeout_times_out(make: &MakeProvider) {
    let mock = start(faulty(latency_over_the_timeout()));
    let rates = make(&timing_settings_for(&mock));
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
/// the successes carry the exact rate, that the fault fired and that not every call failed.
/// (A client that resends the requests a fault broke may fail none.)
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
    let injected = mock.state().stats().faults_injected;
    assert!(
        injected > 0 && (errors.len() as u64) < PERCENT_CALLS,
        "a seeded share of {PERCENT_CALLS} calls should meet the fault, and not all fail: \
         {injected} faults, {errors:?}"
    );
    (mock, errors)
}

/// Half the requests get a 503 (seeded, so the same mix every run): the others succeed, and
/// every failure is `UpstreamStatus(503)` from one request of its own (no retry).
pub(crate) async fn percent_of_calls_with_status_503(make: &MakeProvider) {
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
/// survive keep serving. A client may resend a request reset before its answer (libcurl does
/// on a reused connection; reqwest-retry's policy does on any), so failures are at most the
/// faults injected, and may be none.
pub(crate) async fn percent_of_calls_reset(make: &MakeProvider) {
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

/// Every fault leaves the client able to make the next clean call.
pub(crate) async fn a_fault_does_not_break_the_next_call(make: &MakeProvider) {
    let mock = start(Settings::default());
    let rates = make(&timing_settings_for(&mock));
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
