//! Large answers (`/size/N/api/live`, `/api/live?size=N`): exactly the size asked for, the same
//! rates, framed either way, shared from one build, and the faults on them.

use mock_rates::{FaultMode, Faults, Framing, Settings};

use crate::helpers::{Client, each_protocol, get, server, server_with};

const MEGABYTE: usize = 1024 * 1024;

#[test]
fn a_large_answer_has_the_size_asked_for_and_the_same_rates() {
    each_protocol(|tls| {
        let server = server_with(Settings {
            tls,
            ..Settings::default()
        });
        let mut client = Client::connect(&server);
        let response = client.get(&format!("/size/{MEGABYTE}/api/live?pairs=EURUSD,USDJPY"));
        assert_eq!(response.status, 200);
        assert_eq!(
            response.header("content-length"),
            Some(MEGABYTE.to_string().as_str())
        );
        assert_eq!(response.body.len(), MEGABYTE);
        let json = response.json();
        assert_eq!(json["rates"]["EURUSD"]["rate"].to_string(), "1.16025");
        assert_eq!(json["rates"]["USDJPY"]["rate"].to_string(), "156.4295");
        assert_eq!(json["code"], 200);
        assert!(json["history"].as_array().unwrap().len() > 5_000);
        // The query form, on the same connection: the same answer.
        let again = client.get(&format!("/api/live?pairs=EURUSD,USDJPY&size={MEGABYTE}"));
        assert_eq!(again.body, response.body, "built once, shared after");
        let stats = server.state().stats();
        assert_eq!((stats.connections, stats.live_requests), (1, 2));
    });
}

#[test]
fn a_chunked_large_answer_comes_in_16_kib_chunks() {
    let server = server_with(Settings {
        framing: Framing::Chunked,
        ..Settings::default()
    });
    let mut client = Client::connect(&server);
    let response = client.get(&format!("/size/{MEGABYTE}/api/live?pairs=EURUSD"));
    assert_eq!(response.header("transfer-encoding"), Some("chunked"));
    assert_eq!(response.body.len(), MEGABYTE);
    assert_eq!(response.chunks, MEGABYTE / (16 * 1024));
    assert_eq!(response.json()["code"], 200);
    // The terminating chunk was read: the connection goes on.
    assert_eq!(client.get("/health").status, 200);
}

#[test]
fn small_sizes_and_error_answers_keep_their_own_size() {
    let server = server();
    let ordinary = get(&server, "/api/live?pairs=EURUSD").body.len();
    assert_eq!(
        get(&server, "/api/live?pairs=EURUSD&size=10").body.len(),
        ordinary
    );
    let padded = get(
        &server,
        &format!("/size/{}/api/live?pairs=EURUSD", ordinary + 7),
    );
    assert_eq!(padded.body.len(), ordinary + 7);
    assert_eq!(
        padded.json()["rates"]["EURUSD"]["rate"].to_string(),
        "1.16025"
    );
    let unknown = get(&server, "/size/100000/api/live?pairs=XXXYYY");
    assert_eq!(unknown.json()["code"], 1002);
    assert!(unknown.body.len() < 100_000);
}

#[test]
fn bad_sizes_are_400_and_other_paths_under_size_404() {
    let server = server();
    let mut client = Client::connect(&server);
    for path in [
        "/size/0/api/live?pairs=EURUSD",
        "/size/abc/api/live?pairs=EURUSD",
        "/size/+5/api/live?pairs=EURUSD",
        "/size/8388609/api/live?pairs=EURUSD",
        "/api/live?pairs=EURUSD&size=",
        "/api/live?pairs=EURUSD&size=-1",
    ] {
        let response = client.get(path);
        assert_eq!(response.status, 400, "{path}");
        assert!(
            response.json()["detail"]
                .as_str()
                .unwrap()
                .contains("8388608"),
            "{path}"
        );
    }
    for path in ["/size/100/health", "/size/100/__admin/stats", "/size/100"] {
        assert_eq!(client.get(path).status, 404, "{path}");
    }
    assert_eq!(
        client
            .request("POST", "/size/100/api/live?pairs=EURUSD", "")
            .status,
        405
    );
}

/// `truncated` on a large answer: the whole length announced, half of it sent, then the close.
#[test]
fn a_truncated_large_answer_sends_half_of_it() {
    each_protocol(|tls| {
        let server = server_with(Settings {
            tls,
            faults: Faults {
                mode: FaultMode::Truncated,
                ..Faults::default()
            },
            ..Settings::default()
        });
        let mut client = Client::connect(&server);
        client.send(
            "GET",
            &format!("/size/{MEGABYTE}/api/live?pairs=EURUSD"),
            &[],
            "",
        );
        let (status, headers) = client.read_head().unwrap();
        assert_eq!(status, 200);
        assert!(headers.contains(&("Content-Length".to_owned(), MEGABYTE.to_string())));
        assert_eq!(client.read_to_end().unwrap().len(), MEGABYTE / 2);
    });
}
