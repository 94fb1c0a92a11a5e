//! The adapter contract, run against isahc over plain HTTP and over TLS.

rates_contract::contract_tests!(
    make = |settings: &rates_common::ClientSettings| {
        Box::new(rates_isahc::IsahcRates::new(settings).expect("the contract's settings are valid"))
            as Box<dyn application::RatesProvider>
    },
    tls
);
