//! Suite `load` (NBomber / wrk2 style): the payment service under a constant request rate.
//!
//! Scenarios: `GET /health/live`, the framework alone, as the baseline (over `http` only: the
//! service itself is always called in the clear, so it does not change with the upstream's
//! protocol); then `POST /payments/{client}` for each client of the protocol, cycling through
//! a direct, two inverse and a cross-rate payment. Each scenario gets an unrecorded warm-up,
//! then an open-model run at `--rps` for `--duration` (see [`open`]): every request awaited,
//! its response read whole and checked, its latency measured from when it was due. Around each
//! run the api child's CPU time and memory and the connections mock-rates accepted are read;
//! over `https`, also the TLS handshakes mock-rates counted from the warm-up on, and a payments
//! row whose calls negotiated no TLS stops the run. After each run the suite waits for the api
//! to go idle. Then, unless `--no-capacity`, a closed-model capacity step per scenario (see
//! [`capacity`]). The whole suite runs once per protocol (see [`crate::servers::Stack`]).
//!
//! The generator runs in the bench process on its own multi-thread tokio runtime: the open
//! model with one pooled hyper-util client for every scenario, the capacity step with one
//! connection per worker (see [`connection`]).

pub mod capacity;
pub mod connection;
pub mod http;
pub mod open;
pub mod recorder;
pub mod schedule;
pub mod server;
pub mod settings;
pub mod tally;
pub mod timeline;
pub mod wrk;

use std::sync::Arc;

use crate::clients::{ApiClient, Counted};
use crate::error::BenchError;
use crate::model::{
    CapacityRow, ClientName, GeneratorCheck, LoadRow, NegotiatedTls, Protocol, RunSettings,
    Scenario, StatusCount, SuiteName,
};
use crate::servers::{ApiEndpoint, Stack};
use crate::suites::load::capacity::capacity_row;
use crate::suites::load::http::Target;
use crate::suites::load::schedule::{Schedule, achieved_rps};
use crate::suites::load::server::{ProcessProbe, reuse_ratio};
use crate::suites::load::tally::Tally;
use crate::suites::load::timeline::{Timeline, per_second};
use crate::suites::progress::progress_bar;
use crate::suites::tls;

/// Worker threads of the generator's runtime: the machine's cores, at most 4 (the service and
/// mock-rates need the rest).
fn generator_threads() -> usize {
    std::thread::available_parallelism().map_or(2, |cores| cores.get().clamp(1, 4))
}

/// The generator's runtime (its threads named `thread_name`) and the pooled client, built
/// inside it, that the open model sends with.
pub fn generator(
    thread_name: &str,
) -> std::io::Result<(tokio::runtime::Runtime, Arc<http::LoadClient>)> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(generator_threads())
        .thread_name(thread_name)
        .enable_all()
        .build()?;
    let client = Arc::new({
        let _entered = runtime.enter();
        http::client()
    });
    Ok((runtime, client))
}

/// What the servers did during one run.
#[derive(Clone, Debug, Default)]
struct ServerReadings {
    api_cpu_s: Option<f64>,
    api_peak_rss_kib: Option<u64>,
    api_rss_start_kib: Option<u64>,
    mock: Option<Counted>,
    /// Over `https`: the TLS mock-rates counted from the warm-up on.
    tls: Option<NegotiatedTls>,
    /// Over `https`: the most connections the service's pool may open.
    pool_bound: Option<u64>,
    api_busy_after_ms: Option<u64>,
}

/// The longest the suite waits for the api to go idle after a scenario.
const SETTLE_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Waits until the api child is idle, so that what `scenario` left running does not fall on
/// the next one; how long it stayed busy, in ms (`None` for an api the bench did not start).
fn settle(api: &ApiEndpoint, scenario: &str) -> Option<u64> {
    let pid = api.pid()?;
    if let Some(busy) = server::settle(pid, SETTLE_LIMIT) {
        return Some(u64::try_from(busy.as_millis()).unwrap_or(u64::MAX));
    }
    eprintln!(
        "bench: load: the api was still busy {} s after {scenario}; the next scenario starts \
         anyway",
        SETTLE_LIMIT.as_secs()
    );
    Some(SETTLE_LIMIT.as_secs() * 1_000)
}

/// The service's pool bound (see [`server::pool_bound`]); `None`, and said, when its settings
/// cannot be read.
fn upstream_pool_bound(api: &ApiEndpoint) -> Option<u64> {
    let list = ApiClient::kept_alive(api.base_url())
        .clients()
        .map_err(|error| eprintln!("bench: load: the service's pool bound is unknown: {error}"))
        .ok()?;
    let max_connections = list.clients.first()?.settings.max_connections as u64;
    let cpus = std::thread::available_parallelism().map_or(1, |cpus| cpus.get() as u64);
    let workers = std::env::var("APP__SERVER__WORKERS").ok();
    Some(server::pool_bound(
        max_connections,
        workers.as_deref(),
        cpus,
    ))
}

/// The scenarios over `protocol`: the health check over http only (the service itself is
/// called in the clear either way), then a payments scenario per client of the protocol.
fn scenarios_over(settings: &RunSettings, protocol: Protocol) -> Vec<Scenario> {
    let health = (protocol == Protocol::Http).then_some(Scenario::Health);
    health
        .into_iter()
        .chain(
            settings
                .clients_over(protocol)
                .into_iter()
                .map(Scenario::Payments),
        )
        .collect()
}

/// Over `https` and `h2`, the TLS (and HTTP version) mock-rates counted for a payments
/// scenario from its warm-up on.
fn negotiated(
    protocol: Protocol,
    scenario: Scenario,
    counted: Option<Counted>,
) -> Result<Option<NegotiatedTls>, BenchError> {
    match scenario.client() {
        Some(client) if protocol.is_tls() => {
            tls::negotiated(client, protocol, protocol.qualify(scenario), counted).map(Some)
        }
        _ => Ok(None),
    }
}

/// Runs the suite over `stack`: its api, reading counters from its mock; with `wrk`, the
/// capacity step is checked against wrk too (see [`wrk`]).
pub fn run(settings: &RunSettings, stack: Stack<'_>, wrk: bool) -> Result<LoadRun, BenchError> {
    let load = &settings.load;
    let (api, mock) = (stack.api, stack.mock);
    if mock.is_child() {
        // A healthy upstream, whatever a suite before left set.
        mock.admin().set_faults(&mock_rates::Faults::default())?;
    }
    let targets = scenarios_over(settings, stack.protocol)
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
    let over = |scenario: Scenario| stack.protocol.qualify(scenario);

    let (runtime, client) = generator("load-generator")
        .map_err(|error| BenchError::Load(format!("cannot start the generator: {error}")))?;
    let _slack = open::TimerSlack::tighten();

    let admin = mock.admin();
    let counters = || admin.counters();
    let pool_bound = stack
        .protocol
        .is_tls()
        .then(|| upstream_pool_bound(api))
        .flatten();
    let mut rows = Vec::with_capacity(targets.len());
    for target in &targets {
        bar.set_message(format!("warm-up {}", over(target.scenario)));
        let before_warmup = counters();
        open::run(
            &runtime,
            &client,
            target,
            Schedule::new(load.rps, load.warmup()),
        )?;
        bar.inc(load.warmup_ms);
        bar.set_message(format!("{} at {} RPS", over(target.scenario), load.rps));
        let schedule = Schedule::new(load.rps, load.duration());
        let mock_before = counters();
        let probe = ProcessProbe::start(api.pid());
        let (tally, timeline) = measure(&runtime, &client, target, schedule)?;
        let (api_cpu_s, api_peak_rss_kib) = probe.finish();
        let api_rss_start_kib = probe.rss_before_kib;
        let mock_after = counters();
        let api_busy_after_ms = settle(api, &over(target.scenario));
        // Two differences, so that the read in between does not count as a call's.
        let since_warmup = Counted::add(
            Counted::between(before_warmup.as_ref(), mock_before.as_ref()),
            Counted::between(mock_before.as_ref(), mock_after.as_ref()),
        );
        let tls = negotiated(stack.protocol, target.scenario, since_warmup)?;
        let readings = ServerReadings {
            api_cpu_s,
            api_peak_rss_kib,
            api_rss_start_kib,
            mock: Counted::between(mock_before.as_ref(), mock_after.as_ref()),
            tls,
            pool_bound: pool_bound.filter(|_| target.scenario.client().is_some()),
            api_busy_after_ms,
        };
        rows.push(load_row(
            target.scenario,
            stack.protocol,
            schedule,
            (tally, &timeline),
            readings,
        ));
        bar.inc(load.duration_ms);
    }

    let check_with_wrk = wrk && stack.protocol == Protocol::Http;
    let (capacity, generator) = if load.capacity {
        capacity_step(&runtime, &targets, settings, stack, check_with_wrk, &bar)?
    } else {
        (Vec::new(), Vec::new())
    };
    bar.finish_and_clear();
    drop(client);
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    Ok(LoadRun {
        rows,
        capacity,
        generator,
    })
}

/// The open-model run of `schedule` against `target`: its tally, and every request's times
/// for its seconds.
fn measure(
    runtime: &tokio::runtime::Runtime,
    client: &Arc<http::LoadClient>,
    target: &Arc<Target>,
    schedule: Schedule,
) -> Result<(Tally, Timeline), BenchError> {
    let expected = usize::try_from(schedule.count())
        .unwrap_or(usize::MAX)
        .min(1 << 20);
    let ((mut tally, timeline), skipped) =
        open::run_into(runtime, client, target, schedule, move |start| {
            (Tally::new(start, expected), Timeline::new(start, expected))
        })?;
    tally.skipped = skipped;
    Ok((tally, timeline))
}

/// The closed-model capacity step of every target, level by level, the api let go idle after
/// each level. With `check_with_wrk`, each level of the health check and of hyper's payments
/// is run again by wrk right after it (see [`wrk`]), so that both see the machine alike.
fn capacity_step(
    runtime: &tokio::runtime::Runtime,
    targets: &[Arc<Target>],
    settings: &RunSettings,
    stack: Stack<'_>,
    check_with_wrk: bool,
    bar: &indicatif::ProgressBar,
) -> Result<(Vec<CapacityRow>, Vec<GeneratorCheck>), BenchError> {
    let load = &settings.load;
    let mut rows = Vec::with_capacity(targets.len());
    let mut checks = Vec::new();
    for target in targets {
        let scenario = stack.protocol.qualify(target.scenario);
        let checked = check_with_wrk
            && matches!(
                target.scenario,
                Scenario::Health | Scenario::Payments(ClientName::BASELINE)
            );
        let mut levels = Vec::with_capacity(load.capacity_concurrency.len());
        for &concurrency in &load.capacity_concurrency {
            bar.set_message(format!("capacity {scenario} x{concurrency}"));
            let level = capacity::run_level(runtime, target, concurrency, load.capacity_level())?;
            settle(stack.api, &scenario);
            if checked {
                let wrk_ms = wrk::whole_seconds(load.capacity_level()) * 1_000;
                bar.inc_length(wrk_ms);
                bar.set_message(format!("wrk {scenario} x{concurrency}"));
                checks.extend(wrk::check(target, &level, load.capacity_level()));
                settle(stack.api, &scenario);
                bar.inc(wrk_ms);
            }
            levels.push(level);
            bar.inc(load.capacity_level_ms);
        }
        rows.push(capacity_row(target.scenario, stack.protocol, levels));
    }
    Ok((rows, checks))
}

/// What one protocol's run of the suite gave.
#[derive(Debug)]
pub struct LoadRun {
    pub rows: Vec<LoadRow>,
    pub capacity: Vec<CapacityRow>,
    /// The capacity step against wrk (http only, when wrk is on PATH).
    pub generator: Vec<GeneratorCheck>,
}

fn load_row(
    scenario: Scenario,
    protocol: Protocol,
    schedule: Schedule,
    (tally, timeline): (Tally, &Timeline),
    readings: ServerReadings,
) -> LoadRow {
    let mock_connections = readings.mock.map(|counted| counted.connections);
    let upstream_calls = readings.mock.map(|counted| counted.live_requests);
    LoadRow {
        scenario,
        protocol,
        tls: readings.tls,
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
        api_rss_start_kib: readings.api_rss_start_kib,
        mock_connections,
        pool_bound: readings.pool_bound,
        api_busy_after_ms: readings.api_busy_after_ms,
        mock_tls_handshakes: readings
            .mock
            .filter(|_| protocol.is_tls())
            .map(|counted| counted.tls_handshakes),
        upstream_calls,
        reuse_ratio: upstream_calls
            .zip(mock_connections)
            .and_then(|(calls, connections)| reuse_ratio(calls, connections)),
        first_error: tally.first_error,
        per_second: per_second(timeline, schedule.span()),
    }
}
