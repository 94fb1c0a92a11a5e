//! The clients under comparison, each with its adapter: each adapter crate with each of its
//! TLS backends, and the adapter settings the findings pages describe, with what each adapter
//! states of itself (name, TLS stack, HTTP versions, decodes) and how to build it. The api's
//! registry, its OpenAPI document and the bench iterate [`CLIENTS`], one entry per
//! [`ClientName`] (the names, which link no HTTP client, so that the bench's results and
//! reports can use them). Adding a client is an adapter crate, its name in `client-names`,
//! its arm of [`Client::of`] here, its bare call in the bench and a probe of the adoption
//! suite (docs/architecture.md).

use std::rc::Rc;
use std::sync::LazyLock;

use application::RatesProvider;
use client_names::ClientName;
use rates_awc::{AwcRates, AwcTls};
use rates_common::{BodyDecode, BuildError, ClientSettings, HttpVersion, TlsStack};
use rates_hyper::HyperRates;
use rates_isahc::IsahcRates;
use rates_reqwest::{
    ReqwestBlockingRates, ReqwestOptions, ReqwestRates, ReqwestResolver, ReqwestRetry, ReqwestTls,
};
use rates_ureq::{Resolve, TlsWarmUp, UreqOptions, UreqRates, UreqTls};

/// One adapter, as its concrete type: behind the port ([`Adapter::into_port`]), or called bare
/// by the bench's bare calls.
// Built once per worker or run and held for it: the variants' sizes (hyper's grew with its
// HTTP/2 settings) cost nothing worth boxing for.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Adapter {
    Hyper(HyperRates),
    Awc(AwcRates),
    Reqwest(ReqwestRates),
    Ureq(UreqRates),
    ReqwestBlocking(ReqwestBlockingRates),
    Isahc(IsahcRates),
}

impl Adapter {
    /// The adapter behind the port, as the bench's service holds it.
    pub fn into_port(self) -> Box<dyn RatesProvider> {
        match self {
            Self::Hyper(adapter) => Box::new(adapter),
            Self::Awc(adapter) => Box::new(adapter),
            Self::Reqwest(adapter) => Box::new(adapter),
            Self::Ureq(adapter) => Box::new(adapter),
            Self::ReqwestBlocking(adapter) => Box::new(adapter),
            Self::Isahc(adapter) => Box::new(adapter),
        }
    }

    /// The adapter behind the port, shared within one actix worker (awc's client is not
    /// `Send`).
    pub fn into_shared(self) -> Rc<dyn RatesProvider> {
        Rc::from(self.into_port())
    }
}

/// One client: an adapter with one TLS backend (and, for a finding's row, one setting).
#[derive(Debug)]
pub struct Client {
    /// Its name in routes, tables and `results.json`, with what the name says (its library,
    /// the client a finding's setting changes).
    pub name: ClientName,
    /// The library that does its TLS handshakes, and the crypto under it.
    pub tls: TlsStack,
    /// The HTTP versions it speaks (`rates.http_version`); ureq's is "1.1" alone.
    pub http_versions: &'static [HttpVersion],
    /// The ways its adapter can decode an answer.
    pub decodes: &'static [BodyDecode],
    /// Whether it blocks a thread per call (ureq and reqwest-blocking, on the blocking pool).
    pub blocking: bool,
    recipe: Recipe,
}

/// How a client is built: its adapter with the TLS backend and options of the entry.
#[derive(Clone, Copy, Debug)]
enum Recipe {
    Hyper,
    Isahc,
    ReqwestBlocking,
    Awc(AwcTls),
    Reqwest(ReqwestTls, ReqwestOptions),
    Ureq(UreqTls, UreqOptions),
}

/// reqwest's setting of docs/findings/name-resolution.md: its async resolver, which keeps
/// answers for their time to live, where the system's asks again for every new connection.
const REQWEST_HICKORY_DNS: ReqwestOptions = ReqwestOptions {
    resolver: ReqwestResolver::HickoryDns,
    ..ReqwestOptions::DEFAULT
};

/// reqwest's setting of docs/findings/idle-close-race.md: its retry policy, resending a GET
/// that failed on a connection before any answer (the request a server's idle close dropped).
const REQWEST_RETRY: ReqwestOptions = ReqwestOptions {
    retry: ReqwestRetry::UnansweredIdempotent,
    ..ReqwestOptions::DEFAULT
};

/// ureq's setting of docs/findings/ureq-resolver-thread.md: the host used as it is when it is
/// an IP address.
const UREQ_INLINE_IP: UreqOptions = UreqOptions {
    resolve: Resolve::IpAddressInline,
    ..UreqOptions::DEFAULT
};

/// ureq's setting of docs/findings/ureq-native-tls-connector-storm.md: native-tls's connector
/// built by a first call alone.
const UREQ_FIRST_ALONE: UreqOptions = UreqOptions {
    warm_up: TlsWarmUp::FirstCallAlone,
    ..UreqOptions::DEFAULT
};

impl Client {
    /// The adapter and settings of `name`.
    fn of(name: ClientName) -> Self {
        match name {
            ClientName::Hyper => Self::hyper(),
            ClientName::Awc => Self::awc(name, AwcTls::Rustls),
            ClientName::Reqwest => Self::reqwest(name, ReqwestTls::Rustls, ReqwestOptions::DEFAULT),
            ClientName::Ureq => Self::ureq(name, UreqTls::Rustls, UreqOptions::DEFAULT),
            ClientName::ReqwestBlocking => Self::reqwest_blocking(),
            ClientName::Isahc => Self::isahc(),
            ClientName::AwcOpenssl => Self::awc(name, AwcTls::Openssl),
            ClientName::ReqwestNativeTls => {
                Self::reqwest(name, ReqwestTls::NativeTls, ReqwestOptions::DEFAULT)
            }
            ClientName::UreqNativeTls => Self::ureq(name, UreqTls::NativeTls, UreqOptions::DEFAULT),
            ClientName::UreqInlineIp => Self::ureq(name, UreqTls::Rustls, UREQ_INLINE_IP),
            ClientName::UreqNativeTlsFirstAlone => {
                Self::ureq(name, UreqTls::NativeTls, UREQ_FIRST_ALONE)
            }
            ClientName::ReqwestHickoryDns => {
                Self::reqwest(name, ReqwestTls::Rustls, REQWEST_HICKORY_DNS)
            }
            ClientName::ReqwestRetry => Self::reqwest(name, ReqwestTls::Rustls, REQWEST_RETRY),
        }
    }

    /// Whether it can be built with `version` (it speaks it).
    pub fn speaks(&self, version: HttpVersion) -> bool {
        self.http_versions.contains(&version)
    }

    /// Builds an instance of it. awc needs a running actix `System`: call this inside one.
    ///
    /// # Errors
    /// The adapter's, when it cannot be built with `settings`.
    pub fn build(&self, settings: &ClientSettings) -> Result<Adapter, BuildError> {
        match self.recipe {
            Recipe::Hyper => HyperRates::new(settings).map(Adapter::Hyper),
            Recipe::Isahc => IsahcRates::new(settings).map(Adapter::Isahc),
            Recipe::ReqwestBlocking => {
                ReqwestBlockingRates::new(settings).map(Adapter::ReqwestBlocking)
            }
            Recipe::Awc(backend) => AwcRates::with_tls(settings, backend).map(Adapter::Awc),
            Recipe::Reqwest(backend, options) => {
                ReqwestRates::with_options(settings, backend, options).map(Adapter::Reqwest)
            }
            Recipe::Ureq(backend, options) => {
                UreqRates::with_options(settings, backend, options).map(Adapter::Ureq)
            }
        }
    }

    /// The name its adapter gives itself (in its errors and log lines).
    pub fn adapter_name(&self) -> &'static str {
        match self.recipe {
            Recipe::Hyper => HyperRates::NAME,
            Recipe::Isahc => IsahcRates::NAME,
            Recipe::ReqwestBlocking => ReqwestBlockingRates::NAME,
            Recipe::Awc(backend) => backend.client_name(),
            Recipe::Reqwest(backend, options) => options.client_name(backend),
            Recipe::Ureq(backend, options) => options.client_name(backend),
        }
    }

    fn hyper() -> Self {
        Self {
            name: ClientName::Hyper,
            tls: HyperRates::TLS,
            http_versions: HyperRates::HTTP_VERSIONS,
            decodes: HyperRates::DECODES,
            blocking: false,
            recipe: Recipe::Hyper,
        }
    }

    fn isahc() -> Self {
        Self {
            name: ClientName::Isahc,
            tls: IsahcRates::TLS,
            http_versions: IsahcRates::HTTP_VERSIONS,
            decodes: IsahcRates::DECODES,
            blocking: false,
            recipe: Recipe::Isahc,
        }
    }

    fn reqwest_blocking() -> Self {
        Self {
            name: ClientName::ReqwestBlocking,
            tls: ReqwestBlockingRates::TLS.stack(),
            http_versions: ReqwestBlockingRates::HTTP_VERSIONS,
            decodes: ReqwestBlockingRates::DECODES,
            blocking: true,
            recipe: Recipe::ReqwestBlocking,
        }
    }

    fn awc(name: ClientName, backend: AwcTls) -> Self {
        Self {
            name,
            tls: backend.stack(),
            http_versions: AwcRates::HTTP_VERSIONS,
            decodes: AwcRates::DECODES,
            blocking: false,
            recipe: Recipe::Awc(backend),
        }
    }

    fn reqwest(name: ClientName, backend: ReqwestTls, options: ReqwestOptions) -> Self {
        Self {
            name,
            tls: backend.stack(),
            http_versions: ReqwestRates::HTTP_VERSIONS,
            decodes: ReqwestRates::DECODES,
            blocking: false,
            recipe: Recipe::Reqwest(backend, options),
        }
    }

    fn ureq(name: ClientName, backend: UreqTls, options: UreqOptions) -> Self {
        Self {
            name,
            tls: backend.stack(),
            http_versions: UreqRates::HTTP_VERSIONS,
            decodes: UreqRates::DECODES,
            blocking: true,
            recipe: Recipe::Ureq(backend, options),
        }
    }
}

/// Every client, in the order of [`ClientName::ALL`]: the libraries' defaults first (the
/// baseline, hyper, first), then the other TLS backends, then the findings' settings.
pub static CLIENTS: LazyLock<[Client; ClientName::ALL.len()]> =
    LazyLock::new(|| ClientName::ALL.map(Client::of));

/// `name`'s client.
pub fn client(name: ClientName) -> &'static Client {
    &CLIENTS[ClientName::ALL
        .iter()
        .position(|&known| known == name)
        .expect("ClientName::ALL holds every name")]
}

/// The client the api's readiness check calls the upstream with when no payment did so
/// recently: the baseline, the client with the fewest moving parts of its own.
pub fn readiness_probe() -> &'static Client {
    client(ClientName::BASELINE)
}

/// The client named `name` in a route.
pub fn get(name: &str) -> Option<&'static Client> {
    CLIENTS.iter().find(|client| client.name.as_str() == name)
}

/// The clients that speak `version`, in catalogue order.
pub fn speaking(version: HttpVersion) -> impl Iterator<Item = &'static Client> {
    CLIENTS.iter().filter(move |client| client.speaks(version))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_adapter_names_itself_as_the_catalogue_does() {
        for client in CLIENTS.iter() {
            assert_eq!(client.adapter_name(), client.name.as_str());
            assert_eq!(
                std::ptr::from_ref(client),
                std::ptr::from_ref(super::client(client.name))
            );
        }
    }

    #[test]
    fn the_facts_of_a_name_are_its_adapters() {
        for client in CLIENTS.iter() {
            let name = client.name;
            assert_eq!(
                client.speaks(HttpVersion::Http2),
                name.speaks_http2(),
                "{name}"
            );
            assert_eq!(client.blocking, name.is_blocking(), "{name}");
            let library = super::client(name.library_default());
            assert_eq!(client.http_versions, library.http_versions, "{name}");
            if let Some(plain) = name.setting_of() {
                assert_eq!(super::client(plain).tls, client.tls, "{name}");
            }
        }
    }
}
