//! How the bench builds the adapters it calls in its own process.

use application::RatesProvider;
use rates_common::{BodyDecode, BuildError, ClientSettings, HttpVersion, TlsStack};

use bench_model::{ClientInfo, ClientName, Decode, Protocol};

/// The `rates.http_version` the clients are built with over `protocol`.
pub fn http_version(protocol: Protocol) -> HttpVersion {
    match protocol {
        Protocol::Http | Protocol::Https => HttpVersion::Http11,
        Protocol::H2 => HttpVersion::Http2,
    }
}

/// The adapters' setting for `decode`.
pub fn body_decode(decode: Decode) -> BodyDecode {
    match decode {
        Decode::Whole => BodyDecode::Whole,
        Decode::Streamed => BodyDecode::Streamed,
    }
}

/// ureq's setting of docs/findings/ureq-resolver-thread.md (`ureq-inline-ip`).
const UREQ_INLINE_IP: rates_ureq::UreqOptions = rates_ureq::UreqOptions {
    resolve: rates_ureq::Resolve::IpAddressInline,
    ..rates_ureq::UreqOptions::DEFAULT
};

/// ureq's setting of docs/findings/ureq-native-tls-connector-storm.md
/// (`ureq-native-tls-first-alone`).
const UREQ_FIRST_ALONE: rates_ureq::UreqOptions = rates_ureq::UreqOptions {
    warm_up: rates_ureq::TlsWarmUp::FirstCallAlone,
    ..rates_ureq::UreqOptions::DEFAULT
};

/// One adapter, as its concrete type: called through the port (see [`Adapter::into_port`]),
/// or bare (see [`crate::suites::bare`]).
// Built once per run and held for it: the variants' sizes (hyper's grew with its HTTP/2
// settings) cost nothing worth boxing for.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Adapter {
    Hyper(rates_hyper::HyperRates),
    Awc(rates_awc::AwcRates),
    Reqwest(rates_reqwest::ReqwestRates),
    Ureq(rates_ureq::UreqRates),
    Isahc(rates_isahc::IsahcRates),
}

impl Adapter {
    /// Builds `name`'s adapter. awc needs a running actix `System`, so call this inside one.
    pub fn build(name: ClientName, settings: &ClientSettings) -> Result<Self, BuildError> {
        Ok(match name {
            ClientName::Hyper => Self::Hyper(rates_hyper::HyperRates::new(settings)?),
            ClientName::Awc => Self::Awc(rates_awc::AwcRates::new(settings)?),
            ClientName::Reqwest => Self::Reqwest(rates_reqwest::ReqwestRates::new(settings)?),
            ClientName::Ureq => Self::Ureq(rates_ureq::UreqRates::new(settings)?),
            ClientName::Isahc => Self::Isahc(rates_isahc::IsahcRates::new(settings)?),
            ClientName::AwcOpenssl => Self::Awc(rates_awc::AwcRates::with_tls(
                settings,
                rates_awc::AwcTls::Openssl,
            )?),
            ClientName::ReqwestNativeTls => Self::Reqwest(rates_reqwest::ReqwestRates::with_tls(
                settings,
                rates_reqwest::ReqwestTls::NativeTls,
            )?),
            ClientName::UreqNativeTls => Self::Ureq(rates_ureq::UreqRates::with_tls(
                settings,
                rates_ureq::UreqTls::NativeTls,
            )?),
            ClientName::UreqInlineIp => Self::Ureq(rates_ureq::UreqRates::with_options(
                settings,
                rates_ureq::UreqTls::Rustls,
                UREQ_INLINE_IP,
            )?),
            ClientName::UreqNativeTlsFirstAlone => Self::Ureq(rates_ureq::UreqRates::with_options(
                settings,
                rates_ureq::UreqTls::NativeTls,
                UREQ_FIRST_ALONE,
            )?),
            ClientName::ReqwestHickoryDns => {
                Self::Reqwest(rates_reqwest::ReqwestRates::with_resolver(
                    settings,
                    rates_reqwest::ReqwestTls::Rustls,
                    rates_reqwest::ReqwestResolver::HickoryDns,
                )?)
            }
        })
    }

    /// The adapter behind the port, as the service holds it.
    pub fn into_port(self) -> Box<dyn RatesProvider> {
        match self {
            Self::Hyper(adapter) => Box::new(adapter),
            Self::Awc(adapter) => Box::new(adapter),
            Self::Reqwest(adapter) => Box::new(adapter),
            Self::Ureq(adapter) => Box::new(adapter),
            Self::Isahc(adapter) => Box::new(adapter),
        }
    }
}

/// Builds `name`'s adapter behind the port. awc needs a running actix `System`, so call this
/// inside one; every adapter is built once per run and reused for all its calls.
pub fn build(
    name: ClientName,
    settings: &ClientSettings,
) -> Result<Box<dyn RatesProvider>, BuildError> {
    Adapter::build(name, settings).map(Adapter::into_port)
}

/// Every pair as the run records it (`settings.catalogue`): what the report needs of each.
pub fn catalogue() -> Vec<ClientInfo> {
    ClientName::ALL
        .into_iter()
        .map(|name| {
            let stack = tls_stack(name);
            ClientInfo {
                name,
                library: name.library_default(),
                tls_backend: stack.backend.to_owned(),
                tls_provider: stack.provider.to_owned(),
                http_versions: Protocol::ALL
                    .into_iter()
                    .filter(|&protocol| name.speaks(protocol))
                    .map(|protocol| http_version(protocol).as_str().to_owned())
                    .fold(Vec::new(), |mut versions, version| {
                        if !versions.contains(&version) {
                            versions.push(version);
                        }
                        versions
                    }),
                blocking: name.library_default() == ClientName::Ureq,
                baseline: name == ClientName::BASELINE,
                measured_over: Protocol::ALL
                    .into_iter()
                    .filter(|&protocol| name.measured_by_default_over(protocol))
                    .collect(),
            }
        })
        .collect()
}

/// The ways `name`'s adapter can decode the answer, as it states them.
pub fn decodes(name: ClientName) -> &'static [rates_common::BodyDecode] {
    match name {
        ClientName::Hyper => rates_hyper::HyperRates::DECODES,
        ClientName::Awc | ClientName::AwcOpenssl => rates_awc::AwcRates::DECODES,
        ClientName::Reqwest | ClientName::ReqwestNativeTls | ClientName::ReqwestHickoryDns => {
            rates_reqwest::ReqwestRates::DECODES
        }
        ClientName::Ureq
        | ClientName::UreqNativeTls
        | ClientName::UreqInlineIp
        | ClientName::UreqNativeTlsFirstAlone => rates_ureq::UreqRates::DECODES,
        ClientName::Isahc => rates_isahc::IsahcRates::DECODES,
    }
}

/// The TLS library and crypto provider `name` speaks TLS with, as its adapter states them.
pub fn tls_stack(name: ClientName) -> TlsStack {
    match name {
        ClientName::Hyper => rates_hyper::HyperRates::TLS,
        ClientName::Awc => rates_awc::AwcTls::Rustls.stack(),
        ClientName::Reqwest | ClientName::ReqwestHickoryDns => {
            rates_reqwest::ReqwestTls::Rustls.stack()
        }
        ClientName::Ureq | ClientName::UreqInlineIp => rates_ureq::UreqTls::Rustls.stack(),
        ClientName::Isahc => rates_isahc::IsahcRates::TLS,
        ClientName::AwcOpenssl => rates_awc::AwcTls::Openssl.stack(),
        ClientName::ReqwestNativeTls => rates_reqwest::ReqwestTls::NativeTls.stack(),
        ClientName::UreqNativeTls | ClientName::UreqNativeTlsFirstAlone => {
            rates_ureq::UreqTls::NativeTls.stack()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_are_the_api_registrys_in_its_order() {
        let names: Vec<&str> = ClientName::ALL.iter().map(|name| name.as_str()).collect();
        let registry: Vec<&str> = api::registry::CLIENTS
            .iter()
            .map(|kind| kind.name)
            .collect();
        assert_eq!(names, registry);
        for (name, kind) in ClientName::ALL
            .into_iter()
            .zip(api::registry::CLIENTS.iter())
        {
            assert_eq!(tls_stack(name), kind.tls, "{name}");
        }
    }

    #[test]
    fn the_recorded_catalogue_is_the_registrys() {
        let catalogue = catalogue();
        assert_eq!(catalogue.len(), api::registry::CLIENTS.len());
        for (info, kind) in catalogue.iter().zip(api::registry::CLIENTS.iter()) {
            assert_eq!(info.name.as_str(), kind.name);
            assert_eq!(info.blocking, kind.blocking, "{}", kind.name);
            let versions: Vec<&str> = kind.http_versions.iter().map(|v| v.as_str()).collect();
            assert_eq!(info.http_versions, versions, "{}", kind.name);
        }
        let ureq_native = &catalogue[7];
        assert_eq!(
            (ureq_native.library, ureq_native.measured_over.as_slice()),
            (ClientName::Ureq, &[Protocol::Https][..])
        );
        assert!(catalogue[0].baseline && !catalogue[1].baseline);
    }
}
