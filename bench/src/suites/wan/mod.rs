//! Suite `wan`: each client's payments across an emulated WAN link, per profile and protocol.
//! Everything else the bench measures crosses loopback (a round trip of about 30 us, no loss,
//! no middlebox); a payment service calls its rates API across a network.
//!
//! The link is the `wan-link` crate's, as mahimahi builds one: two network namespaces of the
//! suite's own (root and `ip netns`; skipped with a line otherwise), a TUN device in each
//! (`10.77.0.1`, `10.77.0.2`), and a relay in the bench's process holding every packet until
//! its due time and dropping by the profile's loss, partition and middlebox. mock-rates listens
//! in the upstream's namespace (plain HTTP, and TLS with `h2` offered by ALPN, its certificate
//! naming `10.77.0.2`); the payment service runs in the service's namespace, its clients
//! calling across the link; the generator's threads enter the service's namespace and drive
//! the service on its loopback.
//!
//! Per profile: the link calibrated (refused when its round trip is off by more than its
//! bound, see [`calibrate`]); then per protocol a fresh service, and per client its cold
//! payment and five warm ones, a stretch of payments on a timetable, and a concurrent batch.
//! On a profile without an event the stretch goes in rounds, the clients in turn. The
//! partition profile partitions the link during each client's stretch; on the forgetful
//! profile each client's pool keeps the connection its warm payments used, idle until the
//! middlebox has forgotten it (as long for every client), and then meets the stretch.
//!
//! The service runs one worker (it ships with one per core), so that a client has one pool,
//! which every payment of its stretch meets: with two, which pool a payment met, and so
//! whether it met the connection the middlebox forgot, was the generator's connections'
//! placement on the workers.
//!
//! The service keeps idle upstream connections for 60 s (`rates.idle_timeout_ms`; it ships
//! with 4 s) and mock-rates for 300 s: a pool that keeps a connection longer than a NAT or a
//! load balancer remembers its flow, as every library's default does against a 60 s firewall
//! (hyper-util and reqwest keep idle connections 90 s), scaled down to the forgetful profile's
//! 5 s.

mod calibrate;
mod link;
mod payments;

use std::io;
use std::net::{IpAddr, TcpListener};
use std::path::Path;
use std::time::{Duration, Instant};

use mock_rates::{MockServer, Settings, TlsIdentity, TlsSettings};
use wan_link::{Profile, Relay};

use crate::error::BenchError;
use crate::measure::process;
use crate::servers::ApiEndpoint;
use crate::suites::adapters::http_version;
use crate::suites::load;
use crate::suites::progress::progress_bar;
use crate::suites::shape::{Outcome, Suite, SuiteContext};
use bench_model::{
    ClientName, NotRunWhy, Protocol, Results, Run, SuiteName, SuitePart, WanEvent, WanResults,
    WanRow, WanSettings,
};
use calibrate::{calibrate, forgotten, millis};
use link::{BenchLink, UPSTREAM_ADDRESS};
use payments::{Driver, During};

/// The service's idle upstream connections are kept this long (see the module's
/// documentation).
const SERVICE_IDLE_TIMEOUT_MS: &str = "60000";
/// mock-rates keeps an idle connection this long.
const UPSTREAM_KEEP_ALIVE: Duration = Duration::from_secs(300);
/// The service's upstream timeout, as it ships (`rates.timeout_ms`): a payment on a dead
/// connection fails after it.
const UPSTREAM_TIMEOUT_MS: u64 = 2_000;
/// The rounds a profile without an event sends each client's stretch in, the clients in turn.
const STRETCH_ROUNDS: u32 = 3;
/// The longest the suite waits for the service to be idle between two clients.
const SETTLE_LIMIT: Duration = Duration::from_secs(10);
/// Beyond the middlebox's idle timeout before the stretch, so that every pooled connection is
/// forgotten.
const FORGET_MARGIN: Duration = Duration::from_secs(1);

/// The WAN suite (see the module's documentation).
#[derive(Debug)]
pub struct Wan;

impl Suite for Wan {
    const NAME: SuiteName = SuiteName::Wan;
    type Rows = WanResults;

    fn run(context: &SuiteContext<'_>) -> Result<Outcome<WanResults>, BenchError> {
        self::run(context.settings)
    }

    fn store(rows: WanResults, results: &mut Results) -> Vec<(SuitePart, NotRunWhy)> {
        results.wan = rows;
        Vec::new()
    }
}

fn wan_error(what: &str) -> impl Fn(io::Error) -> BenchError + '_ {
    move |source| BenchError::io(Path::new(what), source)
}

/// Makes the link and measures every profile of the settings across it.
pub fn run(settings: &Run) -> Result<Outcome<WanResults>, BenchError> {
    let wan = &settings.wan;
    let profiles = wan
        .profiles
        .iter()
        .map(|name| {
            Profile::named(name).ok_or_else(|| {
                BenchError::Wan(format!(
                    "no link profile {name:?} (there are {})",
                    Profile::NAMES.join(", ")
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let link = match BenchLink::create() {
        Ok(link) => link,
        Err(error) => return Ok(Outcome::NotRun(NotRunWhy::Failed { error })),
    };
    let plan = settings.plan();
    let protocols = plan.protocols(SuiteName::Wan);
    let cells: usize = protocols
        .iter()
        .map(|&protocol| plan.clients(SuiteName::Wan, protocol).len())
        .sum();
    let upstreams = Upstreams::start(&link).map_err(wan_error("mock-rates in its namespace"))?;
    let exe = crate::error::bench_executable()?;
    let bar = progress_bar(SuiteName::Wan, (profiles.len() * (1 + cells)) as u64);
    let mut results = WanResults::default();
    for (index, profile) in profiles.iter().enumerate() {
        let seed = index as u64 + 1;
        bar.set_message(format!("{}: calibrating the link", profile.name));
        let calibrated =
            calibrate(&link, profile, wan, seed).map_err(wan_error("the link's calibration"))?;
        bar.inc(1);
        let refused = calibrated.link.is_refused();
        results.links.push(calibrated.link);
        if refused {
            bar.inc(cells as u64);
            continue;
        }
        let relay = link
            .relay(calibrated.compensated, seed)
            .map_err(wan_error("the link's relay"))?;
        for &protocol in &protocols {
            let clients = plan.clients(SuiteName::Wan, protocol);
            bar.set_message(format!("{}: {protocol}", profile.name));
            let upstream = upstreams.serving(protocol);
            let ca = upstream.ca_pem().map(str::as_bytes);
            let api = ApiEndpoint::spawn_trusting_wrapped(
                Some(&link.service_wrapper()),
                &exe,
                &upstream.base_url(),
                ca,
                http_version(protocol),
                &[
                    ("APP__RATES__IDLE_TIMEOUT_MS", SERVICE_IDLE_TIMEOUT_MS),
                    ("APP__SERVER__WORKERS", "1"),
                ],
            )?;
            let cell = Cell {
                profile,
                protocol,
                round_trip_ms: millis(calibrated.round_trip),
                relay: &relay,
                upstream,
                api_url: api.base_url(),
                api_pid: api.pid(),
                spares: spares(settings, protocol, &clients),
                settings: wan,
            };
            let rows = link
                .in_service(|| Ok(cell.measure(&clients, &|| bar.inc(1))))
                .map_err(wan_error("the service's namespace"))??;
            results.rows.extend(rows);
        }
        relay.stop().map_err(wan_error("the link's relay"))?;
    }
    bar.finish_and_clear();
    Ok(Outcome::Ran(results))
}

/// Clients of the catalogue not measured in this cell that speak `protocol`, one per TLS
/// provider of the measured ones: a payment through each warms what the service's process pays
/// once per provider, on its first TLS connection, so that no measured client's cold payment
/// carries it. None over plain HTTP.
fn spares(settings: &Run, protocol: Protocol, clients: &[ClientName]) -> Vec<ClientName> {
    if !protocol.is_tls() {
        return Vec::new();
    }
    let speaks = http_version(protocol).as_str();
    let catalogue = &settings.catalogue;
    let provider = |client: ClientName| {
        catalogue
            .iter()
            .find(|info| info.name == client)
            .map(|info| info.tls_provider.as_str())
    };
    let mut providers: Vec<&str> = clients
        .iter()
        .filter_map(|&client| provider(client))
        .collect();
    providers.sort_unstable();
    providers.dedup();
    let mut spares = Vec::new();
    for info in catalogue {
        let spare = !clients.contains(&info.name)
            && info.http_versions.iter().any(|version| version == speaks)
            && providers.contains(&info.tls_provider.as_str());
        if spare {
            providers.retain(|provider| *provider != info.tls_provider);
            spares.push(info.name);
        }
    }
    spares
}

/// mock-rates in the upstream's namespace: over plain HTTP, and over TLS (`h2` and
/// `http/1.1` by ALPN) with a certificate naming the link's address.
struct Upstreams {
    http: MockServer,
    tls: MockServer,
}

impl Upstreams {
    fn start(link: &BenchLink) -> io::Result<Self> {
        let start = |tls: Option<TlsSettings>| {
            link.in_upstream(|| {
                let listener = TcpListener::bind((UPSTREAM_ADDRESS, 0))?;
                MockServer::start_on(
                    listener,
                    Settings {
                        keep_alive: UPSTREAM_KEEP_ALIVE,
                        tls,
                        ..Settings::default()
                    },
                )
            })
        };
        let identity = TlsIdentity::generate_also_for(&[IpAddr::V4(UPSTREAM_ADDRESS)])?;
        Ok(Self {
            http: start(None)?,
            tls: start(Some(TlsSettings {
                identity: Some(identity),
                ..TlsSettings::default()
            }))?,
        })
    }

    fn serving(&self, protocol: Protocol) -> &MockServer {
        if protocol.is_tls() {
            &self.tls
        } else {
            &self.http
        }
    }
}

/// One profile and protocol: the link, the upstream and the service its clients are
/// measured through.
struct Cell<'a> {
    profile: &'a Profile,
    protocol: Protocol,
    round_trip_ms: f64,
    relay: &'a Relay,
    upstream: &'a MockServer,
    api_url: &'a str,
    /// The service's process, waited on until it is idle after each client.
    api_pid: Option<u32>,
    /// Clients not measured here that warm the service's TLS first (see [`spares`]).
    spares: Vec<ClientName>,
    settings: &'a WanSettings,
}

impl Cell<'_> {
    /// Every client's row, on a thread inside the service's namespace.
    fn measure(&self, clients: &[ClientName], done: &dyn Fn()) -> Result<Vec<WanRow>, BenchError> {
        let (runtime, generator) =
            load::generator("wan-generator").map_err(wan_error("the generator's runtime"))?;
        payments::warm_service(self.api_url, &self.spares)?;
        let driver = Driver {
            api_url: self.api_url,
            runtime: &runtime,
            client: &generator,
        };
        let length = Duration::from_millis(self.settings.stretch_ms);
        let mut rows = Vec::with_capacity(clients.len());
        if let Some(forget) = self.profile.forget_idle {
            // Each client alone: its cold and warm payments leave its pool a connection, which
            // sits idle until the middlebox forgot it (as long for every client); then the
            // stretch, then the batch. (The batch after, not before: what a batch leaves in a
            // pool differs between clients, by what it failed.)
            for &client in clients {
                self.settle();
                let mut row = self.row(client);
                Self::cold(&driver, &mut row);
                let idle_since = Instant::now();
                std::thread::sleep(forget + FORGET_MARGIN);
                let dead_before = forgotten(self.relay);
                let idle = idle_since.elapsed();
                let mut sent = Sent::default();
                let stretch = self.stretch(&driver, client, &mut sent, length, During::Nothing)?;
                let mut recovery = payments::recovery(
                    &stretch.payments,
                    WanEvent::Forgotten,
                    (Duration::ZERO, Duration::ZERO),
                    forgotten(self.relay) - dead_before,
                );
                recovery.event_ms = millis(idle);
                sent.fill(&mut row, self.protocol);
                row.recovery = Some(recovery);
                self.batch(&driver, &mut row);
                rows.push(row);
                done();
            }
            return Ok(rows);
        }
        if let Some(lasting) = self.profile.partition {
            for &client in clients {
                self.settle();
                let mut row = self.row(client);
                Self::cold(&driver, &mut row);
                let mut sent = Sent::default();
                let during = During::Partition {
                    relay: self.relay,
                    lasting,
                };
                let stretch = self.stretch(&driver, client, &mut sent, length, during)?;
                if let Some(event) = stretch.event {
                    row.recovery = Some(payments::recovery(
                        &stretch.payments,
                        WanEvent::Partition,
                        event,
                        0,
                    ));
                }
                sent.fill(&mut row, self.protocol);
                self.batch(&driver, &mut row);
                rows.push(row);
                done();
            }
            return Ok(rows);
        }
        // Every client's cold payment, then the stretch in rounds, the clients in turn (each
        // round in another order), so that each meets the link's and the machine's moments
        // alike; then the batches.
        for &client in clients {
            self.settle();
            let mut row = self.row(client);
            Self::cold(&driver, &mut row);
            rows.push(row);
        }
        let mut sent: Vec<Sent> = clients.iter().map(|_| Sent::default()).collect();
        let round_length = length / STRETCH_ROUNDS;
        for round in 0..STRETCH_ROUNDS as usize {
            for turn in 0..clients.len() {
                let index = (turn + round) % clients.len();
                self.settle();
                let of_client = &mut sent[index];
                let before = of_client.payments.len();
                let connections_before = of_client.connections;
                self.stretch(
                    &driver,
                    clients[index],
                    of_client,
                    round_length,
                    During::Nothing,
                )?;
                of_client.close_round(before, connections_before);
            }
        }
        for (row, of_client) in rows.iter_mut().zip(sent) {
            self.settle();
            of_client.fill(row, self.protocol);
            self.batch(&driver, row);
            done();
        }
        Ok(rows)
    }

    /// Waits until the service is idle (at most [`SETTLE_LIMIT`]): work a client left behind
    /// (calls still running after their payments timed out, as ureq-native-tls's connector
    /// storm) must not fall on the next client's figures.
    fn settle(&self) {
        if let Some(pid) = self.api_pid {
            let _ = process::settle(pid, SETTLE_LIMIT);
        }
    }

    fn row(&self, client: ClientName) -> WanRow {
        WanRow {
            profile: self.profile.name.to_owned(),
            client,
            protocol: self.protocol,
            rtt_ms: self.round_trip_ms,
            cold_ms: None,
            warm_ms: None,
            payments: 0,
            ok: 0,
            failures: std::collections::BTreeMap::new(),
            first_error: None,
            p50_ms: None,
            p99_ms: None,
            p99_every_ms: None,
            max_ms: None,
            round_p99_ms: Vec::new(),
            connections_per_1000: None,
            round_connections_per_1000: Vec::new(),
            handshakes_per_1000: None,
            batch: None,
            recovery: None,
        }
    }

    /// The cold payment (the client's first through this service) and warm ones.
    fn cold(driver: &Driver<'_>, row: &mut WanRow) {
        let (cold, warm, error) = payments::cold_and_warm(driver, row.client);
        row.cold_ms = cold;
        row.warm_ms = warm;
        row.first_error = error;
    }

    /// The concurrent batch.
    fn batch(&self, driver: &Driver<'_>, row: &mut WanRow) {
        row.batch = Some(payments::batch(
            driver,
            row.client,
            self.settings.batch,
            UPSTREAM_TIMEOUT_MS,
            || self.upstream.state().stats().connections,
        ));
    }

    /// One stretch of `client`'s payments, added to `sent` with what the upstream accepted
    /// meanwhile.
    fn stretch(
        &self,
        driver: &Driver<'_>,
        client: ClientName,
        sent: &mut Sent,
        length: Duration,
        during: During<'_>,
    ) -> Result<payments::Stretch, BenchError> {
        let before = self.upstream.state().stats();
        let stretch = payments::stretch(driver, client, self.settings.rate_rps, length, during)?;
        let after = self.upstream.state().stats();
        sent.payments.extend(stretch.payments.iter().cloned());
        sent.unsent += stretch.unsent;
        sent.connections += after.connections - before.connections;
        sent.handshakes += after.tls_handshakes_full + after.tls_handshakes_resumed
            - before.tls_handshakes_full
            - before.tls_handshakes_resumed;
        Ok(stretch)
    }
}

/// What a client's stretches sent, added up over the rounds.
#[derive(Default)]
struct Sent {
    payments: Vec<payments::Payment>,
    unsent: u64,
    /// Connections and TLS handshakes the upstream accepted during them.
    connections: u64,
    handshakes: u64,
    /// Each round's 99th percentile (of every payment, a failed one at its answer) and new
    /// connections per 1 000 payments (of the profiles measured in rounds).
    round_p99_ms: Vec<f64>,
    round_connections_per_1000: Vec<f64>,
}

impl Sent {
    /// Records the figures of the round whose payments are those from `from` on, the upstream
    /// having accepted `connections_before` connections of this client's before it.
    fn close_round(&mut self, from: usize, connections_before: u64) {
        let latest = &self.payments[from..];
        self.round_p99_ms
            .extend(payments::figures(latest).p99_every_ms);
        if !latest.is_empty() {
            let opened = self.connections - connections_before;
            self.round_connections_per_1000
                .push(opened as f64 * 1_000.0 / latest.len() as f64);
        }
    }

    /// The row's figures of its stretches.
    fn fill(self, row: &mut WanRow, protocol: Protocol) {
        let figures = payments::figures(&self.payments);
        let sent = self.payments.len() as u64;
        row.payments = sent + self.unsent;
        row.ok = figures.ok;
        row.failures = figures.failures;
        if self.unsent > 0 {
            row.failures.insert("unsent".to_owned(), self.unsent);
        }
        if figures.first_error.is_some() {
            row.first_error = figures.first_error;
        }
        row.p50_ms = figures.p50_ms;
        row.p99_ms = figures.p99_ms;
        row.p99_every_ms = figures.p99_every_ms;
        row.max_ms = figures.max_ms;
        row.round_p99_ms = self.round_p99_ms;
        row.round_connections_per_1000 = self.round_connections_per_1000;
        let per_1000 = |count: u64| (sent > 0).then(|| count as f64 * 1_000.0 / sent as f64);
        row.connections_per_1000 = per_1000(self.connections);
        row.handshakes_per_1000 = protocol
            .is_tls()
            .then(|| per_1000(self.handshakes))
            .flatten();
    }
}
