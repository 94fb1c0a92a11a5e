//! The `api` binary itself: configuration from the environment, the bound address in the log,
//! and a graceful stop on SIGTERM that lets the in-flight request finish and exits 0.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use mock_rates::{Faults, MockServer};
use serde_json::Value;

#[actix_web::test]
async fn sigterm_drains_in_flight_requests_and_exits_zero() {
    let mock = MockServer::start(mock_rates::Settings {
        faults: Faults {
            latency_ms: 600,
            ..Faults::default()
        },
        ..mock_rates::Settings::default()
    })
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_api"))
        .env("APP__SERVER__PORT", "0")
        .env("APP__SERVER__WORKERS", "1")
        .env("APP__RATES__BASE_URL", mock.base_url())
        .env("APP__LOG__FORMAT", "json")
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("api starts");
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let address = loop {
        let line = lines.next().expect("a log line").expect("readable");
        let Ok(entry) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if entry["message"] == "payment service listening" {
            break entry["address"]
                .as_str()
                .expect("address logged")
                .to_owned();
        }
    };
    // Keep draining the log so the child never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));

    let client = reqwest::Client::new();
    let in_flight = tokio::spawn({
        let url = format!("http://{address}/payments/hyper");
        let client = client.clone();
        async move {
            client
                .post(url)
                .header("content-type", "application/json")
                .body(r#"{"amount":"1","currency":"EUR","target_currency":"USD"}"#)
                .send()
                .await
        }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let pid = child.id().to_string();
    let killed = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill runs");
    assert!(killed.success());

    let response = in_flight
        .await
        .unwrap()
        .expect("the in-flight request completes");
    assert_eq!(response.status(), 200);
    let status = tokio::task::spawn_blocking(move || child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "exit status {status:?}");
    let after = client
        .get(format!("http://{address}/health/live"))
        .send()
        .await;
    assert!(after.is_err(), "no longer accepting");
}
