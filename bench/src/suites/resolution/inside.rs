//! The suite's measurement, run inside its network namespace (`bench __resolution`): a
//! mock-rates and a DNS server on the namespace's loopback, and per client, calls that each
//! open a new connection to mock-rates, by its address and then by a host name, once for each
//! of the DNS server's delays. Each row counts the connections mock-rates accepted and the
//! questions the DNS server was asked while its calls ran.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;
use std::time::Duration;

use application::RatesProvider;
use mock_rates::{DnsServer, DnsSettings};
use rates_common::ClientSettings;

use crate::clients::mock_admin::Counted;
use crate::error::BenchError;
use crate::servers::MockEndpoint;
use crate::suites::latency::{self, call_repeatedly};
use crate::suites::{adapters, progress::progress_bar};
use bench_model::stats::quantile::median_of;
use bench_model::stats::summary::mean;
use bench_model::{ClientName, ResolutionRow, ResolutionSettings, SuiteName};

/// The name the clients call mock-rates by; the DNS server answers `127.0.0.1` for any name.
pub const HOST: &str = "rates.resolution.test";

/// Measures `clients` and prints their rows to stdout as one line of JSON.
pub fn run_child(settings: &str, clients: &[ClientName]) -> Result<(), BenchError> {
    let settings: ResolutionSettings = serde_json::from_str(settings)
        .map_err(|error| BenchError::Resolution(format!("its settings: {error}")))?;
    let rows = measure(&settings, clients)?;
    let line = serde_json::to_string(&rows).map_err(BenchError::Json)?;
    println!("{line}");
    Ok(())
}

fn measure(
    settings: &ResolutionSettings,
    clients: &[ClientName],
) -> Result<Vec<ResolutionRow>, BenchError> {
    let exe = crate::error::bench_executable()?;
    let server = MockEndpoint::spawn(&exe)?;
    let port = server
        .address()
        .ok_or_else(|| BenchError::Resolution(format!("mock-rates at {}", server.base_url())))?
        .port();
    let by_name = format!("http://{HOST}:{port}");
    let bar = progress_bar(
        SuiteName::Resolution,
        (clients.len() * (1 + settings.delays_ms.len())) as u64,
    );
    let mut rows = Vec::new();
    bar.set_message("by address");
    for &client in clients {
        rows.push(row(client, server.base_url(), None, &server, settings)?);
        bar.inc(1);
    }
    for &delay_ms in &settings.delays_ms {
        bar.set_message(format!("by name, DNS answering in {delay_ms} ms"));
        let dns = DnsServer::start(
            SocketAddr::from((Ipv4Addr::LOCALHOST, 53)),
            DnsSettings {
                answer: Ipv4Addr::LOCALHOST,
                delay: Duration::from_millis(delay_ms),
                ttl: settings.ttl_s,
            },
        )
        .map_err(|source| BenchError::io(Path::new("the DNS server on 127.0.0.1:53"), source))?;
        for &client in clients {
            let dns = Dns {
                server: &dns,
                delay_ms,
            };
            rows.push(row(client, &by_name, Some(dns), &server, settings)?);
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    Ok(rows)
}

/// The DNS server a row's calls resolve through.
#[derive(Clone, Copy)]
struct Dns<'a> {
    server: &'a DnsServer,
    delay_ms: u64,
}

/// `settings.calls` calls of `client` to `base_url`, each on a new connection (the client
/// keeps no idle one), after one that is not counted.
fn row(
    client: ClientName,
    base_url: &str,
    dns: Option<Dns<'_>>,
    server: &MockEndpoint,
    settings: &ResolutionSettings,
) -> Result<ResolutionRow, BenchError> {
    let client_settings = ClientSettings {
        max_idle_per_host: 0,
        ..ClientSettings::for_base_url(base_url)
    };
    let system = actix_rt::System::new();
    system.block_on(async {
        let provider = adapters::build(client, &client_settings)
            .map_err(|error| BenchError::Resolution(format!("{client}: {error}")))?;
        Ok(calls(client, &*provider, dns, server, settings.calls).await)
    })
}

async fn calls(
    client: ClientName,
    provider: &dyn RatesProvider,
    dns: Option<Dns<'_>>,
    server: &MockEndpoint,
    count: u32,
) -> ResolutionRow {
    let pairs = latency::cross_rate_pairs();
    // The first call's lookup fills a cache, if the client keeps one: not counted.
    let _ = provider.fetch_quotes(&pairs).await;
    let admin = server.admin();
    let before = admin.counters();
    let asked_before = dns.map(|dns| dns.server.counts());
    let mut durations_ns = Vec::with_capacity(count as usize);
    let outcome = call_repeatedly(&pairs, count, Some(&mut durations_ns), || {
        provider.fetch_quotes(&pairs)
    })
    .await;
    let asked = dns.zip(asked_before).map(|(dns, before)| {
        let after = dns.server.counts();
        (after.a - before.a, after.aaaa - before.aaaa)
    });
    let times_us: Vec<f64> = durations_ns
        .iter()
        .map(|&nanos| nanos as f64 / 1_000.0)
        .collect();
    ResolutionRow {
        client,
        dns_delay_ms: dns.map(|dns| dns.delay_ms),
        calls: u64::from(count),
        ok: outcome.ok,
        first_error: outcome
            .first_error
            .map(|message| message.chars().take(300).collect()),
        median_us: median_of(&times_us),
        mean_us: mean(&times_us),
        connections: Counted::between(before.as_ref(), admin.counters().as_ref())
            .map(|counted| counted.connections),
        a_questions: asked.map(|(a, _)| a),
        aaaa_questions: asked.map(|(_, aaaa)| aaaa),
    }
}
