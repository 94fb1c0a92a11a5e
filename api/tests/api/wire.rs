//! The response types read the service's real answers: each answer deserializes into its type
//! and serializes back to the same JSON (same keys, same order, same skip rules).

use api::problem::{Problem, ProblemType};
use api::routes::batch::BatchResponse;
use api::routes::health::{ClientList, HealthStatus};
use api::routes::payment_dto::PaymentResponse;
use mock_rates::FaultMode;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::helpers::spawn_app;

/// Reads `body` as `T`, writes it again and checks the JSON is the service's own.
fn round_trip<T: DeserializeOwned + Serialize>(body: &[u8]) -> T {
    let typed: T = serde_json::from_slice(body).expect("the answer reads as its type");
    let written = serde_json::to_vec(&typed).expect("the type serializes");
    let original: Value = serde_json::from_slice(body).expect("the answer is JSON");
    let again: Value = serde_json::from_slice(&written).expect("written JSON");
    assert_same_json(&original, &again, "");
    typed
}

/// Equal JSON, keys in the same order; numbers equal up to float parsing (serde_json may read
/// a 17-digit float one ULP off).
fn assert_same_json(expected: &Value, actual: &Value, at: &str) {
    match (expected, actual) {
        (Value::Object(expected), Value::Object(actual)) => {
            let keys =
                |map: &serde_json::Map<String, Value>| map.keys().cloned().collect::<Vec<_>>();
            assert_eq!(keys(expected), keys(actual), "keys at {at:?}");
            for (key, value) in expected {
                assert_same_json(value, &actual[key], &format!("{at}/{key}"));
            }
        }
        (Value::Array(expected), Value::Array(actual)) => {
            assert_eq!(expected.len(), actual.len(), "length at {at:?}");
            for (index, (expected, actual)) in expected.iter().zip(actual).enumerate() {
                assert_same_json(expected, actual, &format!("{at}/{index}"));
            }
        }
        (Value::Number(expected), Value::Number(actual)) if expected.is_f64() => {
            let (expected, actual) = (expected.as_f64().unwrap(), actual.as_f64().unwrap());
            assert!(
                (expected - actual).abs() <= expected.abs() * 1e-12,
                "{expected} vs {actual} at {at:?}"
            );
        }
        _ => assert_eq!(expected, actual, "at {at:?}"),
    }
}

async fn body_of(response: reqwest::Response, status: u16) -> Vec<u8> {
    assert_eq!(response.status().as_u16(), status);
    response.bytes().await.expect("body read").to_vec()
}

#[actix_web::test]
async fn health_answers_read_as_health_status() {
    let app = spawn_app().await;
    let live: HealthStatus = round_trip(&body_of(app.get("/health/live").await, 200).await);
    assert_eq!((live.status.as_ref(), live.reason), ("ok", None));
    let ready: HealthStatus = round_trip(&body_of(app.get("/health/ready").await, 200).await);
    assert_eq!(ready.status, "ready");
    // A fresh service whose upstream fails has had no recent answer: not ready.
    let failing = spawn_app().await;
    failing.set_fault(FaultMode::Status, 500);
    let not_ready: HealthStatus =
        round_trip(&body_of(failing.get("/health/ready").await, 503).await);
    assert_eq!(not_ready.status, "not ready");
    assert!(not_ready.reason.is_some());
}

#[actix_web::test]
async fn the_client_list_reads_as_client_list() {
    let app = spawn_app().await;
    let list: ClientList = round_trip(&body_of(app.get("/clients").await, 200).await);
    assert_eq!(list.clients.len(), crate::helpers::CLIENTS.len());
    assert!(
        list.clients
            .iter()
            .any(|c| c.settings.blocking_threads.is_some())
    );
}

#[actix_web::test]
async fn payments_and_problems_read_as_their_types() {
    let app = spawn_app().await;
    let body = r#"{"reference":"r1","amount":"10","currency":"EUR","target_currency":"JPY"}"#;
    let payment: PaymentResponse =
        round_trip(&body_of(app.post_payment("hyper", body).await, 200).await);
    assert_eq!(payment.reference.as_deref(), Some("r1"));

    let unknown: Problem = round_trip(&body_of(app.post_payment("curl", body).await, 404).await);
    assert_eq!(unknown.problem_type, ProblemType::UnknownClient);
    assert_eq!(
        unknown.valid_clients.map(|v| v.len()),
        Some(crate::helpers::CLIENTS.len())
    );

    let invalid: Problem = round_trip(&body_of(app.post_payment("hyper", "{}").await, 422).await);
    assert_eq!(invalid.problem_type, ProblemType::Validation);
    assert_eq!(invalid.errors.len(), 3);

    app.set_fault(FaultMode::Status, 500);
    let failed: Problem = round_trip(&body_of(app.post_payment("hyper", body).await, 502).await);
    assert_eq!(failed.problem_type, ProblemType::UpstreamError);
    assert_eq!(failed.status, failed.problem_type.status().as_u16());
}

#[actix_web::test]
async fn a_batch_reads_as_batch_response() {
    let app = spawn_app().await;
    let request = json!({"mode": "concurrent", "payments": [
        {"amount": "10", "currency": "EUR", "target_currency": "USD"},
        {"amount": "10", "currency": "EUR"},
    ]});
    let response = app
        .http
        .post(format!("{}/payments/awc/batch", app.address))
        .json(&request)
        .send()
        .await
        .expect("request sent");
    let batch: BatchResponse = round_trip(&body_of(response, 200).await);
    assert_eq!(
        (batch.client.as_ref(), batch.succeeded, batch.failed),
        ("awc", 1, 1)
    );
    assert!(batch.items[0].payment.is_some() && batch.items[0].problem.is_none());
    let problem = batch.items[1]
        .problem
        .as_ref()
        .expect("the bad item's problem");
    assert_eq!(problem.problem_type, ProblemType::Validation);
}
