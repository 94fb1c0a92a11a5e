//! The protocol dimension of the suites that call mock-rates directly.

use std::fmt;

use serde::{Deserialize, Serialize};

/// What the upstream speaks in a suite that calls mock-rates directly.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
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
pub enum Protocol {
    /// HTTP/1.1 in the clear.
    #[default]
    Http,
    /// HTTP/1.1 over TLS (mock-rates `--tls`, its CA given to the clients).
    Https,
}

impl Protocol {
    /// Every protocol, in table order.
    pub const ALL: [Protocol; 2] = [Protocol::Http, Protocol::Https];

    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Http => "http",
            Protocol::Https => "https",
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
