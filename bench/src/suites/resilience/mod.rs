//! Suite `resilience`: the payment service measured the way servers are hardened, per client
//! over plain HTTP, against a mock-rates and a service of the suite's own (so that mock-rates
//! can be killed, and the service's memory and descriptors start clean):
//! - each client's capacity first (see [`capacity`]), which the overload and the soak are
//!   sized from;
//! - an upstream restart under load (see [`restart`]);
//! - overload at twice the capacity, `/health/live` alongside (see [`overload`]);
//! - a thousand slow connections held open while payments run, against the same payments
//!   without them (see [`slow`]);
//! - a soak at half the capacity, memory and descriptors sampled (see [`soak`]).
//!
//! The service is let go idle between parts. The default sizes are short; `--resilience-full`
//! runs the full ones. Against servers given by URL the suite cannot kill the upstream or read
//! the service's process, so it is skipped and says so.

mod capacity;
mod overload;
mod restart;
pub mod settings;
mod slow;
mod soak;
mod timeline;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::error::BenchError;
use crate::model::{
    CapacityRound, ClientCapacity, ClientName, Protocol, ResilienceResults, ResilienceSettings,
    RunSettings, Scenario, SlowClientsRow, SoakRow, SuiteName, millis,
};
use crate::servers::{ApiEndpoint, MockEndpoint};
use crate::suites::load::http::{LoadClient, Target};
use crate::suites::load::schedule::Schedule;
use crate::suites::load::timeline::{Timeline, counts};
use crate::suites::load::{generator, open, server};
use crate::suites::progress::progress_bar;
use crate::suites::resilience::slow::SlowClients;
use indicatif::ProgressBar;

/// The longest the suite waits for the service to go idle after a part.
const SETTLE_LIMIT: Duration = Duration::from_secs(10);

/// What the suite did.
#[derive(Debug)]
pub enum Outcome {
    Ran(Box<ResilienceResults>),
    Skipped(String),
}

/// Runs the suite, unless `mock` or `api` were given by URL.
pub fn run(
    settings: &RunSettings,
    mock: &MockEndpoint,
    api: &ApiEndpoint,
) -> Result<Outcome, BenchError> {
    if !mock.is_child() || api.pid().is_none() {
        return Ok(Outcome::Skipped(
            "the suite kills and restarts mock-rates and reads the service's memory and \
             descriptors from /proc, so it needs the bench's own servers, not ones given by \
             --mock-url or --api-url"
                .to_owned(),
        ));
    }
    raise_descriptor_limit(settings.resilience.slow_connections);
    let exe = std::env::current_exe()
        .map_err(|source| BenchError::io(Path::new("the bench executable"), source))?;
    let mut mock = Some(MockEndpoint::spawn(&exe)?);
    let rates_url = mock.as_ref().map(|mock| mock.base_url().to_owned());
    let mut api = ApiEndpoint::spawn(&exe, rates_url.as_deref().unwrap_or_default())?;
    let pid = api
        .pid()
        .ok_or_else(|| BenchError::Resilience("the service has no process id".to_owned()))?;
    let (runtime, client) = generator("resilience-generator")
        .map_err(|error| BenchError::Resilience(format!("cannot start the generator: {error}")))?;
    let _slack = open::TimerSlack::tighten();
    let sizes = &settings.resilience;
    let clients = settings.clients_over(Protocol::Http);
    let targets = clients
        .iter()
        .map(|&name| Target::new(api.base_url(), Scenario::Payments(name)).map(Arc::new))
        .collect::<Result<Vec<_>, _>>()?;
    let health = Arc::new(Target::new(api.base_url(), Scenario::Health)?);
    let bar = progress_bar(
        SuiteName::Resilience,
        clients.len() as u64
            * (per_client_ms(sizes)
                + (1 + sizes.cpu_quotas_millicpus.len() as u64)
                    * u64::from(settings.rounds.max(1))
                    * capacity::round_ms(sizes.ramp_step_ms, sizes.confirm_ms))
            + slow::CLOSE_WAIT_LIMIT.as_millis() as u64,
    );
    let parts = Parts {
        runtime: &runtime,
        client: &client,
        sizes,
        clients: clients.iter().copied().zip(targets).collect(),
        bar: &bar,
        pid,
    };
    let mut results = ResilienceResults::default();
    let rounds = settings.rounds.max(1);
    results.capacity = parts.capacities(rounds, None)?;
    // The overload and the soak are sized from the capacity without a quota (the ramp's first
    // step where no round confirmed a rate).
    let capacities: Vec<f64> = results
        .capacity
        .iter()
        .map(|row| {
            f64::from(
                row.capacity_rps
                    .filter(|&rps| rps > 0)
                    .unwrap_or(capacity::RAMP_RPS[0]),
            )
        })
        .collect();
    for (name, target) in &parts.clients {
        bar.set_message(format!("restart {name}"));
        results.restart.push(restart::run(
            &runtime, &client, *name, target, sizes, &mut mock, &exe,
        )?);
        parts.settle();
        bar.inc(sizes.restart_before_ms + sizes.restart_outage_ms + sizes.restart_after_ms);
    }
    for ((name, target), &capacity_rps) in parts.clients.iter().zip(&capacities) {
        bar.set_message(format!("overload {name}"));
        results.overload.push(overload::run(
            &runtime,
            &client,
            *name,
            target,
            &health,
            sizes,
            capacity_rps,
        )?);
        parts.settle();
        bar.inc(sizes.overload_before_ms + sizes.overload_ms + sizes.overload_after_ms);
    }
    parts.slow_clients(health.address, &mut results)?;
    for ((name, target), &capacity_rps) in parts.clients.iter().zip(&capacities) {
        bar.set_message(format!("soak {name}"));
        let soak = soak::run(&runtime, &client, *name, target, sizes, capacity_rps, pid)?;
        if let Some(capacity) = results
            .capacity
            .iter_mut()
            .find(|row| row.client == *name && row.cpu_quota_millicpus.is_none())
        {
            capacity.refuted = refuted_by(&soak, sizes.soak_percent);
        }
        results.soak.push(soak);
        parts.settle();
        bar.inc(sizes.soak_ms);
    }
    parts.under_quotas(&mut api, rounds, &mut results)?;
    bar.finish_and_clear();
    drop(client);
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(Outcome::Ran(Box::new(results)))
}

/// What every part of the suite works with.
struct Parts<'a> {
    runtime: &'a tokio::runtime::Runtime,
    client: &'a Arc<LoadClient>,
    sizes: &'a ResilienceSettings,
    /// Each client with its payments target, in table order.
    clients: Vec<(ClientName, Arc<Target>)>,
    bar: &'a ProgressBar,
    pid: u32,
}

impl Parts<'_> {
    /// Waits until the service is idle, so that a part's leftovers do not fall on the next.
    fn settle(&self) {
        if server::settle(self.pid, SETTLE_LIMIT).is_none() {
            eprintln!(
                "bench: resilience: the service was still busy {} s after a part; the next \
                 starts anyway",
                SETTLE_LIMIT.as_secs()
            );
        }
    }

    /// Each client's capacity (see [`capacity`]) with the service held to `quota` millicpus
    /// (or not): `rounds` rounds, in turn over the clients, recorded with their median.
    fn capacities(
        &self,
        rounds: u32,
        quota: Option<u32>,
    ) -> Result<Vec<ClientCapacity>, BenchError> {
        let sizes = (
            millis(self.sizes.ramp_step_ms),
            millis(self.sizes.confirm_ms),
        );
        let under = quota.map_or_else(String::new, |millicpus| {
            format!(" at {} CPU", f64::from(millicpus) / 1_000.0)
        });
        let mut measured: Vec<Vec<CapacityRound>> = vec![Vec::new(); self.clients.len()];
        for round in 0..rounds {
            for ((name, target), rounds_of) in self.clients.iter().zip(&mut measured) {
                self.bar.set_message(format!(
                    "capacity {name}{under}, round {}/{rounds}",
                    round + 1
                ));
                rounds_of.push(capacity::round(
                    self.runtime,
                    self.client,
                    target,
                    sizes,
                    &|| self.settle(),
                )?);
                self.settle();
                self.bar.inc(capacity::round_ms(
                    self.sizes.ramp_step_ms,
                    self.sizes.confirm_ms,
                ));
            }
        }
        Ok(self
            .clients
            .iter()
            .zip(measured)
            .map(|((name, _), rounds)| ClientCapacity {
                client: *name,
                capacity_rps: capacity::median(&rounds),
                latency_objective_ms: capacity::LATENCY_OBJECTIVE.as_secs_f64() * 1_000.0,
                rounds,
                refuted: None,
                cpu_quota_millicpus: quota,
            })
            .collect())
    }

    /// Each client's capacity again under each CPU quota asked for (`--cpu-quota`), the
    /// service held to it and let go after; where no quota can be set, why, and none.
    fn under_quotas(
        &self,
        api: &mut ApiEndpoint,
        rounds: u32,
        results: &mut ResilienceResults,
    ) -> Result<(), BenchError> {
        for &millicpus in &self.sizes.cpu_quotas_millicpus {
            if let Err(why) = api.limit_cpu(f64::from(millicpus) / 1_000.0) {
                eprintln!("bench: resilience: no capacity under a CPU quota: {why}");
                results.cpu_quota_skipped = Some(why);
                break;
            }
            self.settle();
            let measured = self.capacities(rounds, Some(millicpus));
            let lifted = api.unlimit_cpu();
            results.capacity.extend(measured?);
            lifted.map_err(|why| {
                BenchError::Resilience(format!("cannot lift the service's CPU quota: {why}"))
            })?;
            self.settle();
        }
        Ok(())
    }

    /// Every client's payments without the slow connections, then with them held open (see
    /// [`slow`]), then how the service ended them.
    fn slow_clients(
        &self,
        address: std::net::SocketAddr,
        results: &mut ResilienceResults,
    ) -> Result<(), BenchError> {
        let sizes = self.sizes;
        let payments = |name: ClientName, target: &Arc<Target>| {
            self.bar.set_message(format!("slow clients {name}"));
            let schedule = Schedule::new(sizes.slow_rps, millis(sizes.slow_phase_ms));
            let (timeline, _) =
                open::run_into(self.runtime, self.client, target, schedule, |start| {
                    Timeline::new(start, 0)
                })?;
            self.bar.inc(sizes.slow_phase_ms);
            Ok::<_, BenchError>(counts(&timeline.records))
        };
        let mut without = Vec::with_capacity(self.clients.len());
        for (name, target) in &self.clients {
            without.push(payments(*name, target)?);
        }
        self.settle();
        self.bar.set_message(format!(
            "opening {} slow connections",
            sizes.slow_connections
        ));
        let slow_clients = SlowClients::open(self.runtime, address, sizes.slow_connections);
        for ((name, target), without) in self.clients.iter().zip(without) {
            let held_at_start = slow_clients.held();
            let with = payments(*name, target)?;
            results.slow_clients.push(SlowClientsRow {
                client: *name,
                rps: sizes.slow_rps,
                without,
                with,
                held_at_start,
            });
        }
        self.bar
            .set_message("waiting for the service to close the slow connections");
        results.slow_connections = Some(slow_clients.finish());
        self.bar.inc(slow::CLOSE_WAIT_LIMIT.as_millis() as u64);
        self.settle();
        Ok(())
    }
}

/// Why a soak at `percent` % of the capacity refutes it: a failure, a request never sent, or
/// a p99 past the capacity's objective; `None` when the soak held.
fn refuted_by(soak: &SoakRow, percent: u32) -> Option<String> {
    let requests = &soak.requests;
    let objective_ms = capacity::LATENCY_OBJECTIVE.as_secs_f64() * 1_000.0;
    let scheduled = Schedule::new(soak.rps, millis(soak.duration_ms)).count();
    let failed = requests.sent - requests.ok;
    let unsent = scheduled.saturating_sub(requests.sent);
    let p99 = requests.ok_p99_ms;
    if failed == 0 && unsent == 0 && p99.is_some_and(|p99| p99 <= objective_ms) {
        return None;
    }
    Some(format!(
        "its soak at {percent}% of it ({} RPS) failed {failed} and left {unsent} unsent of \
         {scheduled}, p99 {}",
        soak.rps,
        p99.map_or_else(|| "none".to_owned(), |p99| format!("{p99:.1} ms"))
    ))
}

/// The planned time of one client's parts, for the progress bar (capacity rounds apart).
fn per_client_ms(sizes: &ResilienceSettings) -> u64 {
    sizes.restart_before_ms
        + sizes.restart_outage_ms
        + sizes.restart_after_ms
        + sizes.overload_before_ms
        + sizes.overload_ms
        + sizes.overload_after_ms
        + 2 * sizes.slow_phase_ms
        + sizes.soak_ms
}

/// Raises this process's soft limit on open files to its hard limit when the slow connections
/// and the generator's own could exceed it; the service and mock-rates children started after
/// this inherit it. Best effort: if the limit cannot be raised, connections beyond it fail
/// and are counted as failed.
fn raise_descriptor_limit(slow_connections: u32) {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let wanted = u64::from(slow_connections) + 4 * open::MAX_IN_FLIGHT as u64;
    let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE) else {
        return;
    };
    if soft >= wanted {
        return;
    }
    if setrlimit(Resource::RLIMIT_NOFILE, hard.min(wanted), hard).is_err() {
        eprintln!(
            "bench: resilience: cannot raise the open-file limit from {soft}: slow connections \
             beyond it will fail"
        );
    }
}
