//! Liveness, readiness, metrics and the client listing.

use std::borrow::Cow;

use actix_web::HttpResponse;
use actix_web::web;
use application::RatesError;
use domain::{Currency, CurrencyPair};
use rates_catalogue::CLIENTS;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::configuration::RatesSettings;
use crate::metrics::Metrics;
use crate::readiness::Readiness;
use crate::registry::ClientRegistry;
use crate::state::Upstream;

/// A health answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct HealthStatus {
    /// `ok`, `ready` or `not ready`.
    #[schema(value_type = String)]
    pub status: Cow<'static, str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub reason: Option<Cow<'static, str>>,
}

/// The process answers HTTP. No dependency is touched, so this is also the framework's baseline
/// in the load benchmark.
#[utoipa::path(get, path = "/health/live", tag = "operations",
    responses((status = 200, description = "The process is up", body = HealthStatus)))]
pub async fn live() -> HttpResponse {
    HttpResponse::Ok().json(HealthStatus {
        status: Cow::Borrowed("ok"),
        reason: None,
    })
}

/// Ready when the rates upstream answered within the last few seconds (checked now, with the
/// baseline client, if no call did so recently); not ready while shutting down.
#[utoipa::path(get, path = "/health/ready", tag = "operations",
    responses(
        (status = 200, description = "Ready to serve payments", body = HealthStatus),
        (status = 503, description = "Shutting down, or the rates upstream does not answer", body = HealthStatus),
    ))]
pub async fn ready(
    readiness: web::Data<Readiness>,
    registry: web::Data<ClientRegistry>,
) -> HttpResponse {
    if readiness.is_shutting_down() {
        return not_ready("shutting down");
    }
    if !readiness.upstream_is_fresh() {
        let probe = CurrencyPair::new(Currency::EUR, Currency::USD);
        let checked = match registry.get(rates_catalogue::readiness_probe().name.as_str()) {
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
    HttpResponse::Ok().json(HealthStatus {
        status: Cow::Borrowed("ready"),
        reason: None,
    })
}

fn not_ready(reason: &'static str) -> HttpResponse {
    HttpResponse::ServiceUnavailable()
        .insert_header((actix_web::http::header::RETRY_AFTER, "5"))
        .json(HealthStatus {
            status: Cow::Borrowed("not ready"),
            reason: Some(Cow::Borrowed(reason)),
        })
}

/// One client and the settings it runs with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ClientInfo {
    #[schema(value_type = String)]
    pub name: Cow<'static, str>,
    /// Where to send its payments.
    pub path: String,
    /// Its TLS, used when the upstream is `https://`.
    pub tls: TlsView,
    /// The HTTP versions it speaks, as `rates.http_version` names them: `["1.1", "2"]`, or
    /// `["1.1"]` for a client that speaks HTTP/1.1 only (ureq).
    #[schema(value_type = Vec<String>)]
    pub http_versions: Vec<Cow<'static, str>>,
    pub settings: ClientSettingsView,
}

/// The library that does a client's TLS handshakes, and the crypto under it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TlsView {
    /// `rustls`, `native-tls`, `openssl`, `libcurl`.
    #[schema(value_type = String)]
    pub backend: Cow<'static, str>,
    /// `aws-lc-rs`, `ring`, `OpenSSL (system)`.
    #[schema(value_type = String)]
    pub provider: Cow<'static, str>,
}

/// The effective settings of a client (the same for every client, per worker).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ClientSettingsView {
    pub base_url: String,
    /// The HTTP version of its calls (`rates.http_version`), or null when the client does not
    /// speak it and is not served (ureq with "2").
    #[schema(value_type = Option<String>)]
    pub http_version: Option<Cow<'static, str>>,
    pub timeout_ms: u64,
    pub connect_timeout_ms: u64,
    pub max_connections: usize,
    pub max_idle_per_host: usize,
    pub idle_timeout_ms: u64,
    pub pool_wait_ms: u64,
    /// Only for blocking clients (ureq): the blocking-pool size that caps its overlap.
    pub blocking_threads: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ClientList {
    pub clients: Vec<ClientInfo>,
}

/// Every client and its effective settings.
#[utoipa::path(get, path = "/clients", tag = "operations",
    responses((status = 200, description = "The clients", body = ClientList)))]
pub async fn clients(
    rates: web::Data<RatesSettings>,
    upstream: web::Data<Upstream>,
) -> HttpResponse {
    let clients = CLIENTS
        .iter()
        .map(|client| ClientInfo {
            name: Cow::Borrowed(client.name.as_str()),
            path: format!("/payments/{}", client.name),
            tls: TlsView {
                backend: Cow::Borrowed(client.tls.backend),
                provider: Cow::Borrowed(client.tls.provider),
            },
            http_versions: client
                .http_versions
                .iter()
                .map(|version| Cow::Borrowed(version.as_str()))
                .collect(),
            settings: ClientSettingsView {
                base_url: upstream.0.clone(),
                http_version: client
                    .speaks(rates.http_version)
                    .then_some(Cow::Borrowed(rates.http_version.as_str())),
                timeout_ms: rates.timeout_ms,
                connect_timeout_ms: rates.connect_timeout_ms,
                max_connections: rates.max_connections,
                max_idle_per_host: rates.max_idle_per_host,
                idle_timeout_ms: rates.idle_timeout_ms,
                pool_wait_ms: rates.pool_wait_ms,
                blocking_threads: client.blocking.then_some(rates.blocking_threads),
            },
        })
        .collect();
    HttpResponse::Ok().json(ClientList { clients })
}

/// Prometheus text exposition: requests by route and status, request latency, upstream call
/// latency and errors by client and kind, upstream calls in flight.
#[utoipa::path(get, path = "/metrics", tag = "operations",
    responses((status = 200, description = "Prometheus text format", body = String, content_type = "text/plain")))]
pub async fn metrics(metrics: web::Data<Metrics>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(metrics.render())
}
