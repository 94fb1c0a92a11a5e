use serde_json::Value;

use crate::helpers::{CLIENTS, spawn_app};

#[actix_web::test]
async fn health_live_answers_ok() {
    let app = spawn_app().await;
    let response = app.get("/health/live").await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "ok");
}

#[actix_web::test]
async fn clients_lists_every_client_with_its_settings() {
    let app = spawn_app().await;
    let body: Value = app.get("/clients").await.json().await.unwrap();
    let names: Vec<&str> = body["clients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, CLIENTS);
    assert_eq!(
        body["clients"][0]["settings"]["timeout_ms"],
        crate::helpers::UPSTREAM_TIMEOUT_MS
    );
    assert_eq!(
        body["clients"][0]["settings"]["base_url"],
        app.mock.base_url()
    );
    // The blocking clients: ureq (3, and 8 with native-tls) and reqwest-blocking (4).
    for blocking in [3, 4, 8] {
        assert_eq!(
            body["clients"][blocking]["settings"]["blocking_threads"], 64,
            "{blocking}"
        );
    }
    assert!(body["clients"][0]["settings"]["blocking_threads"].is_null());
    assert!(body["clients"][5]["settings"]["blocking_threads"].is_null());
    let tls = &body["clients"][7]["tls"];
    assert_eq!(tls["backend"], "native-tls", "{tls}");
    assert_eq!(body["clients"][0]["tls"]["backend"], "rustls");
    assert_eq!(body["clients"][4]["tls"]["backend"], "rustls");
    // ureq (3, and 8 with native-tls) speaks HTTP/1.1 only; every other client HTTP/2 too.
    for (index, client) in body["clients"].as_array().unwrap().iter().enumerate() {
        let expected = if client["name"].as_str().unwrap().starts_with("ureq") {
            serde_json::json!(["1.1"])
        } else {
            serde_json::json!(["1.1", "2"])
        };
        assert_eq!(client["http_versions"], expected, "{index}: {client}");
        assert_eq!(client["settings"]["http_version"], "1.1", "{client}");
    }
    assert_eq!(
        body["clients"][3]["http_versions"],
        serde_json::json!(["1.1"])
    );
}

#[actix_web::test]
async fn ready_when_the_upstream_answers_and_not_otherwise() {
    let app = spawn_app().await;
    let response = app.get("/health/ready").await;
    assert_eq!(response.status(), 200);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let down = crate::helpers::spawn_app_with(mock_rates::Settings::default(), |s| {
        s.rates.base_url = format!("http://127.0.0.1:{port}");
    })
    .await;
    let response = down.get("/health/ready").await;
    assert_eq!(response.status(), 503);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "not ready");
}

#[actix_web::test]
async fn metrics_count_requests_and_upstream_calls_per_client() {
    let app = spawn_app().await;
    for client in CLIENTS {
        let ok = app
            .post_payment(
                client,
                r#"{"amount":"1","currency":"EUR","target_currency":"USD"}"#,
            )
            .await;
        assert_eq!(ok.status(), 200);
    }
    app.set_fault(mock_rates::FaultMode::Status, 500);
    assert_eq!(
        app.post_payment(
            "ureq",
            r#"{"amount":"1","currency":"EUR","target_currency":"USD"}"#
        )
        .await
        .status(),
        502
    );
    let response = app.get("/metrics").await;
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    for client in CLIENTS {
        let ok_count =
            format!(r#"upstream_call_duration_seconds_count{{client="{client}",outcome="ok"}} 1"#);
        assert!(text.contains(&ok_count), "missing {ok_count} in\n{text}");
    }
    assert!(
        text.contains(r#"upstream_errors_total{client="ureq",kind="upstream_status"} 1"#),
        "{text}"
    );
    let ok_payments = format!(
        r#"http_requests_total{{route="/payments/{{client}}",method="POST",status="200"}} {}"#,
        CLIENTS.len()
    );
    assert!(
        text.contains(&ok_payments),
        "missing {ok_payments} in\n{text}"
    );
    assert!(
        text.contains("http_request_duration_seconds_bucket"),
        "{text}"
    );
    assert!(
        text.contains(r#"upstream_in_flight{client="hyper"} 0"#),
        "{text}"
    );
    assert!(text.contains("ureq_blocking_queue_depth 0"), "{text}");
    assert!(text.contains("ureq_blocking_threads_busy 0"), "{text}");
}

#[actix_web::test]
async fn metrics_show_the_ureq_blocking_pool_filling_up() {
    let app = crate::helpers::spawn_app_with(mock_rates::Settings::default(), |s| {
        s.rates.blocking_threads = 1;
        s.rates.pool_wait_ms = 1500;
        s.rates.timeout_ms = 800;
    })
    .await;
    app.set_fault(mock_rates::FaultMode::Hang, 200);
    let body = r#"{"amount":"1","currency":"EUR","target_currency":"USD"}"#;
    let scrape = async {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        app.get("/metrics").await.text().await.unwrap()
    };
    let (first, second, text) = tokio::join!(
        app.post_payment("ureq", body),
        app.post_payment("ureq", body),
        scrape
    );
    assert!(text.contains("ureq_blocking_threads_busy 1"), "{text}");
    assert!(text.contains("ureq_blocking_queue_depth 1"), "{text}");
    // One call held the only thread until its timeout; the other waited, then timed out too.
    assert_eq!(
        (first.status().as_u16(), second.status().as_u16()),
        (504, 504)
    );
}
