//! `RatesProvider` over awc, actix's own HTTP client, with either of the TLS backends awc offers
//! ([`AwcTls`]): rustls 0.23 on aws-lc-rs (the default) or the system's OpenSSL.
//!
//! The adapter builds one client per actix worker (awc's client is not `Send`), trusting the
//! system's roots and `extra_ca_pem`; offers ALPN `http/1.1` or `h2` alone, as
//! `http_version` says, and checks the answer's version; gives awc a TCP connector that sets
//! `TCP_NODELAY` (docs/findings/awc-nagle.md); maps awc's errors, the OpenSSL handshake's
//! flattened strings included, into `RatesError`. What awc does underneath (pool checks, h2
//! after a GOAWAY, no retries), read from its source: docs/findings/awc-as-driven.md.

use std::fmt;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use actix_rt::net::TcpStream;
use actix_service::{Service, ServiceExt as _};
use actix_tls::connect::{ConnectError as TcpConnectError, ConnectInfo, Connection, Resolver};
use application::{Quotes, RatesError, RatesProvider};
use async_trait::async_trait;
use awc::error::{ConnectError, PayloadError, SendRequestError};
use awc::http::Uri;
use awc::http::header::CONTENT_LENGTH;
use awc::{Client, Connector};
use domain::CurrencyPair;
use futures_util::StreamExt as _;
use openssl::ssl::{SslConnector, SslMethod, SslVerifyMode};
use openssl::x509::X509;
use rates_common::{
    BodyDecode, BodyPieces, BoundedBody, BuildError, ClientSettings, HttpVersion, Received,
    TlsStack, UpstreamCall, broken_transfer, connect_timeout_error, describe, io_error, tls,
    tls_error,
};

/// awc's TLS backends; each (awc, backend) pair is its own registry entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AwcTls {
    /// rustls 0.23 with aws-lc-rs: the default.
    Rustls,
    /// The system's OpenSSL.
    Openssl,
}

impl AwcTls {
    pub const ALL: [Self; 2] = [Self::Rustls, Self::Openssl];

    /// The pair's registry name: the default keeps the bare `"awc"`.
    pub fn client_name(self) -> &'static str {
        match self {
            Self::Rustls => AwcRates::NAME,
            Self::Openssl => "awc-openssl",
        }
    }

    /// The TLS library and crypto of the pair.
    pub fn stack(self) -> TlsStack {
        match self {
            Self::Rustls => TlsStack {
                backend: "rustls",
                provider: "aws-lc-rs",
            },
            Self::Openssl => TlsStack {
                backend: "openssl",
                provider: "OpenSSL (system)",
            },
        }
    }

    /// This backend's failed handshake, if a connect io error is one (see
    /// [`AwcRates::send_error`]).
    fn failed_handshake(self, io: &io::Error, offered: HttpVersion) -> Option<RatesError> {
        match self {
            Self::Rustls => tls::tls_failure(io, offered),
            Self::Openssl => (io.raw_os_error().is_none() && io.get_ref().is_some())
                .then(|| tls_error(describe(io), offered)),
        }
    }
}

/// awc caps a connection's whole life (75 s by default); no other client does, so the cap is
/// pushed out of the way and only the idle timeout retires connections, as everywhere else.
const CONNECTION_LIFETIME: Duration = Duration::from_secs(24 * 60 * 60);

/// Fetches rates with one awc client, built once per actix worker.
pub struct AwcRates {
    client: Client,
    tls: AwcTls,
    http_version: HttpVersion,
    decode: BodyDecode,
    call: UpstreamCall,
}

impl fmt::Debug for AwcRates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AwcRates")
            .field("tls", &self.tls)
            .field("http_version", &self.http_version)
            .field("call", &self.call)
            .finish_non_exhaustive()
    }
}

impl AwcRates {
    pub const NAME: &'static str = "awc";
    /// The HTTP versions it speaks, with either backend: HTTP/1.1, and HTTP/2 over TLS.
    pub const HTTP_VERSIONS: &'static [HttpVersion] = &HttpVersion::ALL;
    /// Both ways of decoding: streamed, from the chunks as awc received them.
    pub const DECODES: &'static [BodyDecode] = &BodyDecode::ALL;

    /// The client as this adapter configured it (TLS, pool, timeouts), for calls that skip
    /// the port and the adapter's frame: the bench's bare calls, which measure what both cost.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Builds the client and its pool from `settings`, with the default TLS backend (rustls).
    /// Call it inside an actix runtime.
    ///
    /// # Errors
    /// As [`AwcRates::with_tls`].
    pub fn new(settings: &ClientSettings) -> Result<Self, BuildError> {
        Self::with_tls(settings, AwcTls::Rustls)
    }

    /// Builds the client and its pool from `settings`, speaking TLS through `backend`. Call it
    /// inside an actix runtime.
    ///
    /// # Errors
    /// A `BuildError` when the settings are unusable (see [`ClientSettings::check_with_tls`]),
    /// or, for an `https://` upstream, when the extra CAs are unusable or the TLS library cannot
    /// be set up.
    pub fn with_tls(settings: &ClientSettings, backend: AwcTls) -> Result<Self, BuildError> {
        let name = backend.client_name();
        settings.check_with_tls(name)?;
        // awc has no cap on idle connections: they are bounded by `limit` (in-use connections
        // go back to the pool when released). Zero idle connections is honoured by retiring
        // every connection as soon as it is idle.
        let keep_alive = if settings.max_idle_per_host == 0 {
            Duration::ZERO
        } else {
            settings.idle_timeout
        };
        let connector = Connector::new()
            .connector(tcp_connector())
            .timeout(settings.connect_timeout)
            .limit(settings.max_connections)
            .conn_keep_alive(keep_alive)
            .conn_lifetime(CONNECTION_LIFETIME);
        let connector = match backend {
            AwcTls::Rustls => {
                let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
                // Its ALPN offers the one protocol of `http_version`.
                let config = tls::client_config(settings, provider, name)?;
                connector.rustls_0_23(Arc::new(config))
            }
            // Over plain HTTP the TLS connector is never used: no roots are loaded for it.
            AwcTls::Openssl if settings.is_https() => {
                connector.openssl(openssl_connector(settings).map_err(|reason| BuildError {
                    client: name,
                    reason,
                })?)
            }
            AwcTls::Openssl => connector,
        };
        let client = Client::builder()
            .connector(connector)
            // `UpstreamCall`'s deadline is the one total timeout, as for every adapter; awc's own
            // (5 s by default) would otherwise cut calls that the settings allow.
            .disable_timeout()
            // Like every adapter: no redirects followed.
            .disable_redirects()
            .finish();
        Ok(Self {
            client,
            tls: backend,
            http_version: settings.http_version,
            decode: settings.decode,
            call: UpstreamCall::new(name, settings),
        })
    }

    /// One GET, its status and its body: whole, or as the chunks awc received. The body is
    /// read as bytes whatever the content type: awc's `.json()` would refuse the real API's
    /// `text/html`.
    async fn exchange(&self, pairs: &[CurrencyPair]) -> Result<(u16, Received), RatesError> {
        let url = self.call.url(pairs);
        let mut response = self
            .client
            .get(url.as_str())
            .send()
            .await
            .map_err(|error| self.send_error(error))?;
        self.http_version
            .check_answer(&response.version(), &awc::http::Version::HTTP_2)?;
        let status = response.status().as_u16();
        let declared = response
            .headers()
            .get(CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok()?.parse::<usize>().ok());
        let (body, read) = if self.decode == BodyDecode::Streamed {
            let mut pieces = BodyPieces::new(
                declared.map(|length| length as u64),
                self.call.max_body_bytes,
            )?;
            while let Some(chunk) = response.next().await {
                pieces.push(chunk.map_err(|error| self.body_error(error))?)?;
            }
            let read = pieces.len();
            (Received::from(pieces), read)
        } else {
            // `limit` also refuses a declared Content-Length over the limit before reading.
            let body = response
                .body()
                .limit(self.call.max_body_bytes)
                .await
                .map_err(|error| self.body_error(error))?;
            let read = body.len();
            (Received::from(body), read)
        };
        // awc ends the body quietly when the connection closes early (`PlStream` in
        // `client/h1proto.rs` takes end of stream for end of body), so a body cut short of its
        // Content-Length is caught here. A chunked body cut short cannot be told apart from a
        // complete one this way; it fails to decode (`Malformed`) instead.
        if let Some(declared) = declared
            && read != declared
        {
            return Err(broken_transfer(format!(
                "the body ended after {read} of its {declared} bytes"
            )));
        }
        Ok((status, body))
    }

    /// A failed handshake is `Tls` before anything else. Both backends' handshake errors come
    /// as `ConnectError::Io`: rustls's inside the io error (tokio-rustls), OpenSSL's as a bare
    /// message (actix-tls). The TCP connector's io errors are the system's and carry its error
    /// code; the OpenSSL handshake's carry none, and nothing else yields a `ConnectError::Io`.
    fn send_error(&self, error: SendRequestError) -> RatesError {
        match error {
            SendRequestError::Connect(ConnectError::Io(io)) => {
                match self.tls.failed_handshake(&io, self.http_version) {
                    Some(failed) => failed,
                    None => RatesError::Connect(format!("cannot connect: {io}")),
                }
            }
            SendRequestError::Connect(ConnectError::Timeout) => {
                connect_timeout_error(self.call.connect_timeout)
            }
            SendRequestError::Connect(error) => {
                RatesError::Connect(format!("cannot connect: {error}"))
            }
            SendRequestError::Timeout => rates_common::timeout_error(self.call.timeout),
            SendRequestError::Send(io) => match io_error(&io, self.call.timeout) {
                RatesError::Connect(_) => broken_transfer(io),
                timeout => timeout,
            },
            other => broken_transfer(other),
        }
    }

    fn body_error(&self, error: PayloadError) -> RatesError {
        match error {
            PayloadError::Overflow => BoundedBody::too_large(self.call.max_body_bytes),
            PayloadError::Io(io) => io_error(&io, self.call.timeout),
            other => broken_transfer(other),
        }
    }
}

/// The TCP connector `Connector::new` builds (actix-tls's, on the default resolver: awc's own
/// unless its `hickory-dns` feature is on, which this adapter does not enable), with
/// `TCP_NODELAY` set on every connection it opens.
fn tcp_connector()
-> impl Service<ConnectInfo<Uri>, Response = Connection<Uri, TcpStream>, Error = TcpConnectError> + Clone
{
    actix_tls::connect::Connector::new(Resolver::default())
        .service()
        .map(|connection: Connection<Uri, TcpStream>| {
            // Only a socket already broken refuses it; the call then fails on its own.
            if let Err(error) = connection.io_ref().set_nodelay(true) {
                tracing::warn!(client = AwcRates::NAME, %error, "cannot set TCP_NODELAY");
            }
            connection
        })
}

/// OpenSSL's connector with the system's roots (its default verify paths) and the extra CAs,
/// offering by ALPN the one protocol of `http_version`.
fn openssl_connector(settings: &ClientSettings) -> Result<SslConnector, String> {
    let mut builder = SslConnector::builder(SslMethod::tls())
        .map_err(|error| format!("cannot set up OpenSSL: {error}"))?;
    for certificate in settings.extra_ca_certificates()? {
        X509::from_der(&certificate)
            .and_then(|certificate| builder.cert_store_mut().add_cert(certificate))
            .map_err(|error| format!("the extra CA is not a usable certificate: {error}"))?;
    }
    // Verification as `SslConnector` sets it, plus a log line saying why a certificate was
    // refused: actix-tls keeps only OpenSSL's message, the same "certificate verify failed"
    // for an unknown issuer and for a wrong host name.
    builder.set_verify_callback(SslVerifyMode::PEER, |verified, context| {
        if !verified {
            tracing::warn!(
                client = AwcTls::Openssl.client_name(),
                depth = context.error_depth(),
                reason = %context.error(),
                "OpenSSL refused the upstream's certificate"
            );
        }
        verified
    });
    builder
        .set_alpn_protos(&settings.http_version.alpn_wire())
        .map_err(|error| format!("cannot offer ALPN: {error}"))?;
    Ok(builder.build())
}

#[async_trait(?Send)]
impl RatesProvider for AwcRates {
    async fn fetch_quotes(&self, pairs: &[CurrencyPair]) -> Result<Quotes, RatesError> {
        self.call.run(pairs, self.exchange(pairs)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tells_a_failed_handshake_from_a_failed_connect() {
        // What actix-tls makes of OpenSSL's refusal, and what tokio-rustls makes of rustls's.
        let openssl = io::Error::other(
            "error:0A000086:SSL routines:tls_post_process_server_certificate:certificate verify \
             failed",
        );
        let offered = HttpVersion::Http11;
        assert!(
            AwcTls::Openssl
                .failed_handshake(&openssl, offered)
                .is_some()
        );
        let rustls = io::Error::new(
            io::ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer),
        );
        assert!(AwcTls::Rustls.failed_handshake(&rustls, offered).is_some());
        // ECONNREFUSED on Linux: the system's error, for either backend.
        let refused = io::Error::from_raw_os_error(111);
        for backend in AwcTls::ALL {
            assert!(
                backend.failed_handshake(&refused, offered).is_none(),
                "{backend:?}"
            );
        }
    }

    #[actix_rt::test]
    async fn new_connections_have_tcp_nodelay() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let uri: Uri = format!("http://{}/", listener.local_addr().unwrap())
            .parse()
            .unwrap();
        let connection = tcp_connector().call(ConnectInfo::new(uri)).await.unwrap();
        assert!(connection.io_ref().nodelay().unwrap());
    }

    #[test]
    fn the_default_pair_keeps_the_bare_name() {
        assert_eq!(AwcTls::Rustls.client_name(), AwcRates::NAME);
        assert_eq!(AwcTls::Openssl.client_name(), "awc-openssl");
        assert_eq!(AwcTls::Openssl.stack().backend, "openssl");
    }
}
