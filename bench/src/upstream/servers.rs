//! A run against a foreign upstream: its settings, its CA and the bench's own handshakes
//! before the suites, and the payment services pointed at it.

use std::sync::Arc;

use rates_common::HttpVersion;

use crate::error::BenchError;
use crate::servers::{ApiEndpoint, MockEndpoint, TlsServers};
use crate::upstream::probe::probe;
use crate::upstream::target::{GivenUpstream, UpstreamError};
use bench_model::{Protocol, Run, RunSettings, UpstreamProbe};

/// The upstream of a run, ready: where it is and the CA its clients trust besides the
/// system's roots.
#[derive(Debug)]
pub struct Prepared {
    pub target: GivenUpstream,
    pub ca_pem: Option<Arc<[u8]>>,
}

/// A run against `target` (`--upstream-url`): the settings restricted to what can run against
/// it (each suite and protocol left out said), its CA read, and over TLS the bench's own
/// handshake with it per protocol, recorded; a protocol whose handshake failed, or chose
/// another HTTP version, is left out, and said. The target and its CA.
///
/// # Errors
/// The flags cannot be used, the CA file cannot be read, or no protocol's handshake
/// succeeded.
pub fn prepare(target: GivenUpstream, settings: &mut RunSettings) -> Result<Prepared, BenchError> {
    for line in target.restrict(settings)? {
        eprintln!("bench: {line}");
    }
    let ca_pem = target.ca_pem()?;
    if !target.is_https() {
        return Ok(Prepared { target, ca_pem });
    }
    let probes: Vec<UpstreamProbe> = settings
        .protocols
        .iter()
        .map(|&protocol| probe(&target.url, ca_pem.as_ref(), protocol))
        .collect();
    let failed: Vec<String> = probes
        .iter()
        .filter(|probe| probe.error.is_some())
        .map(UpstreamProbe::describe)
        .collect();
    for probe in &probes {
        if let Some(why) = &probe.error {
            eprintln!(
                "bench: {} left out: the bench's own handshake: {why}",
                probe.protocol
            );
        }
    }
    if let Some(upstream) = settings.foreign_upstream.as_mut() {
        upstream.probes.clone_from(&probes);
    }
    settings.leave_out_protocols(|protocol| {
        probes
            .iter()
            .any(|probe| probe.protocol == protocol && probe.error.is_none())
    });
    if settings.protocols.is_empty() {
        return Err(UpstreamError::Unreachable {
            url: target.url.clone(),
            why: failed.join("; "),
        }
        .into());
    }
    Ok(Prepared { target, ca_pem })
}

/// Over `https` and `h2` against a foreign upstream: a payment service per protocol of the
/// suites that drive it (the load suite), calling `target` and trusting the system's roots and
/// `ca_pem`; `None` when no such suite runs over either.
pub fn start_tls_servers(
    settings: &Run,
    target: &GivenUpstream,
    ca_pem: Option<&Arc<[u8]>>,
) -> Result<Option<TlsServers>, BenchError> {
    let over = settings.plan().service_protocols();
    let (https, h2) = (
        over.contains(&Protocol::Https),
        over.contains(&Protocol::H2),
    );
    if !https && !h2 {
        return Ok(None);
    }
    let exe = crate::error::bench_executable()?;
    let ca = ca_pem.map(|pem| &pem[..]);
    let spawn = |version| ApiEndpoint::spawn_trusting(&exe, &target.url, ca, version);
    Ok(Some(TlsServers {
        mock: MockEndpoint::foreign(&target.url, ca_pem.cloned()),
        https: https.then(|| spawn(HttpVersion::Http11)).transpose()?,
        h2: h2.then(|| spawn(HttpVersion::Http2)).transpose()?,
        limited: None,
    }))
}
