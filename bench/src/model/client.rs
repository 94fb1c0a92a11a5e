//! The clients under comparison, by name.

use std::fmt;

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

    /// The name the api's registry and routes use (`/payments/{name}`); the adapters' `NAME`.
    pub fn as_str(self) -> &'static str {
        match self {
            ClientName::Hyper => "hyper",
            ClientName::Awc => "awc",
            ClientName::Reqwest => "reqwest",
            ClientName::Ureq => "ureq",
            ClientName::Isahc => "isahc",
        }
    }
}

impl fmt::Display for ClientName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
