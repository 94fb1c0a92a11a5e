//! hyper-util's client with hyper-rustls (aws-lc-rs), HTTP/1.1 and HTTP/2, on a tokio
//! current-thread runtime.

mod common;
mod roots;

use std::process::ExitCode;
use std::sync::Arc;

use http_body_util::{BodyExt as _, Empty};
use hyper::body::Bytes;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

fn main() -> ExitCode {
    common::finish(run())
}

fn run() -> Result<f64, String> {
    let url: hyper::Uri = common::url()?.parse().map_err(|error| format!("{error}"))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| error.to_string())?;
    runtime.block_on(async {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|error| error.to_string())?
            .with_root_certificates(roots::store()?)
            .with_no_client_auth();
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(tls)
            .https_or_http()
            .enable_http1()
            .enable_http2()
            .build();
        let client: Client<_, Empty<Bytes>> = Client::builder(TokioExecutor::new()).build(connector);
        let response = client.get(url).await.map_err(|error| error.to_string())?;
        let status = response.status().as_u16();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|error| error.to_string())?
            .to_bytes();
        common::rate(status, &body)
    })
}
