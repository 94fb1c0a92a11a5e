//! The five adapters under comparison, by name, and how the bench builds them.

use std::fmt;

use application::RatesProvider;
use rates_common::{BuildError, ClientSettings};
use serde::{Deserialize, Serialize};

/// One adapter of the `RatesProvider` port. hyper (hyper-util's client) is the baseline.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    clap::ValueEnum,
    Serialize,
    Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum ClientName {
    /// hyper-util's legacy client: the low-level baseline.
    Hyper,
    /// actix-web's client.
    Awc,
    Reqwest,
    /// Blocking; runs on the runtime's blocking pool.
    Ureq,
    /// libcurl through isahc.
    Isahc,
}

impl ClientName {
    /// Every client, baseline first: the default table order.
    pub const ALL: [ClientName; 5] = [
        ClientName::Hyper,
        ClientName::Awc,
        ClientName::Reqwest,
        ClientName::Ureq,
        ClientName::Isahc,
    ];

    /// The baseline that Ratio columns divide by.
    pub const BASELINE: ClientName = ClientName::Hyper;

    /// The adapter's own name (its `NAME`).
    pub fn as_str(self) -> &'static str {
        match self {
            ClientName::Hyper => rates_hyper::HyperRates::NAME,
            ClientName::Awc => rates_awc::AwcRates::NAME,
            ClientName::Reqwest => rates_reqwest::ReqwestRates::NAME,
            ClientName::Ureq => rates_ureq::UreqRates::NAME,
            ClientName::Isahc => rates_isahc::IsahcRates::NAME,
        }
    }

    /// Builds this client's adapter. awc needs a running actix `System`, so call this inside
    /// one; every adapter is built once per run and reused for all its calls.
    pub fn build(self, settings: &ClientSettings) -> Result<Box<dyn RatesProvider>, BuildError> {
        Ok(match self {
            ClientName::Hyper => Box::new(rates_hyper::HyperRates::new(settings)?),
            ClientName::Awc => Box::new(rates_awc::AwcRates::new(settings)?),
            ClientName::Reqwest => Box::new(rates_reqwest::ReqwestRates::new(settings)?),
            ClientName::Ureq => Box::new(rates_ureq::UreqRates::new(settings)?),
            ClientName::Isahc => Box::new(rates_isahc::IsahcRates::new(settings)?),
        })
    }
}

impl fmt::Display for ClientName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
