//! The upstreams every release's probe is run against: mock-rates over http, over https
//! offering only HTTP/1.1, over TLS offering h2 first, each hosted in the bench's process (the
//! probes run in their own), and the half-closing peer.

use std::path::{Path, PathBuf};

use bench_model::Protocol;
use mock_rates::{Settings, TlsSettings};

use super::peer::HalfClosingPeer;
use crate::servers::MockEndpoint;

/// The upstreams every probe is run against.
#[derive(Debug)]
pub struct Upstreams {
    pub http: MockEndpoint,
    /// Over TLS, offering only `http/1.1` by ALPN.
    pub https: MockEndpoint,
    /// Over TLS, offering `h2` first: a release that negotiates HTTP/2 by default gets it.
    pub h2: MockEndpoint,
    pub half_closing: HalfClosingPeer,
    /// The TLS mocks' CAs, written for the probes' `--ca`.
    pub https_ca: PathBuf,
    pub h2_ca: PathBuf,
}

impl Upstreams {
    pub fn start(scratch: &Path) -> Result<Self, String> {
        let tls = |http2: bool| {
            MockEndpoint::hosted(Settings {
                tls: Some(TlsSettings {
                    http2,
                    ..TlsSettings::default()
                }),
                ..Settings::default()
            })
        };
        let started = |what: &str, error: std::io::Error| format!("{what}: {error}");
        let http = MockEndpoint::hosted(Settings::default())
            .map_err(|error| started("mock-rates over http", error))?;
        let https = tls(false).map_err(|error| started("mock-rates over https", error))?;
        let h2 = tls(true).map_err(|error| started("mock-rates over h2", error))?;
        let half_closing =
            HalfClosingPeer::start().map_err(|error| started("the half-closing peer", error))?;
        let write_ca = |mock: &MockEndpoint, name: &str| {
            let path = scratch.join(name);
            let pem = mock.ca_pem().ok_or("a TLS mock-rates without a CA")?;
            std::fs::write(&path, &pem[..]).map_err(|error| format!("{name}: {error}"))?;
            Ok::<_, String>(path)
        };
        Ok(Self {
            https_ca: write_ca(&https, "https-ca.pem")?,
            h2_ca: write_ca(&h2, "h2-ca.pem")?,
            http,
            https,
            h2,
            half_closing,
        })
    }

    /// The rates' URL over `protocol`, with the CA to trust.
    pub fn rates(&self, protocol: Protocol) -> (String, Option<&Path>) {
        let (mock, ca) = match protocol {
            Protocol::Http => (&self.http, None),
            Protocol::Https => (&self.https, Some(self.https_ca.as_path())),
            Protocol::H2 => (&self.h2, Some(self.h2_ca.as_path())),
        };
        // The certificate names `localhost`: a TLS URL by name, as users call a server.
        let base = mock
            .base_url()
            .trim_end_matches('/')
            .replace("https://127.0.0.1", "https://localhost");
        (format!("{base}/api/live?pairs=EURUSD"), ca)
    }
}
