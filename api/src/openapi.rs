//! The OpenAPI 3.1 description, generated from the handlers' and types' annotations, and a
//! self-contained docs page that renders it (no asset is fetched from anywhere).

use actix_web::HttpResponse;
use utoipa::OpenApi;

use crate::problem::{FieldError, Problem};
use crate::routes::batch::{BatchBody, BatchItem, BatchMode, BatchResponse};
use crate::routes::health::{ClientInfo, ClientList, ClientSettingsView, HealthStatus};
use crate::routes::payment_dto::{PaymentBody, PaymentResponse};
use crate::routes::{batch, health, payments};

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
        openapi_json,
        docs,
    ),
    components(schemas(
        PaymentBody, PaymentResponse, BatchBody, BatchMode, BatchItem, BatchResponse,
        Problem, FieldError, HealthStatus, ClientInfo, ClientSettingsView, ClientList,
    )),
    tags(
        (name = "payments", description = "Convert payments"),
        (name = "operations", description = "Health, metrics, clients and this description"),
    )
)]
pub struct ApiDoc;

/// The document as JSON text.
pub fn document() -> String {
    ApiDoc::openapi().to_pretty_json().unwrap_or_else(|error| {
        format!(r#"{{"error":"cannot render the OpenAPI document: {error}"}}"#)
    })
}

/// This OpenAPI document.
#[utoipa::path(get, path = "/openapi.json", tag = "operations",
    responses((status = 200, description = "OpenAPI 3.1 document", content_type = "application/json")))]
pub async fn openapi_json() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(document())
}

/// A readable page of this description.
#[utoipa::path(get, path = "/docs", tag = "operations",
    responses((status = 200, description = "HTML page", content_type = "text/html")))]
pub async fn docs() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(DOCS_PAGE)
}

/// Renders `/openapi.json` with a few lines of inline script: routes, parameters, request and
/// response schemas. Everything is in this page; nothing is downloaded.
#[rustfmt::skip]
const DOCS_PAGE: &str = include_str!("docs.html");
