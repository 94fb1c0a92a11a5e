//! The clients a worker can use, by name: every client library with each of its TLS backends.
//! Each actix worker builds its own instances once, at start: awc requires it (its client is
//! not `Send`), and the others do the same for fairness.

use std::borrow::Cow;
use std::rc::Rc;
use std::sync::{Arc, LazyLock};

use application::RatesProvider;
use rates_awc::{AwcRates, AwcTls};
use rates_common::{BuildError, ClientSettings, HttpVersion, TlsStack};
use rates_hyper::HyperRates;
use rates_isahc::IsahcRates;
use rates_reqwest::{ReqwestRates, ReqwestResolver, ReqwestTls};
use rates_ureq::{Resolve, TlsWarmUp, UreqOptions, UreqRates, UreqTls};

use crate::metrics::{Instrumented, Metrics};
use crate::readiness::Readiness;

/// How a worker builds its instance of a client.
#[derive(Debug)]
enum Build {
    /// A client whose instance needs nothing but the settings.
    Other(fn(&ClientSettings) -> Result<Rc<dyn RatesProvider>, BuildError>),
    /// ureq with its TLS backend and options: the worker's metrics take its blocking-pool
    /// slots.
    Ureq(UreqTls, UreqOptions),
}

/// One entry of the registry: a client library with one of its TLS backends.
#[derive(Debug)]
pub struct ClientKind {
    /// Its name in routes and tables: the library's for its default backend (`reqwest`), the
    /// library's and the backend's for the others (`reqwest-native-tls`), and the setting's
    /// after them for an adapter setting of a finding (`ureq-inline-ip`).
    pub name: &'static str,
    /// The library that does its TLS handshakes, and the crypto under it.
    pub tls: TlsStack,
    /// Whether it blocks a thread per call (ureq, on the blocking pool).
    pub blocking: bool,
    /// The HTTP versions it speaks (`rates.http_version`); ureq's is "1.1" alone.
    pub http_versions: &'static [HttpVersion],
    build: Build,
}

impl ClientKind {
    fn new(
        name: &'static str,
        tls: TlsStack,
        http_versions: &'static [HttpVersion],
        build: fn(&ClientSettings) -> Result<Rc<dyn RatesProvider>, BuildError>,
    ) -> Self {
        Self {
            name,
            tls,
            blocking: false,
            http_versions,
            build: Build::Other(build),
        }
    }

    /// Whether it can serve with `settings` (it speaks their HTTP version).
    pub fn speaks(&self, version: HttpVersion) -> bool {
        self.http_versions.contains(&version)
    }

    /// ureq with `backend` and `options`, named by them (`UreqOptions::client_name`).
    fn ureq(backend: UreqTls, options: UreqOptions) -> Self {
        Self {
            name: options.client_name(backend),
            tls: backend.stack(),
            blocking: true,
            http_versions: UreqRates::HTTP_VERSIONS,
            build: Build::Ureq(backend, options),
        }
    }

    /// Builds one worker's instance of it.
    fn instance(
        &self,
        settings: &ClientSettings,
        metrics: &Metrics,
    ) -> Result<Rc<dyn RatesProvider>, BuildError> {
        match self.build {
            Build::Other(build) => build(settings),
            Build::Ureq(backend, options) => {
                // ureq's blocking-pool slots go into the metrics of the worker that owns them.
                let ureq = UreqRates::with_options(settings, backend, options)?;
                metrics.track_blocking_pool(ureq.blocking_slots().clone());
                Ok(Rc::new(ureq))
            }
        }
    }
}

/// Every client, with each TLS backend of its library: the libraries' defaults first, in the
/// order the tables list them, then the other backends.
pub static CLIENTS: LazyLock<Vec<ClientKind>> = LazyLock::new(|| {
    vec![
        ClientKind::new(
            HyperRates::NAME,
            HyperRates::TLS,
            HyperRates::HTTP_VERSIONS,
            |settings| Ok(Rc::new(HyperRates::new(settings)?)),
        ),
        ClientKind::new(
            AwcTls::Rustls.client_name(),
            AwcTls::Rustls.stack(),
            AwcRates::HTTP_VERSIONS,
            |settings| Ok(Rc::new(AwcRates::with_tls(settings, AwcTls::Rustls)?)),
        ),
        ClientKind::new(
            ReqwestTls::Rustls.client_name(),
            ReqwestTls::Rustls.stack(),
            ReqwestRates::HTTP_VERSIONS,
            |settings| {
                Ok(Rc::new(ReqwestRates::with_tls(
                    settings,
                    ReqwestTls::Rustls,
                )?))
            },
        ),
        ClientKind::ureq(UreqTls::Rustls, UreqOptions::DEFAULT),
        ClientKind::new(
            IsahcRates::NAME,
            IsahcRates::TLS,
            IsahcRates::HTTP_VERSIONS,
            |settings| Ok(Rc::new(IsahcRates::new(settings)?)),
        ),
        ClientKind::new(
            AwcTls::Openssl.client_name(),
            AwcTls::Openssl.stack(),
            AwcRates::HTTP_VERSIONS,
            |settings| Ok(Rc::new(AwcRates::with_tls(settings, AwcTls::Openssl)?)),
        ),
        ClientKind::new(
            ReqwestTls::NativeTls.client_name(),
            ReqwestTls::NativeTls.stack(),
            ReqwestRates::HTTP_VERSIONS,
            |settings| {
                Ok(Rc::new(ReqwestRates::with_tls(
                    settings,
                    ReqwestTls::NativeTls,
                )?))
            },
        ),
        ClientKind::ureq(UreqTls::NativeTls, UreqOptions::DEFAULT),
        // ureq with the adapter's settings that avoid what the findings pages describe: the
        // host used as it is when it is an IP address (docs/findings/ureq-resolver-thread.md),
        // and native-tls's connector built by a first call alone
        // (docs/findings/ureq-native-tls-connector-storm.md).
        ClientKind::ureq(
            UreqTls::Rustls,
            UreqOptions {
                resolve: Resolve::IpAddressInline,
                ..UreqOptions::DEFAULT
            },
        ),
        ClientKind::ureq(
            UreqTls::NativeTls,
            UreqOptions {
                warm_up: TlsWarmUp::FirstCallAlone,
                ..UreqOptions::DEFAULT
            },
        ),
        // reqwest with its async resolver (hickory-dns), which keeps answers for their time to
        // live, where the system's resolver asks again for every new connection
        // (docs/findings/name-resolution.md).
        ClientKind::new(
            ReqwestResolver::HICKORY_DNS_NAME,
            ReqwestTls::Rustls.stack(),
            ReqwestRates::HTTP_VERSIONS,
            |settings| {
                Ok(Rc::new(ReqwestRates::with_resolver(
                    settings,
                    ReqwestTls::Rustls,
                    ReqwestResolver::HickoryDns,
                )?))
            },
        ),
    ]
});

/// Every client's name, as an unknown-client problem lists them (borrowed: no allocation).
pub static VALID_CLIENTS: LazyLock<Vec<Cow<'static, str>>> = LazyLock::new(|| {
    CLIENTS
        .iter()
        .map(|kind| Cow::Borrowed(kind.name))
        .collect()
});

/// The clients a service serves under `version`: those that speak it, in registry order.
pub fn served(version: HttpVersion) -> impl Iterator<Item = &'static ClientKind> {
    CLIENTS.iter().filter(move |kind| kind.speaks(version))
}

/// One worker's rates providers, keyed by client name.
pub struct ClientRegistry {
    clients: Vec<(&'static str, Rc<dyn RatesProvider>)>,
}

impl ClientRegistry {
    /// Builds one instance of every adapter with the same settings, each wrapped so that its
    /// upstream calls are measured in `metrics` and mark the upstream alive in `readiness`.
    /// A client that does not speak the settings' HTTP version (ureq, with "2") is left out:
    /// its payments answer "unknown client", and `GET /clients` says why.
    pub fn build(
        settings: &ClientSettings,
        metrics: &Arc<Metrics>,
        readiness: &Arc<Readiness>,
    ) -> Result<Self, BuildError> {
        let adapters = served(settings.http_version)
            .map(|kind| Ok((kind.name, kind.instance(settings, metrics)?)))
            .collect::<Result<Vec<_>, BuildError>>()?;
        let clients = adapters
            .into_iter()
            .map(|(name, adapter)| {
                let measured: Rc<dyn RatesProvider> = Rc::new(Instrumented::new(
                    adapter,
                    name,
                    Arc::clone(metrics),
                    Arc::clone(readiness),
                ));
                (name, measured)
            })
            .collect();
        Ok(Self { clients })
    }

    /// A registry with no clients: every payment answers "unknown client". Used only if a
    /// worker fails to build what start-up already built once successfully.
    pub fn empty() -> Self {
        Self {
            clients: Vec::new(),
        }
    }

    /// The provider for `name` and its canonical (static) name.
    pub fn get(&self, name: &str) -> Option<(&'static str, Rc<dyn RatesProvider>)> {
        self.clients
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(known, provider)| (*known, Rc::clone(provider)))
    }
}

impl std::fmt::Debug for ClientRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.clients.iter().map(|(name, _)| name))
            .finish()
    }
}
