//! Prometheus metrics: HTTP requests by route and status, request latency, and per client the
//! upstream call latency, errors by kind and calls in flight. Shared by all workers (atomics).

use std::rc::Rc;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use application::{Quotes, RatesError, RatesProvider};
use async_trait::async_trait;
use domain::CurrencyPair;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use rates_common::ConcurrencyLimit;

use crate::readiness::Readiness;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: String,
    method: String,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ClientLabels {
    client: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ClientKindLabels {
    client: &'static str,
    kind: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ClientOutcomeLabels {
    client: &'static str,
    outcome: &'static str,
}

/// Latency buckets from 50 µs to 10 s: loopback calls sit at the bottom, timeouts at the top.
fn latency_buckets() -> impl Iterator<Item = f64> {
    [
        0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
        0.5, 1.0, 2.5, 5.0, 10.0,
    ]
    .into_iter()
}

/// Every metric the service exports.
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    request_seconds: Family<RouteLabels, Histogram>,
    upstream_seconds: Family<ClientOutcomeLabels, Histogram>,
    upstream_errors: Family<ClientKindLabels, Counter>,
    upstream_in_flight: Family<ClientLabels, Gauge>,
    blocking_queue_depth: Gauge,
    blocking_threads_busy: Gauge,
    /// ureq's blocking-pool slots, one per worker; read when metrics are rendered.
    blocking_pools: Mutex<Vec<ConcurrencyLimit>>,
}

impl Metrics {
    pub fn new() -> Self {
        let mut registry = Registry::default();
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "http_requests",
            "HTTP requests answered, by route, method and status",
            requests.clone(),
        );
        let request_seconds = Family::<RouteLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(latency_buckets())
        });
        registry.register(
            "http_request_duration_seconds",
            "Time to answer an HTTP request, by route",
            request_seconds.clone(),
        );
        let upstream_seconds =
            Family::<ClientOutcomeLabels, Histogram>::new_with_constructor(|| {
                Histogram::new(latency_buckets())
            });
        registry.register(
            "upstream_call_duration_seconds",
            "Time of one rates upstream call through the port, by client and outcome (ok or error kind)",
            upstream_seconds.clone(),
        );
        let upstream_errors = Family::<ClientKindLabels, Counter>::default();
        registry.register(
            "upstream_errors",
            "Failed rates upstream calls, by client and error kind",
            upstream_errors.clone(),
        );
        let upstream_in_flight = Family::<ClientLabels, Gauge>::default();
        registry.register(
            "upstream_in_flight",
            "Rates upstream calls in flight, by client",
            upstream_in_flight.clone(),
        );
        let blocking_queue_depth = Gauge::default();
        registry.register(
            "ureq_blocking_queue_depth",
            "ureq calls waiting for a blocking-pool thread, all workers",
            blocking_queue_depth.clone(),
        );
        let blocking_threads_busy = Gauge::default();
        registry.register(
            "ureq_blocking_threads_busy",
            "Blocking-pool threads running a ureq call, all workers",
            blocking_threads_busy.clone(),
        );
        Self {
            registry,
            requests,
            request_seconds,
            upstream_seconds,
            upstream_errors,
            upstream_in_flight,
            blocking_queue_depth,
            blocking_threads_busy,
            blocking_pools: Mutex::new(Vec::new()),
        }
    }

    /// Reports a worker's ureq blocking-pool slots in the `ureq_blocking_*` gauges.
    pub fn track_blocking_pool(&self, slots: ConcurrencyLimit) {
        self.blocking_pools
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(slots);
    }

    /// Records one answered HTTP request. `route` is the matched pattern (`/payments/{client}`),
    /// never the raw path, so that label values stay few.
    pub fn record_request(&self, route: &str, method: &str, status: u16, seconds: f64) {
        self.requests
            .get_or_create(&RequestLabels {
                route: route.to_owned(),
                method: method.to_owned(),
                status,
            })
            .inc();
        self.request_seconds
            .get_or_create(&RouteLabels {
                route: route.to_owned(),
            })
            .observe(seconds);
    }

    /// The Prometheus text exposition.
    pub fn render(&self) -> String {
        {
            let pools = self
                .blocking_pools
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let sum = |read: fn(&ConcurrencyLimit) -> usize| {
                i64::try_from(pools.iter().map(read).sum::<usize>()).unwrap_or(i64::MAX)
            };
            self.blocking_queue_depth
                .set(sum(ConcurrencyLimit::waiting));
            self.blocking_threads_busy
                .set(sum(ConcurrencyLimit::in_use));
        }
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = encode(&mut text, &self.registry);
        text
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

/// A `RatesProvider` decorator that times every call and counts its outcome.
/// Successful calls also mark the upstream as answering, for readiness.
pub struct Instrumented {
    inner: Rc<dyn RatesProvider>,
    client: &'static str,
    metrics: Arc<Metrics>,
    readiness: Arc<Readiness>,
}

impl Instrumented {
    pub fn new(
        inner: Rc<dyn RatesProvider>,
        client: &'static str,
        metrics: Arc<Metrics>,
        readiness: Arc<Readiness>,
    ) -> Self {
        Self {
            inner,
            client,
            metrics,
            readiness,
        }
    }
}

impl std::fmt::Debug for Instrumented {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Instrumented")
            .field("client", &self.client)
            .finish_non_exhaustive()
    }
}

#[async_trait(?Send)]
impl RatesProvider for Instrumented {
    async fn fetch_quotes(&self, pairs: &[CurrencyPair]) -> Result<Quotes, RatesError> {
        let in_flight = self
            .metrics
            .upstream_in_flight
            .get_or_create(&ClientLabels {
                client: self.client,
            })
            .clone();
        in_flight.inc();
        let started = Instant::now();
        let result = self.inner.fetch_quotes(pairs).await;
        in_flight.dec();
        let outcome = match &result {
            Ok(_) => {
                self.readiness.upstream_answered();
                "ok"
            }
            Err(error) => error.kind().as_str(),
        };
        self.metrics
            .upstream_seconds
            .get_or_create(&ClientOutcomeLabels {
                client: self.client,
                outcome,
            })
            .observe(started.elapsed().as_secs_f64());
        if let Err(error) = &result {
            self.metrics
                .upstream_errors
                .get_or_create(&ClientKindLabels {
                    client: self.client,
                    kind: error.kind().as_str(),
                })
                .inc();
        }
        result
    }
}
