//! The one shape of a suite: what it is given, what it gives back, where its rows go.
//!
//! A suite is a module with a type that implements [`Suite`]. What it needs (mock-rates, the
//! payment service, servers over TLS, root, a tool) is its [`SuiteName`]'s and the plan's: a
//! suite the plan skips is never run, and [`SuiteContext`] holds the servers the plan had
//! started for it.

use crate::error::BenchError;
use crate::servers::{ApiEndpoint, MockEndpoint, Stack};
use bench_model::{NotRunWhy, Protocol, Results, Run, SuiteName, SuitePart};

/// A suite of the bench.
pub trait Suite {
    const NAME: SuiteName;
    /// What a run of it measured.
    type Rows;

    /// Runs it: its rows, or why it could not run at all.
    ///
    /// # Errors
    /// A server it needs is missing, or measuring failed past what a row can record.
    fn run(context: &SuiteContext<'_>) -> Result<Outcome<Self::Rows>, BenchError>;

    /// Puts its rows into `results`; each part of it that could not run, with why.
    fn store(rows: Self::Rows, results: &mut Results) -> Vec<(SuitePart, NotRunWhy)>;
}

/// What a suite did: its rows, or why it did not run.
#[derive(Debug)]
pub enum Outcome<Rows> {
    Ran(Rows),
    NotRun(NotRunWhy),
}

/// What a suite gets to work with: the run, decided, and the servers it started.
#[derive(Debug)]
pub struct SuiteContext<'a> {
    pub settings: &'a Run,
    /// Present when a suite of the run calls mock-rates (or, with `--upstream-url`, the
    /// server given).
    pub mock: Option<&'a MockEndpoint>,
    /// The payment service, present when a suite of the run drives it over plain HTTP.
    pub api: Option<&'a ApiEndpoint>,
    /// Payment services calling a mock-rates over TLS (see [`crate::servers::TlsServers`]):
    /// present when a suite that drives the service runs over `https` or `h2`.
    pub tls: Vec<Stack<'a>>,
}

impl<'a> SuiteContext<'a> {
    /// The run's mock-rates, which `suite` needs.
    ///
    /// # Errors
    /// The run started none.
    pub fn mock(&self, suite: SuiteName) -> Result<&'a MockEndpoint, BenchError> {
        self.mock.ok_or(BenchError::NoMock(suite))
    }

    /// The run's payment service, which `suite` needs.
    ///
    /// # Errors
    /// The run started none.
    pub fn api(&self, suite: SuiteName) -> Result<&'a ApiEndpoint, BenchError> {
        self.api.ok_or(BenchError::NoApi(suite))
    }

    /// What `suite` runs over, one stack per protocol of its plan, in the run's order: `http`
    /// with the run's servers, `https` and `h2` with the TLS stacks; the fanout suite also
    /// gets the h2 stack with a stream limit.
    ///
    /// # Errors
    /// A server the plan needs over http was not started.
    pub fn stacks(&self, suite: SuiteName) -> Result<Vec<Stack<'a>>, BenchError> {
        let mut stacks = Vec::new();
        for protocol in self.settings.plan().protocols(suite) {
            match protocol {
                Protocol::Http => stacks.push(Stack {
                    protocol,
                    mock: self.mock(suite)?,
                    api: self.api(suite)?,
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
