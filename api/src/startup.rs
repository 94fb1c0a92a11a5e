//! Building and running the server: settings in, a bound listener and a running server out.

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::Server;
use actix_web::middleware::from_fn;
use actix_web::web::Bytes;
use actix_web::{App, HttpServer, web};

use crate::configuration::{RatesSettings, Settings};
use crate::metrics::Metrics;
use crate::readiness::Readiness;
use crate::registry::ClientRegistry;
use crate::routes;
use crate::state::{Limits, OpenApiDocument, PaymentSlots, Upstream};

/// A built, bound, not yet running service.
pub struct Application {
    port: u16,
    server: Server,
    readiness: Arc<Readiness>,
    /// Kept alive for as long as the service runs.
    embedded_mock: EmbeddedMock,
}

/// The mock-rates started in-process when no upstream is configured.
#[cfg(feature = "embedded-mock")]
type EmbeddedMock = Option<mock_rates::MockServer>;
/// Without the `embedded-mock` feature there is none: an upstream must be configured.
#[cfg(not(feature = "embedded-mock"))]
type EmbeddedMock = ();

/// Why the service could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot bind {address}: {source}")]
    Bind {
        address: String,
        source: std::io::Error,
    },
    #[error("cannot start the embedded mock-rates: {0}")]
    EmbeddedMock(std::io::Error),
    #[error(
        "rates.base_url (APP__RATES__BASE_URL) is empty and this build has no embedded \
         mock-rates to start instead (cargo feature `embedded-mock` of api): set rates.base_url \
         to the rates API's http:// URL"
    )]
    NoUpstream,
    #[error(transparent)]
    CaFile(#[from] crate::configuration::CaFileError),
    #[error(transparent)]
    Client(#[from] rates_common::BuildError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl Application {
    /// Binds the listener and prepares the server. Must run inside an actix system (the awc
    /// client is built once here to check the settings before any worker starts).
    pub fn build(settings: &Settings) -> Result<Self, StartError> {
        let (upstream, embedded_mock) = choose_upstream(&settings.rates)?;
        let client_settings = settings.rates.client_settings(&upstream)?;
        let metrics = Arc::new(Metrics::new());
        let readiness = Arc::new(Readiness::new());
        // Fail at start, not in a worker, if any adapter rejects the settings. (Its own
        // metrics, so that this throwaway registry's pools are not reported.)
        ClientRegistry::build(&client_settings, &Arc::new(Metrics::new()), &readiness)?;
        for client in rates_catalogue::CLIENTS
            .iter()
            .filter(|client| !client.speaks(client_settings.http_version))
        {
            tracing::warn!(
                client = client.name.as_str(),
                http_version = %client_settings.http_version,
                "this client does not speak the configured rates.http_version: not served"
            );
        }

        let address = format!("{}:{}", settings.server.host, settings.server.port);
        let listener = TcpListener::bind(&address).map_err(|source| StartError::Bind {
            address: address.clone(),
            source,
        })?;
        let port = listener.local_addr()?.port();
        tracing::info!(address = %listener.local_addr()?, %upstream, "payment service listening");

        let limits = Limits::of(settings);
        let max_payments_in_flight = settings.server.max_payments_in_flight;
        let retry = settings.rates.retry_policy();
        let rates_settings = web::Data::new(settings.rates.clone());
        let upstream_data = web::Data::new(Upstream(upstream));
        let document = web::Data::new(OpenApiDocument(Bytes::from(crate::openapi::for_settings(
            settings,
        ))));
        let worker_readiness = Arc::clone(&readiness);
        let mut server = HttpServer::new(move || {
            let readiness = &worker_readiness;
            let registry = ClientRegistry::build(&client_settings, &metrics, readiness)
                .unwrap_or_else(|error| {
                    tracing::error!(%error, "a worker could not build its clients");
                    ClientRegistry::empty()
                });
            // The head limit inside the request span, so that its 431s are logged and counted.
            let app = App::new()
                .wrap(from_fn(crate::request_head::limit_request_head))
                .wrap(from_fn(crate::telemetry::request_span))
                .app_data(web::Data::new(registry))
                .app_data(web::Data::new(limits))
                .app_data(web::Data::new(PaymentSlots::new(max_payments_in_flight)))
                .app_data(web::Data::new(retry))
                .app_data(web::Data::from(Arc::clone(&metrics)))
                .app_data(web::Data::from(Arc::clone(readiness)))
                .app_data(rates_settings.clone())
                .app_data(upstream_data.clone())
                .app_data(document.clone())
                .default_service(web::to(routes::not_found));
            routes::ROUTES.iter().fold(app, |app, spec| {
                let allowed = routes::allowed_methods(spec.path);
                app.service(
                    web::resource(spec.path)
                        .route((spec.route)())
                        .default_service(web::to(move || {
                            std::future::ready(routes::method_not_allowed(allowed.clone()))
                        })),
                )
            })
        })
        .keep_alive(Duration::from_secs(settings.server.keep_alive_secs))
        .shutdown_timeout(settings.server.shutdown_timeout_secs)
        // ureq runs on each worker's blocking pool; its adapter caps calls at the same size.
        .worker_max_blocking_threads(settings.rates.blocking_threads)
        // Signals are handled in `run_until_stopped`, so readiness turns off before draining.
        .disable_signals();
        if settings.server.workers > 0 {
            server = server.workers(settings.server.workers);
        }
        let server = server.listen(listener)?.run();
        Ok(Self {
            port,
            server,
            readiness,
            embedded_mock,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Runs until the server stops. On SIGINT or SIGTERM it turns not-ready, stops accepting,
    /// lets in-flight requests finish (bounded by the shutdown timeout) and returns `Ok`.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let Self {
            server,
            readiness,
            // Bound (not `_`) so that it lives until the server has stopped.
            embedded_mock: _embedded_mock,
            ..
        } = self;
        let handle = server.handle();
        actix_web::rt::spawn(async move {
            if wait_for_shutdown_signal().await.is_ok() {
                tracing::info!("shutdown signal: draining in-flight requests");
                readiness.begin_shutdown();
                handle.stop(true).await;
            }
        });
        server.await
    }
}

/// The configured upstream, else an embedded mock-rates (when built in).
fn choose_upstream(rates: &RatesSettings) -> Result<(String, EmbeddedMock), StartError> {
    match rates.upstream() {
        Some(url) => Ok((url.to_owned(), EmbeddedMock::default())),
        None => start_embedded_mock(),
    }
}

#[cfg(feature = "embedded-mock")]
fn start_embedded_mock() -> Result<(String, EmbeddedMock), StartError> {
    let mock = mock_rates::MockServer::start(mock_rates::Settings::default())
        .map_err(StartError::EmbeddedMock)?;
    tracing::info!(
        url = %mock.base_url(),
        "no rates.base_url configured: started an embedded mock-rates"
    );
    Ok((mock.base_url(), Some(mock)))
}

#[cfg(not(feature = "embedded-mock"))]
fn start_embedded_mock() -> Result<(String, EmbeddedMock), StartError> {
    Err(StartError::NoUpstream)
}

/// Resolves on SIGINT (Ctrl-C) or, on Unix, SIGTERM.
async fn wait_for_shutdown_signal() -> std::io::Result<()> {
    #[cfg(unix)]
    {
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        tokio::select! {
            result = tokio::signal::ctrl_c() => result,
            _ = terminate.recv() => Ok(()),
        }
    }
    #[cfg(not(unix))]
    {
        tokio::signal::ctrl_c().await
    }
}

impl std::fmt::Debug for Application {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Application")
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}
