//! Suite `load` (NBomber / wrk2 style): the payment service under a constant request rate.
//!
//! Scenarios: `GET /health/live`, the framework alone, as the baseline (over `http` only: the
//! service itself is always called in the clear, so it does not change with the upstream's
//! protocol); then `POST /payments/{client}` for each client of the protocol, cycling through
//! a direct, two inverse and a cross-rate payment. Each scenario's time is split into
//! `--rounds` rounds, taken in turn with every other scenario's (over every protocol: round
//! 1 of each, then round 2 of each, ...), so that what a figure moves between rounds is the
//! machine's doing, and shows. Each round gets an unrecorded warm-up, then an open-model run
//! at `--rps` (see [`open`]): every request awaited, its response read whole and checked, its
//! latency measured from when it was due. Around each round the api child's CPU time (its
//! clock, see [`crate::measure::process`]) and memory and the connections mock-rates accepted are
//! read; over `https` and `h2`, also the TLS handshakes mock-rates counted from the warm-up
//! on: a payments row whose calls negotiated no TLS, or another HTTP version, is marked
//! unchecked (and ranked nowhere), and the run goes on. After each round the suite waits for
//! the api to go idle.
//!
//! The generator runs in the bench process on its own multi-thread tokio runtime, with one
//! pooled hyper-util client for every scenario.

pub mod http;
pub mod open;
pub mod recorder;
mod row;
mod scenario;
pub mod schedule;
pub mod server;
pub mod settings;
pub mod tally;
pub mod timeline;

use std::sync::Arc;
use std::time::Duration;

use crate::clients::{ApiClient, Counted};
use crate::error::BenchError;
use crate::measure::process;
use crate::servers::{ApiEndpoint, Stack};
use crate::suites::load::http::ReadyScenario;
use crate::suites::load::schedule::Schedule;
use crate::suites::load::server::ProcessProbe;
use crate::suites::load::tally::Tally;
use crate::suites::load::timeline::Timeline;
use crate::suites::progress::progress_bar;
use crate::suites::shape::{Outcome, Suite, SuiteContext};
use bench_model::{LargeBody, LoadRow, Protocol, Run, Scenario, SuiteName, size_name};
use bench_model::{NotRunWhy, Results, SuitePart};
use scenario::ScenarioRun;

/// Worker threads of the generator's runtime: the machine's cores, at most 4 (the service and
/// mock-rates need the rest). One worker was tried (2026-12-07, Xeon VM, a quick resilience
/// run of hyper, awc and ureq each way): its closed loop spent less per request (13.4 us
/// against 19.0) but the open model at capacity more (53 / 55 / 124 us against 44 / 49 / 86),
/// each request then waking the one thread from its poll twice.
pub(crate) fn generator_threads() -> usize {
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

/// The longest the suite waits for the api to go idle after a scenario.
const SETTLE_LIMIT: Duration = Duration::from_secs(10);

/// Waits until the api child is idle, so that what `scenario` left running does not fall on
/// the next one; how long it stayed busy, in ms (`None` for an api the bench did not start).
fn settle(api: &ApiEndpoint, scenario: &str) -> Option<u64> {
    let pid = api.pid()?;
    if let Some(busy) = process::settle(pid, SETTLE_LIMIT) {
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
fn scenarios_over(settings: &Run, protocol: Protocol) -> Vec<Scenario> {
    let health = (protocol == Protocol::Http).then_some(Scenario::Health);
    health
        .into_iter()
        .chain(
            settings
                .plan()
                .clients(SuiteName::Load, protocol)
                .into_iter()
                .map(Scenario::Payments),
        )
        .collect()
}
/// The load suite (see the module's documentation).
#[derive(Debug)]
pub struct Load;

impl Suite for Load {
    const NAME: SuiteName = SuiteName::Load;
    type Rows = Vec<LoadRow>;

    fn run(context: &SuiteContext<'_>) -> Result<Outcome<Vec<LoadRow>>, BenchError> {
        self::run(context.settings, &context.stacks(Self::NAME)?).map(Outcome::Ran)
    }

    fn store(rows: Vec<LoadRow>, results: &mut Results) -> Vec<(SuitePart, NotRunWhy)> {
        results.load = rows;
        Vec::new()
    }
}

/// Runs the suite over `stacks` (one per protocol): every scenario of every stack in
/// `settings.rounds` rounds; one row per scenario and protocol.
pub fn run(settings: &Run, stacks: &[Stack<'_>]) -> Result<Vec<LoadRow>, BenchError> {
    let load = &settings.load;
    let rounds = settings.rounds.max(1);
    let round_span =
        Duration::from_millis(load.duration_ms / u64::from(rounds)).max(Duration::from_millis(1));
    let round_warmup = Duration::from_millis(load.warmup_ms / u64::from(rounds));
    let large_service = large_body_service(settings, stacks)?;
    let mut runs = Vec::new();
    for stack in stacks {
        if stack.mock.is_child() {
            // A healthy upstream, whatever a suite before left set.
            stack
                .mock
                .admin()
                .set_faults(&mock_rates::Faults::default())?;
        }
        let pool_bound = stack
            .protocol
            .is_tls()
            .then(|| upstream_pool_bound(stack.api))
            .flatten();
        for scenario in scenarios_over(settings, stack.protocol) {
            runs.push(ScenarioRun::new(
                *stack,
                Arc::new(ReadyScenario::new(stack.api.base_url(), scenario)?),
                pool_bound.filter(|_| scenario.client().is_some()),
                (load.rps, None),
                rounds,
            ));
        }
    }
    if let Some((large, stack)) = large_service
        .as_ref()
        .and_then(|(large, api)| Some((large, large_body_stack(stacks, api)?)))
    {
        for client in settings.plan().clients(SuiteName::Load, Protocol::Http) {
            let scenario = Scenario::Payments(client);
            runs.push(ScenarioRun::new(
                stack,
                Arc::new(ReadyScenario::new(stack.api.base_url(), scenario)?),
                None,
                (large.rps, Some(large.bytes)),
                rounds,
            ));
        }
    }
    let bar = progress_bar(
        SuiteName::Load,
        runs.len() as u64 * u64::from(rounds) * millis(round_warmup + round_span),
    );
    let (runtime, client) = generator("load-generator")
        .map_err(|error| BenchError::Load(format!("cannot start the generator: {error}")))?;

    for round in 0..rounds {
        for run in &mut runs {
            let (api, admin) = (run.stack.api, run.stack.mock.admin());
            let name = run.name();
            bar.set_message(format!("round {}/{rounds}: warm-up {name}", round + 1));
            let before_warmup = admin.counters();
            if !round_warmup.is_zero() {
                open::run(
                    &runtime,
                    &client,
                    &run.target,
                    Schedule::new(run.rps, round_warmup),
                )?;
            }
            bar.inc(millis(round_warmup));
            bar.set_message(format!(
                "round {}/{rounds}: {name} at {} RPS",
                round + 1,
                run.rps
            ));
            let schedule = Schedule::new(run.rps, round_span);
            let mock_before = admin.counters();
            let probe = ProcessProbe::start(api.pid(), api.cpu());
            let (tally, timeline) = measure(&runtime, &client, &run.target, schedule)?;
            let (api_cpu_s, peak_rss_kib) = probe.finish();
            let mock_after = admin.counters();
            let busy_after_ms = settle(api, &name);
            run.add_round(
                schedule,
                (tally, &timeline),
                api_cpu_s,
                (probe.rss_before_kib, peak_rss_kib, busy_after_ms),
                // Two differences, so that the read in between does not count as a call's.
                (
                    Counted::between(before_warmup.as_ref(), mock_before.as_ref()),
                    Counted::between(mock_before.as_ref(), mock_after.as_ref()),
                ),
            );
            bar.inc(millis(round_span));
        }
    }
    bar.finish_and_clear();
    drop(client);
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(runs.into_iter().map(ScenarioRun::row).collect())
}

/// The payment service of the payments with a larger answer (`settings.load.large_body`):
/// one of the suite's own whose upstream is the http stack's mock-rates at `/size/N`, and
/// whose clients accept an answer that large (`rates.max_body_bytes`, as a user whose upstream
/// answers that much sets it). `None`, and said, when the run's servers do not allow it.
fn large_body_service(
    settings: &Run,
    stacks: &[Stack<'_>],
) -> Result<Option<(LargeBody, ApiEndpoint)>, BenchError> {
    let Some(large) = settings.load.large_body else {
        return Ok(None);
    };
    let Some(stack) = stacks.iter().find(|stack| stack.protocol == Protocol::Http) else {
        return Ok(None);
    };
    if stack.mock.is_foreign() || stack.api.pid().is_none() {
        eprintln!(
            "bench: load: payments with a {} answer not measured: they need mock-rates and a \
             service of the bench's own",
            size_name(large.bytes)
        );
        return Ok(None);
    }
    let exe = crate::error::bench_executable()?;
    let rates_url = format!("{}/size/{}", stack.mock.base_url(), large.bytes);
    let limit = (2 * large.bytes).to_string();
    let api =
        ApiEndpoint::spawn_with_env(&exe, &rates_url, &[("APP__RATES__MAX_BODY_BYTES", &limit)])?;
    Ok(Some((large, api)))
}

/// The http stack with `api`, the service of the larger answers, in place of the run's.
fn large_body_stack<'s>(stacks: &[Stack<'s>], api: &'s ApiEndpoint) -> Option<Stack<'s>> {
    let http = stacks
        .iter()
        .find(|stack| stack.protocol == Protocol::Http)?;
    Some(Stack { api, ..*http })
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// The open-model run of `schedule` against `target`: its tally, and every request's times
/// for its seconds.
fn measure(
    runtime: &tokio::runtime::Runtime,
    client: &Arc<http::LoadClient>,
    target: &Arc<ReadyScenario>,
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
