//! The fidelity switches: content type, framing, timestamp unit.

use mock_rates::{ContentType, Framing, Settings, TimestampUnit};

use crate::helpers::{Client, get, server, server_with};

#[test]
fn html_content_type_like_the_real_api() {
    let server = server_with(Settings {
        content_type: ContentType::Html,
        ..Settings::default()
    });
    let response = get(&server, "/api/live?pairs=EURUSD");
    assert_eq!(
        response.header("content-type"),
        Some("text/html; charset=UTF-8")
    );
    assert_eq!(response.json()["code"], 200);
    // The switch is about the rates answer only.
    let health = get(&server, "/health");
    assert_eq!(health.header("content-type"), Some("application/json"));
}

#[test]
fn chunked_framing_sends_the_same_json_in_several_chunks() {
    let chunked = server_with(Settings {
        framing: Framing::Chunked,
        ..Settings::default()
    });
    let plain = server();
    let path = "/api/live?pairs=EURUSD,GBPUSD,USDJPY";
    let mut client = Client::connect(&chunked);
    let response = client.get(path);
    assert_eq!(response.status, 200);
    assert_eq!(response.header("transfer-encoding"), Some("chunked"));
    assert_eq!(response.header("content-length"), None);
    assert!(response.chunks >= 2, "{} chunks", response.chunks);
    let expected = get(&plain, path).json();
    let mut decoded = response.json();
    // Timestamps may differ by a second between the two servers.
    for pair in ["EURUSD", "GBPUSD", "USDJPY"] {
        decoded["rates"][pair]["timestamp"] = expected["rates"][pair]["timestamp"].clone();
    }
    assert_eq!(decoded, expected);
    // The terminating chunk was consumed: the connection is still usable.
    assert_eq!(client.get("/api/live").json()["code"], 1001);
}

#[test]
fn http10_clients_get_content_length_even_when_chunked() {
    let server = server_with(Settings {
        framing: Framing::Chunked,
        ..Settings::default()
    });
    let mut client = Client::connect(&server);
    client.send_raw(b"GET /api/live?pairs=EURUSD HTTP/1.0\r\n\r\n");
    let response = client.read_response().unwrap();
    assert!(response.header("content-length").is_some());
    assert_eq!(response.header("connection"), Some("close"));
    assert_eq!(response.json()["code"], 200);
    assert!(client.is_closed());
}

#[test]
fn timestamps_in_milliseconds() {
    let server = server_with(Settings {
        timestamp_unit: TimestampUnit::Millis,
        ..Settings::default()
    });
    let json = get(&server, "/api/live?pairs=EURUSD").json();
    let timestamp = json["rates"]["EURUSD"]["timestamp"].as_u64().unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    assert!(u128::from(timestamp).abs_diff(now) < 60_000, "{timestamp}");
}
