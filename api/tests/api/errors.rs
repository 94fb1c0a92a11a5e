use mock_rates::FaultMode;
use serde_json::Value;

use crate::helpers::{CLIENTS, assert_problem, spawn_app, spawn_app_with, spawn_fixed_upstream};

const VALID: &str = r#"{"amount":"10","currency":"EUR","target_currency":"USD"}"#;

fn invalid_fields(problem: &Value) -> Vec<String> {
    problem["errors"]
        .as_array()
        .expect("errors listed")
        .iter()
        .map(|e| {
            assert!(e["message"].as_str().is_some_and(|m| !m.is_empty()));
            e["field"].as_str().unwrap().to_owned()
        })
        .collect()
}

#[actix_web::test]
async fn malformed_json_is_400() {
    let app = spawn_app().await;
    for body in ["{", "not json", r#"{"amount": 1,}"#, "", &"[".repeat(200)] {
        assert_problem(app.post_payment("hyper", body).await, 400, "malformed-json").await;
    }
}

#[actix_web::test]
async fn json_of_the_wrong_shape_is_422() {
    let app = spawn_app().await;
    for body in [
        "[]",
        "42",
        r#""EUR""#,
        r#"{"amount":"1","currency":"EUR","target_currency":"USD","extra":1}"#,
    ] {
        let problem =
            assert_problem(app.post_payment("hyper", body).await, 422, "validation").await;
        assert_eq!(invalid_fields(&problem), ["body"], "{body}");
    }
}

#[actix_web::test]
async fn validation_errors_are_422_and_name_the_field() {
    let app = spawn_app().await;
    let cases = [
        (
            r#"{"amount":"10","currency":"XYZ","target_currency":"USD"}"#,
            vec!["currency"],
        ),
        (
            r#"{"amount":"10","currency":"eur","target_currency":"USD"}"#,
            vec!["currency"],
        ),
        (
            r#"{"amount":"10","currency":"EUR","target_currency":"US"}"#,
            vec!["target_currency"],
        ),
        (
            r#"{"amount":"10","currency":"EUR","target_currency":7}"#,
            vec!["target_currency"],
        ),
        (
            r#"{"amount":"-5","currency":"EUR","target_currency":"USD"}"#,
            vec!["amount"],
        ),
        (
            r#"{"amount":0,"currency":"EUR","target_currency":"USD"}"#,
            vec!["amount"],
        ),
        (
            r#"{"amount":"1.234","currency":"EUR","target_currency":"USD"}"#,
            vec!["amount"],
        ),
        (
            r#"{"amount":1.5,"currency":"JPY","target_currency":"USD"}"#,
            vec!["amount"],
        ),
        (
            r#"{"amount":1e30,"currency":"EUR","target_currency":"USD"}"#,
            vec!["amount"],
        ),
        (
            r#"{"amount":"99999999999999999999","currency":"EUR","target_currency":"USD"}"#,
            vec!["amount"],
        ),
        (
            r#"{"amount":"ten","currency":"EUR","target_currency":"USD"}"#,
            vec!["amount"],
        ),
        (
            r#"{"amount":null,"currency":"EUR","target_currency":"USD"}"#,
            vec!["amount"],
        ),
        (
            r#"{"currency":"EUR","target_currency":"USD"}"#,
            vec!["amount"],
        ),
        (
            r#"{"amount":"1","currency":"EUR","target_currency":"USD","reference":["x"]}"#,
            vec!["reference"],
        ),
        (
            r#"{"amount":"x","currency":"", "target_currency":"USD"}"#,
            vec!["currency", "amount"],
        ),
    ];
    for (body, fields) in cases {
        let problem =
            assert_problem(app.post_payment("reqwest", body).await, 422, "validation").await;
        assert_eq!(invalid_fields(&problem), fields, "{body}");
        let detail = problem["detail"].as_str().unwrap();
        assert!(fields.iter().all(|f| detail.contains(f)), "{detail}");
    }
}

#[actix_web::test]
async fn unknown_client_is_404_listing_the_valid_ones() {
    let app = spawn_app().await;
    let problem =
        assert_problem(app.post_payment("curl", VALID).await, 404, "unknown-client").await;
    assert_eq!(problem["valid_clients"], serde_json::json!(CLIENTS));
}

#[actix_web::test]
async fn body_over_the_limit_is_413() {
    let app = spawn_app_with(mock_rates::Settings::default(), |s| {
        s.server.max_body_bytes = 256;
    })
    .await;
    let big = format!(
        r#"{{"amount":"1","currency":"EUR","target_currency":"USD","reference":"{}"}}"#,
        "x".repeat(300)
    );
    assert_problem(
        app.post_payment("hyper", &big).await,
        413,
        "payload-too-large",
    )
    .await;
    // Without a Content-Length (chunked), the limit is enforced while reading.
    let stream = futures_util::stream::iter(vec![Ok::<_, std::io::Error>(big.into_bytes())]);
    let response = app
        .http
        .post(format!("{}/payments/hyper", app.address))
        .header("content-type", "application/json")
        .body(reqwest::Body::wrap_stream(stream))
        .send()
        .await
        .unwrap();
    assert_problem(response, 413, "payload-too-large").await;
}

#[actix_web::test]
async fn wrong_content_type_is_415() {
    let app = spawn_app().await;
    for content_type in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/jsonx",
    ] {
        let response = app
            .http
            .post(format!("{}/payments/hyper", app.address))
            .header("content-type", content_type)
            .body(VALID)
            .send()
            .await
            .unwrap();
        assert_problem(response, 415, "unsupported-media-type").await;
    }
    let missing = app
        .http
        .post(format!("{}/payments/hyper", app.address))
        .body(VALID)
        .send()
        .await
        .unwrap();
    assert_problem(missing, 415, "unsupported-media-type").await;
    let with_charset = app
        .http
        .post(format!("{}/payments/hyper", app.address))
        .header("content-type", "application/json; charset=utf-8")
        .body(VALID)
        .send()
        .await
        .unwrap();
    assert_eq!(with_charset.status(), 200);
}

#[actix_web::test]
async fn unknown_routes_and_methods_are_problems() {
    let app = spawn_app().await;
    assert_problem(app.get("/nope").await, 404, "not-found").await;
    assert_problem(app.get("/payments/hyper").await, 405, "method-not-allowed").await;
}

/// RFC 9110: a 405 names the methods the path does serve, in `Allow`. Every route, with every
/// other method a client may send.
#[actix_web::test]
async fn every_405_says_which_methods_the_path_allows() {
    let app = spawn_app().await;
    let methods = [
        "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE",
    ];
    for route in api::routes::ROUTES {
        let path = route.path.replace("{client}", "hyper");
        for method in methods.iter().filter(|m| **m != route.method.as_str()) {
            let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
            let response = app
                .http
                .request(method.clone(), format!("{}{path}", app.address))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 405, "{method} {path}");
            let allow = response
                .headers()
                .get("allow")
                .map(|v| v.to_str().unwrap().to_owned());
            assert_eq!(
                allow.as_deref(),
                Some(route.method.as_str()),
                "{method} {path}"
            );
            if method != reqwest::Method::HEAD {
                assert_problem(response, 405, "method-not-allowed").await;
            }
        }
    }
}

#[actix_web::test]
async fn upstream_failures_map_to_502_and_504_for_every_client() {
    // A hanging upstream is met by the timeout: a short one keeps the test quick.
    let app = spawn_app_with(mock_rates::Settings::default(), |s| {
        s.rates.timeout_ms = 500;
        s.rates.connect_timeout_ms = 500;
    })
    .await;
    for client in CLIENTS {
        app.set_fault(FaultMode::Status, 500);
        let problem =
            assert_problem(app.post_payment(client, VALID).await, 502, "upstream-error").await;
        assert!(
            !problem["detail"].as_str().unwrap().contains("500"),
            "no internals leak"
        );
        app.set_fault(FaultMode::Malformed, 200);
        assert_problem(
            app.post_payment(client, VALID).await,
            502,
            "upstream-bad-response",
        )
        .await;
        app.set_fault(FaultMode::Hang, 200);
        assert_problem(
            app.post_payment(client, VALID).await,
            504,
            "upstream-timeout",
        )
        .await;
        app.set_fault(FaultMode::None, 200);
        assert_eq!(
            app.post_payment(client, VALID).await.status(),
            200,
            "{client} recovers"
        );
    }
}

/// Quotes of 10^6 for EURUSD and 10^7 for USDJPY are each within a rate's range (10^-12 to
/// 10^12); EUR->JPY through USD multiplies them to 10^13, which is not. No market quotes such
/// figures: the upstream's data is bad, so 502 `upstream-bad-response` (once a 422 that blamed
/// the caller), with no figures in the body; the quotes go to the log.
#[actix_web::test]
async fn a_cross_rate_out_of_range_is_the_upstreams_bad_data_502() {
    let upstream = spawn_fixed_upstream(
        r#"{"rates":{"EURUSD":{"rate":1000000,"timestamp":1732900000},"USDJPY":{"rate":10000000,"timestamp":1732900000}},"code":200}"#,
    )
    .await;
    let app = spawn_app_with(mock_rates::Settings::default(), |s| {
        s.rates.base_url = upstream;
    })
    .await;
    let body = r#"{"amount":"1","currency":"EUR","target_currency":"JPY"}"#;
    for client in CLIENTS {
        let problem = assert_problem(
            app.post_payment(client, body).await,
            502,
            "upstream-bad-response",
        )
        .await;
        let detail = problem["detail"].as_str().unwrap();
        assert!(
            !detail.contains("1000000") && !detail.contains("range"),
            "{client}: no internals leak: {detail}"
        );
    }
    let payment: Value = serde_json::from_str(body).unwrap();
    let batch: Value = app
        .post_batch(
            "hyper",
            &serde_json::json!({"payments": [payment], "mode": "sequential"}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(batch["items"][0]["status"], 502, "{batch}");
    assert_eq!(
        batch["items"][0]["problem"]["type"],
        "/problems/upstream-bad-response"
    );
}

#[actix_web::test]
async fn unreachable_upstream_is_502() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let app = spawn_app_with(mock_rates::Settings::default(), |s| {
        s.rates.base_url = format!("http://127.0.0.1:{port}");
    })
    .await;
    for client in CLIENTS {
        assert_problem(
            app.post_payment(client, VALID).await,
            502,
            "upstream-unreachable",
        )
        .await;
    }
}

#[actix_web::test]
async fn pair_the_upstream_does_not_quote_is_422() {
    let app = spawn_app().await;
    let unquoted = domain::Currency::all()
        .find(|c| mock_rates::rate_text(&format!("USD{c}")).is_none() && c.code() != "USD")
        .expect("a currency the mock does not quote");
    let body = format!(r#"{{"amount":"1","currency":"USD","target_currency":"{unquoted}"}}"#);
    assert_problem(
        app.post_payment("isahc", &body).await,
        422,
        "unsupported-pair",
    )
    .await;
}

#[actix_web::test]
async fn exhausted_pool_is_503_with_retry_after() {
    let app = spawn_app_with(mock_rates::Settings::default(), |s| {
        s.rates.max_connections = 1;
        s.rates.pool_wait_ms = 50;
        s.rates.timeout_ms = 800;
    })
    .await;
    app.set_fault(FaultMode::Hang, 200);
    let (first, second) = tokio::join!(app.post_payment("hyper", VALID), async {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        app.post_payment("hyper", VALID).await
    });
    assert_eq!(retry_after(&second), Some("1"));
    assert_problem(second, 503, "capacity-exhausted").await;
    assert_problem(first, 504, "upstream-timeout").await;
}

#[actix_web::test]
async fn payments_beyond_the_in_flight_limit_are_shed_with_503_at_once() {
    let app = spawn_app_with(mock_rates::Settings::default(), |s| {
        s.server.workers = 1;
        s.server.max_payments_in_flight = 1;
        s.rates.timeout_ms = 800;
    })
    .await;
    // The first payment holds the only slot while the upstream hangs.
    app.set_fault(FaultMode::Hang, 200);
    let (first, second, health, batch) = tokio::join!(
        app.post_payment("hyper", VALID),
        async {
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            let started = std::time::Instant::now();
            let response = app.post_payment("awc", VALID).await;
            (response, started.elapsed())
        },
        async {
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            app.get("/health/live").await
        },
        async {
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            let payment: serde_json::Value = serde_json::from_str(VALID).unwrap();
            app.post_batch(
                "hyper",
                &serde_json::json!({"payments": [payment], "mode": "sequential"}),
            )
            .await
        },
    );
    let (second, elapsed) = second;
    assert_eq!(retry_after(&second), Some("1"));
    assert_problem(second, 503, "capacity-exhausted").await;
    // Shed at once, not after the upstream timeout.
    assert!(
        elapsed < std::time::Duration::from_millis(500),
        "{elapsed:?}"
    );
    assert_problem(batch, 503, "capacity-exhausted").await;
    // The health check is not a payment: it still answers.
    assert_eq!(health.status(), 200);
    assert_problem(first, 504, "upstream-timeout").await;
    // The slot is back once the first payment is answered.
    app.set_fault(FaultMode::None, 200);
    assert_eq!(app.post_payment("hyper", VALID).await.status(), 200);
}

/// A response's `Retry-After` header.
fn retry_after(response: &reqwest::Response) -> Option<&str> {
    response
        .headers()
        .get("retry-after")
        .map(|value| value.to_str().unwrap())
}
