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

use std::collections::HashMap;
use std::time::{Duration, Instant};

use mock_rates::Faults;
use serde::{Deserialize, Serialize};

use crate::BenchError;
use crate::api_process::ApiEndpoint;
use crate::cli::{Cli, RunSettings};
use crate::clients::ClientName;
use crate::mock_process::{CONNECTIONS_PER_STATS_READ, MockEndpoint, MockError};
use crate::stats::median;
use crate::suites::{SuiteName, progress_bar};

/// The reference's group sizes.
pub const DEFAULT_GROUP_SIZES: [u32; 9] = [5, 10, 15, 20, 25, 30, 40, 50, 70];
const QUICK_GROUP_SIZES: [u32; 2] = [5, 20];
const DEFAULT_LATENCY_MS: u64 = 50;
const QUICK_LATENCY_MS: u64 = 20;
const DEFAULT_REPETITIONS: u32 = 3;
/// Sequential groups are the suite's long part (the default sizes add up to 265 upstream
/// latencies per client and repetition) and vary little: N calls in a row already average.
const DEFAULT_SEQUENTIAL_REPETITIONS: u32 = 1;
/// Added to the longest a batch could legitimately take before the bench gives up on it.
const BATCH_TIMEOUT_MARGIN: Duration = Duration::from_secs(30);
/// The api's default upstream timeout, assumed per item when `GET /clients` cannot be read.
const DEFAULT_UPSTREAM_TIMEOUT_MS: u64 = 2_000;

/// The suite's flags (flattened into [`Cli`]).
#[derive(Clone, Debug, Default, clap::Args)]
#[command(next_help_heading = "Fanout suite")]
pub struct FanoutArgs {
    /// fanout: latency mock-rates adds to every upstream call, in ms, set through its admin
    /// endpoint for the suite and removed after it. 360 reproduces the reference's API (the
    /// run then takes about 9 minutes). [default: 50; --quick: 20]
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=60_000))]
    pub upstream_latency_ms: Option<u64>,

    /// fanout: extra latency per upstream call, drawn uniformly from 0..=MS. [default: 0]
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(0..=60_000))]
    pub upstream_jitter_ms: Option<u64>,

    /// fanout: payments per group, comma-separated. [default: 5,10,15,20,25,30,40,50,70 (the
    /// reference's); --quick: 5,20]
    #[arg(long, value_name = "N,...", value_delimiter = ',',
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub group_sizes: Vec<u32>,

    /// fanout: times each concurrent group is sent; tables show the median. [default: 3;
    /// --quick: 1]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub fanout_repetitions: Option<u32>,

    /// fanout: times each sequential group is sent. One by default: a sequential group of N
    /// takes N upstream latencies (265 per client at the default sizes, ~13 s at 50 ms, ~95 s
    /// at 360 ms), so repeating it would multiply the suite's time, and N calls in a row
    /// already average out. [default: 1]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub fanout_sequential_repetitions: Option<u32>,
}

/// The fanout choices of one run, as recorded in results.json (`settings.fanout`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FanoutSettings {
    /// Latency mock-rates added to every upstream call.
    pub upstream_latency_ms: u64,
    /// Extra latency per call, uniform in 0..=jitter.
    pub upstream_jitter_ms: u64,
    /// Group sizes, ascending, each once.
    pub group_sizes: Vec<u32>,
    /// Times each concurrent group was sent.
    pub repetitions: u32,
    /// Times each sequential group was sent.
    pub sequential_repetitions: u32,
}

impl FanoutSettings {
    pub fn from_cli(cli: &Cli) -> Self {
        let args = &cli.fanout;
        let (latency, sizes, repetitions) = if cli.quick {
            (QUICK_LATENCY_MS, &QUICK_GROUP_SIZES[..], 1)
        } else {
            (
                DEFAULT_LATENCY_MS,
                &DEFAULT_GROUP_SIZES[..],
                DEFAULT_REPETITIONS,
            )
        };
        let mut group_sizes = if args.group_sizes.is_empty() {
            sizes.to_vec()
        } else {
            args.group_sizes.clone()
        };
        group_sizes.sort_unstable();
        group_sizes.dedup();
        Self {
            upstream_latency_ms: args.upstream_latency_ms.unwrap_or(latency),
            upstream_jitter_ms: args.upstream_jitter_ms.unwrap_or(0),
            group_sizes,
            repetitions: args.fanout_repetitions.unwrap_or(repetitions),
            sequential_repetitions: args
                .fanout_sequential_repetitions
                .unwrap_or(DEFAULT_SEQUENTIAL_REPETITIONS),
        }
    }

    /// Times each group of `mode` is sent.
    pub fn repetitions_of(&self, mode: FanoutMode) -> u32 {
        match mode {
            FanoutMode::Sequential => self.sequential_repetitions,
            FanoutMode::Concurrent => self.repetitions,
        }
    }

    /// One line for the header.
    pub fn describe(&self) -> String {
        let sizes: Vec<String> = self.group_sizes.iter().map(u32::to_string).collect();
        let jitter = if self.upstream_jitter_ms > 0 {
            format!(" + 0..={} ms jitter", self.upstream_jitter_ms)
        } else {
            String::new()
        };
        format!(
            "fanout: upstream latency {} ms{jitter}; groups of {}; each concurrent group sent \
             {}x, each sequential group {}x (median shown)",
            self.upstream_latency_ms,
            sizes.join(", "),
            self.repetitions,
            self.sequential_repetitions
        )
    }
}

/// How the api runs the payments of a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FanoutMode {
    /// One after another, each awaited before the next.
    Sequential,
    /// All at once (no concurrency limit in the request).
    Concurrent,
}

impl FanoutMode {
    /// The table order: the reference's sequential column first.
    pub const ALL: [FanoutMode; 2] = [FanoutMode::Sequential, FanoutMode::Concurrent];

    pub fn as_str(self) -> &'static str {
        match self {
            FanoutMode::Sequential => "sequential",
            FanoutMode::Concurrent => "concurrent",
        }
    }
}

/// One client, mode and group size. Times in milliseconds; medians are over the batches in
/// which every payment succeeded (null when none did).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FanoutRow {
    pub client: String,
    pub mode: FanoutMode,
    pub group_size: u32,
    /// Batches sent (timed), whatever their outcome.
    pub repetitions: u32,
    /// Median of the api's `wall_time_ms`: first upstream call started to last one finished.
    pub wall_ms_median: Option<f64>,
    /// Median of the bench's time around the HTTP exchange with the api (request sent to
    /// response body read).
    pub request_ms_median: Option<f64>,
    /// What the group would take with no overhead: N upstream latencies in sequence, or one
    /// (the slowest of N draws, with jitter) when they all overlap.
    pub ideal_ms: f64,
    /// `ideal_ms / wall_ms_median`: 1 is perfect; for concurrent groups its inverse is the
    /// wall time in upstream latencies.
    pub efficiency: Option<f64>,
    /// Payments that failed, over every repetition (a batch that failed as a whole counts all
    /// its payments).
    pub failures: u64,
    /// `/api/live` requests mock-rates received during these batches: one per payment.
    pub upstream_calls: Option<u64>,
    /// TCP connections mock-rates accepted during these batches.
    pub connections_opened: Option<u64>,
    /// The api's `rates.max_connections` for this client (per worker), from `GET /clients`.
    pub max_connections: Option<u64>,
    /// The api's `rates.blocking_threads` for a blocking client (ureq), from `GET /clients`.
    pub blocking_threads: Option<u64>,
    /// Each fully successful batch's `wall_time_ms`, in the order sent.
    pub wall_ms: Vec<f64>,
    /// Each fully successful batch's request time, in the order sent.
    pub request_ms: Vec<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
}

impl FanoutRow {
    /// Most upstream calls of this client that can overlap on one api worker.
    pub fn overlap_cap(&self) -> Option<u64> {
        match (self.max_connections, self.blocking_threads) {
            (Some(connections), Some(threads)) => Some(connections.min(threads)),
            (connections, threads) => connections.or(threads),
        }
    }
}

/// The ideal wall time of a group of `size` payments: each upstream call takes `latency_ms`
/// plus a uniform draw from the integers 0..=`jitter_ms`. In sequence the expectations add
/// up; overlapped, the group waits for the slowest of `size` draws, whose expectation is
/// sum over k in 1..=J of P(max >= k) = sum of 1 - (k / (J + 1))^size.
pub fn ideal_ms(mode: FanoutMode, size: u32, latency_ms: u64, jitter_ms: u64) -> f64 {
    let latency = latency_ms as f64;
    match mode {
        FanoutMode::Sequential => f64::from(size) * (latency + jitter_ms as f64 / 2.0),
        FanoutMode::Concurrent => {
            let draws = i32::try_from(size).unwrap_or(i32::MAX);
            let span = (jitter_ms + 1) as f64;
            let slowest: f64 = (1..=jitter_ms)
                .map(|k| 1.0 - (k as f64 / span).powi(draws))
                .sum();
            latency + slowest
        }
    }
}

/// `ideal / measured`; `None` without a positive measurement.
pub fn efficiency(ideal_ms: f64, measured_ms: Option<f64>) -> Option<f64> {
    measured_ms
        .filter(|measured| *measured > 0.0 && measured.is_finite())
        .map(|measured| ideal_ms / measured)
}

/// The median of values in any order.
pub fn median_of(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    median(&sorted)
}

/// Runs the suite: sets the upstream latency, measures every client, mode and size, and
/// removes the latency again (also when measuring fails or panics).
pub fn run(
    settings: &RunSettings,
    mock: &MockEndpoint,
    api: &ApiEndpoint,
) -> Result<Vec<FanoutRow>, BenchError> {
    let fanout = &settings.fanout;
    let caps = read_caps(api.base_url()).unwrap_or_else(|error| {
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
    let latency =
        UpstreamLatency::set(mock, fanout.upstream_latency_ms, fanout.upstream_jitter_ms)?;
    let rows = measure(settings, mock, api, &caps);
    latency.remove()?;
    Ok(rows)
}

/// The added upstream latency, in force while this lives.
struct UpstreamLatency<'a> {
    mock: &'a MockEndpoint,
    removed: bool,
}

impl<'a> UpstreamLatency<'a> {
    fn set(mock: &'a MockEndpoint, latency_ms: u64, jitter_ms: u64) -> Result<Self, MockError> {
        mock.set_faults(&Faults {
            latency_ms,
            jitter_ms,
            ..Faults::default()
        })?;
        Ok(Self {
            mock,
            removed: false,
        })
    }

    fn remove(mut self) -> Result<(), MockError> {
        self.removed = true;
        self.mock.set_faults(&Faults::default())
    }
}

impl Drop for UpstreamLatency<'_> {
    fn drop(&mut self) {
        if !self.removed
            && let Err(error) = self.mock.set_faults(&Faults::default())
        {
            eprintln!("bench: fanout: could not remove the upstream latency: {error}");
        }
    }
}

/// What the api reports of its settings that bear on a group's time.
#[derive(Debug, Default)]
struct ApiCaps {
    /// `max_connections` and `blocking_threads` per client name.
    per_client: HashMap<String, (Option<u64>, Option<u64>)>,
    /// The longest upstream call (`rates.timeout_ms`).
    upstream_timeout_ms: Option<u64>,
}

#[derive(Deserialize)]
struct ClientList {
    clients: Vec<ClientInfo>,
}

#[derive(Deserialize)]
struct ClientInfo {
    name: String,
    settings: ClientInfoSettings,
}

#[derive(Deserialize)]
struct ClientInfoSettings {
    max_connections: Option<u64>,
    blocking_threads: Option<u64>,
    timeout_ms: Option<u64>,
}

/// The caps in effect, from `GET {api}/clients`.
fn read_caps(api: &str) -> Result<ApiCaps, String> {
    let url = format!("{api}/clients");
    let agent = api_agent();
    let mut response = agent
        .get(&url)
        .config()
        .timeout_global(Some(Duration::from_secs(5)))
        .build()
        .call()
        .map_err(|error| format!("GET {url}: {error}"))?;
    if response.status() != 200 {
        return Err(format!("GET {url}: status {}", response.status()));
    }
    let body = response
        .body_mut()
        .read_to_vec()
        .map_err(|error| format!("GET {url}: {error}"))?;
    let list: ClientList = serde_json::from_slice(&body)
        .map_err(|error| format!("GET {url}: unexpected body: {error}"))?;
    let per_client = list
        .clients
        .iter()
        .map(|client| {
            (
                client.name.clone(),
                (
                    client.settings.max_connections,
                    client.settings.blocking_threads,
                ),
            )
        })
        .collect();
    let upstream_timeout_ms = list
        .clients
        .iter()
        .filter_map(|client| client.settings.timeout_ms)
        .max();
    Ok(ApiCaps {
        per_client,
        upstream_timeout_ms,
    })
}

/// The bench's client for the api: keeps one connection alive (so every batch lands on the
/// same api worker), no proxy, non-2xx statuses as answers. Its idle timeout is below the
/// api's 5 s keep-alive so that it never writes to a connection the api is closing.
fn api_agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .max_idle_connections(1)
        .max_idle_connections_per_host(1)
        .max_idle_age(Duration::from_secs(4))
        .proxy(None)
        .http_status_as_error(false)
        .build()
        .into()
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
    upstream_calls: Option<u64>,
    connections: Option<u64>,
    first_error: Option<String>,
}

fn measure(
    settings: &RunSettings,
    mock: &MockEndpoint,
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
        agent: api_agent(),
        api: api.base_url(),
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
                upstream_calls: Some(0),
                connections: Some(0),
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
                    let before = mock.stats().ok();
                    let outcome = batches.send(client, mode, cell.size);
                    let after = mock.stats().ok();
                    cell.record(outcome, before.zip(after));
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
                .get(cell.client.as_str())
                .copied()
                .unwrap_or_default();
            let ideal_ms = ideal_ms(cell.mode, cell.size, latency, jitter);
            let wall_ms_median = median_of(&cell.wall_ms);
            FanoutRow {
                client: cell.client.as_str().to_owned(),
                mode: cell.mode,
                group_size: cell.size,
                repetitions: cell.sent,
                wall_ms_median,
                request_ms_median: median_of(&cell.request_ms),
                ideal_ms,
                efficiency: efficiency(ideal_ms, wall_ms_median),
                failures: cell.failures,
                upstream_calls: cell.upstream_calls,
                connections_opened: cell.connections,
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
        stats: Option<(mock_rates::Stats, mock_rates::Stats)>,
    ) {
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
        let difference = |read: fn(&mock_rates::Stats) -> u64, own: u64| {
            stats.and_then(|(before, after)| {
                read(&after).checked_sub(read(&before))?.checked_sub(own)
            })
        };
        let calls = difference(|stats| stats.live_requests, 0);
        let connections = difference(|stats| stats.connections, CONNECTIONS_PER_STATS_READ);
        self.upstream_calls = self.upstream_calls.zip(calls).map(|(sum, more)| sum + more);
        self.connections = self
            .connections
            .zip(connections)
            .map(|(sum, more)| sum + more);
    }
}

/// What one batch gave: its times when every payment succeeded, else the failures.
#[derive(Debug, PartialEq)]
struct BatchOutcome {
    /// Server wall time and request time, in ms, when every payment succeeded.
    timing: Option<(f64, f64)>,
    /// Payments that failed (all of them when the batch failed as a whole).
    failed: u64,
    error: Option<String>,
}

impl BatchOutcome {
    fn failed(size: u32, error: String) -> Self {
        Self {
            timing: None,
            failed: u64::from(size),
            error: Some(error),
        }
    }
}

/// The batch endpoint's answer, the parts the bench checks.
#[derive(Debug, Deserialize)]
struct BatchAnswer {
    client: String,
    mode: FanoutMode,
    count: u64,
    succeeded: u64,
    failed: u64,
    wall_time_ms: f64,
    items: Vec<ItemAnswer>,
}

#[derive(Debug, Deserialize)]
struct ItemAnswer {
    index: usize,
    status: u16,
    #[serde(default)]
    problem: Option<ProblemAnswer>,
}

#[derive(Debug, Deserialize)]
struct ProblemAnswer {
    #[serde(default)]
    title: String,
    #[serde(default)]
    detail: String,
}

impl ProblemAnswer {
    fn describe(&self) -> String {
        match (self.title.is_empty(), self.detail.is_empty()) {
            (_, true) => self.title.clone(),
            (true, false) => self.detail.clone(),
            (false, false) => format!("{}: {}", self.title, self.detail),
        }
    }
}

/// Sends batches to the api.
struct Batches<'a> {
    agent: ureq::Agent,
    api: &'a str,
    per_item_limit_ms: u64,
}

impl Batches<'_> {
    /// Sends one group of `size` EUR -> JPY payments and checks the answer.
    fn send(&self, client: ClientName, mode: FanoutMode, size: u32) -> BatchOutcome {
        let url = format!("{}/payments/{}/batch", self.api, client.as_str());
        let body = batch_body(mode, size);
        let limit = Duration::from_millis(self.per_item_limit_ms.saturating_mul(u64::from(size)))
            + BATCH_TIMEOUT_MARGIN;
        let request = self
            .agent
            .post(&url)
            .config()
            .timeout_global(Some(limit))
            .build()
            .header("content-type", "application/json");
        let started = Instant::now();
        let answer = request.send(body.as_bytes()).and_then(|mut response| {
            let status = response.status().as_u16();
            response.body_mut().read_to_vec().map(|body| (status, body))
        });
        let request_ms = started.elapsed().as_secs_f64() * 1_000.0;
        match answer {
            Ok((status, body)) => check_answer(client, mode, size, status, &body, request_ms),
            Err(error) => BatchOutcome::failed(size, format!("POST {url}: {error}")),
        }
    }
}

/// `{"mode": ..., "payments": [size x 1 EUR -> JPY]}`.
fn batch_body(mode: FanoutMode, size: u32) -> String {
    let payment = serde_json::json!({"amount": "1", "currency": "EUR", "target_currency": "JPY"});
    serde_json::json!({
        "mode": mode,
        "payments": vec![payment; size as usize],
    })
    .to_string()
}

/// Checks a batch answer: 200, the right client and mode, every payment converted.
fn check_answer(
    client: ClientName,
    mode: FanoutMode,
    size: u32,
    status: u16,
    body: &[u8],
    request_ms: f64,
) -> BatchOutcome {
    if status != 200 {
        let text = String::from_utf8_lossy(body);
        let detail: String = text.chars().take(300).collect();
        return BatchOutcome::failed(size, format!("status {status}: {detail}"));
    }
    let answer: BatchAnswer = match serde_json::from_slice(body) {
        Ok(answer) => answer,
        Err(error) => return BatchOutcome::failed(size, format!("unexpected body: {error}")),
    };
    let expected = u64::from(size);
    if answer.client != client.as_str() || answer.mode != mode || answer.count != expected {
        return BatchOutcome::failed(
            size,
            format!(
                "asked {client} {} x{size}, the api answered {} {} x{}",
                mode.as_str(),
                answer.client,
                answer.mode.as_str(),
                answer.count
            ),
        );
    }
    let failed_items = answer.items.iter().filter(|item| item.status != 200);
    let failed = expected
        .saturating_sub(answer.succeeded)
        .max(answer.failed)
        .max(failed_items.clone().count() as u64);
    if failed == 0 && answer.items.len() as u64 == expected {
        return BatchOutcome {
            timing: Some((answer.wall_time_ms, request_ms)),
            failed: 0,
            error: None,
        };
    }
    let first = failed_items.min_by_key(|item| item.index).map_or_else(
        || format!("{} items answered for {size} payments", answer.items.len()),
        |item| {
            format!(
                "payment {}: status {}{}",
                item.index,
                item.status,
                item.problem
                    .as_ref()
                    .map(|problem| format!(" ({})", problem.describe()))
                    .unwrap_or_default()
            )
        },
    );
    BatchOutcome {
        timing: None,
        failed: failed.max(1),
        error: Some(first),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    fn close(actual: f64, expected: f64) -> bool {
        (actual - expected).abs() < 1e-9
    }

    #[test]
    fn ideal_without_jitter_is_n_latencies_or_one() {
        assert!(close(
            ideal_ms(FanoutMode::Sequential, 70, 360, 0),
            25_200.0
        ));
        assert!(close(ideal_ms(FanoutMode::Concurrent, 70, 360, 0), 360.0));
        assert!(close(ideal_ms(FanoutMode::Sequential, 1, 50, 0), 50.0));
    }

    #[test]
    fn ideal_with_jitter_takes_the_mean_in_sequence_and_the_slowest_draw_overlapped() {
        // Sequential: 4 x (100 + 10/2) = 420.
        assert!(close(ideal_ms(FanoutMode::Sequential, 4, 100, 10), 420.0));
        // Jitter 0..=1 (two values), 2 draws: P(max = 1) = 1 - (1/2)^2 = 0.75.
        assert!(close(ideal_ms(FanoutMode::Concurrent, 2, 100, 1), 100.75));
        // Jitter 0..=2, 2 draws: P(max >= 1) = 1 - 1/9, P(max >= 2) = 1 - 4/9; sum 13/9.
        assert!(close(
            ideal_ms(FanoutMode::Concurrent, 2, 100, 2),
            100.0 + 13.0 / 9.0
        ));
        // One draw: the mean of 0..=2, as in sequence.
        assert!(close(ideal_ms(FanoutMode::Concurrent, 1, 100, 2), 101.0));
    }

    #[test]
    fn efficiency_is_ideal_over_measured() {
        // The reference's AsyncFeign at 70 requests: 360 / 1669.
        assert!(close(
            efficiency(360.0, Some(1_669.0)).unwrap(),
            0.215_698_022_8
        ));
        assert!(close(
            efficiency(25_200.0, Some(14_940.0)).unwrap(),
            1.686_746_988
        ));
        assert_eq!(efficiency(50.0, Some(50.0)), Some(1.0));
        assert_eq!(efficiency(50.0, Some(0.0)), None);
        assert_eq!(efficiency(50.0, None), None);
    }

    #[test]
    fn median_of_unsorted_repetitions() {
        assert_eq!(median_of(&[55.0, 51.0, 60.0]), Some(55.0));
        assert_eq!(median_of(&[70.0, 50.0]), Some(60.0));
        assert_eq!(median_of(&[52.5]), Some(52.5));
        assert_eq!(median_of(&[]), None);
    }

    #[test]
    fn overlap_cap_is_the_smaller_of_both_settings() {
        let row = FanoutRow {
            client: "ureq".to_owned(),
            mode: FanoutMode::Concurrent,
            group_size: 70,
            repetitions: 1,
            wall_ms_median: None,
            request_ms_median: None,
            ideal_ms: 50.0,
            efficiency: None,
            failures: 0,
            upstream_calls: None,
            connections_opened: None,
            max_connections: Some(100),
            blocking_threads: Some(64),
            wall_ms: Vec::new(),
            request_ms: Vec::new(),
            first_error: None,
        };
        assert_eq!(row.overlap_cap(), Some(64));
        let hyper = FanoutRow {
            blocking_threads: None,
            ..row.clone()
        };
        assert_eq!(hyper.overlap_cap(), Some(100));
        let unknown = FanoutRow {
            max_connections: None,
            blocking_threads: None,
            ..row
        };
        assert_eq!(unknown.overlap_cap(), None);
    }

    #[test]
    fn settings_defaults_quick_and_overrides() {
        let defaults = FanoutSettings::from_cli(&Cli::parse_from(["bench"]));
        assert_eq!(defaults.upstream_latency_ms, 50);
        assert_eq!(defaults.upstream_jitter_ms, 0);
        assert_eq!(defaults.group_sizes, DEFAULT_GROUP_SIZES);
        assert_eq!(
            (defaults.repetitions, defaults.sequential_repetitions),
            (3, 1)
        );
        let quick = FanoutSettings::from_cli(&Cli::parse_from(["bench", "--quick"]));
        assert_eq!(quick.upstream_latency_ms, 20);
        assert_eq!(quick.group_sizes, [5, 20]);
        assert_eq!((quick.repetitions, quick.sequential_repetitions), (1, 1));
        let chosen = FanoutSettings::from_cli(&Cli::parse_from([
            "bench",
            "--quick",
            "--upstream-latency-ms",
            "360",
            "--upstream-jitter-ms",
            "20",
            "--group-sizes",
            "70,5,20,5",
            "--fanout-repetitions",
            "5",
            "--fanout-sequential-repetitions",
            "2",
        ]));
        assert_eq!(chosen.upstream_latency_ms, 360);
        assert_eq!(chosen.upstream_jitter_ms, 20);
        assert_eq!(chosen.group_sizes, [5, 20, 70]);
        assert_eq!(chosen.repetitions_of(FanoutMode::Concurrent), 5);
        assert_eq!(chosen.repetitions_of(FanoutMode::Sequential), 2);
        assert!(Cli::try_parse_from(["bench", "--group-sizes", "0"]).is_err());
        assert!(Cli::try_parse_from(["bench", "--upstream-latency-ms", "0"]).is_err());
    }

    #[test]
    fn the_latency_is_removed_on_every_way_out() {
        let server = mock_rates::MockServer::start(mock_rates::Settings::default()).unwrap();
        let mock = MockEndpoint::external(&server.base_url());
        let latency = UpstreamLatency::set(&mock, 360, 20).unwrap();
        let set = server.state().faults();
        assert_eq!((set.latency_ms, set.jitter_ms), (360, 20));
        latency.remove().unwrap();
        assert_eq!(server.state().faults(), Faults::default());
        // Dropped without `remove`, as on an early return or a panic.
        drop(UpstreamLatency::set(&mock, 50, 0).unwrap());
        assert_eq!(server.state().faults(), Faults::default());
    }

    fn answer(succeeded: u64, statuses: &[u16]) -> Vec<u8> {
        let items: Vec<serde_json::Value> = statuses
            .iter()
            .enumerate()
            .map(|(index, status)| {
                if *status == 200 {
                    serde_json::json!({"index": index, "status": 200, "elapsed_ms": 1.0})
                } else {
                    serde_json::json!({"index": index, "status": status, "elapsed_ms": 1.0,
                        "problem": {"title": "Upstream timed out", "detail": "no answer in 2 s"}})
                }
            })
            .collect();
        serde_json::json!({
            "client": "hyper", "mode": "concurrent", "concurrency": statuses.len(),
            "count": statuses.len(), "succeeded": succeeded,
            "failed": statuses.len() as u64 - succeeded, "wall_time_ms": 51.5, "items": items,
        })
        .to_string()
        .into_bytes()
    }

    #[test]
    fn a_complete_batch_is_timed() {
        let outcome = check_answer(
            ClientName::Hyper,
            FanoutMode::Concurrent,
            2,
            200,
            &answer(2, &[200, 200]),
            53.0,
        );
        assert_eq!(outcome.timing, Some((51.5, 53.0)));
        assert_eq!((outcome.failed, outcome.error), (0, None));
    }

    #[test]
    fn a_failed_item_or_batch_is_counted_and_never_timed() {
        let outcome = check_answer(
            ClientName::Hyper,
            FanoutMode::Concurrent,
            3,
            200,
            &answer(2, &[200, 504, 200]),
            53.0,
        );
        assert_eq!((outcome.timing, outcome.failed), (None, 1));
        assert_eq!(
            outcome.error.as_deref(),
            Some("payment 1: status 504 (Upstream timed out: no answer in 2 s)")
        );
        // The wrong mode, a short answer, a problem status: the whole batch failed.
        let wrong_mode = check_answer(
            ClientName::Hyper,
            FanoutMode::Sequential,
            2,
            200,
            &answer(2, &[200, 200]),
            53.0,
        );
        assert_eq!((wrong_mode.timing, wrong_mode.failed), (None, 2));
        let short = check_answer(
            ClientName::Hyper,
            FanoutMode::Concurrent,
            3,
            200,
            &answer(2, &[200, 200]),
            53.0,
        );
        assert_eq!(short.failed, 3);
        let rejected = check_answer(
            ClientName::Hyper,
            FanoutMode::Concurrent,
            5,
            422,
            br#"{"title":"too many"}"#,
            1.0,
        );
        assert_eq!(rejected.failed, 5);
        assert!(rejected.error.unwrap().starts_with("status 422"));
    }

    #[test]
    fn the_batch_body_holds_size_payments() {
        let body: serde_json::Value =
            serde_json::from_str(&batch_body(FanoutMode::Sequential, 3)).unwrap();
        assert_eq!(body["mode"], "sequential");
        assert_eq!(body["payments"].as_array().unwrap().len(), 3);
        assert_eq!(body["payments"][2]["target_currency"], "JPY");
        assert!(body.get("concurrency").is_none());
    }
}
