//! The API's one error type. Its variants are HTTP meanings; each renders as an RFC 9457
//! `application/problem+json` body with a stable `type`. 5xx bodies never carry internals:
//! the cause is logged where the error is turned into a response.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use application::{PaymentError, RatesError};
use domain::ConversionError;
use serde::Serialize;

/// One invalid field of a request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct FieldError {
    /// A JSON pointer-like path: `amount`, `payments/3/currency`.
    pub field: String,
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("the body is not valid JSON: {0}")]
    MalformedJson(String),
    #[error("the request is invalid")]
    Validation(Vec<FieldError>),
    #[error("no client named {requested:?}")]
    UnknownClient {
        requested: String,
        valid: &'static [&'static str],
    },
    #[error("the body is larger than {limit} bytes")]
    PayloadTooLarge { limit: usize },
    #[error("the body must be application/json, got {found:?}")]
    UnsupportedMediaType { found: String },
    #[error("no route for this path")]
    NotFound,
    #[error("method not allowed on this path")]
    MethodNotAllowed,
    #[error("the rates upstream does not quote the pair needed: {0}")]
    UnsupportedPair(String),
    #[error("the payment cannot be converted: {0}")]
    Conversion(ConversionError),
    #[error("rates upstream failed")]
    Upstream(#[source] RatesError),
}

impl From<PaymentError> for ApiError {
    fn from(error: PaymentError) -> Self {
        match error {
            PaymentError::Rates(RatesError::UnsupportedPair(pair)) => {
                ApiError::UnsupportedPair(pair)
            }
            PaymentError::Rates(rates) => ApiError::Upstream(rates),
            PaymentError::Conversion(conversion) => ApiError::Conversion(conversion),
        }
    }
}

/// The body of every error response.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Problem {
    /// Stable per kind of error, e.g. `/problems/validation`.
    #[serde(rename = "type")]
    pub problem_type: String,
    pub title: &'static str,
    pub status: u16,
    pub detail: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<FieldError>,
    /// For `unknown-client`: the clients that exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<String>>)]
    pub valid_clients: Option<&'static [&'static str]>,
}

/// Seconds a client should wait before retrying after a 503.
const RETRY_AFTER_SECS: &str = "1";

impl ApiError {
    /// The stable `type` slug and the title for this kind of error.
    pub fn slug_and_title(&self) -> (&'static str, &'static str) {
        match self {
            ApiError::MalformedJson(_) => ("malformed-json", "Malformed JSON"),
            ApiError::Validation(_) => ("validation", "Invalid request"),
            ApiError::UnknownClient { .. } => ("unknown-client", "Unknown client"),
            ApiError::PayloadTooLarge { .. } => ("payload-too-large", "Payload too large"),
            ApiError::UnsupportedMediaType { .. } => {
                ("unsupported-media-type", "Unsupported media type")
            }
            ApiError::NotFound => ("not-found", "Not found"),
            ApiError::MethodNotAllowed => ("method-not-allowed", "Method not allowed"),
            ApiError::UnsupportedPair(_) => ("unsupported-pair", "Currency pair not supported"),
            ApiError::Conversion(_) => ("conversion", "Amount cannot be converted"),
            ApiError::Upstream(error) => match error {
                RatesError::Timeout(_) => ("upstream-timeout", "Rates upstream timed out"),
                RatesError::Unavailable(_) => ("capacity-exhausted", "No capacity for the call"),
                RatesError::Malformed(_) => {
                    ("upstream-bad-response", "Bad answer from rates upstream")
                }
                RatesError::UpstreamStatus(_) => ("upstream-error", "Rates upstream failed"),
                RatesError::Connect(_) | RatesError::UnsupportedPair(_) => {
                    ("upstream-unreachable", "Rates upstream unreachable")
                }
            },
        }
    }

    /// The problem body. Detail for 5xx is generic: the cause goes to the log, not the caller.
    pub fn problem(&self) -> Problem {
        let (slug, title) = self.slug_and_title();
        let status = self.status_code();
        let detail = match self {
            ApiError::Upstream(RatesError::Timeout(_)) => {
                "The exchange-rate service did not answer in time. Try again.".to_owned()
            }
            ApiError::Upstream(RatesError::Unavailable(_)) => {
                "Too many calls to the exchange-rate service are in flight. Retry shortly."
                    .to_owned()
            }
            ApiError::Upstream(_) => {
                "The exchange-rate service could not provide a usable rate.".to_owned()
            }
            ApiError::Validation(errors) => {
                let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
                format!("Invalid field(s): {}.", fields.join(", "))
            }
            ApiError::UnknownClient { requested, valid } => format!(
                "No client named {requested:?}. Valid clients: {}.",
                valid.join(", ")
            ),
            other => other.to_string(),
        };
        Problem {
            problem_type: format!("/problems/{slug}"),
            title,
            status: status.as_u16(),
            detail,
            errors: match self {
                ApiError::Validation(errors) => errors.clone(),
                _ => Vec::new(),
            },
            valid_clients: match self {
                ApiError::UnknownClient { valid, .. } => Some(valid),
                _ => None,
            },
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::MalformedJson(_) => StatusCode::BAD_REQUEST,
            ApiError::Validation(_) | ApiError::UnsupportedPair(_) | ApiError::Conversion(_) => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            ApiError::UnknownClient { .. } | ApiError::NotFound => StatusCode::NOT_FOUND,
            ApiError::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::UnsupportedMediaType { .. } => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Upstream(error) => match error {
                RatesError::Timeout(_) => StatusCode::GATEWAY_TIMEOUT,
                RatesError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
                _ => StatusCode::BAD_GATEWAY,
            },
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let ApiError::Upstream(cause) = self {
            tracing::warn!(error.kind = %cause.kind(), error.cause = %cause, "upstream call failed");
        }
        let mut response = HttpResponse::build(self.status_code());
        response.insert_header((
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        ));
        if self.status_code() == StatusCode::SERVICE_UNAVAILABLE {
            response.insert_header((
                header::RETRY_AFTER,
                HeaderValue::from_static(RETRY_AFTER_SECS),
            ));
        }
        response.json(self.problem())
    }
}

/// The problem answers every payment route can give before any upstream call, for the
/// OpenAPI document (one list, shared by the single and batch routes).
#[derive(Debug, utoipa::IntoResponses)]
pub enum RequestProblems {
    /// The body is not valid JSON
    #[response(status = 400, content_type = "application/problem+json")]
    MalformedJson(Problem),
    /// Unknown client; the problem lists the valid ones
    #[response(status = 404, content_type = "application/problem+json")]
    UnknownClient(Problem),
    /// Body over the size limit
    #[response(status = 413, content_type = "application/problem+json")]
    PayloadTooLarge(Problem),
    /// Content type is not application/json
    #[response(status = 415, content_type = "application/problem+json")]
    UnsupportedMediaType(Problem),
    /// Invalid fields (each named in `errors`), a pair the upstream does not quote, or an
    /// amount that cannot be converted
    #[response(status = 422, content_type = "application/problem+json")]
    Unprocessable(Problem),
}
