//! What the handlers share, handed to them as app data at start-up: request limits, the rates
//! upstream in use and the rendered OpenAPI document.

use actix_web::web::Bytes;

/// Request limits the handlers need.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_body_bytes: usize,
    pub max_batch: usize,
    pub max_batch_body_bytes: usize,
}

/// The upstream base URL in use (configured or the embedded mock's).
#[derive(Clone, Debug)]
pub struct Upstream(pub String);

/// The OpenAPI document as JSON text, rendered once at start-up.
#[derive(Clone, Debug)]
pub struct OpenApiDocument(pub Bytes);
