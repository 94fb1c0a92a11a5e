//! How the bench builds the adapters it calls in its own process.

use application::RatesProvider;
use rates_common::{BuildError, ClientSettings, TlsStack};

use crate::model::ClientName;

/// Builds `name`'s adapter. awc needs a running actix `System`, so call this inside one; every
/// adapter is built once per run and reused for all its calls.
pub fn build(
    name: ClientName,
    settings: &ClientSettings,
) -> Result<Box<dyn RatesProvider>, BuildError> {
    Ok(match name {
        ClientName::Hyper => Box::new(rates_hyper::HyperRates::new(settings)?),
        ClientName::Awc => Box::new(rates_awc::AwcRates::new(settings)?),
        ClientName::Reqwest => Box::new(rates_reqwest::ReqwestRates::new(settings)?),
        ClientName::Ureq => Box::new(rates_ureq::UreqRates::new(settings)?),
        ClientName::Isahc => Box::new(rates_isahc::IsahcRates::new(settings)?),
        ClientName::AwcOpenssl => Box::new(rates_awc::AwcRates::with_tls(
            settings,
            rates_awc::AwcTls::Openssl,
        )?),
        ClientName::ReqwestNativeTls => Box::new(rates_reqwest::ReqwestRates::with_tls(
            settings,
            rates_reqwest::ReqwestTls::NativeTls,
        )?),
        ClientName::UreqNativeTls => Box::new(rates_ureq::UreqRates::with_tls(
            settings,
            rates_ureq::UreqTls::NativeTls,
        )?),
    })
}

/// The TLS library and crypto provider `name` speaks TLS with, as its adapter states them.
pub fn tls_stack(name: ClientName) -> TlsStack {
    match name {
        ClientName::Hyper => rates_hyper::HyperRates::TLS,
        ClientName::Awc => rates_awc::AwcTls::Rustls.stack(),
        ClientName::Reqwest => rates_reqwest::ReqwestTls::Rustls.stack(),
        ClientName::Ureq => rates_ureq::UreqTls::Rustls.stack(),
        ClientName::Isahc => rates_isahc::IsahcRates::TLS,
        ClientName::AwcOpenssl => rates_awc::AwcTls::Openssl.stack(),
        ClientName::ReqwestNativeTls => rates_reqwest::ReqwestTls::NativeTls.stack(),
        ClientName::UreqNativeTls => rates_ureq::UreqTls::NativeTls.stack(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_are_the_api_registrys_in_its_order() {
        let names: Vec<&str> = ClientName::ALL.iter().map(|name| name.as_str()).collect();
        let registry: Vec<&str> = api::registry::CLIENTS
            .iter()
            .map(|kind| kind.name)
            .collect();
        assert_eq!(names, registry);
        for (name, kind) in ClientName::ALL
            .into_iter()
            .zip(api::registry::CLIENTS.iter())
        {
            assert_eq!(tls_stack(name), kind.tls, "{name}");
        }
    }
}
