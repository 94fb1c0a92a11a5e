//! reqwest on a tokio current-thread runtime: rustls (aws-lc-rs, a preconfigured config), or
//! with `backend-native-tls` native-tls (the system's OpenSSL). With `blocking`, reqwest's
//! blocking client instead, on the calling thread (reqwest runs its runtime on a thread of its
//! own), built from the same builder.

mod common;
#[cfg(not(feature = "backend-native-tls"))]
mod roots;

use std::process::ExitCode;

fn main() -> ExitCode {
    common::finish(run())
}

#[cfg(not(feature = "blocking"))]
fn run() -> Result<f64, String> {
    let url = common::url()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| error.to_string())?;
    runtime.block_on(async {
        let client = builder()?.build().map_err(|error| error.to_string())?;
        let response = client
            .get(&url)
            .send()
            .await
            .map_err(|error| error.to_string())?;
        let status = response.status().as_u16();
        let body = response.bytes().await.map_err(|error| error.to_string())?;
        common::rate(status, &body)
    })
}

#[cfg(feature = "blocking")]
fn run() -> Result<f64, String> {
    let url = common::url()?;
    let client = reqwest::blocking::ClientBuilder::from(builder()?)
        .build()
        .map_err(|error| error.to_string())?;
    let response = client.get(&url).send().map_err(|error| error.to_string())?;
    let status = response.status().as_u16();
    let body = response.bytes().map_err(|error| error.to_string())?;
    common::rate(status, &body)
}

#[cfg(not(feature = "backend-native-tls"))]
fn builder() -> Result<reqwest::ClientBuilder, String> {
    let provider = std::sync::Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| error.to_string())?
        .with_root_certificates(roots::store()?)
        .with_no_client_auth();
    Ok(reqwest::Client::builder().tls_backend_preconfigured(config))
}

#[cfg(feature = "backend-native-tls")]
fn builder() -> Result<reqwest::ClientBuilder, String> {
    Ok(reqwest::Client::builder().tls_backend_native())
}
