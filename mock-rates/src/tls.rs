//! HTTPS on the listener: the identity served (see [`crate::identity`]), the rustls server
//! configuration (ALPN included), and the handshake, bounded in time.

use std::fmt;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::server::NoServerSessionStorage;
use rustls::{HandshakeKind, ProtocolVersion, ServerConfig};
use tokio::net::TcpStream;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

use crate::identity::TlsIdentity;
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
    /// A rustls configuration serving the settings' identity, or a fresh CA and leaf made
    /// here when it has none.
    ///
    /// Nothing is read from disk, so no key can go stale or leak into the repository.
    pub(crate) fn generate(settings: &TlsSettings) -> io::Result<Self> {
        let identity = match &settings.identity {
            Some(identity) => identity.clone(),
            None => TlsIdentity::generate()?,
        };
        let (ca, leaf_cert_der, leaf_key_der) = identity.into_parts();
        let leaf = Leaf {
            cert: CertificateDer::from(leaf_cert_der),
            key: PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key_der)),
        };
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
    cert: CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
}
