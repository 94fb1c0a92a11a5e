//! The adapter contract, run against ureq with its default TLS backend (rustls, ring) over
//! plain HTTP and over TLS; not over HTTP/2, which ureq does not speak (refused at build:
//! `every_backend_refuses_http2` in `src/lib.rs`).
//! Also over plain HTTP with the answer decoded as it is received (`BodyDecode::Streamed`).

rates_contract::contract_tests!(
    make = |settings: &rates_common::ClientSettings| {
        Box::new(rates_ureq::UreqRates::new(settings).expect("the contract's settings are valid"))
            as Box<dyn application::RatesProvider>
    },
    tls
);

rates_contract::streamed_contract_tests!(
    make = |settings: &rates_common::ClientSettings| {
        Box::new(rates_ureq::UreqRates::new(settings).expect("the contract's settings are valid"))
            as Box<dyn application::RatesProvider>
    }
);
