//! HTTP routes and their request/response shapes.

pub mod batch;
pub mod body;
pub mod docs;
pub mod health;
pub mod payment_dto;
pub mod payments;

use actix_web::http::Method;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError, web};

use crate::problem::ApiError;

/// One route the service serves.
#[derive(Debug)]
pub struct RouteSpec {
    pub method: Method,
    pub path: &'static str,
    pub route: fn() -> actix_web::Route,
}

/// Every route, in one table: the server registers exactly these, and a test checks that the
/// OpenAPI document describes exactly these.
#[rustfmt::skip]
pub const ROUTES: &[RouteSpec] = &[
    RouteSpec { method: Method::POST, path: "/payments/{client}", route: || web::post().to(payments::create_payment) },
    RouteSpec { method: Method::POST, path: "/payments/{client}/batch", route: || web::post().to(batch::create_batch) },
    RouteSpec { method: Method::GET, path: "/clients", route: || web::get().to(health::clients) },
    RouteSpec { method: Method::GET, path: "/health/live", route: || web::get().to(health::live) },
    RouteSpec { method: Method::GET, path: "/health/ready", route: || web::get().to(health::ready) },
    RouteSpec { method: Method::GET, path: "/metrics", route: || web::get().to(health::metrics) },
    RouteSpec { method: Method::GET, path: "/openapi.json", route: || web::get().to(docs::openapi_json) },
    RouteSpec { method: Method::GET, path: "/docs", route: || web::get().to(docs::docs) },
];

/// Any path the service does not have: a problem body, not actix's empty 404.
pub async fn not_found() -> HttpResponse {
    ApiError::NotFound.error_response()
}

/// A known path with a method it does not serve, with the `Allow` header that RFC 9110
/// requires of a 405: the methods the path does serve.
pub fn method_not_allowed(allowed: String) -> HttpResponse {
    let mut response = ApiError::MethodNotAllowed.error_response();
    // Method names are header-safe tokens, so this never fails.
    if let Ok(value) = HeaderValue::try_from(allowed) {
        response.headers_mut().insert(header::ALLOW, value);
    }
    response
}

/// What `path` serves, for its 405s' `Allow` header: every method [`ROUTES`] has for it.
pub fn allowed_methods(path: &str) -> String {
    let methods: Vec<&str> = ROUTES
        .iter()
        .filter(|route| route.path == path)
        .map(|route| route.method.as_str())
        .collect();
    methods.join(", ")
}
