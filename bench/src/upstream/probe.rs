//! One TLS handshake of the bench's own with the foreign upstream, before the suites: the TLS
//! version and the ALPN protocol the server chooses for a client that offers what the
//! protocol's clients offer, read on the client's side (the server's own counts are not the
//! bench's to read). Never in a measured call's path.

use std::sync::Arc;
use std::time::Duration;

use rates_common::ClientSettings;
use rustls_pki_types::ServerName;
use tokio::net::TcpStream;

use bench_model::{Protocol, UpstreamProbe};

/// Limit on the connection and the handshake together.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// The handshake over `protocol` with the upstream at `url` (`https://`), trusting the
/// system's roots and `ca_pem` as the clients do, certificates verified; ALPN offers the one
/// protocol the clients of `protocol` offer. A server that does not choose `h2` when only
/// `h2` is offered is an error of the probe.
pub fn probe(url: &str, ca_pem: Option<&Arc<[u8]>>, protocol: Protocol) -> UpstreamProbe {
    let outcome = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start a runtime: {error}"))
        .and_then(|runtime| {
            runtime.block_on(async {
                tokio::time::timeout(PROBE_TIMEOUT, handshake(url, ca_pem, protocol))
                    .await
                    .unwrap_or_else(|_| {
                        Err(format!(
                            "no TLS handshake within {} s",
                            PROBE_TIMEOUT.as_secs()
                        ))
                    })
            })
        });
    let mut probe = UpstreamProbe {
        protocol,
        tls_version: None,
        alpn: None,
        error: None,
    };
    match outcome {
        Ok((version, alpn)) => {
            if protocol == Protocol::H2 && alpn.as_deref() != Some("h2") {
                probe.error = Some(format!(
                    "offered only h2 by ALPN, the server chose {}",
                    alpn.as_deref().unwrap_or("no protocol")
                ));
            }
            probe.tls_version = Some(version);
            probe.alpn = alpn;
        }
        Err(why) => probe.error = Some(why),
    }
    probe
}

/// Connects and shakes hands: the TLS version and the ALPN protocol chosen.
async fn handshake(
    url: &str,
    ca_pem: Option<&Arc<[u8]>>,
    protocol: Protocol,
) -> Result<(String, Option<String>), String> {
    let (host, port) = host_and_port(url)?;
    let name = ServerName::try_from(host.clone())
        .map_err(|error| format!("{host:?} is not a server name: {error}"))?;
    let tcp = TcpStream::connect((host.as_str(), port))
        .await
        .map_err(|error| format!("cannot connect to {host}:{port}: {error}"))?;
    let settings = ClientSettings {
        extra_ca_pem: ca_pem.cloned(),
        http_version: crate::suites::adapters::http_version(protocol),
        ..ClientSettings::for_base_url(url)
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rates_common::tls::client_config(&settings, provider, "probe")
        .map_err(|error| error.reason)?;
    let tls = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
        .map_err(|error| format!("TLS handshake: {error}"))?;
    let (_, connection) = tls.get_ref();
    let version = match connection.protocol_version() {
        Some(rustls::ProtocolVersion::TLSv1_3) => "TLSv1.3".to_owned(),
        Some(rustls::ProtocolVersion::TLSv1_2) => "TLSv1.2".to_owned(),
        Some(other) => format!("{other:?}"),
        None => return Err("the handshake completed without a TLS version".to_owned()),
    };
    let alpn = connection
        .alpn_protocol()
        .map(|alpn| String::from_utf8_lossy(alpn).into_owned());
    Ok((version, alpn))
}

/// The host (without brackets for an IPv6 literal) and port of a base URL; 443 for
/// `https://` and 80 for `http://` when it names none.
fn host_and_port(url: &str) -> Result<(String, u16), String> {
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| format!("{url:?} has no scheme"))?;
    let authority = rest.split('/').next().unwrap_or_default();
    let default_port = if scheme == "https" { 443 } else { 80 };
    let (host, port) = if let Some(bracketed) = authority.strip_prefix('[') {
        let (host, after) = bracketed
            .split_once(']')
            .ok_or_else(|| format!("{url:?}: an unclosed [ in its host"))?;
        (host, after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    let port = match port {
        Some(port) => port
            .parse()
            .map_err(|_| format!("{url:?}: {port:?} is not a port"))?,
        None => default_port,
    };
    if host.is_empty() {
        return Err(format!("{url:?} has no host"));
    }
    Ok((host.to_owned(), port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_host_and_port_of_a_base_url() {
        let of = host_and_port;
        assert_eq!(
            of("https://localhost:8443"),
            Ok(("localhost".to_owned(), 8443))
        );
        assert_eq!(
            of("https://rates.example/v1"),
            Ok(("rates.example".to_owned(), 443))
        );
        assert_eq!(of("http://127.0.0.1"), Ok(("127.0.0.1".to_owned(), 80)));
        assert_eq!(of("https://[::1]:9443"), Ok(("::1".to_owned(), 9443)));
        assert!(of("https://a:port").is_err());
        assert!(of("https://:443").is_err());
        assert!(of("localhost").is_err());
    }

    #[test]
    fn an_unreachable_upstream_is_a_probe_error_not_a_panic() {
        // A port nothing listens on: bound, then closed.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let probe = probe(&format!("https://127.0.0.1:{port}"), None, Protocol::Https);
        assert_eq!(probe.tls_version, None);
        assert!(
            probe
                .error
                .as_deref()
                .is_some_and(|why| why.contains("cannot connect")),
            "{probe:?}"
        );
    }
}
