//! One thing the suite measures, a client making calls in a mode or a client being built, and
//! how one batch of it runs: timed per call, its allocations and the process's CPU time read
//! around the batch (around each build, for builds, whose drop is left out).

use std::time::Instant;

use application::RatesProvider;
use domain::CurrencyPair;
use rates_common::{BuildError, ClientSettings};

use crate::alloc::AllocSnapshot;
use crate::measure::own::CpuTime;
use crate::servers::MockEndpoint;
use crate::suites::adapters;
use crate::suites::connections::tally::BatchOutcome;
use bench_model::{ClientName, ClientTrust, ConnectionMode};

/// What a subject does, once per unit of its batches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// One call through the port, in this mode.
    Calls(ConnectionMode),
    /// Build one client, no call.
    Builds(ClientTrust),
}

pub struct MeasuredClient<'m> {
    pub client: ClientName,
    pub work: Work,
    settings: ClientSettings,
    /// The client that the modes keeping one reuse for every call.
    provider: Option<Box<dyn RatesProvider>>,
    /// The server the calls go to, whose counters tell what they opened; `None` for builds.
    pub mock: Option<&'m MockEndpoint>,
}

impl<'m> MeasuredClient<'m> {
    /// `client` calling `mock` in `mode`, built from `settings` (once, unless the mode builds
    /// one per call). Call it inside the actix `System` (awc needs one).
    pub fn calls(
        client: ClientName,
        mode: ConnectionMode,
        settings: ClientSettings,
        mock: &'m MockEndpoint,
    ) -> Result<Self, BuildError> {
        let provider = match mode {
            ConnectionMode::BuiltPerCall => None,
            ConnectionMode::Pooled
            | ConnectionMode::NewConnection
            | ConnectionMode::NewConnectionFull => Some(adapters::build(client, &settings)?),
        };
        Ok(Self {
            client,
            work: Work::Calls(mode),
            settings,
            provider,
            mock: Some(mock),
        })
    }

    /// `client` built from `settings` (which trust `trust`), again and again.
    pub fn builds(client: ClientName, trust: ClientTrust, settings: ClientSettings) -> Self {
        Self {
            client,
            work: Work::Builds(trust),
            settings,
            provider: None,
            mock: None,
        }
    }

    /// `count` calls (or builds), one after another, each awaited and checked; fewer if
    /// `until` comes first (none is started after it, at least one is made).
    pub async fn run(
        &self,
        count: u32,
        until: Option<Instant>,
        pairs: &[CurrencyPair],
    ) -> BatchOutcome {
        let units = Units { count, until };
        match (self.work, &self.provider) {
            (Work::Builds(_), _) => self.build_repeatedly(units),
            (Work::Calls(_), Some(provider)) => {
                measure_batch(units, || call(&**provider, pairs)).await
            }
            (Work::Calls(_), None) => measure_batch(units, || self.build_and_call(pairs)).await,
        }
    }

    /// A client of its own for one call, dropped before the clock stops: all of it is the
    /// cost of the anti-pattern.
    async fn build_and_call(&self, pairs: &[CurrencyPair]) -> Result<(), String> {
        let provider =
            adapters::build(self.client, &self.settings).map_err(|error| error.to_string())?;
        let answer = call(&*provider, pairs).await;
        drop(provider);
        answer
    }

    /// Builds, each timed and counted alone; the drop of each comes after its reading.
    fn build_repeatedly(&self, units: Units) -> BatchOutcome {
        let mut outcome = BatchOutcome {
            cpu: Some(CpuTime::default()),
            ..BatchOutcome::default()
        };
        for made in 0..units.count {
            if units.over(made) {
                break;
            }
            let cpu_before = CpuTime::now();
            let allocated_before = AllocSnapshot::now();
            let start = Instant::now();
            let built = adapters::build(self.client, &self.settings);
            let elapsed = start.elapsed();
            let allocated = AllocSnapshot::now().since(allocated_before);
            let cpu = cpu_since(cpu_before);
            outcome.allocated.allocations += allocated.allocations;
            outcome.allocated.bytes += allocated.bytes;
            outcome.cpu = outcome.cpu.zip(cpu).map(|(sum, more)| sum.plus(more));
            match built {
                Ok(provider) => {
                    outcome.succeeded(nanos(elapsed));
                    drop(provider);
                }
                Err(error) => outcome.failed(error.to_string()),
            }
        }
        outcome
    }
}

/// How many units a batch makes: `count`, or fewer if `until` comes first.
#[derive(Clone, Copy)]
struct Units {
    count: u32,
    until: Option<Instant>,
}

impl Units {
    /// Whether the batch stops before its unit number `made`: past `until`, the first excepted.
    fn over(self, made: u32) -> bool {
        made > 0 && self.until.is_some_and(|until| Instant::now() >= until)
    }
}

/// The runs of `unit`, each timed; allocations and CPU time over the whole batch.
async fn measure_batch<F, Fut>(units: Units, mut unit: F) -> BatchOutcome
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<(), String>>,
{
    let mut outcome = BatchOutcome::default();
    let cpu_before = CpuTime::now();
    let allocated_before = AllocSnapshot::now();
    for made in 0..units.count {
        if units.over(made) {
            break;
        }
        let start = Instant::now();
        let answer = unit().await;
        let elapsed = start.elapsed();
        match answer {
            Ok(()) => outcome.succeeded(nanos(elapsed)),
            Err(message) => outcome.failed(message),
        }
    }
    outcome.allocated = AllocSnapshot::now().since(allocated_before);
    outcome.cpu = cpu_since(cpu_before);
    outcome
}

/// One call through the port, its answer checked: both pairs present.
async fn call(provider: &dyn RatesProvider, pairs: &[CurrencyPair]) -> Result<(), String> {
    match provider.fetch_quotes(pairs).await {
        Ok(quotes) if pairs.iter().all(|pair| quotes.get(pair).is_some()) => Ok(()),
        Ok(_) => Err("the answer lacks a requested pair".to_owned()),
        Err(error) => Err(error.to_string()),
    }
}

fn cpu_since(before: Option<CpuTime>) -> Option<CpuTime> {
    before
        .zip(CpuTime::now())
        .map(|(before, now)| now.since(before))
}

fn nanos(elapsed: std::time::Duration) -> u64 {
    u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX)
}
