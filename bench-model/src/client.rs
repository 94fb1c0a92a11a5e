//! The clients under comparison, by name (`client_names::ClientName`, the one list of them),
//! and which of them a run measures over each protocol.

pub use client_names::ClientName;

use crate::Protocol;

/// What a run makes of a client over each protocol.
pub trait ClientProtocols {
    /// Whether the client can speak `protocol`: ureq speaks HTTP/1.1 only, by design.
    fn speaks(self, protocol: Protocol) -> bool;

    /// Whether a run measures this client over `protocol` when the clients were not named.
    /// Over plain HTTP a client with another TLS backend is its library's default client with
    /// a TLS connector that is never used, so it is a row only when named with `--clients`;
    /// over h2 the other TLS backends are left out too (their TLS is what the https rows
    /// measure), and a client that cannot speak it always is. A row of an adapter setting
    /// ([`ClientName::setting_of`]) is measured only when named.
    fn measured_by_default_over(self, protocol: Protocol) -> bool;
}

impl ClientProtocols for ClientName {
    fn speaks(self, protocol: Protocol) -> bool {
        protocol != Protocol::H2 || self.speaks_http2()
    }

    fn measured_by_default_over(self, protocol: Protocol) -> bool {
        self.speaks(protocol)
            && self.setting_of().is_none()
            && (self.is_library_default() || protocol == Protocol::Https)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_on_the_command_line_are_the_names() {
        use clap::ValueEnum as _;
        for name in ClientName::ALL {
            let cli = name.to_possible_value().expect("no variant is skipped");
            assert_eq!(cli.get_name(), name.as_str());
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
                ClientName::ReqwestBlocking,
                ClientName::Isahc
            ]
        );
        assert!(!ClientName::UreqNativeTls.speaks(Protocol::H2));
        assert!(ClientName::AwcOpenssl.speaks(Protocol::H2));
        assert!(ClientName::Ureq.speaks(Protocol::Https));
    }

    #[test]
    fn a_setting_row_is_measured_only_when_named() {
        assert!(!ClientName::UreqInlineIp.speaks(Protocol::H2));
        for protocol in Protocol::ALL {
            assert!(!ClientName::UreqInlineIp.measured_by_default_over(protocol));
            assert!(!ClientName::UreqNativeTlsFirstAlone.measured_by_default_over(protocol));
        }
    }
}
