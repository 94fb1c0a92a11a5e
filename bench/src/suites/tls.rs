//! What a suite over `https` checks of every row: the TLS that mock-rates itself counted.

use std::fmt::Display;

use crate::clients::Counted;
use crate::error::BenchError;
use crate::model::{ClientName, NegotiatedTls};
use crate::suites::adapters;

/// The TLS mock-rates counted for `client`'s calls (`who` names the row in errors): a row over
/// `https` whose calls negotiated none (or whose handshakes could not be counted) is an error,
/// not a figure.
pub fn negotiated(
    client: ClientName,
    who: impl Display,
    counted: Option<Counted>,
) -> Result<NegotiatedTls, BenchError> {
    let counted = counted.ok_or_else(|| {
        BenchError::Tls(format!(
            "{who}: the TLS handshakes could not be counted (mock-rates' admin endpoint)"
        ))
    })?;
    let version = version(&counted).ok_or_else(|| {
        BenchError::Tls(format!(
            "{who}: its calls over https negotiated no TLS that mock-rates counted"
        ))
    })?;
    let stack = adapters::tls_stack(client);
    Ok(NegotiatedTls {
        backend: stack.backend.to_owned(),
        provider: stack.provider.to_owned(),
        version: version.to_owned(),
        handshakes: counted.tls_handshakes,
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
        };
        let counted = negotiated(ClientName::Hyper, "hyper", Some(tls13)).unwrap();
        assert_eq!(
            (counted.version.as_str(), counted.handshakes),
            ("TLSv1.3", 1)
        );
        assert_eq!(counted.describe(), "rustls (aws-lc-rs) TLSv1.3");
        let both = Counted {
            tls_handshakes: 2,
            tls_full: 2,
            tls12: 1,
            ..tls13
        };
        assert_eq!(
            negotiated(ClientName::Hyper, "hyper", Some(both))
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
            negotiated(ClientName::Hyper, "hyper", Some(none)),
            Err(BenchError::Tls(message)) if message.contains("negotiated no TLS")
        ));
        assert!(matches!(
            negotiated(ClientName::Hyper, "hyper", None),
            Err(BenchError::Tls(message)) if message.contains("could not be counted")
        ));
    }
}
