//! The service against an `https://` upstream: mock-rates over TLS, its CA trusted through
//! `rates.ca_file`. Every client converts with it, and every client refuses the upstream's
//! certificate without it (502 `/problems/upstream-tls`), since verification is never off.

use std::path::PathBuf;

use serde_json::Value;

use crate::helpers::{TestApp, assert_problem, spawn_app_on, spawn_app_with};

const PAYMENT: &str = r#"{"amount":"100","currency":"EUR","target_currency":"USD"}"#;

fn tls_mock() -> mock_rates::Settings {
    mock_rates::Settings {
        tls: Some(mock_rates::TlsSettings::default()),
        ..mock_rates::Settings::default()
    }
}

/// Every client the service lists.
async fn client_names(app: &TestApp) -> Vec<String> {
    let list: Value = app.get("/clients").await.json().await.expect("JSON");
    list["clients"]
        .as_array()
        .expect("a list of clients")
        .iter()
        .map(|client| client["name"].as_str().expect("a name").to_owned())
        .collect()
}

#[actix_web::test]
async fn every_client_converts_through_an_https_upstream_whose_ca_is_given() {
    let ca_dir = tempdir("https-ca");
    let ca_file = ca_dir.join("mock-ca.pem");
    let mock = mock_rates::MockServer::start(tls_mock()).expect("mock-rates starts");
    assert!(mock.base_url().starts_with("https://"));
    std::fs::write(&ca_file, mock.ca_pem().expect("a TLS mock has a CA")).expect("CA written");
    let app = spawn_app_on(mock, |settings| {
        settings.rates.ca_file = ca_file.display().to_string();
    })
    .await;
    let names = client_names(&app).await;
    assert!(names.len() >= 5, "{names:?}");
    for name in &names {
        let response = app.post_payment(name, PAYMENT).await;
        assert_eq!(response.status(), 200, "{name}");
        let payment: Value = response.json().await.expect("JSON");
        assert_eq!(payment["client"], name.as_str());
        assert_eq!(payment["converted_amount"], "116.02", "{name}: {payment}");
    }
    let stats = app.mock.state().stats();
    assert_eq!(stats.live_requests, names.len() as u64);
    assert!(
        stats.tls_handshakes_full + stats.tls_handshakes_resumed >= names.len() as u64,
        "{stats:?}"
    );
    std::fs::remove_dir_all(&ca_dir).ok();
}

#[actix_web::test]
async fn every_client_refuses_the_upstream_without_its_ca() {
    // What is checked is the refusal, not its speed: on a loaded machine a failed handshake
    // (the system's roots read, the alert, the close) took longer than a 500 ms upstream
    // timeout once, and the call ended as a 504; the tests' timeouts are ample since.
    let app = spawn_app_with(tls_mock(), |_| {}).await;
    for name in client_names(&app).await {
        let response = app.post_payment(&name, PAYMENT).await;
        assert_eq!(response.status(), 502, "{name}");
        assert_problem(response, 502, "upstream-tls").await;
    }
    assert_eq!(app.mock.state().stats().live_requests, 0);
}

/// With `rates.http_version = "2"` every client that speaks HTTP/2 converts over it, each on
/// a connection of its own that negotiated h2; ureq, which does not, is not served.
#[actix_web::test]
async fn every_http2_client_converts_over_http2() {
    let ca_dir = tempdir("h2-ca");
    let ca_file = ca_dir.join("mock-ca.pem");
    let mock = mock_rates::MockServer::start(tls_mock()).expect("mock-rates starts");
    std::fs::write(&ca_file, mock.ca_pem().expect("a TLS mock has a CA")).expect("CA written");
    let app = spawn_app_on(mock, |settings| {
        settings.rates.ca_file = ca_file.display().to_string();
        settings.rates.http_version = rates_common::HttpVersion::Http2;
    })
    .await;
    let mut served = 0;
    for name in client_names(&app).await {
        let response = app.post_payment(&name, PAYMENT).await;
        if name.starts_with("ureq") {
            assert_problem(response, 404, "unknown-client").await;
            continue;
        }
        assert_eq!(response.status(), 200, "{name}");
        let payment: Value = response.json().await.expect("JSON");
        assert_eq!(payment["converted_amount"], "116.02", "{name}: {payment}");
        served += 1;
    }
    // hyper, awc, reqwest, reqwest-blocking, isahc, awc-openssl, reqwest-native-tls,
    // reqwest-hickory-dns, reqwest-retry.
    assert_eq!(served, 9);
    let stats = app.mock.state().stats();
    assert_eq!((stats.live_requests, stats.h2_streams), (9, 9), "{stats:?}");
    assert_eq!(stats.h2_connections, 9, "{stats:?}");
    std::fs::remove_dir_all(&ca_dir).ok();
}

/// With `rates.http_version = "2"`, ureq (HTTP/1.1 only) is not served and `GET /clients` says
/// so; every other client offers `h2` alone, which this upstream (HTTP/1.1 only by ALPN)
/// refuses: 502 `/problems/upstream-tls`, and no request reaches it.
#[actix_web::test]
async fn http2_against_an_upstream_without_h2_is_refused_and_ureq_is_not_served() {
    let ca_dir = tempdir("h2-refused-ca");
    let ca_file = ca_dir.join("mock-ca.pem");
    let mock = mock_rates::MockServer::start(mock_rates::Settings {
        tls: Some(http1_only_tls()),
        ..mock_rates::Settings::default()
    })
    .expect("mock-rates starts");
    std::fs::write(&ca_file, mock.ca_pem().expect("a TLS mock has a CA")).expect("CA written");
    let app = spawn_app_on(mock, |settings| {
        settings.rates.ca_file = ca_file.display().to_string();
        settings.rates.http_version = rates_common::HttpVersion::Http2;
    })
    .await;
    let list: Value = app.get("/clients").await.json().await.expect("JSON");
    for client in list["clients"].as_array().expect("a list of clients") {
        let name = client["name"].as_str().expect("a name");
        let response = app.post_payment(name, PAYMENT).await;
        if name.starts_with("ureq") {
            assert!(client["settings"]["http_version"].is_null(), "{client}");
            assert_problem(response, 404, "unknown-client").await;
        } else {
            assert_eq!(client["settings"]["http_version"], "2", "{client}");
            assert_problem(response, 502, "upstream-tls").await;
        }
    }
    assert_eq!(app.mock.state().stats().live_requests, 0);
    std::fs::remove_dir_all(&ca_dir).ok();
}

#[actix_web::test]
async fn an_unreadable_ca_file_fails_at_start_naming_the_setting() {
    let mut settings = api::configuration::Settings::defaults().expect("defaults load");
    settings.server.port = 0;
    settings.rates.base_url = "https://127.0.0.1:1".to_owned();
    settings.rates.ca_file = "/nonexistent/ca.pem".to_owned();
    let error = api::startup::Application::build(&settings).unwrap_err();
    assert!(error.to_string().contains("rates.ca_file"), "{error}");
}

/// TLS whose ALPN offers `http/1.1` alone.
fn http1_only_tls() -> mock_rates::TlsSettings {
    mock_rates::TlsSettings {
        http2: false,
        ..mock_rates::TlsSettings::default()
    }
}

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("api-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}
