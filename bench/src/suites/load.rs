//! Suite `load` (NBomber / wrk2 style): the payment service under a constant request rate.
//!
//! Scenarios: `GET /health/live`, the framework alone, as the baseline; then
//! `POST /payments/{client}` for each selected client, cycling through a direct, two inverse
//! and a cross-rate payment. Each scenario gets an unrecorded warm-up, then an open-model run
//! at `--rps` for `--duration` (see [`open`]): every request awaited, its response read whole
//! and checked, its latency measured from when it was due. Around each run the api child's CPU
//! time and peak memory and the connections mock-rates accepted are read. Then, unless
//! `--no-capacity`, a closed-model capacity step per scenario (see [`capacity`]).
//!
//! The generator runs in the bench process on its own multi-thread tokio runtime, with one
//! pooled hyper-util client for every scenario.

pub mod capacity;
pub mod http;
pub mod open;
pub mod recorder;
pub mod schedule;
pub mod server;
pub mod settings;
pub mod tally;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::BenchError;
use crate::api_process::ApiEndpoint;
use crate::cli::RunSettings;
use crate::mock_process::MockEndpoint;
use crate::suites::load::capacity::{CapacityLevel, best_level};
use crate::suites::load::http::{Scenario, Target};
use crate::suites::load::recorder::LatencySummary;
use crate::suites::load::schedule::{Schedule, achieved_rps};
use crate::suites::load::server::{ProcessProbe, mock_counters, mock_delta, reuse_ratio};
use crate::suites::load::tally::{FailureCounts, Tally};
use crate::suites::{SuiteName, progress_bar};

/// Worker threads of the generator's runtime: the machine's cores, at most 4 (the service and
/// mock-rates need the rest).
fn generator_threads() -> usize {
    std::thread::available_parallelism().map_or(2, |cores| cores.get().clamp(1, 4))
}

/// One scenario's open-model run. Times in microseconds; `None` (JSON null) where a figure
/// cannot be computed (no successful request, or a reading unavailable).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadRow {
    /// `GET /health/live` or `POST /payments/<client>`.
    pub scenario: String,
    /// The client of a payments scenario.
    pub client: Option<String>,
    pub target_rps: u32,
    pub duration_s: f64,
    /// Requests on the timetable.
    pub scheduled: u64,
    /// Requests never sent because [`open::MAX_IN_FLIGHT`] were in flight.
    pub skipped: u64,
    /// Requests sent more than 1 ms after they were due.
    pub sent_late: u64,
    /// The latest any request was sent after it was due.
    pub max_send_delay_us: f64,
    pub ok: u64,
    pub fail: u64,
    /// Successful responses per second over the run (see [`schedule::achieved_rps`]).
    pub achieved_rps: f64,
    /// Latency figures, flattened into the row in results.json.
    #[serde(flatten)]
    pub latency: LatencySummary,
    /// Bytes of every response: status line, headers, body.
    pub bytes_received: u64,
    /// Responses by status code (failed ones included).
    pub status_codes: Vec<StatusCount>,
    pub failures: FailureCounts,
    /// CPU time (user + system) of the api process during the run; null for an external api.
    pub api_cpu_s: Option<f64>,
    /// Peak resident memory of the api process during the run, in KiB.
    pub api_peak_rss_kib: Option<u64>,
    /// Connections mock-rates accepted during the run (from the api's clients).
    pub mock_connections: Option<u64>,
    /// Upstream calls mock-rates served during the run.
    pub upstream_calls: Option<u64>,
    /// Upstream calls per new connection; null without calls or without new connections.
    pub reuse_ratio: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
}

/// How many responses had one status code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusCount {
    pub status: u16,
    pub count: u64,
}

/// One scenario's capacity step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CapacityRow {
    pub scenario: String,
    pub client: Option<String>,
    /// The highest throughput of a level without failures (successful responses per second).
    pub max_rps: Option<f64>,
    /// The concurrency of that level.
    pub at_concurrency: Option<u32>,
    /// Its p99 latency.
    pub p99_us: Option<f64>,
    pub levels: Vec<CapacityLevel>,
}

impl CapacityRow {
    fn new(scenario: Scenario, levels: Vec<CapacityLevel>) -> Self {
        let best = best_level(&levels);
        Self {
            scenario: scenario.to_string(),
            client: scenario.client().map(|client| client.as_str().to_owned()),
            max_rps: best.map(|level| level.rps),
            at_concurrency: best.map(|level| level.concurrency),
            p99_us: best.and_then(|level| level.p99_us),
            levels,
        }
    }
}

/// What the servers did during one run.
#[derive(Clone, Copy, Debug, Default)]
struct ServerReadings {
    api_cpu_s: Option<f64>,
    api_peak_rss_kib: Option<u64>,
    mock: Option<(u64, u64)>,
}

/// Runs the suite against `api`, reading counters from `mock` when there is one.
pub fn run(
    settings: &RunSettings,
    api: &ApiEndpoint,
    mock: Option<&MockEndpoint>,
) -> Result<(Vec<LoadRow>, Vec<CapacityRow>), BenchError> {
    let load = &settings.load;
    if let Some(mock) = mock.filter(|mock| mock.is_child()) {
        // A healthy upstream, whatever a suite before left set.
        mock.set_faults(&mock_rates::Faults::default())?;
    }
    let scenarios: Vec<Scenario> = std::iter::once(Scenario::Health)
        .chain(settings.clients.iter().copied().map(Scenario::Payments))
        .collect();
    let targets = scenarios
        .iter()
        .map(|&scenario| Target::new(api.base_url(), scenario).map(Arc::new))
        .collect::<Result<Vec<_>, _>>()?;
    let levels = if load.capacity {
        load.capacity_concurrency.len() as u64
    } else {
        0
    };
    let per_scenario_ms = load.warmup_ms + load.duration_ms + levels * load.capacity_level_ms;
    let bar = progress_bar(SuiteName::Load, targets.len() as u64 * per_scenario_ms);

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(generator_threads())
        .thread_name("load-generator")
        .enable_all()
        .build()
        .map_err(|error| BenchError::Load(format!("cannot start the generator: {error}")))?;
    let client = Arc::new({
        let _entered = runtime.enter();
        http::client()
    });
    let _slack = open::TimerSlack::tighten();

    let mut rows = Vec::with_capacity(targets.len());
    for target in &targets {
        bar.set_message(format!("warm-up {}", target.scenario));
        open::run(
            &runtime,
            &client,
            target,
            Schedule::new(load.rps, load.warmup()),
        )?;
        bar.inc(load.warmup_ms);
        bar.set_message(format!("{} at {} RPS", target.scenario, load.rps));
        let schedule = Schedule::new(load.rps, load.duration());
        let mock_before = mock_counters(mock);
        let probe = ProcessProbe::start(api.pid());
        let tally = open::run(&runtime, &client, target, schedule)?;
        let (api_cpu_s, api_peak_rss_kib) = probe.finish();
        let readings = ServerReadings {
            api_cpu_s,
            api_peak_rss_kib,
            mock: mock_delta(mock_before, mock_counters(mock)),
        };
        rows.push(load_row(target.scenario, schedule, tally, readings));
        bar.inc(load.duration_ms);
    }

    let mut capacity_rows = Vec::new();
    if load.capacity {
        for target in &targets {
            let mut levels = Vec::with_capacity(load.capacity_concurrency.len());
            for &concurrency in &load.capacity_concurrency {
                bar.set_message(format!("capacity {} x{concurrency}", target.scenario));
                levels.push(capacity::run_level(
                    &runtime,
                    &client,
                    target,
                    concurrency,
                    load.capacity_level(),
                )?);
                bar.inc(load.capacity_level_ms);
            }
            capacity_rows.push(CapacityRow::new(target.scenario, levels));
        }
    }
    bar.finish_and_clear();
    drop(client);
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    Ok((rows, capacity_rows))
}

fn load_row(
    scenario: Scenario,
    schedule: Schedule,
    tally: Tally,
    readings: ServerReadings,
) -> LoadRow {
    let (mock_connections, upstream_calls) = readings.mock.unzip();
    LoadRow {
        scenario: scenario.to_string(),
        client: scenario.client().map(|client| client.as_str().to_owned()),
        target_rps: schedule.rate(),
        duration_s: schedule.span().as_secs_f64(),
        scheduled: schedule.count(),
        skipped: tally.skipped,
        sent_late: tally.lateness.late,
        max_send_delay_us: tally.lateness.worst.as_secs_f64() * 1e6,
        ok: tally.ok,
        fail: tally.failures.total(),
        achieved_rps: achieved_rps(tally.ok, schedule.span(), tally.last_done),
        latency: tally.latencies.summary(),
        bytes_received: tally.bytes,
        status_codes: tally
            .statuses
            .iter()
            .map(|(&status, &count)| StatusCount { status, count })
            .collect(),
        failures: tally.failures,
        api_cpu_s: readings.api_cpu_s,
        api_peak_rss_kib: readings.api_peak_rss_kib,
        mock_connections,
        upstream_calls,
        reuse_ratio: upstream_calls
            .zip(mock_connections)
            .and_then(|(calls, connections)| reuse_ratio(calls, connections)),
        first_error: tally.first_error,
    }
}
