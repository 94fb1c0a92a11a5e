//! The clients under comparison, listed once: each adapter crate with each of its TLS
//! backends, and the adapter settings the findings pages describe, with what each adapter
//! states of itself (name, TLS stack, HTTP versions, decodes) and how to build it. The api's
//! registry, its OpenAPI document and the bench iterate [`CLIENTS`]; adding a client is an
//! adapter crate, an entry here and a probe of the bench's adoption suite.

use std::rc::Rc;
use std::sync::LazyLock;

use application::RatesProvider;
use rates_awc::{AwcRates, AwcTls};
use rates_common::{BodyDecode, BuildError, ClientSettings, HttpVersion, TlsStack};
use rates_hyper::HyperRates;
use rates_isahc::IsahcRates;
use rates_reqwest::{ReqwestRates, ReqwestResolver, ReqwestTls};
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
    /// Its name in routes, tables and `results.json`: the library's for its default backend
    /// (`reqwest`), the library's and the backend's for the others (`reqwest-native-tls`), and
    /// the setting's after them for an adapter setting of a finding (`ureq-inline-ip`).
    pub name: &'static str,
    /// The name of its library with the library's default TLS backend (`reqwest` for
    /// `reqwest-native-tls`).
    pub library: &'static str,
    /// For the row of a finding's setting, the client as users get it that the setting
    /// changes (`ureq` for `ureq-inline-ip`).
    pub setting_of: Option<&'static str>,
    /// The library that does its TLS handshakes, and the crypto under it.
    pub tls: TlsStack,
    /// The HTTP versions it speaks (`rates.http_version`); ureq's is "1.1" alone.
    pub http_versions: &'static [HttpVersion],
    /// The ways its adapter can decode an answer.
    pub decodes: &'static [BodyDecode],
    /// Whether it blocks a thread per call (ureq, on the blocking pool).
    pub blocking: bool,
    recipe: Recipe,
}

/// How a client is built: its adapter with the TLS backend and options of the entry.
#[derive(Clone, Copy, Debug)]
enum Recipe {
    Hyper,
    Isahc,
    Awc(AwcTls),
    Reqwest(ReqwestTls, ReqwestResolver),
    Ureq(UreqTls, UreqOptions),
}

impl Client {
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
            Recipe::Awc(backend) => AwcRates::with_tls(settings, backend).map(Adapter::Awc),
            Recipe::Reqwest(backend, resolver) => {
                ReqwestRates::with_resolver(settings, backend, resolver).map(Adapter::Reqwest)
            }
            Recipe::Ureq(backend, options) => {
                UreqRates::with_options(settings, backend, options).map(Adapter::Ureq)
            }
        }
    }

    fn hyper() -> Self {
        Self {
            name: HyperRates::NAME,
            library: HyperRates::NAME,
            setting_of: None,
            tls: HyperRates::TLS,
            http_versions: HyperRates::HTTP_VERSIONS,
            decodes: HyperRates::DECODES,
            blocking: false,
            recipe: Recipe::Hyper,
        }
    }

    fn isahc() -> Self {
        Self {
            name: IsahcRates::NAME,
            library: IsahcRates::NAME,
            setting_of: None,
            tls: IsahcRates::TLS,
            http_versions: IsahcRates::HTTP_VERSIONS,
            decodes: IsahcRates::DECODES,
            blocking: false,
            recipe: Recipe::Isahc,
        }
    }

    fn awc(backend: AwcTls) -> Self {
        Self {
            name: backend.client_name(),
            library: AwcRates::NAME,
            setting_of: None,
            tls: backend.stack(),
            http_versions: AwcRates::HTTP_VERSIONS,
            decodes: AwcRates::DECODES,
            blocking: false,
            recipe: Recipe::Awc(backend),
        }
    }

    /// reqwest with `backend`, looking names up with `resolver`: a resolver other than the
    /// system's is a setting of the client with the system's.
    fn reqwest(backend: ReqwestTls, resolver: ReqwestResolver) -> Self {
        let (name, setting_of) = match resolver {
            ReqwestResolver::System => (backend.client_name(), None),
            ReqwestResolver::HickoryDns => (
                ReqwestResolver::HICKORY_DNS_NAME,
                Some(backend.client_name()),
            ),
        };
        Self {
            name,
            library: ReqwestRates::NAME,
            setting_of,
            tls: backend.stack(),
            http_versions: ReqwestRates::HTTP_VERSIONS,
            decodes: ReqwestRates::DECODES,
            blocking: false,
            recipe: Recipe::Reqwest(backend, resolver),
        }
    }

    /// ureq with `backend` and `options`: options other than ureq's defaults are a setting of
    /// the client with the defaults.
    fn ureq(backend: UreqTls, options: UreqOptions) -> Self {
        let name = options.client_name(backend);
        let plain = backend.client_name();
        Self {
            name,
            library: UreqRates::NAME,
            setting_of: (name != plain).then_some(plain),
            tls: backend.stack(),
            http_versions: UreqRates::HTTP_VERSIONS,
            decodes: UreqRates::DECODES,
            blocking: true,
            recipe: Recipe::Ureq(backend, options),
        }
    }
}

/// Every client: the libraries' defaults first (the baseline, hyper, first), in the order the
/// tables list them, then the other TLS backends, then the settings of the findings pages.
pub static CLIENTS: LazyLock<[Client; 11]> = LazyLock::new(|| {
    [
        Client::hyper(),
        Client::awc(AwcTls::Rustls),
        Client::reqwest(ReqwestTls::Rustls, ReqwestResolver::System),
        Client::ureq(UreqTls::Rustls, UreqOptions::DEFAULT),
        Client::isahc(),
        Client::awc(AwcTls::Openssl),
        Client::reqwest(ReqwestTls::NativeTls, ReqwestResolver::System),
        Client::ureq(UreqTls::NativeTls, UreqOptions::DEFAULT),
        // The host used as it is when it is an IP address
        // (docs/findings/ureq-resolver-thread.md).
        Client::ureq(
            UreqTls::Rustls,
            UreqOptions {
                resolve: Resolve::IpAddressInline,
                ..UreqOptions::DEFAULT
            },
        ),
        // native-tls's connector built by a first call alone
        // (docs/findings/ureq-native-tls-connector-storm.md).
        Client::ureq(
            UreqTls::NativeTls,
            UreqOptions {
                warm_up: TlsWarmUp::FirstCallAlone,
                ..UreqOptions::DEFAULT
            },
        ),
        // reqwest's async resolver, which keeps answers for their time to live, where the
        // system's asks again for every new connection (docs/findings/name-resolution.md).
        Client::reqwest(ReqwestTls::Rustls, ReqwestResolver::HickoryDns),
    ]
});

/// The client named `name`.
pub fn get(name: &str) -> Option<&'static Client> {
    CLIENTS.iter().find(|client| client.name == name)
}

/// The clients that speak `version`, in catalogue order.
pub fn speaking(version: HttpVersion) -> impl Iterator<Item = &'static Client> {
    CLIENTS.iter().filter(move |client| client.speaks(version))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_are_distinct_and_each_setting_and_library_is_a_client() {
        let names: Vec<&str> = CLIENTS.iter().map(|client| client.name).collect();
        for (index, client) in CLIENTS.iter().enumerate() {
            assert!(
                !names[..index].contains(&client.name),
                "{} twice",
                client.name
            );
            assert!(names.contains(&client.library), "{}", client.name);
            if let Some(plain) = client.setting_of {
                assert!(names.contains(&plain), "{}", client.name);
                assert_eq!(
                    get(plain).map(|of| of.tls),
                    Some(client.tls),
                    "{}",
                    client.name
                );
            }
        }
        assert_eq!(names[0], "hyper");
    }

    #[test]
    fn ureq_alone_speaks_no_http_2() {
        let over_h2: Vec<&str> = speaking(HttpVersion::Http2).map(|c| c.name).collect();
        assert!(
            over_h2.iter().all(|name| !name.starts_with("ureq")),
            "{over_h2:?}"
        );
        assert_eq!(
            over_h2.len(),
            CLIENTS.iter().filter(|c| !c.blocking).count()
        );
    }
}
