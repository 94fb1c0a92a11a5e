//! The adapter contract, run against awc with its default TLS backend (rustls) over plain HTTP,
//! over TLS and over HTTP/2.
//! Also over plain HTTP with the answer decoded as it is received (`BodyDecode::Streamed`).

rates_contract::contract_tests!(
    make = |settings: &rates_common::ClientSettings| {
        Box::new(rates_awc::AwcRates::new(settings).expect("the contract's settings are valid"))
            as Box<dyn application::RatesProvider>
    },
    tls,
    h2_goaway_costs_the_next_call
);

rates_contract::streamed_contract_tests!(
    make = |settings: &rates_common::ClientSettings| {
        Box::new(rates_awc::AwcRates::new(settings).expect("the contract's settings are valid"))
            as Box<dyn application::RatesProvider>
    }
);
