//! How the bench builds the adapters it calls in its own process.

use application::RatesProvider;
use rates_common::{BuildError, ClientSettings};

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
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_are_the_adapters_own() {
        let names: Vec<&str> = ClientName::ALL.iter().map(|name| name.as_str()).collect();
        assert_eq!(
            names,
            [
                rates_hyper::HyperRates::NAME,
                rates_awc::AwcRates::NAME,
                rates_reqwest::ReqwestRates::NAME,
                rates_ureq::UreqRates::NAME,
                rates_isahc::IsahcRates::NAME,
            ]
        );
    }
}
