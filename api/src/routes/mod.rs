//! HTTP routes and their request/response shapes.

pub mod batch;
pub mod body;
pub mod health;
pub mod payment_dto;
pub mod payments;

use actix_web::{HttpResponse, ResponseError};

use crate::problem::ApiError;

/// Any path the service does not have: a problem body, not actix's empty 404.
pub async fn not_found() -> HttpResponse {
    ApiError::NotFound.error_response()
}

/// A known path with a method it does not serve.
pub async fn method_not_allowed() -> HttpResponse {
    ApiError::MethodNotAllowed.error_response()
}
