//! The OpenAPI 3.1 description, generated from the handlers' and types' annotations.

use utoipa::OpenApi;

use crate::problem::{FieldError, Problem};
use crate::routes::batch::{BatchBody, BatchItem, BatchMode, BatchResponse};
use crate::routes::health::{ClientInfo, ClientList, ClientSettingsView, HealthStatus, TlsView};
use crate::routes::payment_dto::{PaymentBody, PaymentResponse};
use crate::routes::{batch, docs, health, payments};

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

/// The document as JSON text.
pub fn document() -> String {
    ApiDoc::openapi().to_pretty_json().unwrap_or_else(|error| {
        format!(r#"{{"error":"cannot render the OpenAPI document: {error}"}}"#)
    })
}
