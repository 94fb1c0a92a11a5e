//! What a suite over `https` or `h2` checks of every row: the TLS and the HTTP version that
//! mock-rates itself counted.

use crate::clients::Counted;
use crate::suites::adapters;
use bench_model::{ClientName, NegotiatedTls, Protocol, Unchecked};

/// The TLS and HTTP version mock-rates counted for `client`'s calls over `protocol`: a row
/// whose calls negotiated no TLS (or whose handshakes could not be counted), or whose
/// connections did not all speak the protocol's HTTP version, is unchecked, not a figure.
pub fn negotiated(
    client: ClientName,
    protocol: Protocol,
    counted: Option<Counted>,
) -> Result<NegotiatedTls, Unchecked> {
    let counted = counted.ok_or(Unchecked::HandshakesNotCounted)?;
    let version = version(&counted).ok_or(Unchecked::NoTls)?;
    // By ALPN, handshake by handshake: a connection a client opened and then left unused
    // (hyper-util racing connections on a cold pool) has its handshake's choice too.
    let (handshakes, h2) = (counted.tls_handshakes, counted.alpn_h2);
    match protocol {
        Protocol::H2 if h2 < handshakes => {
            return Err(Unchecked::NotH2 {
                not_h2: handshakes - h2,
                handshakes,
            });
        }
        Protocol::Http | Protocol::Https if h2 > 0 => {
            return Err(Unchecked::ChoseH2 { h2, handshakes });
        }
        _ => {}
    }
    let stack = adapters::tls_stack(client);
    Ok(NegotiatedTls {
        backend: stack.backend.to_owned(),
        provider: stack.provider.to_owned(),
        version: version.to_owned(),
        handshakes: counted.tls_handshakes,
        http_version: protocol.http_version().to_owned(),
    })
}

/// The TLS version(s) mock-rates counted: "TLSv1.3", "TLSv1.2", or both; `None` for none.
pub fn version(counted: &Counted) -> Option<&'static str> {
    match (counted.tls13 > 0, counted.tls12 > 0) {
        (true, false) => Some("TLSv1.3"),
        (false, true) => Some("TLSv1.2"),
        (true, true) => Some("TLSv1.3 + TLSv1.2"),
        (false, false) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_over_https_must_have_negotiated_tls_the_mock_counted() {
        let tls13 = Counted {
            connections: 1,
            live_requests: 10,
            tls_handshakes: 1,
            tls_full: 1,
            tls_resumed: 0,
            tls13: 1,
            tls12: 0,
            alpn_h2: 0,
            h2_connections: 0,
            h2_streams: 0,
        };
        let counted = negotiated(ClientName::Hyper, Protocol::Https, Some(tls13)).unwrap();
        assert_eq!(
            (counted.version.as_str(), counted.handshakes),
            ("TLSv1.3", 1)
        );
        assert_eq!(counted.describe(), "rustls (aws-lc-rs) TLSv1.3, HTTP/1.1");
        let both = Counted {
            tls_handshakes: 2,
            tls_full: 2,
            tls12: 1,
            ..tls13
        };
        assert_eq!(
            negotiated(ClientName::Hyper, Protocol::Https, Some(both))
                .unwrap()
                .version,
            "TLSv1.3 + TLSv1.2"
        );
        let none = Counted {
            tls_handshakes: 0,
            tls_full: 0,
            tls13: 0,
            ..tls13
        };
        assert!(matches!(
            negotiated(ClientName::Hyper, Protocol::Https, Some(none)),
            Err(Unchecked::NoTls)
        ));
        assert!(matches!(
            negotiated(ClientName::Hyper, Protocol::Https, None),
            Err(Unchecked::HandshakesNotCounted)
        ));
    }

    #[test]
    fn every_connection_must_have_spoken_the_protocol_s_http_version() {
        let over_h2 = Counted {
            connections: 2,
            live_requests: 70,
            tls_handshakes: 2,
            tls_full: 2,
            tls13: 2,
            alpn_h2: 2,
            h2_connections: 2,
            h2_streams: 70,
            ..Counted::default()
        };
        let counted = negotiated(ClientName::Reqwest, Protocol::H2, Some(over_h2));
        assert_eq!(counted.unwrap().http_version, "HTTP/2");
        let one_fell_back = Counted {
            alpn_h2: 1,
            ..over_h2
        };
        assert!(matches!(
            negotiated(ClientName::Reqwest, Protocol::H2, Some(one_fell_back)),
            Err(Unchecked::NotH2 {
                not_h2: 1,
                handshakes: 2
            })
        ));
        assert!(matches!(
            negotiated(ClientName::Reqwest, Protocol::Https, Some(over_h2)),
            Err(Unchecked::ChoseH2 { h2: 2, .. })
        ));
    }
}
