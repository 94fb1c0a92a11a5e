//! Connection reuse, `Connection: close`, the keep-alive and the idle timeout, over plain HTTP
//! and TLS (where each close must be a clean one, with a close_notify).

use std::time::Duration;

use mock_rates::{Faults, IdleClose, Settings};

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

/// Idle past the idle timeout (far shorter than the keep-alive here): closed, with no answer,
/// and counted.
#[test]
fn the_idle_timeout_closes_an_idle_connection_unanswered() {
    each_protocol(|tls| {
        let server = server_with(Settings {
            keep_alive: Duration::from_secs(60),
            idle_timeout: Some(Duration::from_millis(200)),
            tls,
            ..Settings::default()
        });
        let mut client = Client::connect(&server);
        assert_eq!(client.get("/health").status, 200);
        // A hang guard well short of the keep-alive, so only the idle timeout can close it.
        client
            .socket()
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        assert!(client.is_closed(), "closed without an answer");
        assert_eq!(server.state().stats().idle_closes, 1);
    });
}

/// A request sent on a connection the server has just closed for idleness (the stale-connection
/// race, here forced by writing after the close) is read, dropped unanswered, and counted as a
/// race.
#[test]
fn a_request_that_meets_the_idle_close_is_dropped_and_counted() {
    each_protocol(|tls| {
        let server = server_with(Settings {
            keep_alive: Duration::from_secs(60),
            idle_timeout: Some(Duration::from_millis(100)),
            tls,
            ..Settings::default()
        });
        let mut client = Client::connect(&server);
        assert_eq!(client.get("/health").status, 200);
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while server.state().stats().idle_closes == 0 {
            assert!(std::time::Instant::now() < deadline, "never closed");
            std::thread::sleep(Duration::from_millis(10));
        }
        client.send("GET", "/api/live?pairs=EURUSD", &[], "");
        client
            .socket()
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        assert!(client.is_closed(), "no answer, only the close");
        drop(client);
        while server.state().stats().idle_close_races == 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "the race was not counted"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(server.state().stats().live_requests, 0, "never served");
    });
}

/// Closing on arrival: the connection stays open past the idle timeout, a request sent within
/// the timeout is answered, and the first one after it is read, dropped unanswered and counted
/// as a race, every time.
#[test]
fn closing_on_arrival_drops_the_first_request_after_the_timeout() {
    each_protocol(|tls| {
        let server = server_with(Settings {
            keep_alive: Duration::from_secs(60),
            idle_timeout: Some(Duration::from_millis(100)),
            tls,
            ..Settings::default()
        });
        server.state().set_idle_close(IdleClose::OnArrival);
        let mut client = Client::connect(&server);
        assert_eq!(client.get("/health").status, 200);
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(client.get("/health").status, 200, "within the timeout");
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(
            server.state().stats().idle_closes,
            0,
            "still open past the timeout"
        );
        client.send("GET", "/api/live?pairs=EURUSD", &[], "");
        client
            .socket()
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        assert!(client.is_closed(), "no answer, only the close");
        let stats = server.state().stats();
        assert_eq!((stats.idle_closes, stats.idle_close_races), (1, 1));
        assert_eq!(stats.live_requests, 0, "never served");
        // A new connection is served as before.
        assert_eq!(Client::connect(&server).get("/health").status, 200);
    });
}

/// A request whose answer takes longer than the idle timeout is answered: the connection is
/// not idle while it is in flight. It is closed once idle after the answer.
#[test]
fn a_request_in_flight_outlasts_the_idle_timeout() {
    each_protocol(|tls| {
        let server = server_with(Settings {
            keep_alive: Duration::from_secs(60),
            idle_timeout: Some(Duration::from_millis(100)),
            faults: Faults {
                latency_ms: 400,
                ..Faults::default()
            },
            tls,
            ..Settings::default()
        });
        let mut client = Client::connect(&server);
        assert_eq!(client.get("/api/live?pairs=EURUSD").status, 200);
        assert_eq!(server.state().stats().idle_closes, 0);
        client
            .socket()
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        assert!(client.is_closed());
        assert_eq!(server.state().stats().idle_closes, 1);
    });
}

/// A request head that has begun to arrive is being read, not idle: the rest may come after
/// the idle timeout (within the keep-alive).
#[test]
fn a_request_being_read_is_not_idle() {
    each_protocol(|tls| {
        let server = server_with(Settings {
            keep_alive: Duration::from_secs(60),
            idle_timeout: Some(Duration::from_millis(100)),
            tls,
            ..Settings::default()
        });
        let mut client = Client::connect(&server);
        client.send_raw(b"GET /health HTTP/1.1\r\nHo");
        std::thread::sleep(Duration::from_millis(400));
        client.send_raw(b"st: localhost\r\n\r\n");
        assert_eq!(client.read_response().unwrap().status, 200);
        assert_eq!(server.state().stats().idle_closes, 0);
    });
}

/// Without an idle timeout, the keep-alive's close of an idle connection is counted too.
#[test]
fn the_keep_alive_close_counts_as_an_idle_close() {
    let server = server_with(Settings {
        keep_alive: Duration::from_millis(200),
        ..Settings::default()
    });
    let mut client = Client::connect(&server);
    assert_eq!(client.get("/health").status, 200);
    assert!(client.is_closed());
    assert_eq!(server.state().stats().idle_closes, 1);
}

/// An idle timeout set at run time governs a connection from its next idle wait.
#[test]
fn an_idle_timeout_set_at_run_time_applies_from_the_next_idle_wait() {
    let server = server_with(Settings {
        keep_alive: Duration::from_secs(60),
        ..Settings::default()
    });
    let mut client = Client::connect(&server);
    assert_eq!(client.get("/health").status, 200);
    server
        .state()
        .set_idle_timeout(Some(Duration::from_millis(200)));
    assert_eq!(client.get("/health").status, 200);
    client
        .socket()
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    assert!(client.is_closed());
    assert_eq!(server.state().stats().idle_closes, 1);
}
