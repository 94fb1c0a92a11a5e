//! The adapter contract, run against reqwest's blocking client (rustls, aws-lc-rs) on the
//! blocking pool, over plain HTTP, over TLS and over HTTP/2.
//! Also over plain HTTP with the answer decoded as it is received (`BodyDecode::Streamed`).

rates_contract::contract_tests!(
    make = |settings: &rates_common::ClientSettings| {
        Box::new(
            rates_reqwest::ReqwestBlockingRates::new(settings)
                .expect("the contract's settings are valid"),
        ) as Box<dyn application::RatesProvider>
    },
    tls,
    h2,
    cold_burst_on_one_connection
);

rates_contract::streamed_contract_tests!(
    make = |settings: &rates_common::ClientSettings| {
        Box::new(
            rates_reqwest::ReqwestBlockingRates::new(settings)
                .expect("the contract's settings are valid"),
        ) as Box<dyn application::RatesProvider>
    }
);
