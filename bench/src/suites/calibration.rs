//! The latency suite's calibration: mock-rates called by the least client the bench can write,
//! so that its own cost per call is known per protocol and a client's row can be read as the
//! client's. Over `http` and `https` a request written by hand on one kept-alive connection
//! (tokio's socket, tokio-rustls over TLS) and the response read by its `Content-Length`;
//! over `h2` the h2 crate alone, which hyper's HTTP/2 is built on. The body is decoded as the
//! adapters decode it (`rates_common::decode_quotes`). Nothing is pooled, retried or bounded:
//! it is an instrument, not a client.

use std::sync::Arc;

use application::Quotes;
use bytes::Bytes;
use domain::CurrencyPair;
use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};
use tokio::net::TcpStream;

use bench_model::Protocol;

/// The minimal client of one protocol, connected.
pub struct MinimalClient {
    /// One call at a time; replaced when mock-rates closed it.
    connection: tokio::sync::Mutex<Connection>,
    target: CalibrationTarget,
    /// `/api/live?pairs=...` for the pairs it was built for.
    path: String,
}

impl std::fmt::Debug for MinimalClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MinimalClient")
            .field("authority", &self.target.authority)
            .field("protocol", &self.target.protocol)
            .finish_non_exhaustive()
    }
}

/// Where and how the minimal client connects.
struct CalibrationTarget {
    authority: String,
    ca_pem: Option<Vec<u8>>,
    protocol: Protocol,
}

enum Connection {
    Http1(Http1),
    H2(h2::client::SendRequest<Bytes>),
}

/// One HTTP/1.1 connection and its read buffer.
struct Http1 {
    stream: Box<dyn Stream>,
    buffer: Vec<u8>,
}

trait Stream: AsyncRead + AsyncWrite + Unpin {}
impl<T: AsyncRead + AsyncWrite + Unpin> Stream for T {}

/// Why an exchange failed: the connection was closed before any of the answer came (the
/// request is safe to send again on a new one), or anything else.
enum Failure {
    Closed(String),
    Other(String),
}

impl Failure {
    fn into_reason(self) -> String {
        match self {
            Self::Closed(why) | Self::Other(why) => why,
        }
    }
}

impl MinimalClient {
    /// Connects to the mock at `base_url` (`http://ADDR` or `https://ADDR`) over `protocol`,
    /// trusting `ca_pem` over TLS, for calls asking for `pairs`. Inside a tokio runtime (over
    /// h2 the connection's task is spawned on it).
    pub async fn connect(
        base_url: &str,
        ca_pem: Option<&[u8]>,
        protocol: Protocol,
        pairs: &[CurrencyPair],
    ) -> Result<Self, String> {
        let target = CalibrationTarget {
            authority: base_url
                .split_once("://")
                .map_or(base_url, |(_, rest)| rest)
                .trim_end_matches('/')
                .to_owned(),
            ca_pem: ca_pem.map(<[u8]>::to_vec),
            protocol,
        };
        let connection = target.open().await?;
        Ok(Self {
            connection: tokio::sync::Mutex::new(connection),
            target,
            path: rates_common::live_url("", pairs),
        })
    }

    /// One request for the rates, its whole answer read, decoded for `pairs`. mock-rates
    /// closes a connection left idle past its keep-alive (the suite's rounds leave it idle
    /// while the clients take their turns), as servers do; then, as a client's pool would, the
    /// request is sent again on a new connection, once.
    pub async fn call(&self, pairs: &[CurrencyPair]) -> Result<Quotes, String> {
        let mut connection = self
            .connection
            .try_lock()
            .map_err(|_| "one call at a time".to_owned())?;
        let answer = match self.exchange(&mut connection).await {
            Err(Failure::Closed(_)) => {
                *connection = self.target.open().await?;
                self.exchange(&mut connection).await
            }
            answer => answer,
        };
        let (status, body) = answer.map_err(Failure::into_reason)?;
        if status != 200 {
            return Err(format!("status {status}"));
        }
        rates_common::decode_quotes(&body, pairs).map_err(|error| error.to_string())
    }

    async fn exchange(&self, connection: &mut Connection) -> Result<(u16, Vec<u8>), Failure> {
        match connection {
            Connection::Http1(http1) => http1.exchange(&self.path, &self.target.authority).await,
            Connection::H2(send) => self.h2_exchange(send.clone()).await,
        }
    }

    async fn h2_exchange(
        &self,
        send: h2::client::SendRequest<Bytes>,
    ) -> Result<(u16, Vec<u8>), Failure> {
        // A connection that is going away (GOAWAY) or gone refuses new streams before they
        // are sent; an error once the answer started is a failure.
        let closed = |error: h2::Error| Failure::Closed(format!("HTTP/2: {error}"));
        let mut send = send.ready().await.map_err(closed)?;
        let request = http::Request::get(format!("https://{}{}", self.target.authority, self.path))
            .body(())
            .map_err(|error| Failure::Other(error.to_string()))?;
        let (response, _) = send.send_request(request, true).map_err(closed)?;
        let response = response.await.map_err(|error| {
            if error.is_go_away() || error.is_io() {
                closed(error)
            } else {
                Failure::Other(format!("HTTP/2: {error}"))
            }
        })?;
        let status = response.status().as_u16();
        let mut body = response.into_body();
        let mut bytes = Vec::new();
        while let Some(chunk) = body.data().await {
            let chunk = chunk.map_err(|error| Failure::Other(format!("HTTP/2: {error}")))?;
            let _ = body.flow_control().release_capacity(chunk.len());
            bytes.extend_from_slice(&chunk);
        }
        Ok((status, bytes))
    }
}

impl CalibrationTarget {
    /// A new connection, TLS and HTTP/2 handshakes included.
    async fn open(&self) -> Result<Connection, String> {
        let authority = &self.authority;
        let tcp = TcpStream::connect(authority)
            .await
            .map_err(|error| format!("connect to {authority}: {error}"))?;
        tcp.set_nodelay(true)
            .map_err(|error| format!("TCP_NODELAY: {error}"))?;
        let ca_pem = self.ca_pem.as_deref();
        Ok(match self.protocol {
            Protocol::Http => Connection::Http1(Http1::new(Box::new(tcp))),
            Protocol::Https => {
                let tls = handshake(tcp, authority, ca_pem, b"http/1.1").await?;
                Connection::Http1(Http1::new(Box::new(tls)))
            }
            Protocol::H2 => {
                let tls = handshake(tcp, authority, ca_pem, b"h2").await?;
                let (send, connection) = h2::client::handshake(tls)
                    .await
                    .map_err(|error| format!("HTTP/2 handshake: {error}"))?;
                actix_rt::spawn(async move {
                    // Ends when the client is dropped; an error then is the close itself.
                    let _ = connection.await;
                });
                Connection::H2(send)
            }
        })
    }
}

impl Http1 {
    fn new(stream: Box<dyn Stream>) -> Self {
        Self {
            stream,
            buffer: Vec::with_capacity(4096),
        }
    }

    /// Writes the request and reads its response: the head, then `Content-Length` bytes.
    async fn exchange(&mut self, path: &str, authority: &str) -> Result<(u16, Vec<u8>), Failure> {
        let request = format!("GET {path} HTTP/1.1\r\nHost: {authority}\r\n\r\n");
        self.stream
            .write_all(request.as_bytes())
            .await
            .map_err(|error| Failure::Closed(format!("write: {error}")))?;
        self.buffer.clear();
        loop {
            if let Some((status, head_len, length)) = head(&self.buffer).map_err(Failure::Other)? {
                let whole = head_len + length;
                while self.buffer.len() < whole {
                    self.read().await?;
                }
                let body = self.buffer[head_len..whole].to_vec();
                self.buffer.drain(..whole);
                return Ok((status, body));
            }
            self.read().await?;
        }
    }

    /// Reads what came; a close before any byte of the answer is [`Failure::Closed`].
    async fn read(&mut self) -> Result<(), Failure> {
        let nothing_yet = self.buffer.is_empty();
        let failure = |why: String| {
            if nothing_yet {
                Failure::Closed(why)
            } else {
                Failure::Other(why)
            }
        };
        let mut chunk = [0_u8; 4096];
        let read = self
            .stream
            .read(&mut chunk)
            .await
            .map_err(|error| failure(format!("read: {error}")))?;
        if read == 0 {
            return Err(failure("the connection closed mid-response".to_owned()));
        }
        self.buffer.extend_from_slice(&chunk[..read]);
        Ok(())
    }
}

/// The status, head length and `Content-Length` of a complete response head at the start of
/// `bytes`; `None` while it is incomplete.
fn head(bytes: &[u8]) -> Result<Option<(u16, usize, usize)>, String> {
    let mut headers = [httparse::EMPTY_HEADER; 32];
    let mut response = httparse::Response::new(&mut headers);
    match response.parse(bytes) {
        Ok(httparse::Status::Partial) => Ok(None),
        Ok(httparse::Status::Complete(head_len)) => {
            let status = response.code.unwrap_or(0);
            let length = response
                .headers
                .iter()
                .find(|header| header.name.eq_ignore_ascii_case("content-length"))
                .and_then(|header| std::str::from_utf8(header.value).ok()?.trim().parse().ok())
                .ok_or("the minimal client reads Content-Length bodies only")?;
            Ok(Some((status, head_len, length)))
        }
        Err(error) => Err(format!("response head: {error}")),
    }
}

/// A TLS client connection over `tcp` offering `alpn`, trusting `ca_pem` only.
async fn handshake(
    tcp: TcpStream,
    authority: &str,
    ca_pem: Option<&[u8]>,
    alpn: &[u8],
) -> Result<tokio_rustls::client::TlsStream<TcpStream>, String> {
    let ca_pem = ca_pem.ok_or("TLS without the mock's CA")?;
    let mut roots = rustls::RootCertStore::empty();
    for certificate in CertificateDer::pem_slice_iter(ca_pem) {
        let certificate = certificate.map_err(|error| format!("the mock's CA: {error}"))?;
        roots
            .add(certificate)
            .map_err(|error| format!("the mock's CA: {error}"))?;
    }
    let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|error| error.to_string())?
    .with_root_certificates(roots)
    .with_no_client_auth();
    config.alpn_protocols = vec![alpn.to_vec()];
    let host = authority
        .rsplit_once(':')
        .map_or(authority, |(host, _)| host)
        .to_owned();
    let name = ServerName::try_from(host).map_err(|error| error.to_string())?;
    tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
        .map_err(|error| format!("TLS handshake: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_head_once_it_is_whole() {
        let response =
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
        assert_eq!(head(&response[..20]), Ok(None));
        assert_eq!(head(response), Ok(Some((200, response.len() - 2, 2))));
        let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
        assert!(head(chunked).is_err(), "no Content-Length");
    }
}
