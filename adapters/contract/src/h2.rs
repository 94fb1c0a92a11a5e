//! Cases only HTTP/2 has: the frames that end a stream or a connection (GOAWAY, RST_STREAM)
//! mapped into the one taxonomy, streams multiplexed on one connection within the server's
//! stream limit, and the version each side agrees to by ALPN.
//!
//! Every way an h2 upstream ends a call without its answer is `Connect`, as a reset or a
//! closed connection is over HTTP/1.1: the transfer broke, whatever frame said so.

use std::time::Duration;

use application::RatesErrorKind;
use mock_rates::{FaultMode, Faults, Settings, TlsSettings};
use rates_common::{ClientSettings, HttpVersion};

use crate::MakeProvider;
use crate::support::{
    assert_exact, assert_kind, fault, faulty, fetch, fetch_error, pair, settings_for, start,
};

/// GOAWAY on the connection, the stream left unanswered: `Connect` (not a `Timeout`: the
/// client hears the connection end, it does not wait the timeout out).
pub(crate) async fn goaway_is_connect(make: &MakeProvider) {
    every_call_is_connect(make, FaultMode::Goaway).await;
}

/// RST_STREAM(REFUSED_STREAM): the stream was not processed. A client may retry it (it is
/// safe to: libcurl does, five times, each on a new connection), but against an upstream that
/// refuses every stream the call ends as `Connect`. The timeout leaves the retries room.
pub(crate) async fn refused_stream_is_connect(make: &MakeProvider) {
    every_call_is_connect(make, FaultMode::Refused).await;
}

/// A call against an upstream that ends every stream with `mode` fails as `Connect`, over h2.
async fn every_call_is_connect(make: &MakeProvider, mode: FaultMode) {
    let mock = start(faulty(fault(mode)));
    let rates = make(&ClientSettings {
        timeout: RETRIES_TIMEOUT,
        ..settings_for(&mock)
    });
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_kind(&error, RatesErrorKind::Connect);
    assert_h2(&mock);
}

/// A total timeout that leaves a client's own retries of a refused stream room to end.
const RETRIES_TIMEOUT: Duration = Duration::from_secs(3);

/// RST_STREAM(INTERNAL_ERROR) on a share of the streams: those calls are `Connect`, and the
/// connection, which a stream's reset does not end, keeps serving the others (and a client's
/// resends of the reset streams, if it makes any: failures are at most the resets).
pub(crate) async fn a_reset_stream_does_not_cost_the_connection(make: &MakeProvider) {
    let mock = start(Settings {
        faults: Faults {
            percent: 30,
            ..fault(FaultMode::Reset)
        },
        seed: 7,
        ..Settings::default()
    });
    let rates = make(&settings_for(&mock));
    let mut failures = 0;
    for _ in 0..20 {
        match rates.fetch_quotes(&[pair("EURUSD")]).await {
            Ok(quotes) => assert_exact(&quotes, "EURUSD"),
            Err(error) => {
                assert_kind(&error, RatesErrorKind::Connect);
                failures += 1;
            }
        }
    }
    let stats = mock.state().stats();
    assert!(
        stats.faults_injected > 0 && failures <= stats.faults_injected,
        "{failures} failures from {} resets",
        stats.faults_injected
    );
    assert_eq!(stats.h2_connections, 1, "{stats:?}");
}

/// After each way an h2 upstream ends a call (GOAWAY, a refused stream, a reset stream) the
/// next clean call succeeds: on a new connection after a GOAWAY, which ends the old one.
pub(crate) async fn h2_faults_do_not_break_the_next_call(make: &MakeProvider) {
    faults_then_clean_calls(make, false).await;
}

/// What a client does that puts an h2 connection back in its pool as soon as a request is
/// sent, and lends it again unchecked (awc: `h2proto::send_request` releases it before the
/// answer, and only HTTP/1.1 connections are probed on the way out of the pool): after a
/// GOAWAY ended the connection, the next call is given it and fails, as `Connect`, without
/// reaching the upstream; the call after opens a new connection and succeeds. A refused or
/// reset stream leaves the connection up, and the next call succeeds.
pub(crate) async fn after_a_goaway_the_next_call_fails_on_the_ended_connection(
    make: &MakeProvider,
) {
    faults_then_clean_calls(make, true).await;
}

async fn faults_then_clean_calls(make: &MakeProvider, goaway_costs_the_next_call: bool) {
    let mock = start(Settings::default());
    let rates = make(&ClientSettings {
        timeout: RETRIES_TIMEOUT,
        ..settings_for(&mock)
    });
    for mode in [FaultMode::Goaway, FaultMode::Refused, FaultMode::Reset] {
        mock.state().set_faults(fault(mode));
        let error = fetch_error(&*rates, &["EURUSD"]).await;
        assert_kind(&error, RatesErrorKind::Connect);
        mock.state().set_faults(Faults::default());
        if goaway_costs_the_next_call && mode == FaultMode::Goaway {
            let before = mock.state().stats().live_requests;
            let error = fetch_error(&*rates, &["EURUSD"]).await;
            assert_kind(&error, RatesErrorKind::Connect);
            assert_eq!(
                mock.state().stats().live_requests,
                before,
                "the call on the ended connection reached the upstream"
            );
        }
        let quotes = rates
            .fetch_quotes(&[pair("EURUSD")])
            .await
            .unwrap_or_else(|error| panic!("the clean call after {mode:?} failed: {error}"));
        assert_exact(&quotes, "EURUSD");
    }
    let stats = mock.state().stats();
    assert!(
        stats.h2_connections >= 2,
        "no new connection after the GOAWAY: {stats:?}"
    );
}

/// Concurrent calls through one connection the client knows speaks h2 (one call first opens
/// it): each is a stream of its own, several open at once, and no second connection opens.
pub(crate) async fn concurrent_calls_share_one_connection(make: &MakeProvider) {
    let mock = start(concurrent_latency());
    let rates = make(&ClientSettings {
        timeout: Duration::from_secs(2),
        pool_wait: Duration::from_secs(2),
        ..settings_for(&mock)
    });
    assert_exact(&fetch(&*rates, &["EURUSD"]).await, "EURUSD");
    let pairs = [pair("EURUSD")];
    let results =
        futures_util::future::join_all((0..CONCURRENT).map(|_| rates.fetch_quotes(&pairs))).await;
    for result in results {
        assert_exact(
            &result.unwrap_or_else(|error| panic!("a concurrent call failed: {error}")),
            "EURUSD",
        );
    }
    let stats = mock.state().stats();
    assert_eq!(stats.h2_streams, CONCURRENT as u64 + 1, "{stats:?}");
    assert_eq!(
        (stats.connections, stats.h2_connections),
        (1, 1),
        "{stats:?}"
    );
    assert!(
        stats.h2_peak_streams >= 2,
        "the calls did not overlap on the connection: {stats:?}"
    );
}

/// Concurrent calls on a cold pool, from a client that knows before its first handshake that
/// the upstream speaks h2 (hyper-util's `http2_only`, which reqwest's `http2_prior_knowledge`
/// sets): they wait for one connection and share it. A client that learns it from ALPN alone
/// opens one per call until the first is up (libcurl without `CURLOPT_PIPEWAIT`, which isahc
/// cannot set: docs/findings/isahc-h2-cold-burst.md); the case is not run against such a one.
pub(crate) async fn a_cold_burst_opens_one_connection(make: &MakeProvider) {
    let mock = start(concurrent_latency());
    let rates = make(&ClientSettings {
        timeout: Duration::from_secs(2),
        pool_wait: Duration::from_secs(2),
        ..settings_for(&mock)
    });
    let pairs = [pair("EURUSD")];
    let results =
        futures_util::future::join_all((0..CONCURRENT).map(|_| rates.fetch_quotes(&pairs))).await;
    for result in results {
        assert_exact(
            &result.unwrap_or_else(|error| panic!("a call of the burst failed: {error}")),
            "EURUSD",
        );
    }
    let stats = mock.state().stats();
    assert_eq!(stats.h2_streams, CONCURRENT as u64, "{stats:?}");
    assert_eq!(
        (stats.connections, stats.h2_connections),
        (1, 1),
        "{stats:?}"
    );
}

/// Calls made at once in the concurrency cases.
const CONCURRENT: usize = 8;

/// Enough latency that concurrent calls are all in flight together.
fn concurrent_latency() -> Settings {
    faulty(Faults {
        latency_ms: 200,
        ..Faults::default()
    })
}

/// The server allows two streams at once per connection: more concurrent calls than that all
/// succeed, and no connection ever carries more than two.
pub(crate) async fn the_servers_stream_limit_is_kept(make: &MakeProvider) {
    let mock = start_tls(
        TlsSettings {
            max_concurrent_streams: Some(2),
            ..TlsSettings::default()
        },
        concurrent_latency(),
    );
    let rates = make(&ClientSettings {
        timeout: Duration::from_secs(3),
        pool_wait: Duration::from_secs(3),
        ..settings_for(&mock)
    });
    assert_exact(&fetch(&*rates, &["EURUSD"]).await, "EURUSD");
    let pairs = [pair("EURUSD")];
    let results = futures_util::future::join_all((0..6).map(|_| rates.fetch_quotes(&pairs))).await;
    for result in results {
        assert_exact(
            &result.unwrap_or_else(|error| panic!("a call past the stream limit failed: {error}")),
            "EURUSD",
        );
    }
    let stats = mock.state().stats();
    assert_eq!(stats.h2_streams, 7, "{stats:?}");
    assert!(stats.h2_peak_streams <= 2, "{stats:?}");
}

/// A client built for HTTP/2 against an upstream that offers `http/1.1` alone by ALPN: the
/// call fails before any request is sent, as `Tls`, saying the upstream did not agree to
/// HTTP/2.
pub(crate) async fn http2_against_an_http1_only_upstream_fails_clearly(make: &MakeProvider) {
    let mock = start_tls(
        TlsSettings {
            http2: false,
            ..TlsSettings::default()
        },
        Settings::default(),
    );
    let rates = make(&settings_for(&mock));
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_kind(&error, RatesErrorKind::Tls);
    assert!(
        error.to_string().contains("did not agree to HTTP/2"),
        "the error does not say why: {error}"
    );
    let stats = mock.state().stats();
    assert_eq!(
        (stats.live_requests, stats.h2_connections),
        (0, 0),
        "{stats:?}"
    );
}

/// A client built for HTTP/1.1 against an upstream that offers `h2` first: it offers
/// `http/1.1` alone, so it is served HTTP/1.1, on one kept-alive connection.
pub(crate) async fn http11_over_tls_stays_http11_against_an_h2_upstream(make: &MakeProvider) {
    let mock = start(Settings::default());
    let rates = make(&ClientSettings {
        http_version: HttpVersion::Http11,
        ..settings_for(&mock)
    });
    for _ in 0..3 {
        assert_exact(&fetch(&*rates, &["EURUSD"]).await, "EURUSD");
    }
    let stats = mock.state().stats();
    assert_eq!(
        (stats.live_requests, stats.connections, stats.h2_connections),
        (3, 1, 0),
        "{stats:?}"
    );
}

/// mock-rates over TLS with `tls`, whatever this thread's protocol.
fn start_tls(tls: TlsSettings, settings: Settings) -> mock_rates::MockServer {
    mock_rates::MockServer::start(Settings {
        tls: Some(tls),
        ..settings
    })
    .expect("mock-rates starts on 127.0.0.1:0")
}

/// The case ran over HTTP/2: the mock saw an h2 connection.
fn assert_h2(mock: &mock_rates::MockServer) {
    let stats = mock.state().stats();
    assert!(stats.h2_connections >= 1, "no HTTP/2 connection: {stats:?}");
}
