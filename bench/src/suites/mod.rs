//! The suites: each reads the run settings and the servers it needs, and fills its rows of
//! the results. Adding one is a `SuiteName` variant, a module here, its rows in
//! [`crate::model::Results`] and its section in `report`.

mod adapters;
pub mod connections;
pub mod decode;
pub mod fanout;
pub mod faults;
pub mod latency;
pub mod load;
mod progress;

use crate::error::BenchError;
use crate::model::{Results, RunSettings, SuiteName};
use crate::servers::{ApiEndpoint, MockEndpoint};

/// What a suite gets to work with.
#[derive(Debug)]
pub struct SuiteContext<'a> {
    pub settings: &'a RunSettings,
    /// Present when any selected suite needs a server.
    pub mock: Option<&'a MockEndpoint>,
    /// The payment service, present when any selected suite drives it over HTTP.
    pub api: Option<&'a ApiEndpoint>,
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
        SuiteName::Latency => results.latency = latency::run(context.settings, mock()?)?,
        SuiteName::Connections => {
            let rows = connections::run(context.settings, mock()?)?;
            results.connections = rows.calls;
            results.construction = rows.construction;
        }
        SuiteName::Decode => results.decode = decode::run(context.settings)?,
        SuiteName::Load => {
            (results.load, results.capacity) = load::run(context.settings, api()?, context.mock)?;
        }
        SuiteName::Fanout => results.fanout = fanout::run(context.settings, mock()?, api()?)?,
        SuiteName::Faults => {
            let outcome = faults::run(context.settings, mock()?, api()?)?;
            results.faults = outcome.rows;
            results.fd_check = Some(outcome.fd_check);
        }
    }
    Ok(())
}
