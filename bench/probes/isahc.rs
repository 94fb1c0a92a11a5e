//! isahc (libcurl, statically linked, with its rustls backend, isahc's default TLS, and
//! nghttp2), called blocking; libcurl's multi handle runs on isahc's own agent thread.

mod common;

use std::io::Read as _;
use std::process::ExitCode;

fn main() -> ExitCode {
    common::finish(run())
}

fn run() -> Result<f64, String> {
    let url = common::url()?;
    let mut response = isahc::get(url.as_str()).map_err(|error| error.to_string())?;
    let status = response.status().as_u16();
    let mut body = Vec::new();
    response
        .body_mut()
        .read_to_end(&mut body)
        .map_err(|error| error.to_string())?;
    common::rate(status, &body)
}
