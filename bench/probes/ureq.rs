//! ureq, blocking on the calling thread: rustls (ring), or with `backend-native-tls`
//! native-tls (the system's OpenSSL); either trusting the system's roots.

mod common;
mod roots;

use std::process::ExitCode;
use std::sync::Arc;

use ureq::tls::{Certificate, RootCerts, TlsConfig, TlsProvider};

fn main() -> ExitCode {
    common::finish(run())
}

fn run() -> Result<f64, String> {
    let url = common::url()?;
    let roots = roots::certificates()?;
    let roots = RootCerts::from(roots.iter().map(|root| Certificate::from_der(root).to_owned()));
    let tls = TlsConfig::builder().root_certs(roots);
    #[cfg(not(feature = "backend-native-tls"))]
    let tls = tls
        .provider(TlsProvider::Rustls)
        .unversioned_rustls_crypto_provider(Arc::new(rustls::crypto::ring::default_provider()));
    #[cfg(feature = "backend-native-tls")]
    let tls = tls.provider(TlsProvider::NativeTls);
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .tls_config(tls.build())
        .build()
        .into();
    let mut response = agent.get(&url).call().map_err(|error| error.to_string())?;
    let status = response.status().as_u16();
    let body = response
        .body_mut()
        .read_to_vec()
        .map_err(|error| error.to_string())?;
    common::rate(status, &body)
}
