//! `GET /openapi.json` and `GET /docs`: the OpenAPI description (rendered at start-up and
//! handed over as app data) and a self-contained page that renders it.

use actix_web::{HttpResponse, web};

use crate::state::OpenApiDocument;

/// This OpenAPI document.
#[utoipa::path(get, path = "/openapi.json", tag = "operations",
    responses((status = 200, description = "OpenAPI 3.1 document", content_type = "application/json")))]
pub async fn openapi_json(document: web::Data<OpenApiDocument>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(document.0.clone())
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
