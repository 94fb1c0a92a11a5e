use rust_decimal::Decimal;
use serde_json::Value;

use crate::helpers::{CLIENTS, spawn_app};

fn decimal(value: &Value) -> Decimal {
    value
        .as_str()
        .expect("a string")
        .parse()
        .expect("a decimal")
}

fn mock_rate(pair: &str) -> Decimal {
    mock_rates::rate_text(pair)
        .expect("pair in the table")
        .parse()
        .expect("decimal")
}

#[actix_web::test]
async fn every_client_converts_direct_inverse_cross_and_same_currency() {
    let app = spawn_app().await;
    let eurusd = mock_rate("EURUSD");
    let usdjpy = mock_rate("USDJPY");
    let eurgbp = mock_rate("EURGBP");
    let round = |d: Decimal, dp: u32| {
        d.round_dp_with_strategy(dp, rust_decimal::RoundingStrategy::MidpointNearestEven)
    };
    for client in CLIENTS {
        let direct: Value = app
            .post_payment(client, r#"{"reference":"inv-7","amount":"100.00","currency":"EUR","target_currency":"USD"}"#)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(direct["client"], client);
        assert_eq!(direct["reference"], "inv-7");
        assert_eq!(direct["amount"], "100.00");
        assert_eq!(direct["currency"], "EUR");
        assert_eq!(direct["target_currency"], "USD");
        assert_eq!(direct["rate"], mock_rates::rate_text("EURUSD").unwrap());
        assert_eq!(
            decimal(&direct["converted_amount"]),
            round(Decimal::from(100) * eurusd, 2)
        );
        assert!(direct["rate_timestamp"].as_str().is_some());
        assert!(direct["processed_at"].as_str().is_some());
        assert_eq!(direct["id"].as_str().map(str::len), Some(36));

        let inverse: Value = app
            .post_payment(
                client,
                r#"{"amount":10,"currency":"GBP","target_currency":"EUR"}"#,
            )
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(
            decimal(&inverse["converted_amount"]),
            round(Decimal::from(10) / eurgbp, 2),
            "{client}: {inverse}"
        );

        let cross: Value = app
            .post_payment(
                client,
                r#"{"amount":"250.5","currency":"EUR","target_currency":"JPY"}"#,
            )
            .await
            .json()
            .await
            .unwrap();
        let expected = round(Decimal::new(2505, 1) * eurusd * usdjpy, 0);
        assert_eq!(
            decimal(&cross["converted_amount"]),
            expected,
            "{client}: {cross}"
        );
        assert_eq!(
            cross["converted_amount"].as_str().map(|s| s.contains('.')),
            Some(false)
        );

        let before = app.mock.state().stats().live_requests;
        let same: Value = app
            .post_payment(
                client,
                r#"{"amount":"5","currency":"USD","target_currency":"USD"}"#,
            )
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(same["converted_amount"], "5.00");
        assert_eq!(same["rate"], "1");
        assert_eq!(same["rate_timestamp"], Value::Null);
        assert_eq!(
            app.mock.state().stats().live_requests,
            before,
            "no upstream call"
        );
    }
}

#[actix_web::test]
async fn number_amounts_are_read_exactly() {
    let app = spawn_app().await;
    let response: Value = app
        .post_payment(
            "hyper",
            r#"{"amount":0.1,"currency":"KWD","target_currency":"KWD"}"#,
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(response["amount"], "0.100");
    assert_eq!(response["converted_amount"], "0.100");
}

#[actix_web::test]
async fn responses_carry_a_request_id() {
    let app = spawn_app().await;
    let response = app
        .http
        .get(format!("{}/health/live", app.address))
        .header("x-request-id", "trace-me-42")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["x-request-id"], "trace-me-42");
    let fresh = app.get("/health/live").await;
    assert_eq!(fresh.headers()["x-request-id"].len(), 36);
}

#[actix_web::test]
async fn retry_when_configured_retries_5xx_and_says_how_many_attempts() {
    let mock = mock_rates::Settings {
        seed: 11,
        ..mock_rates::Settings::default()
    };
    let app = crate::helpers::spawn_app_with(mock, |s| {
        s.rates.retry_max_attempts = 3;
        s.rates.retry_base_backoff_ms = 1;
        s.rates.retry_max_backoff_ms = 5;
    })
    .await;
    app.mock.state().set_faults(mock_rates::Faults {
        mode: mock_rates::FaultMode::Status,
        status: 503,
        percent: 50,
        ..mock_rates::Faults::default()
    });
    let mut attempts_made = 0;
    let mut retried = 0;
    for _ in 0..20 {
        let response = app
            .post_payment(
                "hyper",
                r#"{"amount":"1","currency":"EUR","target_currency":"USD"}"#,
            )
            .await;
        let status = response.status().as_u16();
        let body: Value = response.json().await.unwrap();
        match status {
            200 => {
                let attempts = body["attempts"].as_u64().expect("attempts stated");
                assert!((1..=3).contains(&attempts));
                attempts_made += attempts;
                retried += u64::from(attempts > 1);
            }
            502 => attempts_made += 3,
            other => panic!("unexpected status {other}: {body}"),
        }
    }
    assert!(
        retried > 0,
        "with half the calls failing, some payment needed a retry"
    );
    assert_eq!(app.mock.state().stats().live_requests, attempts_made);
}

#[actix_web::test]
async fn without_retry_the_answer_does_not_mention_attempts() {
    let app = spawn_app().await;
    let body: Value = app
        .post_payment(
            "hyper",
            r#"{"amount":"1","currency":"EUR","target_currency":"USD"}"#,
        )
        .await
        .json()
        .await
        .unwrap();
    assert!(body.get("attempts").is_none(), "{body}");
}
