//! Suite `resilience`: the payment service measured the way servers are hardened, per client
//! and protocol, against a mock-rates and a service of the suite's own (so that mock-rates
//! can be killed, and the service's memory and descriptors start clean):
//! - over http, first, the suite's generator against wrk (see [`against_wrk`]);
//! - each client's capacity first (see [`capacity`]), which the overload and the soak are
//!   sized from;
//! - an upstream restart under load (see [`restart`]);
//! - overload at twice the capacity, `/health/live` alongside (see [`overload`]);
//! - a thousand slow connections held open while payments run, against the same payments
//!   without them (see [`slow`]);
//! - a soak at half the capacity, memory and descriptors sampled (see [`soak`]); a soak that
//!   fails refutes the capacity, and the suite steps it down to a rate it sustains (see
//!   [`sustain`]).
//!
//! After the generator against wrk, the service is held to a CPU budget of its own
//! (`--service-cpus`, half a CPU by default, a CFS quota with a short period): on a small
//! machine the generator and mock-rates take as much CPU per request as the service, and
//! without the budget the capacity is the machine's, moving with what they take.
//! The service is let go idle between parts. The default sizes are short; `--resilience-full`
//! runs the full ones. Over http by default; with `--resilience-tls` every part again over
//! https and h2, against servers over TLS of the suite's own (see [`servers`]); the CPU
//! quotas stay over http. Against servers given by URL the suite cannot kill the upstream or
//! read the service's process, so it is skipped and says so.

mod against_wrk;
mod capacity;
mod overload;
mod plan;
mod restart;
mod servers;
pub mod settings;
mod slow;
mod soak;
mod sustain;
mod timeline;

use std::cell::RefCell;
use std::sync::Arc;
use std::time::Duration;

use crate::clients::{Counted, MockAdmin};
use crate::error::BenchError;
use crate::measure::process::{self, LIMIT_PERIOD_US};
use crate::servers::MockEndpoint;
use crate::suites::load::http::{LoadClient, ReadyScenario};
use crate::suites::load::schedule::Schedule;
use crate::suites::load::timeline::{Timeline, counts};
use crate::suites::load::{generator, generator_threads, open};
use crate::suites::progress::progress_bar;
use crate::suites::resilience::servers::Servers;
use crate::suites::resilience::slow::SlowClients;
use crate::suites::shape::{Outcome, Suite, SuiteContext};
use crate::suites::shuffle::Shuffle;
use crate::suites::tls;
use bench_model::Results;
use bench_model::{
    BUDGET_PERIOD_US, CapacityRound, ClientCapacity, ClientName, NotRunWhy, Protocol,
    ResilienceResults, ResilienceSettings, Run, Scenario, SlowClientsRow, SuiteName, SuitePart,
    millis,
};
use bench_report::report::reasons;
use indicatif::ProgressBar;

/// The longest the suite waits for the service to go idle after a part.
const SETTLE_LIMIT: Duration = Duration::from_secs(10);

/// Runs the suite over http, and with `--resilience-tls` over the run's protocols over TLS
/// too, each against servers of its own (the plan skips it when the run's servers were given
/// by URL).
/// What the suite measured, and each part of it that could not run (the service's CPU budget,
/// the capacities under a CPU quota), with the error met.
#[derive(Debug)]
pub struct Measured {
    pub results: ResilienceResults,
    pub not_run: Vec<(SuitePart, NotRunWhy)>,
}
/// The resilience suite (see the module's documentation).
#[derive(Debug)]
pub struct Resilience;

impl Suite for Resilience {
    const NAME: SuiteName = SuiteName::Resilience;
    type Rows = Measured;

    fn run(context: &SuiteContext<'_>) -> Result<Outcome<Measured>, BenchError> {
        self::run(context.settings).map(Outcome::Ran)
    }

    fn store(rows: Measured, results: &mut Results) -> Vec<(SuitePart, NotRunWhy)> {
        results.resilience = rows.results;
        rows.not_run
    }
}

pub fn run(settings: &Run) -> Result<Measured, BenchError> {
    slow::raise_descriptor_limit(settings.resilience.slow_connections);
    let exe = crate::error::bench_executable()?;
    let (runtime, client) = generator("resilience-generator")
        .map_err(|error| BenchError::Resilience(format!("cannot start the generator: {error}")))?;
    let sizes = &settings.resilience;
    let rounds = settings.rounds.max(1);
    let run_plan = settings.plan();
    let over: Vec<(Protocol, Vec<ClientName>)> = run_plan
        .protocols(SuiteName::Resilience)
        .into_iter()
        .map(|protocol| (protocol, run_plan.clients(SuiteName::Resilience, protocol)))
        .filter(|(_, clients)| !clients.is_empty())
        .collect();
    let bar = progress_bar(SuiteName::Resilience, plan::planned_ms(settings, &over));
    let mut results = ResilienceResults::default();
    let not_run = RefCell::new(Vec::new());
    for (protocol, clients) in &over {
        let mut servers = Servers::start(&exe, *protocol)?;
        let [on_first, on_second] = [0, 1].map(|side| servers.target(side, capacity::REFERENCE));
        let parts = Parts {
            runtime: &runtime,
            client: &client,
            sizes,
            clients: servers.targets(0, clients)?,
            on_second: servers
                .targets(1, clients)?
                .into_iter()
                .map(|(_, target)| target)
                .collect(),
            reference: [on_first?, on_second?],
            health: Arc::new(ReadyScenario::new(
                servers.api.base_url(),
                Scenario::Health,
            )?),
            bar: &bar,
            pid: servers.pid()?,
            second_pid: servers.second.api.pid().ok_or_else(|| {
                BenchError::Resilience("the second service has no process id".to_owned())
            })?,
            not_run: &not_run,
        };
        parts.run(&mut servers, rounds, &mut results)?;
    }
    bar.finish_and_clear();
    drop(client);
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(Measured {
        results,
        not_run: not_run.into_inner(),
    })
}

/// What every part of the suite works with, over one protocol.
struct Parts<'a> {
    runtime: &'a tokio::runtime::Runtime,
    client: &'a Arc<LoadClient>,
    sizes: &'a ResilienceSettings,
    /// Each client with its payments target, in table order.
    clients: Vec<(ClientName, Arc<ReadyScenario>)>,
    /// Each client's payments target on the second service, in the same order.
    on_second: Vec<Arc<ReadyScenario>>,
    /// The reference client's payments target on each service.
    reference: [Arc<ReadyScenario>; 2],
    /// The service's `GET /health/live`.
    health: Arc<ReadyScenario>,
    bar: &'a ProgressBar,
    pid: u32,
    /// The second service's process, which only the capacities drive.
    second_pid: u32,
    /// The parts that could not run, once each.
    not_run: &'a RefCell<Vec<(SuitePart, NotRunWhy)>>,
}

impl Parts<'_> {
    /// Every part, in turn, over the protocol `servers` serve: the capacities, which size the
    /// overload and the soak, the restart, the overload, the slow clients, the soak (which may
    /// refute a capacity) and, over http, the capacities under each CPU quota.
    fn run(
        &self,
        servers: &mut Servers,
        rounds: u32,
        results: &mut ResilienceResults,
    ) -> Result<(), BenchError> {
        let sizes = self.sizes;
        let bar = self.bar;
        if !servers.protocol.is_tls() {
            self.against_wrk(servers, results);
        }
        self.hold_to_budget(servers);
        let capacity = self.capacities(rounds, None, servers)?;
        // The overload and the soak are sized from this capacity, not a --cpu-quota one (the ramp's
        // first step where no round confirmed a rate).
        let capacities: Vec<f64> = capacity
            .iter()
            .map(|row| {
                f64::from(
                    row.capacity_rps
                        .filter(|&rps| rps > 0)
                        .unwrap_or(capacity::RAMP_RPS[0]),
                )
            })
            .collect();
        let first = results.capacity.len();
        results.capacity.extend(capacity);
        for (name, target) in &self.clients {
            let who = servers.subject(*name);
            bar.set_message(format!("restart {}", servers.protocol.qualify(name)));
            results.restart.push(restart::run(
                self.runtime,
                self.client,
                who,
                target,
                sizes,
                servers,
            )?);
            self.settle();
            bar.inc(sizes.restart_before_ms + sizes.restart_outage_ms + sizes.restart_after_ms);
        }
        for ((name, target), &capacity_rps) in self.clients.iter().zip(&capacities) {
            bar.set_message(format!("overload {}", servers.protocol.qualify(name)));
            results.overload.push(overload::run(
                self.runtime,
                self.client,
                servers.subject(*name),
                target,
                &self.health,
                sizes,
                capacity_rps,
            )?);
            self.settle();
            bar.inc(sizes.overload_before_ms + sizes.overload_ms + sizes.overload_after_ms);
        }
        self.slow_clients(servers, results)?;
        for (((name, target), &capacity_rps), row) in
            self.clients.iter().zip(&capacities).zip(first..)
        {
            bar.set_message(format!("soak {}", servers.protocol.qualify(name)));
            let soak = soak::run(
                self.runtime,
                self.client,
                servers.subject(*name),
                target,
                sizes,
                capacity_rps,
                self.pid,
            )?;
            let refuted = soak::refuted_by(&soak, sizes.soak_percent);
            results.soak.push(soak);
            self.settle();
            bar.inc(sizes.soak_ms);
            let capacity = &mut results.capacity[row];
            if let (Some(why), Some(rps)) = (refuted, capacity.capacity_rps) {
                bar.set_message(format!(
                    "stepping {} down from {rps} RPS",
                    servers.protocol.qualify(name)
                ));
                capacity.refuted = Some(why);
                capacity.step_downs =
                    self.sustain()
                        .step_down(servers.subject(*name), target, rps, &|| self.settle())?;
                self.settle();
            }
        }
        if !servers.protocol.is_tls() {
            self.under_quotas(servers, rounds, results)?;
        }
        Ok(())
    }

    /// The generator against wrk on the service's health and on the first client's payment
    /// (see [`against_wrk`]).
    fn against_wrk(&self, servers: &Servers, results: &mut ResilienceResults) {
        self.bar.set_message("the generator against wrk");
        let mut targets = vec![Arc::clone(&self.health)];
        targets.extend(self.clients.first().map(|(_, target)| Arc::clone(target)));
        results.generator.extend(against_wrk::run(
            self.runtime,
            self.client,
            &targets,
            u32::try_from(generator_threads()).unwrap_or(u32::MAX),
            servers.api.cpu(),
            &|| self.settle(),
        ));
        self.bar
            .inc(2 * targets.len() as u64 * against_wrk::DURATION.as_millis() as u64);
    }

    /// Holds the service to its CPU budget (`--service-cpus`), if one was asked for; where it
    /// cannot be, says why (once) and the suite goes on with the service sharing the machine.
    fn hold_to_budget(&self, servers: &mut Servers) {
        let Some(millicpus) = self.sizes.service_cpus_millicpus else {
            return;
        };
        match servers.limit_cpu(f64::from(millicpus) / 1_000.0, BUDGET_PERIOD_US) {
            Ok(()) => self.settle(),
            Err(error) => self.not_run(SuitePart::ServiceBudget, error),
        }
    }

    /// What stepping a refuted capacity down works with (see [`sustain`]).
    fn sustain(&self) -> sustain::Sustain<'_> {
        sustain::Sustain {
            runtime: self.runtime,
            client: self.client,
            sizes: self.sizes,
            pid: self.pid,
        }
    }

    /// Waits until both services are idle, so that a part's leftovers do not fall on the
    /// next.
    fn settle(&self) {
        for pid in [self.pid, self.second_pid] {
            if process::settle(pid, SETTLE_LIMIT).is_none() {
                eprintln!(
                    "bench: resilience: a service was still busy {} s after a part; the next \
                     starts anyway",
                    SETTLE_LIMIT.as_secs()
                );
            }
        }
    }

    /// Each client's capacity (see [`capacity`]) with the services held to `quota` millicpus
    /// (or not), every stretch paired with the reference on the other service: `rounds`
    /// rounds, in turn over the clients in a new random order each round, the client on the
    /// first service in odd rounds (the first, the third) and on the second in even ones,
    /// recorded with their median. Over TLS, what the client's mock-rates counted during its
    /// rounds is checked (see [`tls::negotiated`]): a row that fails it says why and is no
    /// figure.
    fn capacities(
        &self,
        rounds: u32,
        quota: Option<u32>,
        servers: &Servers,
    ) -> Result<Vec<ClientCapacity>, BenchError> {
        let sizes = (
            millis(self.sizes.ramp_step_ms),
            millis(self.sizes.confirm_ms),
        );
        let protocol = servers.protocol;
        let under = quota.map_or_else(String::new, |millicpus| {
            format!(" at {} CPU", f64::from(millicpus) / 1_000.0)
        });
        let admins = [0, 1].map(|side| {
            servers
                .side(side)
                .1
                .filter(|_| protocol.is_tls())
                .map(MockEndpoint::admin)
        });
        let counters = |side: usize| admins[side].as_ref().and_then(MockAdmin::counters);
        let mut measured: Vec<Vec<CapacityRound>> = vec![Vec::new(); self.clients.len()];
        let mut counted: Vec<Option<Counted>> = vec![Some(Counted::default()); self.clients.len()];
        let mut order: Vec<usize> = (0..self.clients.len()).collect();
        let mut shuffle = Shuffle::seeded();
        for round in 0..rounds {
            // A new order of the clients every round: the machine's drift falls on all alike.
            shuffle.shuffle(&mut order);
            // The sides alternate between rounds: neither service's placement is one client's.
            let side = usize::from(round % 2 == 1);
            for &index in &order {
                let (name, _) = &self.clients[index];
                let (rounds_of, counted) = (&mut measured[index], &mut counted[index]);
                self.bar.set_message(format!(
                    "capacity {} beside {}{under}, round {}/{rounds}",
                    protocol.qualify(name),
                    capacity::REFERENCE,
                    round + 1
                ));
                let before = counters(side);
                rounds_of.push(capacity::round(
                    self.runtime,
                    self.client,
                    self.pair(servers, index, side),
                    u8::from(side == 1),
                    sizes,
                    &|| self.settle(),
                )?);
                *counted = Counted::add(
                    *counted,
                    Counted::between(before.as_ref(), counters(side).as_ref()),
                );
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
            .zip(counted)
            .map(|(((name, _), rounds), counted)| {
                let label = protocol.qualify(name);
                let (tls, unchecked) = if protocol.is_tls() {
                    match tls::negotiated(*name, protocol, counted) {
                        Ok(negotiated) => (Some(negotiated), None),
                        Err(why) => {
                            eprintln!(
                                "bench: resilience: {label} is not a figure: {}",
                                reasons::unchecked(&why, protocol)
                            );
                            (None, Some(why))
                        }
                    }
                } else {
                    (None, None)
                };
                ClientCapacity {
                    client: *name,
                    protocol,
                    capacity_rps: capacity::median(&rounds),
                    latency_objective_ms: capacity::LATENCY_OBJECTIVE.as_secs_f64() * 1_000.0,
                    rounds,
                    refuted: None,
                    step_downs: Vec::new(),
                    cpu_quota_millicpus: quota,
                    tls,
                    unchecked,
                }
            })
            .collect())
    }

    /// The client `index` on service `side` and the reference on the other, each with its
    /// service's and its mock's CPU clocks: the two sides of a capacity round.
    fn pair<'s>(
        &'s self,
        servers: &'s Servers,
        index: usize,
        side: usize,
    ) -> [capacity::Side<'s>; 2] {
        let target = if side == 0 {
            &self.clients[index].1
        } else {
            &self.on_second[index]
        };
        let on = |side: usize, target| {
            let (api, mock) = servers.side(side);
            capacity::Side {
                target,
                service: api.cpu(),
                mock: mock.and_then(MockEndpoint::cpu),
            }
        };
        [on(side, target), on(1 - side, &self.reference[1 - side])]
    }

    /// Records that `part` could not run, the first time: the rest of the suite goes on.
    fn not_run(&self, part: SuitePart, error: String) {
        let mut not_run = self.not_run.borrow_mut();
        if not_run.iter().all(|&(recorded, _)| recorded != part) {
            not_run.push((part, NotRunWhy::Failed { error }));
        }
    }

    /// Each client's capacity again under each CPU quota asked for (`--cpu-quota`, a
    /// container's limit: a 100 ms period), the service held to it in place of its budget and
    /// let go after; where no quota can be set, why, and none.
    fn under_quotas(
        &self,
        servers: &mut Servers,
        rounds: u32,
        results: &mut ResilienceResults,
    ) -> Result<(), BenchError> {
        for &millicpus in &self.sizes.cpu_quotas_millicpus {
            let cpus = f64::from(millicpus) / 1_000.0;
            if let Err(error) = servers.limit_cpu(cpus, LIMIT_PERIOD_US) {
                self.not_run(SuitePart::CpuQuota, error);
                break;
            }
            self.settle();
            let measured = self.capacities(rounds, Some(millicpus), servers);
            let lifted = servers.unlimit_cpu();
            results.capacity.extend(measured?);
            lifted.map_err(|why| {
                BenchError::Resilience(format!("cannot lift the service's CPU quota: {why}"))
            })?;
            // Back to the suite's budget, should a part follow.
            self.hold_to_budget(servers);
            self.settle();
        }
        Ok(())
    }

    /// Every client's payments without the slow connections, then with them held open (see
    /// [`slow`]), then how the service ended them.
    fn slow_clients(
        &self,
        servers: &Servers,
        results: &mut ResilienceResults,
    ) -> Result<(), BenchError> {
        let sizes = self.sizes;
        let address = self.health.address;
        let payments = |name: ClientName, target: &Arc<ReadyScenario>| {
            self.bar
                .set_message(format!("slow clients {}", servers.protocol.qualify(name)));
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
                protocol: servers.protocol,
                rps: sizes.slow_rps,
                without,
                with,
                held_at_start,
            });
        }
        self.bar
            .set_message("waiting for the service to close the slow connections");
        let finished = slow_clients.finish();
        // The service ends them alike whatever its upstream speaks: http's are kept.
        results.slow_connections.get_or_insert(finished);
        self.bar.inc(slow::CLOSE_WAIT_LIMIT.as_millis() as u64);
        self.settle();
        Ok(())
    }
}
