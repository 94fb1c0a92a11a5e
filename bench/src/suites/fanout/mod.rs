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

mod batches;
mod ideal;
pub mod settings;

use std::collections::HashMap;

use mock_rates::Faults;

use crate::clients::{ApiClient, Counted, FaultsGuard, MockAdmin};
use crate::error::BenchError;
use crate::model::{ClientName, FanoutMode, FanoutRow, RunSettings, SuiteName};
use crate::servers::{ApiEndpoint, MockEndpoint};
use crate::stats::median_of;
use crate::suites::fanout::batches::{BatchOutcome, Batches};
use crate::suites::fanout::ideal::{efficiency, ideal_ms};
use crate::suites::progress::progress_bar;

/// The api's default upstream timeout, assumed per item when `GET /clients` cannot be read.
const DEFAULT_UPSTREAM_TIMEOUT_MS: u64 = 2_000;

/// Runs the suite: sets the upstream latency, measures every client, mode and size, and
/// removes the latency again (also when measuring fails or panics).
pub fn run(
    settings: &RunSettings,
    mock: &MockEndpoint,
    api: &ApiEndpoint,
) -> Result<Vec<FanoutRow>, BenchError> {
    let fanout = &settings.fanout;
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
    let rows = measure(settings, &admin, api, &caps);
    latency.clear()?;
    Ok(rows)
}

/// One row in the making.
struct Cell {
    client: ClientName,
    mode: FanoutMode,
    size: u32,
    sent: u32,
    wall_ms: Vec<f64>,
    request_ms: Vec<f64>,
    failures: u64,
    /// What mock-rates counted during this cell's batches.
    counted: Option<Counted>,
    first_error: Option<String>,
}

fn measure(
    settings: &RunSettings,
    admin: &MockAdmin<'_>,
    api: &ApiEndpoint,
    caps: &ApiCaps,
) -> Vec<FanoutRow> {
    let fanout = &settings.fanout;
    let (latency, jitter) = (fanout.upstream_latency_ms, fanout.upstream_jitter_ms);
    let largest = fanout.group_sizes.iter().copied().max().unwrap_or(1);
    // The progress bar counts ideal milliseconds, so that its estimate of the time left holds.
    let ideal = |mode, size| ideal_ms(mode, size, latency, jitter).round() as u64;
    let per_client: u64 = ideal(FanoutMode::Concurrent, largest)
        + FanoutMode::ALL
            .iter()
            .map(|&mode| {
                u64::from(fanout.repetitions_of(mode))
                    * fanout
                        .group_sizes
                        .iter()
                        .map(|&size| ideal(mode, size))
                        .sum::<u64>()
            })
            .sum::<u64>();
    let bar = progress_bar(
        SuiteName::Fanout,
        per_client * settings.clients.len() as u64,
    );
    let upstream_timeout_ms = caps
        .upstream_timeout_ms
        .unwrap_or(DEFAULT_UPSTREAM_TIMEOUT_MS);
    let batches = Batches {
        api: ApiClient::kept_alive(api.base_url()),
        // The longest a batch can take: every item at its upstream timeout, one after another.
        per_item_limit_ms: (latency + jitter).max(upstream_timeout_ms),
    };

    let mut cells = Vec::new();
    for &client in &settings.clients {
        bar.set_message(format!("{client} warm-up"));
        // Not a row: it only fills the api's pool; a failure here shows again in the rows.
        let _ = batches.send(client, FanoutMode::Concurrent, largest);
        bar.inc(ideal(FanoutMode::Concurrent, largest));
        for mode in [FanoutMode::Concurrent, FanoutMode::Sequential] {
            let first = cells.len();
            cells.extend(fanout.group_sizes.iter().map(|&size| Cell {
                client,
                mode,
                size,
                sent: 0,
                wall_ms: Vec::new(),
                request_ms: Vec::new(),
                failures: 0,
                counted: Some(Counted::default()),
                first_error: None,
            }));
            let repetitions = fanout.repetitions_of(mode);
            for repetition in 1..=repetitions {
                for cell in &mut cells[first..] {
                    bar.set_message(format!(
                        "{client} {} {} ({repetition}/{repetitions})",
                        mode.as_str(),
                        cell.size
                    ));
                    let before = admin.counters();
                    let outcome = batches.send(client, mode, cell.size);
                    let counted = Counted::between(before.as_ref(), admin.counters().as_ref());
                    cell.record(outcome, counted);
                    bar.inc(ideal(mode, cell.size));
                }
            }
        }
    }
    bar.finish_and_clear();

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
    fn record(&mut self, outcome: BatchOutcome, counted: Option<Counted>) {
        self.sent += 1;
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
        Ok(Self {
            per_client,
            upstream_timeout_ms,
        })
    }
}
