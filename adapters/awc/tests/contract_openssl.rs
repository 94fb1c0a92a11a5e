//! The adapter contract, run against awc with its OpenSSL backend over plain HTTP and over TLS.

rates_contract::contract_tests!(
    make = |settings: &rates_common::ClientSettings| {
        Box::new(
            rates_awc::AwcRates::with_tls(settings, rates_awc::AwcTls::Openssl)
                .expect("the contract's settings are valid"),
        ) as Box<dyn application::RatesProvider>
    },
    tls
);
