//! Malformed and unusual requests.

use crate::helpers::{Client, server};

#[test]
fn garbage_gets_400_and_a_close() {
    let server = server();
    for garbage in [
        &b"hello there\r\n\r\n"[..],
        b"GET /health HTTP/1.1\r\nbroken header line\r\n\r\n",
        b"GET health HTTP/1.1\r\n\r\n",
        // A TLS ClientHello start: refused at once, without waiting for a line end.
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
    ] {
        let mut client = Client::connect(&server);
        client.send_raw(garbage);
        let response = client.read_response().unwrap();
        assert_eq!(response.status, 400, "{garbage:?}");
        assert_eq!(response.header("connection"), Some("close"));
        assert!(client.is_closed());
    }
    // Refused requests were never parsed, so they are not counted.
    assert_eq!(server.state().stats().requests, 0);
}

#[test]
fn oversized_headers_get_431() {
    let server = server();
    let mut client = Client::connect(&server);
    let big = "a".repeat(17 * 1024);
    client.send_raw(format!("GET /health HTTP/1.1\r\nX-Big: {big}\r\n\r\n").as_bytes());
    let response = client.read_response().unwrap();
    assert_eq!(response.status, 431);
}

#[test]
fn headers_just_under_the_limit_are_fine() {
    let server = server();
    let mut client = Client::connect(&server);
    let big = "a".repeat(15 * 1024);
    client.send("GET", "/health", &[("X-Big", &big)], "");
    assert_eq!(client.read_response().unwrap().status, 200);
}

#[test]
fn unsupported_versions_and_chunked_requests_are_refused() {
    let server = server();
    let mut client = Client::connect(&server);
    client.send_raw(b"GET /health HTTP/2.0\r\n\r\n");
    assert_eq!(client.read_response().unwrap().status, 505);

    let mut client = Client::connect(&server);
    client.send_raw(b"PUT /__admin/faults HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
    assert_eq!(client.read_response().unwrap().status, 501);
}

#[test]
fn a_body_arriving_in_pieces_is_awaited() {
    let server = server();
    let mut client = Client::connect(&server);
    client.send_raw(b"PUT /__admin/faults HTTP/1.1\r\nContent-Length: 14\r\n\r\n{\"mode\":");
    std::thread::sleep(std::time::Duration::from_millis(50));
    client.send_raw(b"\"eof\"}");
    let response = client.read_response().unwrap();
    assert_eq!(response.status, 200);
    assert_eq!(response.json()["mode"], "eof");
}

#[test]
fn expect_continue_gets_an_interim_answer() {
    let server = server();
    let mut client = Client::connect(&server);
    client.send_raw(
        b"PUT /__admin/faults HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 14\r\n\r\n",
    );
    let (status, _) = client.read_head().unwrap();
    assert_eq!(status, 100);
    client.send_raw(b"{\"mode\":\"eof\"}");
    let response = client.read_response().unwrap();
    assert_eq!(response.status, 200);
}

#[test]
fn pipelined_requests_are_answered_in_order() {
    let server = server();
    let mut client = Client::connect(&server);
    client.send_raw(
        b"GET /health HTTP/1.1\r\n\r\nGET /api/live?pairs=EURUSD HTTP/1.1\r\n\r\nGET /nope HTTP/1.1\r\n\r\n",
    );
    let statuses: Vec<u16> = (0..3)
        .map(|_| client.read_response().unwrap().status)
        .collect();
    assert_eq!(statuses, [200, 200, 404]);
}
