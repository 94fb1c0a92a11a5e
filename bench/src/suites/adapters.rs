//! How the bench builds the adapters it calls in its own process.

use application::RatesProvider;
use rates_catalogue::Adapter;
use rates_common::{BodyDecode, BuildError, ClientSettings, HttpVersion, TlsStack};

use bench_model::{ClientInfo, ClientName, ClientProtocols as _, Decode, Protocol};

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

/// `name`'s client in the catalogue.
pub fn client(name: ClientName) -> &'static rates_catalogue::Client {
    rates_catalogue::client(name)
}

/// Builds `name`'s adapter behind the port. awc needs a running actix `System`, so call this
/// inside one; every adapter is built once per run and reused for all its calls.
pub fn build(
    name: ClientName,
    settings: &ClientSettings,
) -> Result<Box<dyn RatesProvider>, BuildError> {
    client(name).build(settings).map(Adapter::into_port)
}

/// Every pair as the run records it (`settings.catalogue`): what the report needs of each.
pub fn catalogue() -> Vec<ClientInfo> {
    ClientName::ALL
        .into_iter()
        .map(|name| {
            let client = client(name);
            ClientInfo {
                name,
                library: name.library_default(),
                tls_backend: client.tls.backend.to_owned(),
                tls_provider: client.tls.provider.to_owned(),
                http_versions: client
                    .http_versions
                    .iter()
                    .map(|version| version.as_str().to_owned())
                    .collect(),
                blocking: client.blocking,
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
pub fn decodes(name: ClientName) -> &'static [BodyDecode] {
    client(name).decodes
}

/// The TLS library and crypto provider `name` speaks TLS with, as its adapter states them.
pub fn tls_stack(name: ClientName) -> TlsStack {
    client(name).tls
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_protocols_a_name_speaks_are_its_adapters_versions() {
        for name in ClientName::ALL {
            for protocol in Protocol::ALL {
                assert_eq!(
                    name.speaks(protocol),
                    client(name).speaks(http_version(protocol)),
                    "{name} over {protocol:?}"
                );
            }
        }
    }

    #[test]
    fn the_recorded_catalogue_is_the_catalogues() {
        let catalogue = catalogue();
        assert_eq!(catalogue.len(), rates_catalogue::CLIENTS.len());
        for (info, client) in catalogue.iter().zip(rates_catalogue::CLIENTS.iter()) {
            assert_eq!(info.name, client.name);
            assert_eq!(info.blocking, client.blocking, "{}", client.name);
            assert_eq!(info.tls_backend, client.tls.backend, "{}", client.name);
        }
        let ureq_native = &catalogue[8];
        assert_eq!(
            (
                ureq_native.library,
                ureq_native.http_versions.as_slice(),
                ureq_native.measured_over.as_slice()
            ),
            (
                ClientName::Ureq,
                &["1.1".to_owned()][..],
                &[Protocol::Https][..]
            )
        );
        assert!(catalogue[0].baseline && !catalogue[1].baseline);
    }
}
