//! actix-web's client on an actix System: rustls (aws-lc-rs), or with `backend-openssl` the
//! system's OpenSSL.

mod common;
#[cfg(not(feature = "backend-openssl"))]
mod roots;

use std::process::ExitCode;

fn main() -> ExitCode {
    common::finish(run())
}

fn run() -> Result<f64, String> {
    let url = common::url()?;
    actix_rt::System::new().block_on(async move {
        #[cfg(not(feature = "backend-openssl"))]
        let connector = awc::Connector::new().rustls_0_23(std::sync::Arc::new(rustls_config()?));
        #[cfg(feature = "backend-openssl")]
        let connector = awc::Connector::new().openssl(openssl_connector()?);
        let client = awc::Client::builder().connector(connector).finish();
        let mut response = client
            .get(&url)
            .send()
            .await
            .map_err(|error| error.to_string())?;
        let body = response.body().await.map_err(|error| error.to_string())?;
        common::rate(response.status().as_u16(), &body)
    })
}

#[cfg(not(feature = "backend-openssl"))]
fn rustls_config() -> Result<rustls::ClientConfig, String> {
    let provider = std::sync::Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| error.to_string())?
        .with_root_certificates(roots::store()?)
        .with_no_client_auth())
}

#[cfg(feature = "backend-openssl")]
fn openssl_connector() -> Result<openssl::ssl::SslConnector, String> {
    let builder = openssl::ssl::SslConnector::builder(openssl::ssl::SslMethod::tls())
        .map_err(|error| error.to_string())?;
    Ok(builder.build())
}
