//! What the clients speak to the upstream.

use std::fmt;

use serde::{Deserialize, Serialize};

/// What the clients speak to mock-rates: in the latency suite the bench's own adapters, in the
/// load and fanout suites the payment service's.
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

    /// A row's `label` as the tables name it over this protocol: bare over http (the rows the
    /// bench had before the protocol dimension), `label over https` otherwise.
    pub fn qualify(self, label: impl fmt::Display) -> String {
        match self {
            Protocol::Http => label.to_string(),
            Protocol::Https => format!("{label} over {self}"),
        }
    }

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
