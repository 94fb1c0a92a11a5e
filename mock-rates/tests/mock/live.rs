//! `/api/live`, `/health` and unknown paths with default settings.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::helpers::{get, server};

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

#[test]
fn live_answer_carries_the_exact_rate_digits() {
    let server = server();
    let response = get(&server, "/api/live?pairs=EURUSD,USDJPY");
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("application/json"));
    let text = response.text();
    assert!(
        text.starts_with(r#"{"rates":{"EURUSD":{"rate":1.16025,"timestamp":"#),
        "{text}"
    );
    assert!(
        text.contains(r#"},"USDJPY":{"rate":156.4295,"timestamp":"#),
        "{text}"
    );
    assert!(text.ends_with(r#"}},"code":200}"#), "{text}");

    let json = response.json();
    let timestamp = json["rates"]["EURUSD"]["timestamp"].as_u64().unwrap();
    // Seconds, not milliseconds: within a minute of the test's clock.
    assert!(timestamp.abs_diff(now_secs()) < 60, "{timestamp}");
    assert_eq!(json["rates"]["USDJPY"]["timestamp"], timestamp);
}

#[test]
fn pairs_are_case_insensitive_escaped_and_deduplicated() {
    let server = server();
    let response = get(&server, "/api/live?pairs=eurgbp%2CUsdKwd%2ceurgbp");
    let json = response.json();
    let rates = json["rates"].as_object().unwrap();
    assert_eq!(rates.keys().collect::<Vec<_>>(), ["EURGBP", "USDKWD"]);
    // Checked in the text: a JSON parser would drop the trailing zero of "0.306920".
    let kwd = mock_rates::rate_text("USDKWD").unwrap();
    assert!(
        response
            .text()
            .contains(&format!(r#""USDKWD":{{"rate":{kwd},"#))
    );
}

#[test]
fn every_pair_in_the_table_is_served_verbatim() {
    let server = server();
    let all: Vec<&str> = mock_rates::rate_table()
        .iter()
        .map(|(pair, _)| *pair)
        .collect();
    let response = get(&server, &format!("/api/live?pairs={}", all.join(",")));
    for (pair, rate) in mock_rates::rate_table() {
        let expected = format!(r#""{pair}":{{"rate":{rate},"timestamp":"#);
        assert!(response.text().contains(&expected), "{pair}");
    }
}

#[test]
fn missing_pairs_is_code_1001_with_status_200() {
    let server = server();
    for path in ["/api/live", "/api/live?pairs=", "/api/live?other=1"] {
        let response = get(&server, path);
        assert_eq!(response.status, 200, "{path}");
        let json = response.json();
        assert_eq!(json["code"], 1001);
        assert_eq!(json["message"], "'pairs' parameter is required");
        let supported = json["supportedPairs"].as_array().unwrap();
        assert_eq!(supported.len(), mock_rates::rate_table().len());
        assert!(supported.contains(&"USDJPY".into()));
    }
}

#[test]
fn unknown_pair_is_code_1002_naming_the_first_one() {
    let server = server();
    let response = get(&server, "/api/live?pairs=EURUSD,xxxyyy,ABCDEF");
    assert_eq!(response.status, 200);
    let json = response.json();
    assert_eq!(json["code"], 1002);
    assert_eq!(
        json["message"],
        "The currency pair 'XXXYYY' was not recognised or supported"
    );
    assert!(json["supportedPairs"].is_array());
    assert!(json.get("rates").is_none());
}

#[test]
fn health_is_ok() {
    let server = server();
    let response = get(&server, "/health");
    assert_eq!(response.status, 200);
    assert_eq!(response.text(), r#"{"status":"ok"}"#);
}

#[test]
fn other_paths_are_404_with_a_json_body() {
    let server = server();
    for path in [
        "/",
        "/api/live/",
        "/api/other?pairs=EURUSD",
        "/__admin/nope",
    ] {
        let response = get(&server, path);
        assert_eq!(response.status, 404, "{path}");
        assert_eq!(response.json()["status"], 404);
    }
}

#[test]
fn wrong_methods_are_405_with_allow() {
    let server = server();
    let mut client = crate::helpers::Client::connect(&server);
    for (method, path, allow) in [
        ("POST", "/api/live?pairs=EURUSD", "GET"),
        ("DELETE", "/health", "GET"),
        ("POST", "/__admin/faults", "GET, PUT"),
        ("GET", "/__admin/reset", "POST"),
    ] {
        let response = client.request(method, path, "");
        assert_eq!(response.status, 405, "{method} {path}");
        assert_eq!(response.header("allow"), Some(allow));
    }
}
