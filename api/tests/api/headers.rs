//! The request head limit (`server.max_header_bytes`): the request line and header fields
//! together, sent byte for byte over a raw TCP stream, a byte under and a byte over it.

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::helpers::{spawn_app, spawn_app_with};

/// A raw answer: status, header block (lower-cased) and body.
struct RawAnswer {
    status: u16,
    head: String,
    body: Vec<u8>,
}

/// Sends `request` as is on a new connection and reads the answer until the server closes it.
async fn exchange(address: &str, request: &[u8]) -> RawAnswer {
    let authority = address.trim_start_matches("http://");
    let mut stream = TcpStream::connect(authority).await.expect("connects");
    stream.write_all(request).await.expect("request written");
    let mut answer = Vec::new();
    stream
        .read_to_end(&mut answer)
        .await
        .expect("answer read to the end");
    let split = answer
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .expect("a complete answer head");
    let head = String::from_utf8_lossy(&answer[..split]).to_ascii_lowercase();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .expect("a status line");
    RawAnswer {
        status,
        head,
        body: answer[split + 4..].to_vec(),
    }
}

/// `GET /health/live` whose head is exactly `size` bytes: the padding goes in one header line.
fn request_of(size: usize) -> Vec<u8> {
    let start = "GET /health/live HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\nx-padding: ";
    let end = "\r\n\r\n";
    let padding = "a".repeat(size - start.len() - end.len());
    let request = format!("{start}{padding}{end}");
    assert_eq!(request.len(), size);
    request.into_bytes()
}

/// A 431 with the problem body, and the connection closed.
fn assert_head_too_large(answer: &RawAnswer, limit: usize) {
    assert_eq!(answer.status, 431, "{}", answer.head);
    assert!(
        answer
            .head
            .contains("content-type: application/problem+json"),
        "{}",
        answer.head
    );
    assert!(answer.head.contains("connection: close"), "{}", answer.head);
    let problem: Value = serde_json::from_slice(&answer.body).expect("a JSON problem");
    assert_eq!(problem["type"], "/problems/header-fields-too-large");
    assert_eq!(problem["status"], 431);
    assert!(
        problem["detail"]
            .as_str()
            .is_some_and(|detail| detail.contains(&format!("{limit} bytes"))),
        "{problem}"
    );
}

#[actix_web::test]
async fn a_head_of_16_kib_is_served_and_one_byte_more_is_431() {
    let app = spawn_app().await;
    let at_the_limit = exchange(&app.address, &request_of(16_384)).await;
    assert_eq!(at_the_limit.status, 200, "{}", at_the_limit.head);
    let over = exchange(&app.address, &request_of(16_385)).await;
    assert_head_too_large(&over, 16_384);
}

/// The case found by hand: a 64 KiB header line, which actix-http alone accepts (its own
/// limit is 128 KiB).
#[actix_web::test]
async fn a_64_kib_header_line_is_431() {
    let app = spawn_app().await;
    let answer = exchange(&app.address, &request_of(64 * 1024 + 100)).await;
    assert_head_too_large(&answer, 16_384);
}

#[actix_web::test]
async fn the_limit_is_a_setting() {
    let app = spawn_app_with(mock_rates::Settings::default(), |settings| {
        settings.server.max_header_bytes = 1024;
    })
    .await;
    let at_the_limit = exchange(&app.address, &request_of(1024)).await;
    assert_eq!(at_the_limit.status, 200, "{}", at_the_limit.head);
    let over = exchange(&app.address, &request_of(1025)).await;
    assert_head_too_large(&over, 1024);
    // Whatever the route: an unknown path's head is judged before routing.
    let unknown = "GET /nope HTTP/1.1\r\nhost: 127.0.0.1\r\nx-padding: ".to_owned()
        + &"a".repeat(1024)
        + "\r\n\r\n";
    assert_head_too_large(&exchange(&app.address, unknown.as_bytes()).await, 1024);
}
