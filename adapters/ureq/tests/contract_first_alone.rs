//! The adapter contract, run against ureq with `TlsWarmUp::FirstCallAlone` (the first call
//! alone, the calls meanwhile waiting for it), over plain HTTP and over TLS. With rustls: the
//! wait does not depend on the backend, and native-tls's own contract already builds 64
//! connectors at once, one per test, each a double parse of the system's CA bundle.

rates_contract::contract_tests!(
    make = |settings: &rates_common::ClientSettings| {
        Box::new(
            rates_ureq::UreqRates::with_options(
                settings,
                rates_ureq::UreqTls::Rustls,
                rates_ureq::UreqOptions {
                    warm_up: rates_ureq::TlsWarmUp::FirstCallAlone,
                    ..rates_ureq::UreqOptions::DEFAULT
                },
            )
            .expect("the contract's settings are valid"),
        ) as Box<dyn application::RatesProvider>
    },
    tls
);
