//! The suites and their registry. A suite reads the run settings and a mock endpoint, and
//! fills its part of the results; adding one is a variant here, a module, a field in
//! [`crate::report::json::Results`] and its tables in `report`.

pub mod decode;
pub mod fanout;
pub mod faults;
pub mod latency;
pub mod load;

use std::fmt;

use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};

use crate::BenchError;
use crate::api_process::ApiEndpoint;
use crate::cli::RunSettings;
use crate::mock_process::MockEndpoint;
use crate::report::json::Results;

/// A suite, as named on the command line and in results.json.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    clap::ValueEnum,
    Serialize,
    Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum SuiteName {
    /// Each adapter through the port, sequential calls: time, allocations, connections.
    Latency,
    /// The Free Forex body decoded five ways: time and allocations per decode.
    Decode,
    /// The payment service at a constant request rate (open model), per scenario: latency
    /// percentiles from the intended send time, failures, CPU and memory; then a closed-model
    /// capacity step.
    Load,
    /// Groups of payments through the api's batch endpoint, sequential vs concurrent, against
    /// an upstream with added latency: wall time, ideal, efficiency.
    Fanout,
    /// Every mock fault x every client through the api: error kind, status, time to fail,
    /// recovery; a fault storm with the api's file descriptors counted before and after.
    Faults,
}

/// What a suite gets to work with.
#[derive(Debug)]
pub struct SuiteContext<'a> {
    pub settings: &'a RunSettings,
    /// Present when any selected suite needs a server.
    pub mock: Option<&'a MockEndpoint>,
    /// The payment service, present when any selected suite drives it over HTTP.
    pub api: Option<&'a ApiEndpoint>,
}

impl SuiteName {
    /// Every suite, in the order a default run takes them.
    pub const ALL: [SuiteName; 5] = [
        SuiteName::Latency,
        SuiteName::Decode,
        SuiteName::Load,
        SuiteName::Fanout,
        SuiteName::Faults,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SuiteName::Latency => "latency",
            SuiteName::Decode => "decode",
            SuiteName::Load => "load",
            SuiteName::Fanout => "fanout",
            SuiteName::Faults => "faults",
        }
    }

    /// Whether the suite calls mock-rates over HTTP.
    pub fn needs_mock(self) -> bool {
        match self {
            SuiteName::Latency | SuiteName::Load | SuiteName::Fanout | SuiteName::Faults => true,
            SuiteName::Decode => false,
        }
    }

    /// Whether the suite drives the payment service over HTTP (and so needs it started).
    pub fn needs_api(self) -> bool {
        match self {
            SuiteName::Latency | SuiteName::Decode => false,
            SuiteName::Load | SuiteName::Fanout | SuiteName::Faults => true,
        }
    }

    /// Runs the suite and stores its rows in `results`.
    pub fn run(self, context: &SuiteContext<'_>, results: &mut Results) -> Result<(), BenchError> {
        match self {
            SuiteName::Latency => {
                let mock = context.mock.ok_or(BenchError::NoMock(self))?;
                results.latency = match context.settings.latency_cpu {
                    None => latency::run(context.settings, mock)?,
                    Some(cpu) => latency::run_pinned(context.settings, mock, cpu)?,
                };
            }
            SuiteName::Decode => results.decode = decode::run(context.settings)?,
            SuiteName::Load => {
                let api = context.api.ok_or(BenchError::NoApi(self))?;
                (results.load, results.capacity) = load::run(context.settings, api, context.mock)?;
            }
            SuiteName::Fanout => {
                let mock = context.mock.ok_or(BenchError::NoMock(self))?;
                let api = context.api.ok_or(BenchError::NoApi(self))?;
                results.fanout = fanout::run(context.settings, mock, api)?;
            }
            SuiteName::Faults => {
                let mock = context.mock.ok_or(BenchError::NoMock(self))?;
                let api = context.api.ok_or(BenchError::NoApi(self))?;
                let outcome = faults::run(context.settings, mock, api)?;
                results.faults = outcome.rows;
                results.fd_check = Some(outcome.fd_check);
            }
        }
        Ok(())
    }
}

impl fmt::Display for SuiteName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A progress bar on stderr (hidden when stderr is not a terminal). It has no ticker thread
/// and is only touched between samples, so drawing it never lands in a measurement.
fn progress_bar(suite: SuiteName, length: u64) -> ProgressBar {
    let bar = ProgressBar::new(length);
    if let Ok(style) = ProgressStyle::with_template(
        "{prefix:>8} [{elapsed_precise}] {bar:32.cyan/blue} {percent:>3}% {msg}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix(suite.as_str());
    bar
}
