//! Hostile and random payment bodies: every one gets a 2xx or a 4xx problem, never a 5xx,
//! and the server keeps answering. Bounded: a fixed number of cases from a fixed seed.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Map, Value, json};

use crate::helpers::spawn_app;

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        "\\PC{0,40}".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::btree_map("\\PC{0,12}", inner, 0..8)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Figures a caller might send as an amount, good and bad, as JSON text.
fn amount_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "-?[0-9]{1,30}(\\.[0-9]{0,30})?".prop_map(|n| n),
        "-?[0-9]{1,3}(\\.[0-9]{1,3})?[eE][+-]?[0-9]{1,6}".prop_map(|n| n),
        "\\PC{0,30}".prop_map(|s| Value::String(s).to_string()),
        "-?[0-9]{1,40}(\\.[0-9]{1,40})?".prop_map(|n| Value::String(n).to_string()),
        any_json().prop_map(|v| v.to_string()),
    ]
}

fn currency_text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("\"EUR\"".to_owned()),
        Just("\"JPY\"".to_owned()),
        Just("\"KWD\"".to_owned()),
        "[A-Z]{3}".prop_map(|c| format!("\"{c}\"")),
        "\\PC{0,8}".prop_map(|s| Value::String(s).to_string()),
        any_json().prop_map(|v| v.to_string()),
    ]
}

/// Payment-shaped objects with random field values, random JSON, and raw text.
fn hostile_body() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (amount_text(), currency_text(), currency_text(), prop::option::of("\\PC{0,200}"))
            .prop_map(|(amount, currency, target, reference)| {
                let reference = reference
                    .map(|r| format!(r#","reference":{}"#, Value::String(r)))
                    .unwrap_or_default();
                format!(r#"{{"amount":{amount},"currency":{currency},"target_currency":{target}{reference}}}"#)
            }),
        2 => any_json().prop_map(|v| v.to_string()),
        1 => "\\PC{0,200}",
        1 => (1usize..5000).prop_map(|depth| format!("{}{}", "[".repeat(depth), "]".repeat(depth))),
        1 => (1usize..300).prop_map(|depth| format!("{}1{}", r#"{"amount":"#.repeat(depth), "}".repeat(depth))),
    ]
}

#[actix_web::test]
async fn hostile_bodies_never_get_a_5xx() {
    let app = spawn_app().await;
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        proptest::test_runner::TestRng::deterministic_rng(
            proptest::test_runner::RngAlgorithm::ChaCha,
        ),
    );
    let strategy = hostile_body();
    let mut statuses = std::collections::BTreeMap::<u16, usize>::new();
    for _ in 0..400 {
        let body = strategy.new_tree(&mut runner).expect("a case").current();
        let response = app.post_payment("hyper", &body).await;
        let status = response.status().as_u16();
        *statuses.entry(status).or_default() += 1;
        assert!(
            status == 200 || (400..500).contains(&status),
            "{status} for {body:?}"
        );
        if status != 200 {
            let content_type = response.headers()["content-type"]
                .to_str()
                .unwrap()
                .to_owned();
            assert_eq!(content_type, "application/problem+json", "for {body:?}");
            let problem: Value = response.json().await.expect("problem is JSON");
            assert_eq!(problem["status"], status);
        }
    }
    // The generator really produced both accepted and rejected bodies.
    assert!(statuses.get(&422).is_some_and(|n| *n > 10), "{statuses:?}");
    assert!(statuses.get(&400).is_some_and(|n| *n > 10), "{statuses:?}");
    assert_eq!(app.get("/health/live").await.status(), 200);
}

#[actix_web::test]
async fn oversized_and_odd_bodies_are_refused_cleanly() {
    let app = spawn_app().await;
    let huge = format!(
        r#"{{"amount":"1","currency":"EUR","target_currency":"USD","reference":"{}"}}"#,
        "é".repeat(20_000)
    );
    assert_eq!(app.post_payment("hyper", &huge).await.status(), 413);
    let long_number = format!(
        r#"{{"amount":{},"currency":"EUR","target_currency":"USD"}}"#,
        "9".repeat(10_000)
    );
    assert_eq!(app.post_payment("hyper", &long_number).await.status(), 422);
    let nul = r#"{"amount":"1\u0000","currency":"EUR","target_currency":"USD"}"#;
    assert_eq!(app.post_payment("hyper", nul).await.status(), 422);
    let invalid_utf8 = reqwest::Body::from(vec![b'{', 0xff, 0xfe, b'}']);
    let response = app
        .http
        .post(format!("{}/payments/hyper", app.address))
        .header("content-type", "application/json")
        .body(invalid_utf8)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    assert_eq!(app.get("/health/live").await.status(), 200);
}
