//! The adapter contract, run against ureq with native-tls over plain HTTP and over TLS
//! (not HTTP/2, which ureq does not speak).

rates_contract::contract_tests!(
    make = |settings: &rates_common::ClientSettings| {
        Box::new(
            rates_ureq::UreqRates::with_tls(settings, rates_ureq::UreqTls::NativeTls)
                .expect("the contract's settings are valid"),
        ) as Box<dyn application::RatesProvider>
    },
    tls
);
