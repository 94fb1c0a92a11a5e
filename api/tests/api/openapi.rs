//! The OpenAPI document: parses as OpenAPI 3.1, describes exactly the routes the server has,
//! every reference resolves, and the docs page is self-contained.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::helpers::{spawn_app, spawn_app_with};

fn collect_refs(value: &Value, refs: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get("$ref") {
                refs.insert(target.clone());
            }
            map.values().for_each(|v| collect_refs(v, refs));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, refs)),
        _ => {}
    }
}

#[actix_web::test]
async fn the_document_describes_exactly_the_served_routes() {
    let app = spawn_app().await;
    let response = app.get("/openapi.json").await;
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    let spec = oas3::from_json(&text).expect("parses as OpenAPI 3.1");
    let version = spec.validate_version().expect("a supported version");
    assert_eq!((version.major, version.minor), (3, 1));

    let documented: BTreeSet<(String, String)> = spec
        .operations()
        .map(|(path, method, _)| (path, method.as_str().to_owned()))
        .collect();
    let served: BTreeSet<(String, String)> = api::routes::ROUTES
        .iter()
        .map(|route| (route.path.to_owned(), route.method.as_str().to_owned()))
        .collect();
    assert_eq!(documented, served);

    let document: Value = serde_json::from_str(&text).unwrap();
    let mut refs = BTreeSet::new();
    collect_refs(&document, &mut refs);
    assert!(
        refs.contains("#/components/schemas/PaymentRequest"),
        "{refs:?}"
    );
    for target in refs {
        let name = target
            .strip_prefix("#/components/schemas/")
            .expect("a schema ref");
        assert!(
            document["components"]["schemas"][name].is_object(),
            "{target} does not resolve"
        );
    }
    let payment = &document["paths"]["/payments/{client}"]["post"]["responses"];
    for status in [
        "200", "400", "404", "413", "415", "422", "502", "503", "504",
    ] {
        assert!(
            payment[status].is_object(),
            "POST /payments/{{client}} lacks {status}"
        );
    }
}

#[actix_web::test]
async fn the_docs_page_loads_nothing_from_elsewhere() {
    let app = spawn_app().await;
    let response = app.get("/docs").await;
    assert_eq!(response.status(), 200);
    let html = response.text().await.unwrap();
    assert!(html.contains("/openapi.json"));
    assert!(
        !html.contains("src=\"http") && !html.contains("href=\"http"),
        "external asset"
    );
}

/// The rules the server enforces are in the document it serves: its clients (those that speak
/// its `rates.http_version`), the currencies it knows, positive amounts, its batch limit.
#[actix_web::test]
async fn the_document_states_the_rules_this_server_enforces() {
    let app = spawn_app_with(mock_rates::Settings::default(), |settings| {
        settings.payments.max_batch = 7;
    })
    .await;
    let document: Value = app.get("/openapi.json").await.json().await.unwrap();

    let served: Vec<&str> = rates_catalogue::CLIENTS
        .iter()
        .map(|client| client.name.as_str())
        .collect();
    for path in ["/payments/{client}", "/payments/{client}/batch"] {
        let parameters = document["paths"][path]["post"]["parameters"]
            .as_array()
            .unwrap();
        let client = parameters.iter().find(|p| p["name"] == "client").unwrap();
        assert_eq!(client["schema"]["enum"], json!(served), "{path}");
    }

    let payment = &document["components"]["schemas"]["PaymentRequest"];
    let codes: Vec<String> = domain::Currency::all()
        .map(|c| c.code().to_owned())
        .collect();
    assert_eq!(payment["properties"]["currency"]["enum"], json!(codes));
    assert_eq!(
        payment["properties"]["target_currency"]["enum"],
        json!(codes)
    );
    let number = &payment["properties"]["amount"]["oneOf"][1];
    assert_eq!(number["exclusiveMinimum"], 0);
    assert_eq!(number["maximum"], 1e15);
    // One branch per number of decimals, covering every currency once.
    let branches = payment["anyOf"].as_array().unwrap();
    let mut covered: Vec<String> = branches
        .iter()
        .flat_map(|branch| {
            branch["properties"]["currency"]["enum"]
                .as_array()
                .unwrap()
                .clone()
        })
        .map(|code| code.as_str().unwrap().to_owned())
        .collect();
    covered.sort();
    assert_eq!(covered, codes);
    let jpy = branches
        .iter()
        .find(|branch| {
            branch["properties"]["currency"]["enum"]
                .as_array()
                .unwrap()
                .contains(&json!("JPY"))
        })
        .unwrap();
    assert_eq!(jpy["properties"]["amount"]["oneOf"][1]["multipleOf"], 1.0);

    let batch = &document["components"]["schemas"]["BatchRequest"]["properties"];
    assert_eq!(batch["payments"]["minItems"], 1);
    assert_eq!(batch["payments"]["maxItems"], 7);
    assert_eq!(
        batch["mode"],
        json!({"$ref": "#/components/schemas/BatchMode"})
    );
}
