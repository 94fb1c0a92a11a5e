use serde_json::{Value, json};

use crate::helpers::{CLIENTS, assert_problem, spawn_app, spawn_app_with};

impl crate::helpers::TestApp {
    pub async fn post_batch(&self, client: &str, body: &Value) -> reqwest::Response {
        self.http
            .post(format!("{}/payments/{client}/batch", self.address))
            .json(body)
            .send()
            .await
            .expect("request sent")
    }
}

fn payments(count: usize) -> Vec<Value> {
    (0..count)
        .map(|i| json!({"reference": format!("p{i}"), "amount": format!("{}.25", i + 1), "currency": "EUR", "target_currency": "JPY"}))
        .collect()
}

#[actix_web::test]
async fn both_modes_process_every_item_in_order_with_one_upstream_call_each() {
    let app = spawn_app().await;
    for client in CLIENTS {
        for mode in ["sequential", "concurrent"] {
            let before = app.mock.state().stats().live_requests;
            let response = app
                .post_batch(client, &json!({"mode": mode, "payments": payments(4)}))
                .await;
            assert_eq!(response.status(), 200);
            let body: Value = response.json().await.unwrap();
            assert_eq!(body["client"], client);
            assert_eq!(body["mode"], mode);
            assert_eq!(
                (
                    body["count"].as_u64(),
                    body["succeeded"].as_u64(),
                    body["failed"].as_u64()
                ),
                (Some(4), Some(4), Some(0))
            );
            assert!(body["wall_time_ms"].as_f64().is_some_and(|ms| ms > 0.0));
            for (i, item) in body["items"].as_array().unwrap().iter().enumerate() {
                assert_eq!(item["index"], i);
                assert_eq!(item["status"], 200);
                assert_eq!(item["payment"]["reference"], format!("p{i}"));
                assert_eq!(item["payment"]["client"], client);
            }
            assert_eq!(
                app.mock.state().stats().live_requests - before,
                4,
                "no deduplication"
            );
        }
    }
}

#[actix_web::test]
async fn a_bad_item_fails_alone() {
    let app = spawn_app().await;
    let mut group = payments(3);
    group[1] = json!({"amount": "1", "currency": "EUR", "target_currency": "NOPE"});
    group.push(json!(17));
    let body: Value = app
        .post_batch("reqwest", &json!({"mode": "concurrent", "payments": group}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (body["succeeded"].as_u64(), body["failed"].as_u64()),
        (Some(2), Some(2))
    );
    let items = body["items"].as_array().unwrap();
    assert_eq!(items[1]["status"], 422);
    assert_eq!(
        items[1]["problem"]["errors"][0]["field"],
        "payments/1/target_currency"
    );
    assert_eq!(items[3]["status"], 422);
    assert_eq!(items[3]["problem"]["errors"][0]["field"], "payments/3");
    assert_eq!(items[0]["status"], 200);
    assert_eq!(items[2]["status"], 200);
}

#[actix_web::test]
async fn upstream_failure_of_items_is_reported_per_item() {
    let app = spawn_app().await;
    app.set_fault(mock_rates::FaultMode::Status, 503);
    let body: Value = app
        .post_batch(
            "hyper",
            &json!({"mode": "sequential", "payments": payments(2)}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(body["failed"], 2);
    assert_eq!(body["items"][0]["status"], 502);
    assert_eq!(
        body["items"][0]["problem"]["type"],
        "/problems/upstream-error"
    );
}

#[actix_web::test]
async fn the_envelope_is_validated() {
    let app = spawn_app_with(mock_rates::Settings::default(), |s| {
        s.payments.max_batch = 3;
    })
    .await;
    let cases = [
        (json!({"mode": "concurrent", "payments": []}), "payments"),
        (
            json!({"mode": "concurrent", "payments": payments(4)}),
            "payments",
        ),
        (json!({"mode": "concurrent"}), "payments"),
        (json!({"payments": payments(1)}), "mode"),
        (
            json!({"mode": "concurrent", "payments": payments(1), "concurrency": 0}),
            "concurrency",
        ),
        (json!({"mode": "parallel", "payments": payments(1)}), "body"),
        (
            json!({"mode": "concurrent", "payments": payments(1), "concurrency": 2.5}),
            "concurrency",
        ),
        (
            json!({"mode": "concurrent", "payments": payments(1), "concurrency": -1}),
            "concurrency",
        ),
        (
            json!({"mode": "concurrent", "payments": payments(1), "concurrency": "2"}),
            "concurrency",
        ),
    ];
    for (body, field) in cases {
        let problem = assert_problem(app.post_batch("awc", &body).await, 422, "validation").await;
        assert_eq!(problem["errors"][0]["field"], field, "{body}");
    }
    let too_many = assert_problem(
        app.post_batch(
            "awc",
            &json!({"mode": "concurrent", "payments": payments(4)}),
        )
        .await,
        422,
        "validation",
    )
    .await;
    assert!(
        too_many["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("at most 3")
    );
    assert_problem(
        app.post_batch("nope", &json!({})).await,
        404,
        "unknown-client",
    )
    .await;
}

/// JSON Schema's `integer` (the document's type for `concurrency`) takes `2.0`: so does the
/// server.
#[actix_web::test]
async fn a_whole_concurrency_written_with_a_fraction_is_accepted() {
    let app = spawn_app().await;
    for concurrency in [json!(2), json!(2.0), json!(null)] {
        let body =
            json!({"mode": "concurrent", "payments": payments(3), "concurrency": concurrency});
        let response = app.post_batch("hyper", &body).await;
        assert_eq!(response.status(), 200, "{body}");
        let answer: Value = response.json().await.unwrap();
        let expected = if concurrency.is_null() { 3 } else { 2 };
        assert_eq!(answer["concurrency"], expected, "{body}");
    }
}

/// The document bounds `concurrency` by `payments.max_batch`, the most payments a batch holds
/// (a larger figure could never mean more overlap). Every value up to the bound is taken (and
/// capped at the batch's size); every value above it, however large, is a 422 naming the field,
/// in either mode. 384124681214718050304 is the figure an OpenAPI fuzzer sent when the
/// document stated no bound.
#[actix_web::test]
async fn concurrency_is_taken_up_to_the_stated_bound_and_refused_beyond_it() {
    let app = spawn_app_with(mock_rates::Settings::default(), |s| {
        s.payments.max_batch = 3;
    })
    .await;
    let document: Value = app.get("/openapi.json").await.json().await.unwrap();
    let stated = &document["components"]["schemas"]["BatchRequest"]["properties"]["concurrency"];
    assert_eq!(
        (&stated["minimum"], &stated["maximum"]),
        (&json!(1), &json!(3))
    );

    let group = serde_json::to_string(&payments(2)).unwrap();
    let post = |mode: &str, concurrency: &str| {
        let body = format!(r#"{{"mode":"{mode}","payments":{group},"concurrency":{concurrency}}}"#);
        let request = app
            .http
            .post(format!("{}/payments/awc/batch", app.address))
            .header("content-type", "application/json")
            .body(body);
        async move { request.send().await.expect("request sent") }
    };
    for (concurrency, answered) in [("1", 1), ("2", 2), ("3", 2), ("3.0", 2)] {
        let response = post("concurrent", concurrency).await;
        assert_eq!(response.status(), 200, "{concurrency}");
        let answer: Value = response.json().await.unwrap();
        assert_eq!(answer["concurrency"], answered, "{concurrency}");
        assert_eq!(answer["succeeded"], 2, "{concurrency}");
    }
    for mode in ["concurrent", "sequential"] {
        for concurrency in [
            "4",
            "4.0",
            "18446744073709551616",
            "384124681214718050304",
            "1e400",
            "0",
        ] {
            let problem = assert_problem(post(mode, concurrency).await, 422, "validation").await;
            assert_eq!(
                problem["errors"][0]["field"], "concurrency",
                "{concurrency}"
            );
            let message = problem["errors"][0]["message"].as_str().unwrap();
            assert!(message.contains("from 1 to 3"), "{concurrency}: {message}");
        }
    }
}

#[actix_web::test]
async fn concurrent_mode_overlaps_the_upstream_calls_for_every_client() {
    let mock = mock_rates::Settings {
        faults: mock_rates::Faults {
            latency_ms: 100,
            ..mock_rates::Faults::default()
        },
        ..mock_rates::Settings::default()
    };
    let app = spawn_app_with(mock, |s| s.rates.timeout_ms = 2000).await;
    for client in CLIENTS {
        let mut wall = Vec::new();
        for mode in ["sequential", "concurrent"] {
            let body: Value = app
                .post_batch(client, &json!({"mode": mode, "payments": payments(20)}))
                .await
                .json()
                .await
                .unwrap();
            assert_eq!(body["succeeded"], 20, "{client} {mode}: {body}");
            wall.push(body["wall_time_ms"].as_f64().unwrap());
        }
        let (sequential, concurrent) = (wall[0], wall[1]);
        // 20 calls of >= 100 ms each one after another take >= 2 s; overlapped, far less.
        assert!(
            sequential >= 2000.0,
            "{client}: sequential took {sequential} ms"
        );
        assert!(
            concurrent < sequential / 2.0,
            "{client}: no overlap ({concurrent} vs {sequential} ms)"
        );
    }
}
