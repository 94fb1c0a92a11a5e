//! Logging: `tracing` with a span per request that carries its id and, on payment routes, the
//! client name; text or JSON lines, level from `RUST_LOG`.

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::web;
use tracing::Instrument;
use tracing_subscriber::EnvFilter;

use crate::configuration::LogFormat;
use crate::metrics::Metrics;

pub const REQUEST_ID_HEADER: HeaderName = HeaderName::from_static("x-request-id");

/// Installs the global subscriber once; later calls (tests) are no-ops.
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    let _already_set = match format {
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .try_init(),
        LogFormat::Text => builder.try_init(),
    };
}

/// Middleware: a request span with a request id (taken from `x-request-id` if the caller sent a
/// sane one, else a new UUID), echoed in the response header, and one log line per request.
pub async fn request_span(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody + 'static>, actix_web::Error> {
    let request_id = request
        .headers()
        .get(&REQUEST_ID_HEADER)
        .and_then(|value| value.to_str().ok())
        .filter(|id| !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_graphic()))
        .map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_owned);
    let span = tracing::info_span!(
        "request",
        request_id = %request_id,
        method = %request.method(),
        path = %request.path(),
    );
    let started = Instant::now();
    let metrics = request.app_data::<web::Data<Metrics>>().cloned();
    let route = request
        .match_pattern()
        .unwrap_or_else(|| "unmatched".to_owned());
    let method = request.method().clone();
    let mut response = next.call(request).instrument(span.clone()).await?;
    let status = response.status().as_u16();
    let elapsed = started.elapsed();
    if let Some(metrics) = metrics {
        metrics.record_request(&route, method.as_str(), status, elapsed.as_secs_f64());
    }
    span.in_scope(|| {
        tracing::info!(
            status,
            elapsed_us = elapsed.as_micros() as u64,
            "request done"
        );
    });
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert(REQUEST_ID_HEADER, value);
    }
    Ok(response)
}
