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

use crate::clients::{Counted, MockAdmin};
use crate::error::BenchError;
use crate::model::{CapacityRow, LoadRow, RunSettings, Scenario, StatusCount, SuiteName};
use crate::servers::{ApiEndpoint, MockEndpoint};
use crate::suites::load::capacity::capacity_row;
use crate::suites::load::http::Target;
use crate::suites::load::schedule::{Schedule, achieved_rps};
use crate::suites::load::server::{ProcessProbe, reuse_ratio};
use crate::suites::load::tally::Tally;
use crate::suites::progress::progress_bar;

/// Worker threads of the generator's runtime: the machine's cores, at most 4 (the service and
/// mock-rates need the rest).
fn generator_threads() -> usize {
    std::thread::available_parallelism().map_or(2, |cores| cores.get().clamp(1, 4))
}

/// What the servers did during one run.
#[derive(Clone, Copy, Debug, Default)]
struct ServerReadings {
    api_cpu_s: Option<f64>,
    api_peak_rss_kib: Option<u64>,
    mock: Option<Counted>,
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
        mock.admin().set_faults(&mock_rates::Faults::default())?;
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

    let admin = mock.map(MockEndpoint::admin);
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
        let counters = || admin.as_ref().and_then(MockAdmin::counters);
        let mock_before = counters();
        let probe = ProcessProbe::start(api.pid());
        let tally = open::run(&runtime, &client, target, schedule)?;
        let (api_cpu_s, api_peak_rss_kib) = probe.finish();
        let readings = ServerReadings {
            api_cpu_s,
            api_peak_rss_kib,
            mock: Counted::between(mock_before.as_ref(), counters().as_ref()),
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
            capacity_rows.push(capacity_row(target.scenario, levels));
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
    let mock_connections = readings.mock.map(|counted| counted.connections);
    let upstream_calls = readings.mock.map(|counted| counted.live_requests);
    LoadRow {
        scenario,
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
