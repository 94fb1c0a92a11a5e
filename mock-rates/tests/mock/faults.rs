//! Every fault mode, over plain HTTP and over TLS; the percentage, latency, and where faults
//! do not apply.

use std::io::{ErrorKind, Read};
use std::time::{Duration, Instant};

use mock_rates::{FaultMode, Faults, MockServer, Settings, TlsSettings};

use crate::helpers::{
    Client, each_protocol, get, server, server_with, server_with_faults, set_faults,
};

const LIVE: &str = "/api/live?pairs=EURUSD,USDJPY";

fn fault(mode: FaultMode) -> Faults {
    Faults {
        mode,
        ..Faults::default()
    }
}

fn faulty(tls: Option<TlsSettings>, faults: Faults) -> MockServer {
    server_with(Settings {
        faults,
        tls,
        ..Settings::default()
    })
}

/// The body a healthy server sends, to compare lengths with.
fn healthy_body_len() -> usize {
    get(&server(), LIVE).body.len()
}

#[test]
fn status_fault_sends_the_status_and_a_json_body() {
    each_protocol(|tls| {
        let server = faulty(
            tls,
            Faults {
                status: 502,
                ..fault(FaultMode::Status)
            },
        );
        let mut client = Client::connect(&server);
        let response = client.get(LIVE);
        assert_eq!(response.status, 502);
        assert_eq!(response.header("retry-after"), None);
        assert_eq!(response.json()["status"], 502);
        // A well-framed error keeps the connection usable.
        assert_eq!(client.get(LIVE).status, 502);
        assert_eq!(server.state().stats().faults_injected, 2);
    });
}

#[test]
fn status_503_adds_retry_after() {
    each_protocol(|tls| {
        let server = faulty(
            tls,
            Faults {
                status: 503,
                ..fault(FaultMode::Status)
            },
        );
        let response = get(&server, LIVE);
        assert_eq!(response.status, 503);
        assert_eq!(response.header("retry-after"), Some("1"));
    });
}

#[test]
fn reset_gives_a_connection_reset_or_an_empty_end() {
    each_protocol(|tls| {
        let over_tls = tls.is_some();
        let server = faulty(tls, fault(FaultMode::Reset));
        let mut client = Client::connect(&server);
        client.send("GET", LIVE, &[], "");
        let mut received = Vec::new();
        match client.reader.read_to_end(&mut received) {
            Err(error) => assert_eq!(error.kind(), ErrorKind::ConnectionReset),
            // A clean end over TLS would mean a close_notify was sent: not a reset.
            Ok(_) => assert!(!over_tls && received.is_empty(), "{received:?}"),
        }
        assert!(received.is_empty());
    });
}

#[test]
fn eof_sends_headers_then_closes_without_a_body() {
    each_protocol(|tls| {
        let server = faulty(tls, fault(FaultMode::Eof));
        let mut client = Client::connect(&server);
        client.send("GET", LIVE, &[], "");
        let (status, headers) = client.read_head().unwrap();
        assert_eq!(status, 200);
        let length = content_length(&headers);
        assert_eq!(length, healthy_body_len());
        assert!(client.read_to_end().unwrap().is_empty());
    });
}

#[test]
fn truncated_sends_fewer_bytes_than_announced() {
    each_protocol(|tls| {
        let server = faulty(tls, fault(FaultMode::Truncated));
        let mut client = Client::connect(&server);
        client.send("GET", LIVE, &[], "");
        let (status, headers) = client.read_head().unwrap();
        assert_eq!(status, 200);
        let length = content_length(&headers);
        let body = client.read_to_end().unwrap();
        assert!(
            !body.is_empty() && body.len() < length,
            "{} of {length}",
            body.len()
        );
        assert!(serde_json::from_slice::<serde_json::Value>(&body).is_err());
    });
}

#[test]
fn malformed_sends_a_well_framed_body_that_is_not_json() {
    each_protocol(|tls| {
        let server = faulty(tls, fault(FaultMode::Malformed));
        let mut client = Client::connect(&server);
        let response = client.get(LIVE);
        assert_eq!(response.status, 200);
        assert_eq!(response.header("content-type"), Some("application/json"));
        assert!(response.text().starts_with(r#"{"rates":{"EURUSD":{"#));
        assert!(response.text().ends_with("<html>"));
        assert!(serde_json::from_slice::<serde_json::Value>(&response.body).is_err());
        // The framing was right, so the connection carries on.
        assert_eq!(client.get("/health").status, 200);
    });
}

#[test]
fn drip_keeps_sending_single_byte_chunks() {
    each_protocol(|tls| {
        let server = faulty(tls, fault(FaultMode::Drip));
        let mut client = Client::connect(&server);
        client.send("GET", LIVE, &[], "");
        let (status, headers) = client.read_head().unwrap();
        assert_eq!(status, 200);
        assert!(headers.iter().any(
            |(name, value)| name.eq_ignore_ascii_case("transfer-encoding") && value == "chunked"
        ));
        let mut drips = Vec::new();
        for _ in 0..3 {
            let mut chunk = [0u8; 6];
            client.reader.read_exact(&mut chunk).unwrap();
            assert_eq!(&chunk[..3], b"1\r\n");
            assert_eq!(&chunk[4..], b"\r\n");
            drips.push(chunk[3]);
        }
        assert_eq!(drips, br#"{"r"#);
    });
}

#[test]
fn goaway_and_refused_close_an_http_1_1_connection_unanswered() {
    for mode in [FaultMode::Goaway, FaultMode::Refused] {
        each_protocol(|tls| {
            let server = faulty(tls, fault(mode));
            let mut client = Client::connect(&server);
            client.send("GET", LIVE, &[], "");
            // A clean close (a close_notify over TLS), with not a byte of an answer.
            assert!(client.read_to_end().unwrap().is_empty(), "{mode:?}");
            assert_eq!(server.state().stats().faults_injected, 1);
        });
    }
}

#[test]
fn hang_sends_nothing() {
    each_protocol(|tls| {
        let server = faulty(tls, fault(FaultMode::Hang));
        let mut client = Client::connect(&server);
        client
            .socket()
            .set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        client.send("GET", LIVE, &[], "");
        let mut byte = [0u8; 1];
        let error = client.reader.read(&mut byte).unwrap_err();
        assert!(
            matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
            "{error:?}"
        );
        assert_eq!(server.state().stats().faults_injected, 1);
    });
}

#[test]
fn percent_zero_never_faults() {
    let server = server_with_faults(Faults {
        percent: 0,
        ..fault(FaultMode::Reset)
    });
    let mut client = Client::connect(&server);
    for _ in 0..50 {
        assert_eq!(client.get(LIVE).status, 200);
    }
    assert_eq!(server.state().stats().faults_injected, 0);
}

#[test]
fn a_partial_percent_faults_some_requests_reproducibly() {
    let run = || {
        let server = server_with_faults(Faults {
            percent: 50,
            status: 500,
            ..fault(FaultMode::Status)
        });
        let mut client = Client::connect(&server);
        (0..40).map(|_| client.get(LIVE).status).collect::<Vec<_>>()
    };
    let statuses = run();
    assert!(
        statuses.contains(&200) && statuses.contains(&500),
        "{statuses:?}"
    );
    // Same seed, same sequence.
    assert_eq!(statuses, run());
}

#[test]
fn latency_delays_live_answers() {
    let server = server_with_faults(Faults {
        latency_ms: 100,
        jitter_ms: 20,
        ..Faults::default()
    });
    let mut client = Client::connect(&server);
    let started = Instant::now();
    assert_eq!(client.get(LIVE).status, 200);
    assert!(started.elapsed() >= Duration::from_millis(100));
}

#[test]
fn health_and_admin_are_never_faulted() {
    let server = server_with_faults(fault(FaultMode::Reset));
    assert_eq!(get(&server, "/health").status, 200);
    assert_eq!(get(&server, "/__admin/stats").status, 200);
    assert_eq!(set_faults(&server, &fault(FaultMode::Hang)).status, 200);
    assert_eq!(server.state().stats().faults_injected, 0);
}

#[test]
fn faults_can_change_at_run_time() {
    let server = server();
    assert_eq!(get(&server, LIVE).status, 200);
    server.state().set_faults(Faults {
        status: 429,
        ..fault(FaultMode::Status)
    });
    assert_eq!(get(&server, LIVE).status, 429);
    server.state().set_faults(Faults::default());
    assert_eq!(get(&server, LIVE).status, 200);
}

fn content_length(headers: &[(String, String)]) -> usize {
    headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.parse().ok())
        .expect("a Content-Length header")
}
