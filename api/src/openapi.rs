//! The OpenAPI 3.1 description, generated from the handlers' and types' annotations.

use serde_json::{Value, json};
use utoipa::OpenApi;

use crate::configuration::Settings;
use crate::problem::{FieldError, Problem};
use crate::routes::batch::{BatchBody, BatchItem, BatchMode, BatchResponse};
use crate::routes::health::{ClientInfo, ClientList, ClientSettingsView, HealthStatus, TlsView};
use crate::routes::payment_dto::{PaymentBody, PaymentResponse};
use crate::routes::{batch, docs, health, payments};
use crate::state::Limits;

#[derive(Debug, OpenApi)]
#[openapi(
    info(
        title = "rest-libraries payment service",
        description = "Converts payments between currencies with a rate fetched through one of five Rust HTTP clients. Errors are RFC 9457 problems (application/problem+json) with a stable `type`."
    ),
    paths(
        payments::create_payment,
        batch::create_batch,
        health::live,
        health::ready,
        health::clients,
        health::metrics,
        docs::openapi_json,
        docs::docs,
    ),
    components(schemas(
        PaymentBody, PaymentResponse, BatchBody, BatchMode, BatchItem, BatchResponse,
        Problem, FieldError, HealthStatus, ClientInfo, ClientSettingsView, ClientList, TlsView,
    )),
    tags(
        (name = "payments", description = "Convert payments"),
        (name = "operations", description = "Health, metrics, clients and this description"),
    )
)]
pub struct ApiDoc;

/// What one running service accepts beyond what the types say: the clients it serves (the
/// registry under its `rates.http_version`) and its request limits.
#[derive(Debug)]
pub struct Served<'a> {
    pub clients: &'a [&'static str],
    pub limits: Limits,
}

/// The document of a service started with `settings`: the clients that speak its
/// `rates.http_version`, and its limits.
pub fn for_settings(settings: &Settings) -> String {
    let clients: Vec<&'static str> = rates_catalogue::speaking(settings.rates.http_version)
        .map(|client| client.name.as_str())
        .collect();
    document(&Served {
        clients: &clients,
        limits: Limits::of(settings),
    })
}

/// The document as JSON text, stating `served`'s clients and limits.
pub fn document(served: &Served<'_>) -> String {
    let rendered = serde_json::to_value(ApiDoc::openapi()).map(|mut document| {
        state_the_rules(&mut document, served);
        document
    });
    rendered
        .and_then(|document| serde_json::to_string_pretty(&document))
        .unwrap_or_else(|error| {
            format!(r#"{{"error":"cannot render the OpenAPI document: {error}"}}"#)
        })
}

/// Largest amount accepted, as a JSON number (`domain`'s bound: 10^15).
const MAX_AMOUNT: f64 = 1e15;

/// A positive figure in JSON-number syntax, as a string: digits with a non-zero one in the
/// mantissa, an optional fraction and exponent. (The decimals a currency allows and the
/// 10^15 bound, which the exponent can move, are checked by the server and said in the text.)
const POSITIVE_FIGURE: &str =
    r"^([0-9]*[1-9][0-9]*(\.[0-9]+)?|[0-9]+\.[0-9]*[1-9][0-9]*)([eE][+-]?[0-9]+)?$";

/// As a JSON number, an amount has no more decimals than its currency: one branch per number
/// of minor units, each naming its currencies. (As a string, the same rule holds; with an
/// exponent allowed, no pattern can say it, so the server checks it and says which field.)
fn decimals_by_currency() -> Vec<Value> {
    let mut units: Vec<u32> = domain::Currency::all()
        .map(|currency| currency.minor_units())
        .collect();
    units.sort_unstable();
    units.dedup();
    units
        .into_iter()
        .map(|minor_units| {
            let codes: Vec<String> = domain::Currency::all()
                .filter(|currency| currency.minor_units() == minor_units)
                .map(|currency| currency.code().to_owned())
                .collect();
            let step = 10f64.powi(-i32::try_from(minor_units).unwrap_or(0));
            json!({
                "properties": {
                    "currency": {"enum": codes},
                    "amount": {"oneOf": [
                        {"type": "string"},
                        {"type": "number", "multipleOf": step, "minimum": step},
                    ]},
                },
            })
        })
        .collect()
}

/// The rules the server enforces that the annotations cannot carry: the clients served, the
/// currencies known, positive bounded amounts, batch sizes and the body limits.
fn state_the_rules(document: &mut Value, served: &Served<'_>) {
    let clients = json!({"type": "string", "enum": served.clients});
    for path in ["/payments/{client}", "/payments/{client}/batch"] {
        let pointer = format!("/paths/{}/post/parameters", path.replace('/', "~1"));
        if let Some(Value::Array(parameters)) = document.pointer_mut(&pointer) {
            for parameter in parameters.iter_mut().filter(|p| p["name"] == "client") {
                parameter["schema"] = clients.clone();
            }
        }
    }
    let limits = served.limits;
    let bodies = [
        ("/payments/{client}", limits.max_body_bytes),
        ("/payments/{client}/batch", limits.max_batch_body_bytes),
    ];
    for (path, bytes) in bodies {
        let pointer = format!("/paths/{}/post/requestBody", path.replace('/', "~1"));
        if let Some(body) = document.pointer_mut(&pointer) {
            body["description"] = json!(format!(
                "A JSON object of at most {bytes} bytes (413 beyond), sent as application/json."
            ));
        }
    }

    let codes: Vec<String> = domain::Currency::all()
        .map(|currency| currency.code().to_owned())
        .collect();
    if let Some(payment) = document.pointer_mut("/components/schemas/PaymentRequest") {
        let properties = &mut payment["properties"];
        for field in ["currency", "target_currency"] {
            properties[field]["enum"] = json!(codes);
            if let Some(schema) = properties[field].as_object_mut() {
                schema.remove("pattern");
            }
        }
        properties["amount"]["oneOf"] = json!([
            {"type": "string", "maxLength": 64, "pattern": POSITIVE_FIGURE},
            {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_AMOUNT},
        ]);
        payment["anyOf"] = json!(decimals_by_currency());
    }
    if let Some(batch) = document.pointer_mut("/components/schemas/BatchRequest/properties") {
        // Any JSON value is an item: each is checked on its own, and one that is not a valid
        // payment gets its own 422 in `items`, not a 4xx for the whole batch.
        batch["payments"]["items"] = json!({
            "anyOf": [{"$ref": "#/components/schemas/PaymentRequest"}, {}],
            "description": "A PaymentRequest; anything else is answered in its item, as a 422 problem.",
        });
        batch["payments"]["minItems"] = json!(1);
        batch["payments"]["maxItems"] = json!(limits.max_batch);
        batch["payments"]["description"] = json!(format!(
            "The payments, each checked on its own: 1 to {} of them.",
            limits.max_batch
        ));
        // Required, and not null: the server has no default mode.
        batch["mode"] = json!({"$ref": "#/components/schemas/BatchMode"});
        batch["concurrency"]["maximum"] = json!(limits.max_batch);
        batch["concurrency"]["description"] = json!(format!(
            "Most payments in flight at once in concurrent mode, 1 to {} (the most a batch \
             holds); default: all of the batch's. Checked in either mode.",
            limits.max_batch
        ));
    }
    state_the_head_limit(document, limits.max_header_bytes);
}

/// Every operation may be answered 431 before any route runs: its request line and header
/// fields over `server.max_header_bytes`.
fn state_the_head_limit(document: &mut Value, max_header_bytes: usize) {
    let answer = json!({
        "description": format!(
            "The request line and header fields together are over {max_header_bytes} bytes \
             (counted as sent in the form `name: value` CRLF); the connection is closed"
        ),
        "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}},
    });
    let Some(Value::Object(paths)) = document.get_mut("paths") else {
        return;
    };
    for path_item in paths.values_mut().filter_map(Value::as_object_mut) {
        for responses in path_item
            .values_mut()
            .filter_map(|operation| operation.get_mut("responses"))
            .filter_map(Value::as_object_mut)
        {
            responses.insert("431".to_owned(), answer.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use rates_common::HttpVersion;

    use super::*;
    use rates_catalogue::CLIENTS;

    fn client_enum(settings: &Settings) -> Value {
        let document: Value = serde_json::from_str(&for_settings(settings)).unwrap();
        document["paths"]["/payments/{client}"]["post"]["parameters"][0]["schema"]["enum"].clone()
    }

    #[test]
    fn the_client_enum_follows_the_registry_of_the_http_version() {
        let mut settings = Settings::defaults().unwrap();
        let every: Vec<&str> = CLIENTS.iter().map(|client| client.name.as_str()).collect();
        assert_eq!(client_enum(&settings), json!(every));
        settings.rates.http_version = HttpVersion::Http2;
        let over_h2 = client_enum(&settings);
        let names = over_h2.as_array().unwrap();
        assert!(!names.contains(&json!("ureq")), "{over_h2}");
        assert!(!names.contains(&json!("ureq-native-tls")), "{over_h2}");
        assert!(names.contains(&json!("reqwest-blocking")), "{over_h2}");
        let http11_only = CLIENTS
            .iter()
            .filter(|client| !client.speaks(HttpVersion::Http2))
            .count();
        assert_eq!(names.len(), every.len() - http11_only, "{over_h2}");
    }

    #[test]
    fn every_operation_states_the_head_limit() {
        let mut settings = Settings::defaults().unwrap();
        settings.server.max_header_bytes = 4096;
        let document: Value = serde_json::from_str(&for_settings(&settings)).unwrap();
        let mut operations = 0;
        for (path, item) in document["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                let answer = &operation["responses"]["431"];
                assert!(
                    answer["description"]
                        .as_str()
                        .unwrap()
                        .contains("4096 bytes"),
                    "{method} {path}: {answer}"
                );
                operations += 1;
            }
        }
        assert_eq!(operations, crate::routes::ROUTES.len());
    }
}
