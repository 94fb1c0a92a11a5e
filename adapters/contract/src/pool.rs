//! Cases on connections and slots: keep-alive reuse, idle connections (kept, refused, gone
//! stale, retired), and the cap on calls in flight.

use std::time::{Duration, Instant};

use application::RatesErrorKind;
use mock_rates::{FaultMode, Faults, Settings};
use rates_common::ClientSettings;

use crate::MakeProvider;
use crate::support::{assert_exact, assert_kind, fault, faulty, fetch, pair, settings_for, start};

/// Sequential calls share one keep-alive connection.
pub(crate) async fn connections_are_reused(make: &MakeProvider) {
    let mock = start(Settings::default());
    let rates = make(&settings_for(&mock));
    for _ in 0..10 {
        assert_exact(&fetch(&*rates, &["EURUSD"]).await, "EURUSD");
    }
    let stats = mock.state().stats();
    assert_eq!((stats.live_requests, stats.connections), (10, 1));
}

/// `max_idle_per_host = 0` keeps no idle connection: every call opens its own.
pub(crate) async fn no_idle_connections_means_no_reuse(make: &MakeProvider) {
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

/// The server drops idle connections after 200 ms; the client's idle timeout is longer. The
/// pooled connection is closed by the time of the second call, which must still succeed.
pub(crate) async fn stale_keep_alive_connection_is_not_used(make: &MakeProvider) {
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
pub(crate) async fn idle_connections_are_dropped_after_idle_timeout(make: &MakeProvider) {
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
pub(crate) async fn calls_beyond_max_connections_wait_for_a_slot(make: &MakeProvider) {
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
pub(crate) async fn busy_slots_make_the_call_unavailable(make: &MakeProvider) {
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
