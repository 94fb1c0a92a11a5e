//! The adapter contract, run against ureq (rustls) with `Resolve::IpAddressInline` (an IP
//! address used as it is, on the calling thread), over plain HTTP and over TLS.

rates_contract::contract_tests!(
    make = |settings: &rates_common::ClientSettings| {
        Box::new(
            rates_ureq::UreqRates::with_options(
                settings,
                rates_ureq::UreqTls::Rustls,
                rates_ureq::UreqOptions {
                    resolve: rates_ureq::Resolve::IpAddressInline,
                    ..rates_ureq::UreqOptions::DEFAULT
                },
            )
            .expect("the contract's settings are valid"),
        ) as Box<dyn application::RatesProvider>
    },
    tls
);
