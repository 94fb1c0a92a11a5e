//! The adapter contract, run against reqwest with native-tls over plain HTTP, over TLS
//! and over HTTP/2.

rates_contract::contract_tests!(
    make = |settings: &rates_common::ClientSettings| {
        Box::new(
            rates_reqwest::ReqwestRates::with_tls(settings, rates_reqwest::ReqwestTls::NativeTls)
                .expect("the contract's settings are valid"),
        ) as Box<dyn application::RatesProvider>
    },
    tls,
    h2
);
