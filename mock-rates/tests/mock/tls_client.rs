//! The tests' TLS client: rustls over a blocking socket, trusting only the CA it is given.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{
    ClientConfig, ClientConnection, RootCertStore, StreamOwned, SupportedProtocolVersion,
};

/// Long enough never to fire on a working server; only there so a broken one fails the test.
pub const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// A TCP connection with the tests' read timeout.
pub fn plain(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(READ_TIMEOUT))
        .expect("set timeout");
    stream
}

/// A connection the tests' client reads and writes, plain or inside TLS.
pub enum Stream {
    Plain(TcpStream),
    Tls(Box<StreamOwned<ClientConnection, TcpStream>>),
}

impl Stream {
    pub fn socket(&self) -> &TcpStream {
        match self {
            Self::Plain(socket) => socket,
            Self::Tls(tls) => tls.get_ref(),
        }
    }

    pub fn tls(&self) -> Option<&ClientConnection> {
        match self {
            Self::Plain(_) => None,
            Self::Tls(tls) => Some(&tls.conn),
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Self::Plain(socket) => socket.read(buf),
            Self::Tls(tls) => tls.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Self::Plain(socket) => socket.write(buf),
            Self::Tls(tls) => tls.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Self::Plain(socket) => socket.flush(),
            Self::Tls(tls) => tls.flush(),
        }
    }
}

/// A client configuration trusting only `ca_pem`, offering TLS 1.3 and 1.2 and HTTP/1.1.
///
/// One configuration keeps one session cache: connections made with the same one resume.
pub fn trusting(ca_pem: &str) -> Arc<ClientConfig> {
    trusting_with(ca_pem, rustls::DEFAULT_VERSIONS)
}

/// Like [`trusting`], offering only `versions`.
pub fn trusting_with(
    ca_pem: &str,
    versions: &[&'static SupportedProtocolVersion],
) -> Arc<ClientConfig> {
    let mut roots = RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_slice(ca_pem.as_bytes()).expect("the CA PEM parses"))
        .expect("the CA is a usable root");
    let mut config =
        ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_protocol_versions(versions)
            .expect("the versions are supported")
            .with_root_certificates(roots)
            .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Arc::new(config)
}

/// Connects and completes the handshake, so a refused certificate fails here rather than at
/// the first read.
pub fn connect(
    addr: SocketAddr,
    server_name: &str,
    config: &Arc<ClientConfig>,
) -> io::Result<Stream> {
    let name = ServerName::try_from(server_name.to_owned()).map_err(io::Error::other)?;
    let mut socket = plain(addr);
    let mut connection =
        ClientConnection::new(Arc::clone(config), name).map_err(io::Error::other)?;
    while connection.is_handshaking() {
        connection.complete_io(&mut socket)?;
    }
    Ok(Stream::Tls(Box::new(StreamOwned::new(connection, socket))))
}
