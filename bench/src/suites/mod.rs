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
pub mod outcome;
mod progress;
pub mod releases;
pub mod resilience;
pub mod resolution;
pub(crate) mod shuffle;
mod tls;

pub use adapters::catalogue;
pub use outcome::Outcome;

use crate::error::BenchError;
use crate::servers::{ApiEndpoint, MockEndpoint, Stack};
use bench_model::{NotRun, NotRunWhy, Protocol, Results, Run, SuiteName, SuitePart};

/// What a suite gets to work with.
#[derive(Debug)]
pub struct SuiteContext<'a> {
    pub settings: &'a Run,
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
        let mut stacks = Vec::new();
        for protocol in self.settings.plan().protocols(suite) {
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

/// Runs `suite` and stores its rows, or why it did not run, in `results`: a suite the plan
/// skips is not started.
pub fn run(
    suite: SuiteName,
    context: &SuiteContext<'_>,
    results: &mut Results,
) -> Result<(), BenchError> {
    if let Some(skip) = context.settings.plan().skipped(suite) {
        not_run(results, suite, None, NotRunWhy::Planned { skip });
        return Ok(());
    }
    let mock = || context.mock.ok_or(BenchError::NoMock(suite));
    let api = || context.api.ok_or(BenchError::NoApi(suite));
    let settings = context.settings;
    match suite {
        SuiteName::Latency => {
            let measured = latency::run(settings, mock()?)?;
            results.latency = measured.rows;
            results.calibration = measured.calibration;
            results.latency_unpinned = measured.unpinned;
            results.latency_by_body = measured.bodies;
        }
        SuiteName::Connections => {
            let rows = connections::run(settings, mock()?)?;
            results.connections = rows.calls;
            results.construction = rows.construction;
        }
        SuiteName::Decode => results.decode = decode::run(settings)?,
        SuiteName::Cost => {
            results.cost = cost::run(settings, mock()?)?;
            match cost::service::run(settings, mock()?) {
                Ok(rows) => results.service_cost = rows,
                Err(error) => {
                    let why = NotRunWhy::Failed {
                        error: error.to_string(),
                    };
                    not_run(results, suite, Some(SuitePart::ServiceCost), why);
                }
            }
        }
        SuiteName::Load => results.load = load::run(settings, &context.stacks(suite)?)?,
        SuiteName::Fanout => {
            for stack in context.stacks(suite)? {
                results.fanout.extend(fanout::run(settings, stack)?);
            }
        }
        SuiteName::Faults => {
            let outcome = faults::run(settings, mock()?, api()?)?;
            results.faults = outcome.rows;
            results.fd_check = Some(outcome.fd_check);
        }
        SuiteName::Resilience => {
            let measured = resilience::run(settings)?;
            results.resilience = measured.results;
            for (part, why) in measured.not_run {
                not_run(results, suite, Some(part), why);
            }
        }
        SuiteName::Memory => results.memory = memory::run(settings, mock()?)?,
        SuiteName::Idle => results.idle = idle::run(settings)?,
        SuiteName::Resolution => match resolution::run(settings)? {
            Outcome::Ran(rows) => results.resolution = rows,
            Outcome::NotRun(why) => not_run(results, suite, None, why),
        },
        SuiteName::Dependencies => results.dependencies = adoption::dependencies(settings),
        SuiteName::Releases => results.releases = releases::run(settings)?,
        SuiteName::Adoption => match adoption::run(settings, mock()?)? {
            Outcome::Ran(adoption::Measured {
                results: rows,
                failed,
            }) => {
                results.adoption = rows;
                for (client, error) in failed {
                    let part = SuitePart::Probe { client };
                    not_run(results, suite, Some(part), NotRunWhy::Failed { error });
                }
            }
            Outcome::NotRun(why) => not_run(results, suite, None, why),
        },
    }
    Ok(())
}

/// Records that `suite` (or `part` of it) did not run, and says so on stderr.
pub(crate) fn not_run(
    results: &mut Results,
    suite: SuiteName,
    part: Option<SuitePart>,
    why: NotRunWhy,
) {
    eprintln!(
        "bench: {}",
        bench_report::report::not_run_line(suite, part, &why)
    );
    results.not_run.push(NotRun { suite, part, why });
}
