//! The adapter contract, run against awc with its OpenSSL backend over plain HTTP, over TLS
//! and over HTTP/2.

rates_contract::contract_tests!(
    make = |settings: &rates_common::ClientSettings| {
        Box::new(
            rates_awc::AwcRates::with_tls(settings, rates_awc::AwcTls::Openssl)
                .expect("the contract's settings are valid"),
        ) as Box<dyn application::RatesProvider>
    },
    tls,
    h2_goaway_costs_the_next_call
);
