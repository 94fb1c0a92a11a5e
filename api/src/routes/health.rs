//! Liveness and the client listing.

use actix_web::HttpResponse;
use actix_web::web;
use serde_json::json;

use application::RatesError;
use domain::{Currency, CurrencyPair};
use rates_hyper::HyperRates;

use crate::configuration::RatesSettings;
use crate::metrics::Metrics;
use crate::readiness::Readiness;
use crate::registry::CLIENT_NAMES;
use crate::registry::ClientRegistry;

/// `GET /health/live`: the process answers HTTP. No dependency is touched, so this is also the
/// framework's baseline in the load benchmark.
pub async fn live() -> HttpResponse {
    HttpResponse::Ok().json(json!({"status": "ok"}))
}

/// `GET /health/ready`: 200 when the rates upstream answered within the last few seconds
/// (checked now, with the baseline client, if no call did so recently); 503 while shutting down
/// or when the upstream does not answer.
pub async fn ready(
    readiness: web::Data<Readiness>,
    registry: web::Data<ClientRegistry>,
) -> HttpResponse {
    if readiness.is_shutting_down() {
        return not_ready("shutting down");
    }
    if !readiness.upstream_is_fresh() {
        let probe = CurrencyPair::new(Currency::EUR, Currency::USD);
        let checked = match registry.get(HyperRates::NAME) {
            Some((_, provider)) => provider.fetch_quotes(&[probe]).await,
            None => Err(RatesError::Unavailable(
                "no client to check with".to_owned(),
            )),
        };
        if let Err(error) = checked {
            tracing::warn!(%error, "readiness check: rates upstream did not answer");
            return not_ready("the rates upstream does not answer");
        }
    }
    HttpResponse::Ok().json(json!({"status": "ready"}))
}

fn not_ready(reason: &str) -> HttpResponse {
    HttpResponse::ServiceUnavailable()
        .insert_header((actix_web::http::header::RETRY_AFTER, "5"))
        .json(json!({"status": "not ready", "reason": reason}))
}

/// `GET /clients`: every client and the settings it runs with (the same for all).
pub async fn clients(
    rates: web::Data<RatesSettings>,
    upstream: web::Data<Upstream>,
) -> HttpResponse {
    let clients: Vec<_> = CLIENT_NAMES
        .iter()
        .map(|name| {
            json!({
                "name": name,
                "path": format!("/payments/{name}"),
                "settings": {
                    "base_url": upstream.0,
                    "timeout_ms": rates.timeout_ms,
                    "connect_timeout_ms": rates.connect_timeout_ms,
                    "max_connections": rates.max_connections,
                    "max_idle_per_host": rates.max_idle_per_host,
                    "idle_timeout_ms": rates.idle_timeout_ms,
                    "pool_wait_ms": rates.pool_wait_ms,
                    "blocking_threads": (*name == "ureq").then_some(rates.blocking_threads),
                },
            })
        })
        .collect();
    HttpResponse::Ok().json(json!({ "clients": clients }))
}

/// `GET /metrics`: the Prometheus text exposition.
pub async fn metrics(metrics: web::Data<Metrics>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(metrics.render())
}

/// The upstream base URL in use (configured or the embedded mock's).
#[derive(Clone, Debug)]
pub struct Upstream(pub String);
