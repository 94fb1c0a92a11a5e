//! What the handlers share, handed to them as app data at start-up: request limits, the rates
//! upstream in use and the rendered OpenAPI document.

use actix_web::web::Bytes;

use crate::configuration::Settings;

/// Request limits the handlers need.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_body_bytes: usize,
    pub max_batch: usize,
    pub max_batch_body_bytes: usize,
}

impl Limits {
    /// The limits `settings` configure.
    pub fn of(settings: &Settings) -> Self {
        Self {
            max_body_bytes: settings.server.max_body_bytes,
            max_batch: settings.payments.max_batch,
            max_batch_body_bytes: settings.payments.max_batch_body_bytes,
        }
    }
}

/// The upstream base URL in use (configured or the embedded mock's).
#[derive(Clone, Debug)]
pub struct Upstream(pub String);

/// The OpenAPI document as JSON text, rendered once at start-up.
#[derive(Clone, Debug)]
pub struct OpenApiDocument(pub Bytes);
