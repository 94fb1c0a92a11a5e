//! HTTPS on the listener: a CA and a certificate for `localhost`/`127.0.0.1` made at start,
//! the rustls server configuration (ALPN included), and the handshake, bounded in time.

use std::fmt;
use std::io;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::Duration;

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, SanType,
};
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::server::NoServerSessionStorage;
use rustls::{HandshakeKind, ProtocolVersion, ServerConfig};
use tokio::net::TcpStream;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

use crate::settings::TlsSettings;

/// Protocols offered by ALPN, in the server's order of preference; the negotiated one
/// ([`Handshake::h2`]) picks the connection code. `h2` is left out when HTTP/2 is off.
const ALPN: [&[u8]; 2] = [b"h2", b"http/1.1"];

/// The TLS side of a server: its acceptor and the PEM of the CA that signed its certificate.
pub(crate) struct Tls {
    acceptor: TlsAcceptor,
    /// How long a client may take to finish the handshake.
    handshake_timeout: Duration,
    ca_pem: String,
}

impl fmt::Debug for Tls {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The acceptor holds the private key: nothing of it belongs in a log.
        formatter
            .debug_struct("Tls")
            .field("ca_pem", &self.ca_pem)
            .finish_non_exhaustive()
    }
}

/// What a completed handshake was, for the counters.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Handshake {
    pub resumed: bool,
    pub tls13: bool,
    /// The client chose `h2` by ALPN.
    pub h2: bool,
}

impl Tls {
    /// A fresh CA and leaf certificate, and a rustls configuration serving the leaf.
    ///
    /// Nothing is read from disk, so no key can go stale or leak into the repository.
    pub(crate) fn generate(settings: &TlsSettings) -> io::Result<Self> {
        let (ca, leaf) = certificates().map_err(io::Error::other)?;
        // Passed explicitly: with more than one provider compiled into the workspace rustls
        // cannot pick a process-wide default, and would panic if asked to.
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(io::Error::other)?
            .with_no_client_auth()
            .with_single_cert(vec![leaf.cert], leaf.key)
            .map_err(io::Error::other)?;
        config.alpn_protocols = ALPN
            .iter()
            .filter(|protocol| settings.http2 || **protocol != b"h2")
            .map(|protocol| protocol.to_vec())
            .collect();
        if !settings.resumption {
            // No stored sessions covers TLS 1.2 ids and TLS 1.3 stateful tickets; the default
            // ticketer makes no stateless tickets, and sending none keeps clients from trying.
            config.session_storage = Arc::new(NoServerSessionStorage {});
            config.send_tls13_tickets = 0;
        }
        Ok(Self {
            acceptor: TlsAcceptor::from(Arc::new(config)),
            handshake_timeout: settings.handshake_timeout,
            ca_pem: ca,
        })
    }

    pub(crate) fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// Runs the server side of the handshake on an accepted connection.
    ///
    /// # Errors
    ///
    /// The handshake failed (a client that refuses the certificate, plain HTTP on the TLS
    /// port) or did not finish within the settings' `handshake_timeout`.
    pub(crate) async fn accept(
        &self,
        stream: TcpStream,
    ) -> io::Result<(TlsStream<TcpStream>, Handshake)> {
        let stream = tokio::time::timeout(self.handshake_timeout, self.acceptor.accept(stream))
            .await
            .map_err(|_elapsed| {
                io::Error::new(io::ErrorKind::TimedOut, "TLS handshake timeout")
            })??;
        let connection = stream.get_ref().1;
        let handshake = Handshake {
            resumed: connection.handshake_kind() == Some(HandshakeKind::Resumed),
            tls13: connection.protocol_version() == Some(ProtocolVersion::TLSv1_3),
            h2: connection.alpn_protocol() == Some(b"h2"),
        };
        Ok((stream, handshake))
    }
}

struct Leaf {
    cert: rustls::pki_types::CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
}

/// The CA's PEM, and a leaf it signed naming `localhost` and `127.0.0.1`.
fn certificates() -> Result<(String, Leaf), rcgen::Error> {
    let ca_key = KeyPair::generate()?;
    let mut ca_params = CertificateParams::default();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    // A name of its own per start: a client holding the CA of an earlier run is then told
    // the issuer is unknown, rather than that a signature is bad.
    ca_params.distinguished_name.push(
        DnType::CommonName,
        format!("mock-rates test CA {:016x}", fastrand::u64(..)),
    );
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_pem = ca_params.self_signed(&ca_key)?.pem();

    let leaf_key = KeyPair::generate()?;
    let mut leaf_params = CertificateParams::default();
    leaf_params
        .distinguished_name
        .push(DnType::CommonName, "localhost");
    // Both kinds of name, so clients can connect by host name or by address.
    leaf_params.subject_alt_names = vec![
        SanType::DnsName("localhost".try_into()?),
        SanType::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST)),
    ];
    leaf_params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    leaf_params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let issuer = Issuer::new(ca_params, ca_key);
    let leaf_cert = leaf_params.signed_by(&leaf_key, &issuer)?;
    let leaf = Leaf {
        cert: leaf_cert.der().clone(),
        key: PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der())),
    };
    Ok((ca_pem, leaf))
}
