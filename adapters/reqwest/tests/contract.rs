//! The adapter contract, run against reqwest with its default TLS backend (rustls, aws-lc-rs)
//! over plain HTTP and over TLS.

rates_contract::contract_tests!(
    make = |settings: &rates_common::ClientSettings| {
        Box::new(
            rates_reqwest::ReqwestRates::new(settings).expect("the contract's settings are valid"),
        ) as Box<dyn application::RatesProvider>
    },
    tls
);
