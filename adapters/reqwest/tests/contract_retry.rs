//! The adapter contract, run against reqwest (rustls) with the retry policy of the row
//! `reqwest-retry` (`ReqwestRetry::UnansweredIdempotent`) over plain HTTP, over TLS and over
//! HTTP/2: the cases already allow a client that resends a request reset before its answer
//! (libcurl does), and check that an answer, whatever its status, is never resent.

rates_contract::contract_tests!(
    make = |settings: &rates_common::ClientSettings| {
        Box::new(
            rates_reqwest::ReqwestRates::with_options(
                settings,
                rates_reqwest::ReqwestTls::Rustls,
                rates_reqwest::ReqwestOptions {
                    retry: rates_reqwest::ReqwestRetry::UnansweredIdempotent,
                    ..rates_reqwest::ReqwestOptions::DEFAULT
                },
            )
            .expect("the contract's settings are valid"),
        ) as Box<dyn application::RatesProvider>
    },
    tls,
    h2,
    cold_burst_on_one_connection
);
