//! HTTPS: the same answers as plain HTTP, handshakes counted, resumption on and off, refused
//! handshakes, the certificate's names and the CA endpoint. Faults over TLS are in `faults`.

use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

use mock_rates::{MockServer, Settings, Stats, TlsIdentity, TlsSettings};
use rustls::version::{TLS12, TLS13};
use rustls::{CertificateError, SupportedProtocolVersion};

use crate::helpers::{Client, get, server, server_with};
use crate::tls_client;
use crate::tls_client::{READ_TIMEOUT, plain};

const LIVE: &str = "/api/live?pairs=EURUSD,USDJPY";

fn tls_server() -> MockServer {
    tls_server_with(TlsSettings::default())
}

fn tls_server_with(tls: TlsSettings) -> MockServer {
    server_with(Settings {
        tls: Some(tls),
        ..Settings::default()
    })
}

fn ca_pem(server: &MockServer) -> &str {
    server.ca_pem().expect("a TLS server has a CA")
}

/// Waits for the server to count something it counts after the client is done; the bound is
/// only a hang guard.
fn eventually(server: &MockServer, condition: impl Fn(&Stats) -> bool) -> Stats {
    let started = Instant::now();
    loop {
        let stats = server.state().stats();
        if condition(&stats) || started.elapsed() > READ_TIMEOUT {
            return stats;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Why the client refused the server's certificate, if that is why the handshake failed.
fn refused_certificate(error: &io::Error) -> Option<&CertificateError> {
    match error.get_ref()?.downcast_ref::<rustls::Error>()? {
        rustls::Error::InvalidCertificate(refused) => Some(refused),
        _ => None,
    }
}

/// The text with every timestamp's digits dropped: the clock may tick between two answers.
fn without_timestamps(text: &str) -> String {
    text.split(r#""timestamp":"#)
        .map(|part| part.trim_start_matches(|c: char| c.is_ascii_digit()))
        .collect::<Vec<_>>()
        .join(r#""timestamp":"#)
}

#[test]
fn https_answers_what_plain_http_answers() {
    let plain_answer = get(&server(), LIVE);
    let server = tls_server();
    assert!(server.base_url().starts_with("https://127.0.0.1:"));
    let answer = get(&server, LIVE);
    assert_eq!(answer.status, plain_answer.status);
    assert_eq!(answer.headers, plain_answer.headers);
    assert_eq!(
        without_timestamps(answer.text()),
        without_timestamps(plain_answer.text())
    );
}

#[test]
fn alpn_settles_on_http_1_1() {
    let server = tls_server();
    let stream = tls_client::connect(
        server.addr(),
        "localhost",
        &tls_client::trusting(ca_pem(&server)),
    )
    .unwrap();
    let connection = stream.tls().expect("a TLS stream");
    assert_eq!(connection.alpn_protocol(), Some(&b"http/1.1"[..]));
}

#[test]
fn keep_alive_reuses_one_tls_connection_and_one_handshake() {
    let server = tls_server();
    let mut client = Client::connect(&server);
    for _ in 0..3 {
        assert_eq!(client.get(LIVE).status, 200);
    }
    let stats = server.state().stats();
    assert_eq!(
        (
            stats.connections,
            stats.requests,
            stats.tls_handshakes_full,
            stats.tls_handshakes_resumed,
            stats.tls13_handshakes,
            stats.tls_handshake_failures,
        ),
        (1, 3, 1, 0, 1, 0)
    );
    server.state().reset();
    assert_eq!(server.state().stats(), Stats::default());
}

/// Two connections from one client configuration (one session cache) with `versions`.
fn two_connections(server: &MockServer, versions: &[&'static SupportedProtocolVersion]) -> Stats {
    let config = tls_client::trusting_with(ca_pem(server), versions);
    for _ in 0..2 {
        let stream = tls_client::connect(server.addr(), "localhost", &config).unwrap();
        // Reading the answer also reads the TLS 1.3 tickets sent after the handshake.
        assert_eq!(Client::over(stream).get("/health").status, 200);
    }
    server.state().stats()
}

#[test]
fn a_second_connection_resumes_over_tls_1_3_and_1_2() {
    for (versions, tls13) in [(&[&TLS13], 2), (&[&TLS12], 0)] {
        let stats = two_connections(&tls_server(), versions);
        assert_eq!(
            (
                stats.connections,
                stats.tls_handshakes_full,
                stats.tls_handshakes_resumed,
                stats.tls13_handshakes,
                stats.tls12_handshakes,
            ),
            (2, 1, 1, tls13, 2 - tls13),
            "{versions:?}"
        );
    }
}

#[test]
fn without_resumption_every_handshake_is_full() {
    for versions in [&[&TLS13], &[&TLS12]] {
        let server = tls_server_with(TlsSettings {
            resumption: false,
            ..TlsSettings::default()
        });
        let stats = two_connections(&server, versions);
        assert_eq!(
            (stats.tls_handshakes_full, stats.tls_handshakes_resumed),
            (2, 0),
            "{versions:?}"
        );
    }
}

#[test]
fn a_client_that_does_not_trust_the_ca_fails_the_handshake() {
    let server = tls_server();
    let stranger = tls_server();
    // Each server makes its own CA, so trusting another one's is trusting the wrong one.
    assert_ne!(ca_pem(&server), ca_pem(&stranger));
    let untrusting = tls_client::trusting(ca_pem(&stranger));
    let error = tls_client::connect(server.addr(), "localhost", &untrusting)
        .err()
        .expect("the certificate is refused");
    assert_eq!(
        refused_certificate(&error),
        Some(&CertificateError::UnknownIssuer),
        "{error}"
    );
    let stats = eventually(&server, |stats| stats.tls_handshake_failures > 0);
    assert_eq!(
        (
            stats.tls_handshake_failures,
            stats.tls_handshakes_full,
            stats.requests
        ),
        (1, 0, 0)
    );
    // The server carries on.
    assert_eq!(get(&server, "/health").status, 200);
}

#[test]
fn a_server_given_an_identity_serves_it_to_clients_of_an_earlier_one() {
    let identity = TlsIdentity::generate().unwrap();
    let with = || {
        tls_server_with(TlsSettings {
            identity: Some(identity.clone()),
            ..TlsSettings::default()
        })
    };
    let first = with();
    assert_eq!(ca_pem(&first), identity.ca_pem);
    let config = tls_client::trusting(ca_pem(&first));
    drop(first);
    // Started again (as an upstream restarted in place), it is still trusted.
    let again = with();
    let stream = tls_client::connect(again.addr(), "localhost", &config).unwrap();
    assert_eq!(Client::over(stream).get("/health").status, 200);
    // A server left to make its own is not.
    let fresh = tls_server();
    assert!(tls_client::connect(fresh.addr(), "localhost", &config).is_err());
}

#[test]
fn the_certificate_names_localhost_and_127_0_0_1_only() {
    let server = tls_server();
    let config = tls_client::trusting(ca_pem(&server));
    for name in ["localhost", "127.0.0.1"] {
        let stream = tls_client::connect(server.addr(), name, &config).unwrap();
        assert_eq!(Client::over(stream).get("/health").status, 200, "{name}");
    }
    let error = tls_client::connect(server.addr(), "example.com", &config)
        .err()
        .expect("a name the certificate does not carry is refused");
    assert!(
        matches!(
            refused_certificate(&error),
            Some(CertificateError::NotValidForNameContext { .. })
        ),
        "{error}"
    );
}

#[test]
fn plain_http_to_the_tls_port_is_refused_and_the_server_carries_on() {
    let server = tls_server();
    let mut socket = plain(server.addr());
    socket
        .write_all(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .unwrap();
    let mut received = Vec::new();
    // A TLS alert and a close, or a reset: anything but an HTTP answer.
    let _ = socket.read_to_end(&mut received);
    assert!(!received.starts_with(b"HTTP/"), "{received:?}");
    let stats = eventually(&server, |stats| stats.tls_handshake_failures > 0);
    assert_eq!((stats.tls_handshake_failures, stats.requests), (1, 0));
    assert_eq!(get(&server, "/health").status, 200);
}

#[test]
fn a_silent_client_is_dropped_when_the_handshake_times_out() {
    let server = tls_server();
    let mut socket = plain(server.addr());
    let mut received = Vec::new();
    // The server gives up first (READ_TIMEOUT is longer than its handshake timeout).
    socket.read_to_end(&mut received).unwrap();
    assert!(received.is_empty(), "{received:?}");
    let stats = eventually(&server, |stats| stats.tls_handshake_failures > 0);
    assert_eq!(stats.tls_handshake_failures, 1);
}

#[test]
fn admin_ca_serves_the_pem_and_is_404_without_tls() {
    let server = tls_server();
    let mut client = Client::connect(&server);
    let response = client.get("/__admin/ca");
    assert_eq!(response.status, 200);
    assert_eq!(
        response.header("content-type"),
        Some("application/x-pem-file")
    );
    assert_eq!(response.text(), ca_pem(&server));
    assert!(response.text().starts_with("-----BEGIN CERTIFICATE-----"));
    assert_eq!(client.request("PUT", "/__admin/ca", "").status, 405);

    let plain_server = self::server();
    assert_eq!(plain_server.ca_pem(), None);
    let response = get(&plain_server, "/__admin/ca");
    assert_eq!(response.status, 404);
    assert_eq!(
        response.header("content-type"),
        Some("application/problem+json")
    );
}
