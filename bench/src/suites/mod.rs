//! The suites and their registry. A suite reads the run settings and a mock endpoint, and
//! fills its part of the results; adding one is a variant here, a module, a field in
//! [`crate::report::json::Results`] and its tables in `report`.

pub mod decode;
pub mod latency;

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
    pub const ALL: [SuiteName; 2] = [SuiteName::Latency, SuiteName::Decode];

    pub fn as_str(self) -> &'static str {
        match self {
            SuiteName::Latency => "latency",
            SuiteName::Decode => "decode",
        }
    }

    /// Whether the suite calls mock-rates over HTTP.
    pub fn needs_mock(self) -> bool {
        match self {
            SuiteName::Latency => true,
            SuiteName::Decode => false,
        }
    }

    /// Whether the suite drives the payment service over HTTP (and so needs it started).
    pub fn needs_api(self) -> bool {
        match self {
            SuiteName::Latency | SuiteName::Decode => false,
        }
    }

    /// Runs the suite and stores its rows in `results`.
    pub fn run(self, context: &SuiteContext<'_>, results: &mut Results) -> Result<(), BenchError> {
        match self {
            SuiteName::Latency => {
                let mock = context.mock.ok_or(BenchError::NoMock(self))?;
                results.latency = latency::run(context.settings, mock)?;
            }
            SuiteName::Decode => results.decode = decode::run(context.settings)?,
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
