//! Suite `fanout`: groups of independent payments sent to the api's batch endpoint, run one
//! after another (`sequential`) and overlapped (`concurrent`), for each client, against an
//! upstream with added latency: the grouped-requests comparison of the Spring/Feign reference
//! (groups of 5..70 requests to a ~360 ms API), with Rust clients.
//!
//! Each payment (EUR -> JPY, a cross rate) makes one upstream call of its own. mock-rates adds
//! `--upstream-latency-ms` to every call for the length of the suite (set and removed through
//! its admin endpoint, on every path out). Every batch is awaited and checked: status 200,
//! every payment converted. The time of a group is the api's own `wall_time_ms` and, as a
//! check, the bench's request time around the whole HTTP exchange.
//!
//! Each client runs as one block: an un-timed warm-up group (concurrent, the largest size, so
//! the api's pool starts with connections), its concurrent groups (`repetitions` rounds over
//! the sizes), then its sequential groups. Batches go over one kept-alive connection, so they
//! land on one api worker, whose per-worker caps (`rates.max_connections`, and
//! `rates.blocking_threads` for ureq) bound how many calls of a group overlap.
//!
//! The suite runs once per protocol (see [`crate::servers::Stack`]). Over `https` and `h2`
//! only the concurrent groups are sent: a sequential group is N pooled calls one after
//! another, N upstream latencies whatever the protocol, so it would repeat the `http` rows at
//! length; a concurrent group opens up to N connections, each with its handshake, which is
//! what TLS changes, or N streams on one connection, which is what HTTP/2 changes. Every row
//! over TLS states the TLS and HTTP version mock-rates counted. Over `h2` the suite runs again
//! against a mock-rates with a stream limit (`SETTINGS_MAX_CONCURRENT_STREAMS`), and each row
//! has the mock's peaks over its batches: the most HTTP/2 connections busy at once, and the
//! most streams open at once on one of them.

pub mod batches;
mod ideal;
pub mod settings;

use std::collections::HashMap;

use mock_rates::Faults;

use crate::clients::{ApiClient, Counted, FaultsGuard, MockAdmin};
use crate::error::BenchError;
use crate::servers::Stack;
use crate::suites::fanout::batches::{BatchOutcome, Batches};
use crate::suites::fanout::ideal::{efficiency, ideal_ms};
use crate::suites::progress::progress_bar;
use crate::suites::shape::{Outcome, Suite, SuiteContext};
use crate::suites::tls;
use bench_model::stats::quantile::median_of;
use bench_model::{
    ClientName, FanoutMode, FanoutRow, FanoutSeries, H2Spread, NegotiatedTls, Protocol, Run,
    SuiteName, Unchecked,
};
use bench_model::{NotRunWhy, Results, SuitePart};

/// The api's default upstream timeout, assumed per item when `GET /clients` cannot be read.
const DEFAULT_UPSTREAM_TIMEOUT_MS: u64 = 2_000;
/// The api's default idle timeout of an upstream connection (`rates.idle_timeout_ms`), assumed
/// when `GET /clients` cannot be read.
const DEFAULT_IDLE_TIMEOUT_MS: u64 = 4_000;
/// Past the idle timeout, for the pool's timer to have fired and the connection to be closed.
const IDLE_CLOSE_MARGIN_MS: u64 = 500;
/// The fanout suite, over each of its stacks (see the module's documentation).
#[derive(Debug)]
pub struct Fanout;

impl Suite for Fanout {
    const NAME: SuiteName = SuiteName::Fanout;
    type Rows = Vec<FanoutRow>;

    fn run(context: &SuiteContext<'_>) -> Result<Outcome<Vec<FanoutRow>>, BenchError> {
        let mut rows = Vec::new();
        for stack in context.stacks(Self::NAME)? {
            rows.extend(self::run(context.settings, stack)?);
        }
        Ok(Outcome::Ran(rows))
    }

    fn store(rows: Vec<FanoutRow>, results: &mut Results) -> Vec<(SuitePart, NotRunWhy)> {
        results.fanout = rows;
        Vec::new()
    }
}

/// Runs the suite: sets the upstream latency, measures every client, mode and size, and
/// removes the latency again (also when measuring fails or panics).
pub fn run(settings: &Run, stack: Stack<'_>) -> Result<Vec<FanoutRow>, BenchError> {
    let fanout = &settings.fanout;
    let (mock, api) = (stack.mock, stack.api);
    let caps = ApiCaps::read(&ApiClient::kept_alive(api.base_url())).unwrap_or_else(|error| {
        eprintln!("bench: fanout: the overlap caps are unknown: {error}");
        ApiCaps::default()
    });
    let slowest_call = fanout.upstream_latency_ms + fanout.upstream_jitter_ms;
    if let Some(timeout) = caps
        .upstream_timeout_ms
        .filter(|&timeout| slowest_call >= timeout)
    {
        eprintln!(
            "bench: fanout: upstream calls of up to {slowest_call} ms reach the api's upstream \
             timeout ({timeout} ms) and will fail; raise it with APP__RATES__TIMEOUT_MS"
        );
    }
    let admin = mock.admin();
    let latency = FaultsGuard::set(
        &admin,
        &Faults {
            latency_ms: fanout.upstream_latency_ms,
            jitter_ms: fanout.upstream_jitter_ms,
            ..Faults::default()
        },
    )?;
    if stack.protocol.is_tls() {
        // Over TLS each row is checked against the handshakes mock-rates counted from the
        // client's warm-up on: the service's pools must start cold. An earlier suite (the
        // load suite) may have left a client's connection idle in them; it is gone once the
        // service's idle timeout has passed (docs/findings/fanout-tls-check-after-load.md).
        let idle = caps.idle_timeout_ms.unwrap_or(DEFAULT_IDLE_TIMEOUT_MS);
        std::thread::sleep(std::time::Duration::from_millis(
            idle + IDLE_CLOSE_MARGIN_MS,
        ));
    }
    let rows = measure(settings, stack, &admin, &caps);
    latency.clear()?;
    Ok(rows)
}

/// One row in the making.
struct Cell {
    client: ClientName,
    protocol: Protocol,
    mode: FanoutMode,
    size: u32,
    sent: u32,
    wall_ms: Vec<f64>,
    request_ms: Vec<f64>,
    failures: u64,
    /// What mock-rates counted during this cell's batches.
    counted: Option<Counted>,
    /// Over h2, the mock's peaks, the most of any batch: HTTP/2 connections busy at once,
    /// and streams open at once on one connection.
    peaks: Option<(u64, u64)>,
    first_error: Option<String>,
}

/// The modes sent over `protocol`: see the module's documentation.
fn modes_over(protocol: Protocol) -> &'static [FanoutMode] {
    match protocol {
        Protocol::Http => &[FanoutMode::Concurrent, FanoutMode::Sequential],
        Protocol::Https | Protocol::H2 => &[FanoutMode::Concurrent],
    }
}

fn measure(
    settings: &Run,
    stack: Stack<'_>,
    admin: &MockAdmin<'_>,
    caps: &ApiCaps,
) -> Vec<FanoutRow> {
    let (protocol, api) = (stack.protocol, stack.api);
    let fanout = &settings.fanout;
    let clients = settings.plan().clients(SuiteName::Fanout, protocol);
    let modes = modes_over(protocol);
    let (latency, jitter) = (fanout.upstream_latency_ms, fanout.upstream_jitter_ms);
    let largest = fanout.group_sizes.iter().copied().max().unwrap_or(1);
    // The progress bar counts ideal milliseconds, so that its estimate of the time left holds.
    let ideal = |mode, size| ideal_ms(mode, size, latency, jitter).round() as u64;
    let per_client: u64 = ideal(FanoutMode::Concurrent, largest)
        + modes
            .iter()
            .map(|&mode| {
                u64::from(fanout.repetitions_of(mode))
                    * fanout
                        .sizes_of(mode)
                        .into_iter()
                        .map(|size| ideal(mode, size))
                        .sum::<u64>()
            })
            .sum::<u64>();
    let bar = progress_bar(SuiteName::Fanout, per_client * clients.len() as u64);
    let upstream_timeout_ms = caps
        .upstream_timeout_ms
        .unwrap_or(DEFAULT_UPSTREAM_TIMEOUT_MS);
    let batches = Batches {
        api: ApiClient::kept_alive(api.base_url()),
        // The longest a batch can take: every item at its upstream timeout, one after another.
        per_item_limit_ms: (latency + jitter).max(upstream_timeout_ms),
    };

    let mut cells = Vec::new();
    let mut warm_up = HashMap::new();
    let over = |client: ClientName| label(stack, client);
    let peaks_counted = protocol == Protocol::H2;
    for &client in &clients {
        bar.set_message(format!("{} warm-up", over(client)));
        // Not a row: it only fills the api's pool; a failure here shows again in the rows.
        // What it opened is counted for the client's TLS, though: the rows' groups may find
        // every connection they need already open.
        let before = admin.counters();
        let _ = batches.send(client, FanoutMode::Concurrent, largest);
        warm_up.insert(
            client,
            Counted::between(before.as_ref(), admin.counters().as_ref()),
        );
        bar.inc(ideal(FanoutMode::Concurrent, largest));
        for &mode in modes {
            let first = cells.len();
            cells.extend(fanout.sizes_of(mode).into_iter().map(|size| Cell {
                client,
                protocol,
                mode,
                size,
                sent: 0,
                wall_ms: Vec::new(),
                request_ms: Vec::new(),
                failures: 0,
                counted: Some(Counted::default()),
                peaks: peaks_counted.then_some((0, 0)),
                first_error: None,
            }));
            let repetitions = fanout.repetitions_of(mode);
            for repetition in 1..=repetitions {
                for cell in &mut cells[first..] {
                    bar.set_message(format!(
                        "{} {} {} ({repetition}/{repetitions})",
                        over(client),
                        mode.as_str(),
                        cell.size
                    ));
                    // Before the first read, whose difference must not see its connection.
                    let peaks_reset = peaks_counted && admin.reset_peaks().is_ok();
                    let before = admin.counters();
                    let outcome = batches.send(client, mode, cell.size);
                    let after = admin.counters();
                    let counted = Counted::between(before.as_ref(), after.as_ref());
                    let peaks = after
                        .filter(|_| peaks_reset)
                        .map(|after| (after.h2_peak_connections, after.h2_peak_streams));
                    cell.record(outcome, counted, peaks);
                    bar.inc(ideal(mode, cell.size));
                }
            }
        }
    }
    bar.finish_and_clear();

    let negotiated = negotiated_per_client(stack, &clients, &cells, &warm_up);
    let context = RowContext {
        caps,
        negotiated: &negotiated,
        warm_up: &warm_up,
        latency_jitter: (latency, jitter),
        stream_limit: stack.stream_limit,
    };
    rows(cells, &context)
}

/// A client's rows over `stack`, as the progress bar and errors name them.
fn label(stack: Stack<'_>, client: ClientName) -> String {
    FanoutSeries {
        client,
        protocol: stack.protocol,
        stream_limit: stack.stream_limit,
    }
    .label()
}

/// Over TLS, each client's TLS and HTTP version as mock-rates counted them from its warm-up
/// on, or why its rows cannot be checked; empty over http.
fn negotiated_per_client(
    stack: Stack<'_>,
    clients: &[ClientName],
    cells: &[Cell],
    warm_up: &HashMap<ClientName, Option<Counted>>,
) -> HashMap<ClientName, Result<NegotiatedTls, Unchecked>> {
    let protocol = stack.protocol;
    let mut negotiated = HashMap::new();
    if protocol.is_tls() {
        for &client in clients {
            let counted = cells
                .iter()
                .filter(|cell| cell.client == client)
                .fold(warm_up.get(&client).copied().flatten(), |total, cell| {
                    Counted::add(total, cell.counted)
                });
            negotiated.insert(client, tls::negotiated(client, protocol, counted));
        }
    }
    negotiated
}

/// What every row of one stack shares, beside its cell.
struct RowContext<'a> {
    caps: &'a ApiCaps,
    negotiated: &'a HashMap<ClientName, Result<NegotiatedTls, Unchecked>>,
    /// What mock-rates counted during each client's warm-up group.
    warm_up: &'a HashMap<ClientName, Option<Counted>>,
    latency_jitter: (u64, u64),
    stream_limit: Option<u32>,
}

/// The rows, from the cells measured.
fn rows(cells: Vec<Cell>, context: &RowContext<'_>) -> Vec<FanoutRow> {
    let RowContext {
        caps,
        negotiated,
        warm_up,
        latency_jitter: (latency, jitter),
        stream_limit,
    } = *context;
    cells
        .into_iter()
        .map(|cell| {
            let (max_connections, blocking_threads) = caps
                .per_client
                .get(&cell.client)
                .copied()
                .unwrap_or_default();
            let ideal_ms = ideal_ms(cell.mode, cell.size, latency, jitter);
            let wall_ms_median = median_of(&cell.wall_ms);
            FanoutRow {
                client: cell.client,
                protocol: cell.protocol,
                stream_limit,
                tls: negotiated
                    .get(&cell.client)
                    .and_then(|negotiated| negotiated.as_ref().ok())
                    .cloned(),
                unchecked: negotiated
                    .get(&cell.client)
                    .and_then(|negotiated| negotiated.as_ref().err())
                    .cloned(),
                mode: cell.mode,
                group_size: cell.size,
                repetitions: cell.sent,
                wall_ms_median,
                request_ms_median: median_of(&cell.request_ms),
                ideal_ms,
                efficiency: efficiency(ideal_ms, wall_ms_median),
                failures: cell.failures,
                upstream_calls: cell.counted.map(|counted| counted.live_requests),
                connections_opened: cell.counted.map(|counted| counted.connections),
                h2: cell.peaks.zip(cell.counted).map(
                    |((peak_connections, peak_streams), counted)| H2Spread {
                        streams: counted.h2_streams,
                        peak_connections,
                        peak_streams,
                    },
                ),
                warm_up_connections: warm_up
                    .get(&cell.client)
                    .copied()
                    .flatten()
                    .map(|counted| counted.connections),
                max_connections,
                blocking_threads,
                wall_ms: cell.wall_ms,
                request_ms: cell.request_ms,
                first_error: cell.first_error,
            }
        })
        .collect()
}

impl Cell {
    fn record(
        &mut self,
        outcome: BatchOutcome,
        counted: Option<Counted>,
        peaks: Option<(u64, u64)>,
    ) {
        self.sent += 1;
        self.peaks = self
            .peaks
            .zip(peaks)
            .map(|(most, these)| (most.0.max(these.0), most.1.max(these.1)));
        self.failures += outcome.failed;
        match outcome.timing {
            Some((wall, request)) => {
                self.wall_ms.push(wall);
                self.request_ms.push(request);
            }
            None => {
                if self.first_error.is_none() {
                    self.first_error = outcome.error;
                }
            }
        }
        self.counted = Counted::add(self.counted, counted);
    }
}

/// What the api reports of its settings that bear on a group's time.
#[derive(Debug, Default)]
struct ApiCaps {
    /// `max_connections` and `blocking_threads` per client.
    per_client: HashMap<ClientName, (Option<u64>, Option<u64>)>,
    /// The longest upstream call (`rates.timeout_ms`).
    upstream_timeout_ms: Option<u64>,
    /// The longest a client keeps an idle upstream connection (`rates.idle_timeout_ms`).
    idle_timeout_ms: Option<u64>,
}

impl ApiCaps {
    /// The caps in effect, from `GET /clients`.
    fn read(api: &ApiClient) -> Result<Self, String> {
        let list = api.clients()?;
        let per_client = list
            .clients
            .iter()
            .filter_map(|client| {
                let name = ClientName::ALL
                    .into_iter()
                    .find(|name| name.as_str() == client.name)?;
                let settings = &client.settings;
                Some((
                    name,
                    (
                        Some(settings.max_connections as u64),
                        settings.blocking_threads.map(|threads| threads as u64),
                    ),
                ))
            })
            .collect();
        let upstream_timeout_ms = list
            .clients
            .iter()
            .map(|client| client.settings.timeout_ms)
            .max();
        let idle_timeout_ms = list
            .clients
            .iter()
            .map(|client| client.settings.idle_timeout_ms)
            .max();
        Ok(Self {
            per_client,
            upstream_timeout_ms,
            idle_timeout_ms,
        })
    }
}
