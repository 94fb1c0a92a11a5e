//! The API's one error type. Its variants are HTTP meanings; each renders as an RFC 9457
//! `application/problem+json` body with a stable `type`. 5xx bodies never carry internals:
//! the cause is logged where the error is turned into a response.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use std::borrow::Cow;
use std::fmt;

use application::{PaymentError, RatesError, RatesErrorKind};
use domain::ConversionError;
use serde::{Deserialize, Serialize};

/// One invalid field of a request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
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

/// The stable `type` of a problem, on the wire as its URI (`/problems/upstream-timeout`).
/// Each kind's URI, title and status live here and nowhere else.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ProblemType {
    #[serde(rename = "/problems/malformed-json")]
    MalformedJson,
    #[serde(rename = "/problems/validation")]
    Validation,
    #[serde(rename = "/problems/unknown-client")]
    UnknownClient,
    #[serde(rename = "/problems/payload-too-large")]
    PayloadTooLarge,
    #[serde(rename = "/problems/header-fields-too-large")]
    HeaderFieldsTooLarge,
    #[serde(rename = "/problems/unsupported-media-type")]
    UnsupportedMediaType,
    #[serde(rename = "/problems/not-found")]
    NotFound,
    #[serde(rename = "/problems/method-not-allowed")]
    MethodNotAllowed,
    #[serde(rename = "/problems/unsupported-pair")]
    UnsupportedPair,
    #[serde(rename = "/problems/conversion")]
    Conversion,
    #[serde(rename = "/problems/upstream-timeout")]
    UpstreamTimeout,
    #[serde(rename = "/problems/capacity-exhausted")]
    CapacityExhausted,
    #[serde(rename = "/problems/upstream-bad-response")]
    UpstreamBadResponse,
    #[serde(rename = "/problems/upstream-error")]
    UpstreamError,
    #[serde(rename = "/problems/upstream-unreachable")]
    UpstreamUnreachable,
    #[serde(rename = "/problems/upstream-tls")]
    UpstreamTls,
}

impl ProblemType {
    pub const ALL: [ProblemType; 16] = [
        ProblemType::MalformedJson,
        ProblemType::Validation,
        ProblemType::UnknownClient,
        ProblemType::PayloadTooLarge,
        ProblemType::HeaderFieldsTooLarge,
        ProblemType::UnsupportedMediaType,
        ProblemType::NotFound,
        ProblemType::MethodNotAllowed,
        ProblemType::UnsupportedPair,
        ProblemType::Conversion,
        ProblemType::UpstreamTimeout,
        ProblemType::CapacityExhausted,
        ProblemType::UpstreamBadResponse,
        ProblemType::UpstreamError,
        ProblemType::UpstreamUnreachable,
        ProblemType::UpstreamTls,
    ];

    /// The `type` URI, as serialized (`/problems/upstream-timeout`).
    pub fn uri(self) -> &'static str {
        match self {
            ProblemType::MalformedJson => "/problems/malformed-json",
            ProblemType::Validation => "/problems/validation",
            ProblemType::UnknownClient => "/problems/unknown-client",
            ProblemType::PayloadTooLarge => "/problems/payload-too-large",
            ProblemType::HeaderFieldsTooLarge => "/problems/header-fields-too-large",
            ProblemType::UnsupportedMediaType => "/problems/unsupported-media-type",
            ProblemType::NotFound => "/problems/not-found",
            ProblemType::MethodNotAllowed => "/problems/method-not-allowed",
            ProblemType::UnsupportedPair => "/problems/unsupported-pair",
            ProblemType::Conversion => "/problems/conversion",
            ProblemType::UpstreamTimeout => "/problems/upstream-timeout",
            ProblemType::CapacityExhausted => "/problems/capacity-exhausted",
            ProblemType::UpstreamBadResponse => "/problems/upstream-bad-response",
            ProblemType::UpstreamError => "/problems/upstream-error",
            ProblemType::UpstreamUnreachable => "/problems/upstream-unreachable",
            ProblemType::UpstreamTls => "/problems/upstream-tls",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            ProblemType::MalformedJson => "Malformed JSON",
            ProblemType::Validation => "Invalid request",
            ProblemType::UnknownClient => "Unknown client",
            ProblemType::PayloadTooLarge => "Payload too large",
            ProblemType::HeaderFieldsTooLarge => "Request header fields too large",
            ProblemType::UnsupportedMediaType => "Unsupported media type",
            ProblemType::NotFound => "Not found",
            ProblemType::MethodNotAllowed => "Method not allowed",
            ProblemType::UnsupportedPair => "Currency pair not supported",
            ProblemType::Conversion => "Amount cannot be converted",
            ProblemType::UpstreamTimeout => "Rates upstream timed out",
            ProblemType::CapacityExhausted => "No capacity for the call",
            ProblemType::UpstreamBadResponse => "Bad answer from rates upstream",
            ProblemType::UpstreamError => "Rates upstream failed",
            ProblemType::UpstreamUnreachable => "Rates upstream unreachable",
            ProblemType::UpstreamTls => "TLS with the rates upstream failed",
        }
    }

    /// The HTTP status the service answers with.
    pub fn status(self) -> StatusCode {
        match self {
            ProblemType::MalformedJson => StatusCode::BAD_REQUEST,
            ProblemType::Validation | ProblemType::UnsupportedPair | ProblemType::Conversion => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            ProblemType::UnknownClient | ProblemType::NotFound => StatusCode::NOT_FOUND,
            ProblemType::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ProblemType::HeaderFieldsTooLarge => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            ProblemType::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ProblemType::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ProblemType::UpstreamTimeout => StatusCode::GATEWAY_TIMEOUT,
            ProblemType::CapacityExhausted => StatusCode::SERVICE_UNAVAILABLE,
            ProblemType::UpstreamBadResponse
            | ProblemType::UpstreamError
            | ProblemType::UpstreamUnreachable
            | ProblemType::UpstreamTls => StatusCode::BAD_GATEWAY,
        }
    }

    /// The problem a payment gets when fetching its rate fails with `kind`: the same as
    /// `ApiError::from(PaymentError::Rates(error))` (an unsupported pair is the caller's 422).
    pub fn for_rates_error(kind: RatesErrorKind) -> ProblemType {
        match kind {
            RatesErrorKind::Timeout => ProblemType::UpstreamTimeout,
            RatesErrorKind::Connect => ProblemType::UpstreamUnreachable,
            RatesErrorKind::Tls => ProblemType::UpstreamTls,
            RatesErrorKind::UpstreamStatus => ProblemType::UpstreamError,
            RatesErrorKind::Malformed => ProblemType::UpstreamBadResponse,
            RatesErrorKind::UnsupportedPair => ProblemType::UnsupportedPair,
            RatesErrorKind::Unavailable => ProblemType::CapacityExhausted,
        }
    }

    /// The inverse of [`ProblemType::for_rates_error`]: the rates failure this problem stands
    /// for, `None` for problems that are not about fetching rates.
    pub fn rates_error_kind(self) -> Option<RatesErrorKind> {
        match self {
            ProblemType::UpstreamTimeout => Some(RatesErrorKind::Timeout),
            ProblemType::UpstreamUnreachable => Some(RatesErrorKind::Connect),
            ProblemType::UpstreamTls => Some(RatesErrorKind::Tls),
            ProblemType::UpstreamError => Some(RatesErrorKind::UpstreamStatus),
            ProblemType::UpstreamBadResponse => Some(RatesErrorKind::Malformed),
            ProblemType::UnsupportedPair => Some(RatesErrorKind::UnsupportedPair),
            ProblemType::CapacityExhausted => Some(RatesErrorKind::Unavailable),
            ProblemType::MalformedJson
            | ProblemType::Validation
            | ProblemType::UnknownClient
            | ProblemType::PayloadTooLarge
            | ProblemType::HeaderFieldsTooLarge
            | ProblemType::UnsupportedMediaType
            | ProblemType::NotFound
            | ProblemType::MethodNotAllowed
            | ProblemType::Conversion => None,
        }
    }
}

impl fmt::Display for ProblemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.uri())
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
        valid: &'static [Cow<'static, str>],
    },
    #[error("the body is larger than {limit} bytes")]
    PayloadTooLarge { limit: usize },
    #[error("the request line and header fields are larger than {limit} bytes together")]
    HeaderFieldsTooLarge { limit: usize },
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
    #[error("{limit} payment requests are in flight on this worker, its limit")]
    Overloaded { limit: usize },
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Problem {
    /// Stable per kind of error, e.g. `/problems/validation`.
    #[serde(rename = "type")]
    #[schema(value_type = String)]
    pub problem_type: ProblemType,
    #[schema(value_type = String)]
    pub title: Cow<'static, str>,
    pub status: u16,
    pub detail: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<FieldError>,
    /// For `unknown-client`: the clients that exist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<String>>)]
    pub valid_clients: Option<Cow<'static, [Cow<'static, str>]>>,
}

/// Seconds a client should wait before retrying after a 503.
const RETRY_AFTER_SECS: &str = "1";

impl ApiError {
    /// The stable `type` for this error, which also gives its title and status.
    pub fn problem_type(&self) -> ProblemType {
        match self {
            ApiError::MalformedJson(_) => ProblemType::MalformedJson,
            ApiError::Validation(_) => ProblemType::Validation,
            ApiError::UnknownClient { .. } => ProblemType::UnknownClient,
            ApiError::PayloadTooLarge { .. } => ProblemType::PayloadTooLarge,
            ApiError::HeaderFieldsTooLarge { .. } => ProblemType::HeaderFieldsTooLarge,
            ApiError::UnsupportedMediaType { .. } => ProblemType::UnsupportedMediaType,
            ApiError::NotFound => ProblemType::NotFound,
            ApiError::MethodNotAllowed => ProblemType::MethodNotAllowed,
            ApiError::UnsupportedPair(_) => ProblemType::UnsupportedPair,
            ApiError::Conversion(_) => ProblemType::Conversion,
            ApiError::Upstream(error) => ProblemType::for_rates_error(error.kind()),
            ApiError::Overloaded { .. } => ProblemType::CapacityExhausted,
        }
    }

    /// The problem body. Detail for 5xx is generic: the cause goes to the log, not the caller.
    pub fn problem(&self) -> Problem {
        let problem_type = self.problem_type();
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
            ApiError::Overloaded { .. } => {
                "The service is handling as many payment requests as it can. Retry shortly."
                    .to_owned()
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
            problem_type,
            title: Cow::Borrowed(problem_type.title()),
            status: problem_type.status().as_u16(),
            detail,
            errors: match self {
                ApiError::Validation(errors) => errors.clone(),
                _ => Vec::new(),
            },
            valid_clients: match self {
                ApiError::UnknownClient { valid, .. } => Some(Cow::Borrowed(*valid)),
                _ => None,
            },
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.problem_type().status()
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
        // As nginx and Node do: a client that sends such heads gets no more requests on this
        // connection, and its body, if any, is not read.
        if let ApiError::HeaderFieldsTooLarge { .. } = self {
            response.force_close();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::VALID_CLIENTS;

    fn rates_error(kind: RatesErrorKind) -> RatesError {
        match kind {
            RatesErrorKind::Timeout => RatesError::Timeout("slow".to_owned()),
            RatesErrorKind::Connect => RatesError::Connect("refused".to_owned()),
            RatesErrorKind::Tls => RatesError::Tls("unknown issuer".to_owned()),
            RatesErrorKind::UpstreamStatus => RatesError::UpstreamStatus(500),
            RatesErrorKind::Malformed => RatesError::Malformed("not JSON".to_owned()),
            RatesErrorKind::UnsupportedPair => RatesError::UnsupportedPair("XAUUSD".to_owned()),
            RatesErrorKind::Unavailable => RatesError::Unavailable("pool full".to_owned()),
        }
    }

    #[test]
    fn rates_error_kinds_map_to_the_problems_the_server_sends_and_back() {
        for kind in RatesErrorKind::ALL {
            let error = ApiError::from(PaymentError::Rates(rates_error(kind)));
            let problem_type = ProblemType::for_rates_error(kind);
            assert_eq!(error.problem_type(), problem_type, "{kind}");
            assert_eq!(problem_type.rates_error_kind(), Some(kind), "{kind}");
            assert_eq!(error.status_code(), problem_type.status(), "{kind}");
            let problem = error.problem();
            assert_eq!(problem.problem_type, problem_type, "{kind}");
            assert_eq!(problem.status, problem_type.status().as_u16(), "{kind}");
            assert_eq!(problem.title, problem_type.title(), "{kind}");
        }
        for problem_type in ProblemType::ALL {
            if let Some(kind) = problem_type.rates_error_kind() {
                assert_eq!(ProblemType::for_rates_error(kind), problem_type);
            }
        }
    }

    #[test]
    fn problem_types_travel_as_their_uri() {
        for problem_type in ProblemType::ALL {
            let json = serde_json::to_string(&problem_type).unwrap();
            assert_eq!(json, format!("\"{}\"", problem_type.uri()));
            assert_eq!(problem_type.to_string(), problem_type.uri());
            let read: ProblemType = serde_json::from_str(&json).unwrap();
            assert_eq!(read, problem_type);
        }
    }

    #[test]
    fn problems_round_trip_through_json() {
        let answers = [
            ApiError::Validation(vec![FieldError::new("amount", "is required")]),
            ApiError::UnknownClient {
                requested: "curl".to_owned(),
                valid: VALID_CLIENTS.as_slice(),
            },
            ApiError::Upstream(RatesError::Timeout("slow".to_owned())),
            ApiError::NotFound,
        ];
        for error in answers {
            let problem = error.problem();
            let json = serde_json::to_vec(&problem).unwrap();
            let read: Problem = serde_json::from_slice(&json).unwrap();
            assert_eq!(read, problem);
            assert_eq!(serde_json::to_vec(&read).unwrap(), json);
        }
    }

    #[test]
    fn problem_json_keeps_its_keys_and_skip_rules() {
        let timeout = ApiError::Upstream(RatesError::Timeout("slow".to_owned())).problem();
        assert_eq!(
            serde_json::to_string(&timeout).unwrap(),
            r#"{"type":"/problems/upstream-timeout","title":"Rates upstream timed out","status":504,"detail":"The exchange-rate service did not answer in time. Try again."}"#
        );
        let unknown = ApiError::UnknownClient {
            requested: "curl".to_owned(),
            valid: VALID_CLIENTS.as_slice(),
        }
        .problem();
        assert_eq!(
            serde_json::to_string(&unknown).unwrap(),
            r#"{"type":"/problems/unknown-client","title":"Unknown client","status":404,"detail":"No client named \"curl\". Valid clients: hyper, awc, reqwest, ureq, reqwest-blocking, isahc, awc-openssl, reqwest-native-tls, ureq-native-tls, ureq-inline-ip, ureq-native-tls-first-alone, reqwest-hickory-dns, reqwest-retry.","valid_clients":["hyper","awc","reqwest","ureq","reqwest-blocking","isahc","awc-openssl","reqwest-native-tls","ureq-native-tls","ureq-inline-ip","ureq-native-tls-first-alone","reqwest-hickory-dns","reqwest-retry"]}"#
        );
    }
}
