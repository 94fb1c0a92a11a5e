//! The servers a run starts (or is given by URL): mock-rates, the payment service, and the
//! pairs of them over TLS for `https` and `h2`.

use crate::error::BenchError;
use crate::servers::{ApiEndpoint, MockEndpoint, Serving, TlsServers};
use bench_model::{Origin, Protocol, Run, Server, Servers, SuiteName, TlsRole, TlsServer};
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
/// `https` and `h2` (see [`TlsServers`]), when the plan has one of them run over either (it
/// does not when `--mock-url` or `--api-url` gave servers over plain HTTP).
pub(super) fn start_tls_servers(settings: &Run) -> Result<Option<TlsServers>, BenchError> {
    let plan = settings.plan();
    let suites = plan.service_suites();
    let over = plan.service_protocols();
    let (https, h2) = (
        over.contains(&Protocol::Https),
        over.contains(&Protocol::H2),
    );
    if !https && !h2 {
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

/// Where the run's servers listened, and whose they were: the record the header and the
/// report word.
pub(super) fn record_servers(
    mock: Option<&MockEndpoint>,
    api: Option<&ApiEndpoint>,
    tls: Option<&TlsServers>,
) -> Servers {
    let mock_origin = |mock: &MockEndpoint| {
        if mock.is_foreign() {
            Origin::Upstream
        } else if mock.is_child() {
            Origin::Child
        } else {
            Origin::Given
        }
    };
    let server = |url: &str, origin| Server {
        url: url.to_owned(),
        origin,
    };
    let mut record = Servers {
        mock: mock.map(|mock| server(mock.base_url(), mock_origin(mock))),
        api: api.map(|api| {
            let origin = if api.pid().is_some() {
                Origin::Child
            } else {
                Origin::Given
            };
            server(api.base_url(), origin)
        }),
        tls: Vec::new(),
    };
    let Some(tls) = tls else {
        return record;
    };
    let upstream_ca = tls.mock.ca_pem().is_some();
    record.tls.push(TlsServer {
        role: TlsRole::Mock,
        url: tls.mock.base_url().to_owned(),
    });
    for (protocol, api) in [(Protocol::Https, &tls.https), (Protocol::H2, &tls.h2)] {
        if let Some(api) = api {
            record.tls.push(TlsServer {
                role: TlsRole::Api {
                    protocol,
                    upstream_ca,
                },
                url: api.base_url().to_owned(),
            });
        }
    }
    if let Some((stream_limit, mock, api)) = &tls.limited {
        let stream_limit = *stream_limit;
        record.tls.push(TlsServer {
            role: TlsRole::LimitedMock { stream_limit },
            url: mock.base_url().to_owned(),
        });
        record.tls.push(TlsServer {
            role: TlsRole::LimitedApi { stream_limit },
            url: api.base_url().to_owned(),
        });
    }
    record
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
