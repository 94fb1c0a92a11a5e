//! The setting of the row `reqwest-retry` against the stale-connection race, forced
//! (docs/findings/idle-close-race.md): mock-rates closes a kept connection that sat idle past
//! its timeout when the next request arrives, and drops that request unanswered
//! (`IdleClose::OnArrival`), so a call made after a longer gap meets the race every time, not
//! by chance. reqwest as users get it loses that call; with the setting it sends it again, on
//! a new connection, and is answered.

use std::time::Duration;

use application::{Quotes, RatesError, RatesProvider};
use domain::{Currency, CurrencyPair};
use mock_rates::{IdleClose, MockServer, Settings, Stats};
use rates_common::ClientSettings;
use rates_reqwest::{ReqwestOptions, ReqwestRates, ReqwestRetry, ReqwestTls};

/// mock-rates' idle timeout. A new connection's first request arrives well within it (a
/// second is far beyond any scheduling delay on a loaded machine), so only a kept connection
/// is closed.
const SERVER_IDLE: Duration = Duration::from_secs(1);

/// The wait after an answer before the next call: a sleep lasts at least this long, so the
/// request always finds its connection idle past `SERVER_IDLE`; and below the client's own
/// idle timeout (4 s), so the client always reuses it.
const GAP: Duration = Duration::from_secs(2);

/// One call that keeps a connection, then one after `GAP` on it, by reqwest with `options`:
/// the second call's outcome, and what mock-rates counted.
async fn a_call_after_the_idle_timeout(
    options: ReqwestOptions,
) -> (Result<Quotes, RatesError>, Stats) {
    let mock = MockServer::start(Settings::default()).expect("mock-rates starts on 127.0.0.1:0");
    mock.state().set_idle_timeout(Some(SERVER_IDLE));
    mock.state().set_idle_close(IdleClose::OnArrival);
    let settings = ClientSettings::for_base_url(mock.base_url());
    assert!(
        settings.idle_timeout > GAP,
        "the client keeps its connection through the gap"
    );
    let rates = ReqwestRates::with_options(&settings, ReqwestTls::Rustls, options)
        .expect("the settings are valid");
    let pairs = [eur_usd()];
    rates
        .fetch_quotes(&pairs)
        .await
        .expect("the first call, on a new connection, is answered");
    actix_rt::time::sleep(GAP).await;
    let outcome = rates.fetch_quotes(&pairs).await;
    (outcome, mock.state().stats())
}

fn eur_usd() -> CurrencyPair {
    let currency = |code| Currency::parse(code).expect("a known currency");
    CurrencyPair::new(currency("EUR"), currency("USD"))
}

#[actix_rt::test]
async fn reqwest_loses_the_call_that_meets_the_idle_close() {
    let (outcome, stats) = a_call_after_the_idle_timeout(ReqwestOptions::DEFAULT).await;
    let error = outcome.expect_err("reqwest's default policy does not resend over HTTP/1.1");
    assert!(matches!(error, RatesError::Connect(_)), "{error}");
    assert!(
        error
            .to_string()
            .contains("connection closed before message completed"),
        "{error}"
    );
    assert_eq!(stats.idle_close_races, 1, "{stats:?}");
    assert_eq!(
        (stats.connections, stats.live_requests),
        (1, 1),
        "{stats:?}"
    );
}

#[actix_rt::test]
async fn reqwest_retry_resends_it_on_a_new_connection() {
    let (outcome, stats) = a_call_after_the_idle_timeout(ReqwestOptions {
        retry: ReqwestRetry::UnansweredIdempotent,
        ..ReqwestOptions::DEFAULT
    })
    .await;
    let quotes = outcome.expect("the dropped request is sent again and answered");
    assert!(quotes.get(&eur_usd()).is_some(), "{quotes:?}");
    // The race was met (the request dropped), and the resend opened a second connection.
    assert_eq!(stats.idle_close_races, 1, "{stats:?}");
    assert_eq!(
        (stats.connections, stats.live_requests),
        (2, 2),
        "{stats:?}"
    );
}
