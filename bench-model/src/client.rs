//! The clients under comparison, by name: each client library with each of its TLS backends.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::Protocol;

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
    /// libcurl through isahc, with libcurl's rustls backend (isahc's default TLS).
    Isahc,
    /// awc with the system's OpenSSL.
    AwcOpenssl,
    /// reqwest with native-tls (the system's OpenSSL).
    ReqwestNativeTls,
    /// ureq with native-tls (the system's OpenSSL).
    UreqNativeTls,
    /// ureq with the adapter's setting of docs/findings/ureq-resolver-thread.md: a host that
    /// is an IP address used as it is, not resolved on a thread per call. A row only when named.
    UreqInlineIp,
    /// ureq-native-tls with the adapter's setting of
    /// docs/findings/ureq-native-tls-connector-storm.md: over https the first call goes alone,
    /// so one TLS connector is built. A row only when named.
    UreqNativeTlsFirstAlone,
    /// reqwest (rustls) with its `hickory-dns` resolver instead of the system's: the
    /// resolution suite's row of it. A row only when named, elsewhere.
    ReqwestHickoryDns,
}

impl ClientName {
    /// Every client and backend: the libraries' defaults first (baseline first), then the other
    /// backends. The default table order.
    pub const ALL: [ClientName; 11] = [
        ClientName::Hyper,
        ClientName::Awc,
        ClientName::Reqwest,
        ClientName::Ureq,
        ClientName::Isahc,
        ClientName::AwcOpenssl,
        ClientName::ReqwestNativeTls,
        ClientName::UreqNativeTls,
        ClientName::UreqInlineIp,
        ClientName::UreqNativeTlsFirstAlone,
        ClientName::ReqwestHickoryDns,
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
            ClientName::UreqInlineIp => "ureq-inline-ip",
            ClientName::UreqNativeTlsFirstAlone => "ureq-native-tls-first-alone",
            ClientName::ReqwestHickoryDns => "reqwest-hickory-dns",
        }
    }

    /// The client with its library's default TLS backend: itself, or `awc` for `awc-openssl`.
    #[must_use]
    pub fn library_default(self) -> ClientName {
        match self {
            ClientName::AwcOpenssl => ClientName::Awc,
            ClientName::ReqwestNativeTls | ClientName::ReqwestHickoryDns => ClientName::Reqwest,
            ClientName::UreqNativeTls
            | ClientName::UreqInlineIp
            | ClientName::UreqNativeTlsFirstAlone => ClientName::Ureq,
            other => other,
        }
    }

    /// For a row of an adapter setting that a findings page describes, the pair as users get
    /// it (library and TLS backend) that the setting changes; `None` for the pairs themselves.
    pub fn setting_of(self) -> Option<ClientName> {
        match self {
            ClientName::UreqInlineIp => Some(ClientName::Ureq),
            ClientName::UreqNativeTlsFirstAlone => Some(ClientName::UreqNativeTls),
            ClientName::ReqwestHickoryDns => Some(ClientName::Reqwest),
            _ => None,
        }
    }

    /// Whether this is its library's default TLS backend (the bare name).
    pub fn is_library_default(self) -> bool {
        self.library_default() == self
    }

    /// Whether a user can call it without an async runtime of their own: ureq (blocking only)
    /// and isahc (blocking or async, on its own agent thread).
    pub fn is_blocking_capable(self) -> bool {
        matches!(self.library_default(), ClientName::Ureq | ClientName::Isahc)
    }

    /// Whether the client can speak `protocol`: ureq speaks HTTP/1.1 only, by design.
    pub fn speaks(self, protocol: Protocol) -> bool {
        protocol != Protocol::H2 || self.library_default() != ClientName::Ureq
    }

    /// Whether a run measures this client over `protocol` when the clients were not named.
    /// Over plain HTTP a client with another TLS backend is its library's default client with
    /// a TLS connector that is never used, so it is a row only when named with `--clients`;
    /// over h2 the other TLS backends are left out too (their TLS is what the https rows
    /// measure), and a client that cannot speak it always is. A row of an adapter setting
    /// ([`ClientName::setting_of`]) is measured only when named.
    pub fn measured_by_default_over(self, protocol: Protocol) -> bool {
        self.speaks(protocol)
            && self.setting_of().is_none()
            && (self.is_library_default() || protocol == Protocol::Https)
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

    #[test]
    fn a_setting_row_is_its_pairs_and_measured_only_when_named() {
        assert_eq!(
            ClientName::UreqNativeTlsFirstAlone.setting_of(),
            Some(ClientName::UreqNativeTls)
        );
        assert_eq!(ClientName::UreqInlineIp.library_default(), ClientName::Ureq);
        assert!(!ClientName::UreqInlineIp.speaks(Protocol::H2));
        for protocol in Protocol::ALL {
            assert!(!ClientName::UreqInlineIp.measured_by_default_over(protocol));
            assert!(!ClientName::UreqNativeTlsFirstAlone.measured_by_default_over(protocol));
        }
        assert!(ClientName::UreqInlineIp.is_blocking_capable());
        assert!(!ClientName::ReqwestNativeTls.is_blocking_capable());
    }
}
