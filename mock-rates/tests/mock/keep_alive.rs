//! Connection reuse, `Connection: close` and the idle timeout, over plain HTTP and TLS (where
//! each close must be a clean one, with a close_notify).

use std::time::Duration;

use mock_rates::Settings;

use crate::helpers::{Client, each_protocol, server, server_with};

#[test]
fn two_requests_share_one_connection() {
    each_protocol(|tls| {
        let server = server_with(Settings {
            tls,
            ..Settings::default()
        });
        let mut client = Client::connect(&server);
        for _ in 0..2 {
            let response = client.get("/api/live?pairs=EURUSD");
            assert_eq!(response.status, 200);
            assert_eq!(response.header("connection"), None);
        }
        let stats = server.state().stats();
        assert_eq!(
            (stats.connections, stats.requests, stats.live_requests),
            (1, 2, 2)
        );
    });
}

#[test]
fn connection_close_is_honoured() {
    each_protocol(|tls| {
        let server = server_with(Settings {
            tls,
            ..Settings::default()
        });
        let mut client = Client::connect(&server);
        client.send(
            "GET",
            "/api/live?pairs=EURUSD",
            &[("Connection", "close")],
            "",
        );
        let response = client.read_response().unwrap();
        assert_eq!(response.status, 200);
        assert_eq!(response.header("connection"), Some("close"));
        assert!(client.is_closed());
    });
}

#[test]
fn http10_keep_alive_is_confirmed() {
    let server = server();
    let mut client = Client::connect(&server);
    for _ in 0..2 {
        client.send_raw(b"GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        let response = client.read_response().unwrap();
        assert_eq!(response.header("connection"), Some("keep-alive"));
    }
    assert_eq!(server.state().stats().connections, 1);
}

#[test]
fn idle_connections_are_closed_after_the_keep_alive_timeout() {
    each_protocol(|tls| {
        let server = server_with(Settings {
            keep_alive: Duration::from_millis(200),
            tls,
            ..Settings::default()
        });
        let mut client = Client::connect(&server);
        assert_eq!(client.get("/health").status, 200);
        // The server closes quietly: no bytes, then end of stream.
        assert!(client.is_closed());
    });
}

#[test]
fn zero_keep_alive_closes_after_every_answer() {
    each_protocol(|tls| {
        let server = server_with(Settings {
            keep_alive: Duration::ZERO,
            tls,
            ..Settings::default()
        });
        let mut client = Client::connect(&server);
        let response = client.get("/health");
        assert_eq!(response.header("connection"), Some("close"));
        assert!(client.is_closed());
    });
}
