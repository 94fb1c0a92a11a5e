//! The adapter contract, run against ureq with native-tls and `TlsWarmUp::FirstCallAlone` (the
//! first call alone, the calls meanwhile waiting for it), over plain HTTP and over TLS.

rates_contract::contract_tests!(
    make = |settings: &rates_common::ClientSettings| {
        Box::new(
            rates_ureq::UreqRates::with_tls_warm_up(
                settings,
                rates_ureq::UreqTls::NativeTls,
                rates_ureq::TlsWarmUp::FirstCallAlone,
            )
            .expect("the contract's settings are valid"),
        ) as Box<dyn application::RatesProvider>
    },
    tls
);
