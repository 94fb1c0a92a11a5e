//! The suites: each reads the run settings and the servers it needs, and fills its rows of
//! the results. Adding one is a `SuiteName` variant, a module here, its rows in
//! [`bench_model::Results`] and its section in `report`.

pub(crate) mod adapters;
pub mod adoption;
mod bare;
mod calibration;
pub mod connections;
pub mod cost;
pub mod decode;
pub mod fanout;
pub mod faults;
pub mod idle;
pub mod latency;
pub mod load;
pub mod memory;
mod progress;
pub mod releases;
pub mod resilience;
pub mod resolution;
pub(crate) mod shuffle;
mod tls;

pub use adapters::catalogue;

use crate::error::BenchError;
use crate::servers::{ApiEndpoint, MockEndpoint, Stack};
use bench_model::{Protocol, Results, RunPlan, RunSettings, SuiteName};

/// What a suite gets to work with.
#[derive(Debug)]
pub struct SuiteContext<'a> {
    pub settings: &'a RunSettings,
    /// Present when any selected suite needs a server.
    pub mock: Option<&'a MockEndpoint>,
    /// The payment service, present when any selected suite drives it over HTTP.
    pub api: Option<&'a ApiEndpoint>,
    /// Payment services calling a mock-rates over TLS (see [`crate::servers::TlsServers`]):
    /// present when a suite that drives the service runs over `https` or `h2` and the bench
    /// runs its own servers.
    pub tls: Vec<Stack<'a>>,
}

impl<'a> SuiteContext<'a> {
    /// What `suite` runs over, one stack per protocol of the run, in the run's order: `http`
    /// with the run's servers, `https` and `h2` with the TLS stacks when there are some (their
    /// absence was said when the run started); the fanout suite also gets the h2 stack with a
    /// stream limit.
    fn stacks(&self, suite: SuiteName) -> Result<Vec<Stack<'a>>, BenchError> {
        let mut stacks = Vec::with_capacity(self.settings.protocols.len());
        for protocol in RunPlan::of(self.settings).protocols(suite) {
            match protocol {
                Protocol::Http => stacks.push(Stack {
                    protocol,
                    mock: self.mock.ok_or(BenchError::NoMock(suite))?,
                    api: self.api.ok_or(BenchError::NoApi(suite))?,
                    stream_limit: None,
                }),
                Protocol::Https | Protocol::H2 => stacks.extend(self.tls.iter().filter(|stack| {
                    stack.protocol == protocol
                        && (stack.stream_limit.is_none() || suite == SuiteName::Fanout)
                })),
            }
        }
        Ok(stacks)
    }
}

/// Runs `suite` and stores its rows in `results`.
pub fn run(
    suite: SuiteName,
    context: &SuiteContext<'_>,
    results: &mut Results,
) -> Result<(), BenchError> {
    let mock = || context.mock.ok_or(BenchError::NoMock(suite));
    let api = || context.api.ok_or(BenchError::NoApi(suite));
    match suite {
        SuiteName::Latency => {
            let measured = latency::run(context.settings, mock()?)?;
            results.latency = measured.rows;
            results.calibration = measured.calibration;
            results.latency_unpinned = measured.unpinned;
            results.latency_by_body = measured.bodies;
        }
        SuiteName::Connections => {
            let rows = connections::run(context.settings, mock()?)?;
            results.connections = rows.calls;
            results.construction = rows.construction;
        }
        SuiteName::Decode => results.decode = decode::run(context.settings)?,
        SuiteName::Cost => {
            if let Some(why) = cost::unavailable() {
                eprintln!("bench: cost: skipped: {why}");
                results.cost_skipped = Some(why);
            } else {
                results.cost = cost::run(context.settings, mock()?)?;
                match cost::service::run(context.settings, mock()?) {
                    Ok(rows) => results.service_cost = rows,
                    Err(error) => {
                        eprintln!("bench: cost: the service's instructions per payment: {error}");
                        results.service_cost_skipped = Some(error.to_string());
                    }
                }
            }
        }
        SuiteName::Load => results.load = load::run(context.settings, &context.stacks(suite)?)?,
        SuiteName::Fanout => {
            for stack in context.stacks(suite)? {
                results.fanout.extend(fanout::run(context.settings, stack)?);
            }
        }
        SuiteName::Faults => {
            let outcome = faults::run(context.settings, mock()?, api()?)?;
            results.faults = outcome.rows;
            results.fd_check = Some(outcome.fd_check);
        }
        SuiteName::Resilience => match resilience::run(context.settings, mock()?, api()?)? {
            resilience::Outcome::Ran(rows) => results.resilience = *rows,
            resilience::Outcome::Skipped(why) => {
                eprintln!("bench: resilience: skipped: {why}");
                results.resilience_skipped = Some(why);
            }
        },
        SuiteName::Memory => results.memory = memory::run(context.settings, mock()?)?,
        SuiteName::Idle => match idle::run(context.settings, mock()?)? {
            idle::Outcome::Ran(rows) => results.idle = rows,
            idle::Outcome::Skipped(why) => {
                eprintln!("bench: idle: skipped: {why}");
                results.idle_skipped = Some(why);
            }
        },
        SuiteName::Resolution => match resolution::run(context.settings)? {
            resolution::Outcome::Ran(rows) => results.resolution = rows,
            resolution::Outcome::Skipped(why) => {
                eprintln!("bench: resolution: skipped: {why}");
                results.resolution_skipped = Some(why);
            }
        },
        SuiteName::Dependencies => results.dependencies = adoption::dependencies(context.settings),
        SuiteName::Releases => results.releases = releases::run(context.settings)?,
        SuiteName::Adoption => match adoption::run(context.settings, mock()?)? {
            adoption::Outcome::Ran {
                results: rows,
                failed,
            } => {
                results.adoption = rows;
                results.adoption_skipped = failed;
            }
            adoption::Outcome::Skipped(why) => {
                eprintln!("bench: adoption: skipped: {why}");
                results.adoption_skipped.push(why);
            }
        },
    }
    Ok(())
}
