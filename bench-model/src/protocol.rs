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
    /// HTTP/2 over TLS, negotiated by ALPN: the clients built with `rates.http_version = "2"`
    /// (offering only `h2`), against the same kind of mock-rates as `https`.
    H2,
}

impl Protocol {
    /// Every protocol, in table order.
    pub const ALL: [Protocol; 3] = [Protocol::Http, Protocol::Https, Protocol::H2];

    /// A row's `label` as the tables name it over this protocol: bare over http (the rows the
    /// bench had before the protocol dimension), `label over https` or `label over h2`
    /// otherwise.
    pub fn qualify(self, label: impl fmt::Display) -> String {
        match self {
            Protocol::Http => label.to_string(),
            Protocol::Https | Protocol::H2 => format!("{label} over {self}"),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Http => "http",
            Protocol::Https => "https",
            Protocol::H2 => "h2",
        }
    }

    /// Whether the upstream is reached over TLS (and so a row states the TLS it negotiated).
    pub fn is_tls(self) -> bool {
        self != Protocol::Http
    }

    /// The HTTP version spoken to the upstream, as the tables write it.
    pub fn http_version(self) -> &'static str {
        match self {
            Protocol::Http | Protocol::Https => "HTTP/1.1",
            Protocol::H2 => "HTTP/2",
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
