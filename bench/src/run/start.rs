//! The servers a run starts (or is given by URL): mock-rates, the payment service, and the
//! pairs of them over TLS for `https` and `h2`.

use crate::error::BenchError;
use crate::servers::{ApiEndpoint, MockEndpoint, Serving, TlsServers};
use crate::upstream::{self};
use bench_model::RunPlan;
use bench_model::{Protocol, RunSettings, SuiteName};
use rates_common::HttpVersion;

/// The process entry point.
pub(super) fn start_mock(url: Option<&str>) -> Result<MockEndpoint, BenchError> {
    match url {
        Some(url) if url.starts_with("http://") => Ok(MockEndpoint::external(url)),
        Some(url) => Err(BenchError::MockUrl(url.to_owned())),
        None => {
            let exe = crate::error::bench_executable()?;
            Ok(MockEndpoint::spawn(&exe)?)
        }
    }
}

/// The payment services and mock-rates over TLS that the suites driving the service use for
/// `https` and `h2` (see [`TlsServers`]), when one of them runs over either; the bench must
/// run its own servers for that (a mock given by URL serves plain HTTP), and says so when it
/// does not.
pub(super) fn start_tls_servers(
    settings: &RunSettings,
    mock: Option<&MockEndpoint>,
    api: Option<&ApiEndpoint>,
) -> Result<Option<TlsServers>, BenchError> {
    let plan = RunPlan::of(settings);
    let suites = plan.service_suites();
    let over = plan.service_protocols();
    let (https, h2) = (
        over.contains(&Protocol::Https),
        over.contains(&Protocol::H2),
    );
    if !https && !h2 {
        return Ok(None);
    }
    let own_servers =
        mock.is_some_and(MockEndpoint::is_child) && api.is_some_and(|api| api.pid().is_some());
    if !own_servers {
        let names: Vec<&str> = suites.iter().map(|suite| suite.as_str()).collect();
        let left_out = match (https, h2) {
            (true, true) => "https and h2 left out: they need",
            (true, false) => "https left out: it needs",
            _ => "h2 left out: it needs",
        };
        eprintln!(
            "bench: {}: {left_out} the bench's own mock-rates and payment service, and \
             --mock-url or --api-url gives servers over plain HTTP",
            names.join(", ")
        );
        return Ok(None);
    }
    let exe = crate::error::bench_executable()?;
    let mock = MockEndpoint::spawn_on(&exe, None, true)?;
    let https = https
        .then(|| ApiEndpoint::spawn_over_tls(&exe, &mock, HttpVersion::Http11))
        .transpose()?;
    let h2_api = h2
        .then(|| ApiEndpoint::spawn_over_tls(&exe, &mock, HttpVersion::Http2))
        .transpose()?;
    let limited = match settings.fanout.h2_stream_limit {
        Some(limit) if h2 && suites.contains(&SuiteName::Fanout) => {
            let limited = MockEndpoint::spawn_serving(
                &exe,
                None,
                Serving::Https {
                    resumption: true,
                    max_concurrent_streams: Some(limit),
                },
            )?;
            let api = ApiEndpoint::spawn_over_tls(&exe, &limited, HttpVersion::Http2)?;
            Some((limit, limited, api))
        }
        _ => None,
    };
    Ok(Some(TlsServers {
        mock,
        https,
        h2: h2_api,
        limited,
    }))
}

/// The header's line on the servers over TLS.
pub(super) fn describe_tls_servers(tls: &TlsServers) -> String {
    if tls.mock.is_foreign() {
        return upstream::describe_tls_servers(tls);
    }
    let mut parts = vec![format!(
        "mock-rates serving TLS (h2 and http/1.1 by ALPN): child process at {}",
        tls.mock.base_url()
    )];
    for (protocol, api) in [("https", &tls.https), ("h2", &tls.h2)] {
        if let Some(api) = api {
            parts.push(format!(
                "payment service over {protocol}: child process at {} (rates.ca_file: the \
                 mock's CA)",
                api.base_url()
            ));
        }
    }
    if let Some((limit, mock, api)) = &tls.limited {
        parts.push(format!(
            "fanout over h2 with a stream limit of {limit}: mock-rates at {}, payment service \
             at {}",
            mock.base_url(),
            api.base_url()
        ));
    }
    parts.join("; ")
}

pub(super) fn start_api(url: Option<&str>, rates_url: &str) -> Result<ApiEndpoint, BenchError> {
    match url {
        Some(url) if url.starts_with("http://") => Ok(ApiEndpoint::external(url)),
        Some(url) => Err(BenchError::ApiUrl(url.to_owned())),
        None => {
            let exe = crate::error::bench_executable()?;
            Ok(ApiEndpoint::spawn(&exe, rates_url)?)
        }
    }
}
