//! The adapter contract, run against isahc with `IsahcTrust::CaDirectory` (the extra CAs alone
//! in libcurl's CA file, the system's roots from its CA directory), over plain HTTP and TLS:
//! the same answers, the same refusals of an untrusted or misnamed certificate.

rates_contract::contract_tests!(
    make = |settings: &rates_common::ClientSettings| {
        Box::new(
            rates_isahc::IsahcRates::with_trust(settings, rates_isahc::IsahcTrust::CaDirectory)
                .expect("the contract's settings are valid"),
        ) as Box<dyn application::RatesProvider>
    },
    tls
);
