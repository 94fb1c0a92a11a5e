//! The clients under comparison, by name: each client library with each of its TLS backends.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::model::Protocol;

/// One adapter of the `RatesProvider` port with one TLS backend, named as the api's registry
/// names it: the library's bare name for its default backend, the library's and the backend's
/// for the others. hyper (hyper-util's client) is the baseline.
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
#[serde(rename_all = "kebab-case")]
pub enum ClientName {
    /// hyper-util's legacy client with hyper-rustls: the low-level baseline.
    Hyper,
    /// actix-web's client, with rustls.
    Awc,
    /// reqwest with rustls.
    Reqwest,
    /// Blocking, with rustls; runs on the runtime's blocking pool.
    Ureq,
    /// libcurl through isahc, with libcurl's OpenSSL.
    Isahc,
    /// awc with the system's OpenSSL.
    AwcOpenssl,
    /// reqwest with native-tls (the system's OpenSSL).
    ReqwestNativeTls,
    /// ureq with native-tls (the system's OpenSSL).
    UreqNativeTls,
}

impl ClientName {
    /// Every client and backend: the libraries' defaults first (baseline first), then the other
    /// backends. The default table order.
    pub const ALL: [ClientName; 8] = [
        ClientName::Hyper,
        ClientName::Awc,
        ClientName::Reqwest,
        ClientName::Ureq,
        ClientName::Isahc,
        ClientName::AwcOpenssl,
        ClientName::ReqwestNativeTls,
        ClientName::UreqNativeTls,
    ];

    /// The baseline that Ratio columns divide by.
    pub const BASELINE: ClientName = ClientName::Hyper;

    /// The name the api's registry and routes use (`/payments/{name}`).
    pub fn as_str(self) -> &'static str {
        match self {
            ClientName::Hyper => "hyper",
            ClientName::Awc => "awc",
            ClientName::Reqwest => "reqwest",
            ClientName::Ureq => "ureq",
            ClientName::Isahc => "isahc",
            ClientName::AwcOpenssl => "awc-openssl",
            ClientName::ReqwestNativeTls => "reqwest-native-tls",
            ClientName::UreqNativeTls => "ureq-native-tls",
        }
    }

    /// The client with its library's default TLS backend: itself, or `awc` for `awc-openssl`.
    #[must_use]
    pub fn library_default(self) -> ClientName {
        match self {
            ClientName::AwcOpenssl => ClientName::Awc,
            ClientName::ReqwestNativeTls => ClientName::Reqwest,
            ClientName::UreqNativeTls => ClientName::Ureq,
            other => other,
        }
    }

    /// Whether this is its library's default TLS backend (the bare name).
    pub fn is_library_default(self) -> bool {
        self.library_default() == self
    }

    /// Whether the client can speak `protocol`: ureq speaks HTTP/1.1 only, by design.
    pub fn speaks(self, protocol: Protocol) -> bool {
        protocol != Protocol::H2 || self.library_default() != ClientName::Ureq
    }

    /// Whether a run measures this client over `protocol` when the clients were not named.
    /// Over plain HTTP a client with another TLS backend is its library's default client with
    /// a TLS connector that is never used, so it is a row only when named with `--clients`;
    /// over h2 the other TLS backends are left out too (their TLS is what the https rows
    /// measure), and a client that cannot speak it always is.
    pub fn measured_by_default_over(self, protocol: Protocol) -> bool {
        self.speaks(protocol) && (self.is_library_default() || protocol == Protocol::Https)
    }
}

impl fmt::Display for ClientName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_on_the_command_line_in_json_and_in_routes_agree() {
        use clap::ValueEnum as _;
        for name in ClientName::ALL {
            let cli = name.to_possible_value().expect("no variant is skipped");
            assert_eq!(cli.get_name(), name.as_str());
            assert_eq!(
                serde_json::to_string(&name).unwrap(),
                format!("\"{}\"", name.as_str())
            );
        }
    }

    #[test]
    fn other_backends_are_https_rows_unless_named() {
        assert!(ClientName::Reqwest.measured_by_default_over(Protocol::Http));
        assert!(!ClientName::ReqwestNativeTls.measured_by_default_over(Protocol::Http));
        assert!(ClientName::ReqwestNativeTls.measured_by_default_over(Protocol::Https));
        assert_eq!(
            ClientName::UreqNativeTls.library_default(),
            ClientName::Ureq
        );
    }

    #[test]
    fn over_h2_the_default_backends_that_speak_it() {
        let over_h2: Vec<ClientName> = ClientName::ALL
            .into_iter()
            .filter(|client| client.measured_by_default_over(Protocol::H2))
            .collect();
        assert_eq!(
            over_h2,
            [
                ClientName::Hyper,
                ClientName::Awc,
                ClientName::Reqwest,
                ClientName::Isahc
            ]
        );
        assert!(!ClientName::UreqNativeTls.speaks(Protocol::H2));
        assert!(ClientName::AwcOpenssl.speaks(Protocol::H2));
        assert!(ClientName::Ureq.speaks(Protocol::Https));
    }
}
