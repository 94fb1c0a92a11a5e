//! Suite `latency`: each adapter called through the `RatesProvider` port, one call at a time,
//! one reused client per adapter, BenchmarkDotNet style.
//!
//! Every adapter runs inside one actix `System` (a tokio current-thread runtime with a
//! `LocalSet`): awc's client is not `Send` and needs it, and the others get the same runtime so
//! the comparison is fair (ureq hops to the runtime's blocking pool, as in the api). Each
//! client gets its warm-up, then samples are interleaved (sample 1 of every client, then
//! sample 2, ...) so that machine noise falls on all clients alike.

use std::path::Path;
use std::time::Instant;

use application::{Quotes, RatesProvider};
use domain::{Currency, CurrencyPair};
use rates_common::ClientSettings;

use crate::alloc::AllocSnapshot;
use crate::clients::{Counted, MockAdmin};
use crate::error::BenchError;
use crate::model::{BareFigures, ClientName, LatencyRow, Noise, Protocol, RunSettings, SuiteName};
use crate::noise;
use crate::servers::MockEndpoint;
use crate::stats::{SampleSummary, median, percentile_nearest_rank, ratio_mean_sd};
use crate::suites::adapters::Adapter;
use crate::suites::bare::BareCall;
use crate::suites::progress::progress_bar;
use crate::suites::{adapters, tls};

/// The cross-rate call of a EUR -> JPY payment: one upstream request for two pairs.
pub fn cross_rate_pairs() -> [CurrencyPair; 2] {
    let jpy = Currency::parse("JPY").expect("JPY is an ISO 4217 code");
    [
        CurrencyPair::new(Currency::EUR, Currency::USD),
        CurrencyPair::new(Currency::USD, jpy),
    ]
}

/// One client's measurements over the run.
struct ClientRun {
    name: ClientName,
    /// Successful calls' durations through the port in nanoseconds; reserved up front so that
    /// pushing never allocates inside a sample.
    call_ns: Vec<u64>,
    /// The calls through the port.
    port: Sampled,
    /// The same client called bare, sample for sample (see [`crate::suites::bare`]), on a
    /// client of its own.
    bare: Sampled,
    /// Rounds of samples taken: 1, or more when a noisy row was measured again.
    rounds: u32,
}

/// One way of calling a client, over the run: its samples, calls, allocations and what the
/// mock counted of them.
#[derive(Debug)]
struct Sampled {
    sample_means_ns: Vec<Option<f64>>,
    calls: u64,
    failures: u64,
    allocated: AllocSnapshot,
    /// What the mock counted during these calls, the warm-up included.
    counted: Option<Counted>,
    first_error: Option<String>,
}

impl Sampled {
    fn new(samples: usize) -> Self {
        Self {
            sample_means_ns: Vec::with_capacity(samples),
            calls: 0,
            failures: 0,
            allocated: AllocSnapshot::default(),
            counted: Some(Counted::default()),
            first_error: None,
        }
    }

    /// Adds a sample of `calls` calls.
    fn add_sample(&mut self, outcome: BatchOutcome, calls: u32, allocated: AllocSnapshot) {
        self.allocated.add(allocated);
        self.calls += u64::from(calls);
        self.failures += outcome.failures;
        self.sample_means_ns.push(outcome.mean_ns());
        self.note_error(outcome);
    }

    fn note_error(&mut self, outcome: BatchOutcome) {
        if self.first_error.is_none() {
            self.first_error = outcome.first_error;
        }
    }

    /// Forgets the samples, calls and allocations measured so far; what the mock counted and
    /// the first error are kept.
    fn start_round(&mut self) {
        self.sample_means_ns.clear();
        self.calls = 0;
        self.failures = 0;
        self.allocated = AllocSnapshot::default();
    }

    /// `total` per call; 0 without calls.
    fn per_call(&self, total: u64) -> f64 {
        if self.calls == 0 {
            0.0
        } else {
            total as f64 / self.calls as f64
        }
    }

    fn sample_means_us(&self) -> Vec<Option<f64>> {
        self.sample_means_ns
            .iter()
            .map(|mean| mean.map(|nanos| nanos / 1_000.0))
            .collect()
    }
}

/// Runs the suite over every protocol of the run. Each protocol gets a mock-rates of the
/// suite's own when the bench runs mock-rates itself (over TLS for `https`, its CA given to
/// the clients), on the suite's CPU when pinned; a mock given by URL serves plain HTTP only,
/// so `https` is then left out, and said so. Pinned, this thread and the clients' threads run
/// on `settings.latency_cpu` too; see [`crate::affinity`] for why.
pub fn run(settings: &RunSettings, mock: &MockEndpoint) -> Result<Vec<LatencyRow>, BenchError> {
    let _pinned = settings
        .latency_cpu
        .map(crate::affinity::Pinned::to)
        .transpose()
        .map_err(|source| BenchError::io(Path::new("the CPU affinity"), source))?;
    let mut rows = Vec::new();
    for protocol in settings.protocols_of(SuiteName::Latency) {
        let tls = protocol.is_tls();
        let own_mock = if mock.is_child() && (tls || settings.latency_cpu.is_some()) {
            let exe = std::env::current_exe()
                .map_err(|source| BenchError::io(Path::new("the bench executable"), source))?;
            Some(MockEndpoint::spawn_on(&exe, settings.latency_cpu, tls)?)
        } else if tls {
            eprintln!(
                "bench: latency: {protocol} left out: it needs a mock-rates of the bench's own, \
                 and --mock-url gives one over plain HTTP"
            );
            continue;
        } else {
            None
        };
        rows.extend(measure(
            settings,
            own_mock.as_ref().unwrap_or(mock),
            protocol,
        )?);
    }
    Ok(rows)
}

/// Every client over `protocol`, against `mock`.
fn measure(
    settings: &RunSettings,
    mock: &MockEndpoint,
    protocol: Protocol,
) -> Result<Vec<LatencyRow>, BenchError> {
    let client_settings = ClientSettings {
        extra_ca_pem: mock.ca_pem().cloned(),
        http_version: protocol.client_http_version(),
        ..ClientSettings::for_base_url(mock.base_url())
    };
    let pairs = cross_rate_pairs();
    let clients = settings.clients_over(protocol);
    let calls_per_sample = u64::from(settings.calls_per_sample);
    let work = clients.len() as u64
        * (u64::from(settings.warmup_calls) + u64::from(settings.samples) * calls_per_sample);
    let bar = progress_bar(SuiteName::Latency, work);
    let admin = mock.admin();

    let system = actix_rt::System::new();
    let runs = system.block_on(async {
        let mut providers = Vec::with_capacity(clients.len());
        let mut bare_calls = Vec::with_capacity(clients.len());
        let mut runs = Vec::with_capacity(clients.len());
        for &name in &clients {
            providers.push(adapters::build(name, &client_settings)?);
            let bare_adapter = Adapter::build(name, &client_settings)?;
            bare_calls.push(
                BareCall::new(bare_adapter, &client_settings, &pairs)
                    .map_err(|why| BenchError::Latency(format!("{name}'s bare call: {why}")))?,
            );
            runs.push(ClientRun::new(name, settings));
        }

        let round = Round {
            settings,
            admin: &admin,
            pairs: &pairs,
            bar: &bar,
        };
        for ((run, provider), bare_call) in runs.iter_mut().zip(&providers).zip(&bare_calls) {
            round.warm_up(run, &**provider, bare_call).await;
        }
        round.sample(&mut runs, &providers, &bare_calls).await;
        // A noisy row is measured again, every client with it so that each Ratio still pairs
        // samples taken side by side; at most `remeasure` more rounds.
        for _ in 0..settings.remeasure {
            let noisy: Vec<ClientName> = runs
                .iter()
                .filter(|run| run.noise().flagged())
                .map(|run| run.name)
                .collect();
            if noisy.is_empty() {
                break;
            }
            eprintln!(
                "bench: latency over {protocol}: {} noisy (drift, several modes or skewed by \
                 outliers); measuring every client again",
                noisy
                    .iter()
                    .map(|name| name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            bar.inc_length(runs.len() as u64 * u64::from(settings.samples) * calls_per_sample);
            for run in &mut runs {
                run.start_round();
            }
            round.sample(&mut runs, &providers, &bare_calls).await;
        }
        // Inside the runtime: some clients stop background tasks or threads when dropped.
        drop(providers);
        drop(bare_calls);
        Ok::<_, BenchError>(runs)
    })?;
    bar.finish_and_clear();

    let baseline = runs
        .iter()
        .find(|run| run.name == ClientName::BASELINE)
        .map(|run| run.port.sample_means_ns.clone());
    runs.into_iter()
        .map(|run| summarize(&run, baseline.as_deref(), protocol))
        .collect()
}

/// One round of samples: `settings.samples` per client, interleaved.
struct Round<'a> {
    settings: &'a RunSettings,
    admin: &'a MockAdmin<'a>,
    pairs: &'a [CurrencyPair],
    bar: &'a indicatif::ProgressBar,
}

impl Round<'_> {
    /// `run`'s un-timed warm-up calls, through the port and bare.
    async fn warm_up(&self, run: &mut ClientRun, provider: &dyn RatesProvider, bare: &BareCall) {
        let (pairs, calls) = (self.pairs, self.settings.warmup_calls);
        self.bar.set_message(format!("warm-up {}", run.name));
        let (outcome, _) = self
            .counting(&mut run.port, calls, None, || provider.fetch_quotes(pairs))
            .await;
        run.port.note_error(outcome);
        let (outcome, _) = self
            .counting(&mut run.bare, calls, None, || bare.call(pairs))
            .await;
        run.bare.note_error(outcome);
        self.bar.inc(u64::from(calls));
    }

    /// Each client's samples through the port, each beside one of its bare calls: port first
    /// in even samples, bare first in odd ones, so that neither always runs on a machine just
    /// warmed (or disturbed) by the other.
    async fn sample(
        &self,
        runs: &mut [ClientRun],
        providers: &[Box<dyn RatesProvider>],
        bare_calls: &[BareCall],
    ) {
        let settings = self.settings;
        let calls_per_sample = u64::from(settings.calls_per_sample);
        let count = runs.len();
        for sample in 0..settings.samples as usize {
            // Rotate the start so that no client always runs right after another one.
            for offset in 0..count {
                let index = (sample + offset) % count;
                let run = &mut runs[index];
                self.bar.set_message(format!(
                    "sample {}/{} {}",
                    sample + 1,
                    settings.samples,
                    run.name
                ));
                if sample % 2 == 0 {
                    self.through_port(run, &*providers[index]).await;
                    self.bare(run, &bare_calls[index]).await;
                } else {
                    self.bare(run, &bare_calls[index]).await;
                    self.through_port(run, &*providers[index]).await;
                }
                self.bar.inc(calls_per_sample);
            }
        }
    }

    /// One sample of `run`'s calls through the port.
    async fn through_port(&self, run: &mut ClientRun, provider: &dyn RatesProvider) {
        let calls = self.settings.calls_per_sample;
        let (outcome, allocated) = self
            .counting(&mut run.port, calls, Some(&mut run.call_ns), || {
                provider.fetch_quotes(self.pairs)
            })
            .await;
        run.port.add_sample(outcome, calls, allocated);
    }

    /// One sample of `run`'s bare calls.
    async fn bare(&self, run: &mut ClientRun, bare_call: &BareCall) {
        let calls = self.settings.calls_per_sample;
        let (outcome, allocated) = self
            .counting(&mut run.bare, calls, None, || bare_call.call(self.pairs))
            .await;
        run.bare.add_sample(outcome, calls, allocated);
    }

    /// `count` calls (see [`call_repeatedly`]) and what they allocated, adding what the mock
    /// counted of them to `into`'s count. The mock is read outside the allocation count.
    async fn counting<Call, Error>(
        &self,
        into: &mut Sampled,
        count: u32,
        durations_ns: Option<&mut Vec<u64>>,
        call: impl FnMut() -> Call,
    ) -> (BatchOutcome, AllocSnapshot)
    where
        Call: Future<Output = Result<Quotes, Error>>,
        Error: std::fmt::Display,
    {
        let before = self.admin.counters();
        let allocated_before = AllocSnapshot::now();
        let outcome = call_repeatedly(self.pairs, count, durations_ns, call).await;
        let allocated = AllocSnapshot::now().since(allocated_before);
        into.counted = Counted::add(
            into.counted,
            Counted::between(before.as_ref(), self.admin.counters().as_ref()),
        );
        (outcome, allocated)
    }
}

/// What one batch of calls gave.
#[derive(Debug, Default)]
struct BatchOutcome {
    ok: u64,
    failures: u64,
    ok_ns: u64,
    first_error: Option<String>,
}

impl BatchOutcome {
    fn mean_ns(&self) -> Option<f64> {
        (self.ok > 0).then(|| self.ok_ns as f64 / self.ok as f64)
    }
}

/// Makes `count` awaited calls one after another, timing each and checking its answer (both
/// pairs present); with `durations_ns`, the durations of successful calls are appended to it.
async fn call_repeatedly<Call, Error>(
    pairs: &[CurrencyPair],
    count: u32,
    mut durations_ns: Option<&mut Vec<u64>>,
    mut call: impl FnMut() -> Call,
) -> BatchOutcome
where
    Call: Future<Output = Result<Quotes, Error>>,
    Error: std::fmt::Display,
{
    let mut outcome = BatchOutcome::default();
    for _ in 0..count {
        let start = Instant::now();
        let result = call().await;
        let elapsed = start.elapsed();
        let failure = match &result {
            Ok(quotes) if pairs.iter().all(|pair| quotes.get(pair).is_some()) => None,
            Ok(_) => Some("the answer lacks a requested pair".to_owned()),
            Err(error) => Some(error.to_string()),
        };
        match failure {
            None => {
                let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
                outcome.ok += 1;
                outcome.ok_ns += nanos;
                if let Some(durations) = durations_ns.as_deref_mut() {
                    durations.push(nanos);
                }
            }
            Some(message) => {
                outcome.failures += 1;
                if outcome.first_error.is_none() {
                    outcome.first_error = Some(message);
                }
            }
        }
        drop(result);
    }
    outcome
}

impl ClientRun {
    fn new(name: ClientName, settings: &RunSettings) -> Self {
        let capacity =
            (settings.samples as usize).saturating_mul(settings.calls_per_sample as usize);
        Self {
            name,
            call_ns: Vec::with_capacity(capacity),
            port: Sampled::new(settings.samples as usize),
            bare: Sampled::new(settings.samples as usize),
            rounds: 1,
        }
    }

    /// The noise checks on this round's sample means through the port.
    fn noise(&self) -> Noise {
        Noise {
            rounds: self.rounds,
            ..noise::check(&successful(&self.port))
        }
    }

    /// Forgets the round measured so far (its samples, calls and allocations, bare ones too)
    /// before another; what the mock counted, the warm-up included, and first errors are kept.
    fn start_round(&mut self) {
        self.call_ns.clear();
        self.port.start_round();
        self.bare.start_round();
        self.rounds += 1;
    }
}

fn summarize(
    run: &ClientRun,
    baseline: Option<&[Option<f64>]>,
    protocol: Protocol,
) -> Result<LatencyRow, BenchError> {
    let (port, bare) = (&run.port, &run.bare);
    let tls = protocol
        .is_tls()
        .then(|| tls::negotiated(run.name, protocol, run.name, port.counted))
        .transpose()?;
    let to_us = |nanos: f64| nanos / 1_000.0;
    let noise = run.noise().in_unit(to_us);
    let summary = SampleSummary::of(&successful(port));
    let mut sorted: Vec<f64> = run.call_ns.iter().map(|&nanos| nanos as f64).collect();
    sorted.sort_by(f64::total_cmp);
    let ratio = baseline.and_then(|baseline| ratio_mean_sd(&port.sample_means_ns, baseline));
    let bare_summary = SampleSummary::of(&successful(bare));
    let overhead = ratio_mean_sd(&port.sample_means_ns, &bare.sample_means_ns);
    let bare_figures = BareFigures {
        calls: bare.calls,
        failures: bare.failures,
        mean_us: bare_summary.map(|s| to_us(s.mean)),
        error_us: bare_summary.and_then(|s| s.error).map(to_us),
        overhead: overhead.map(|(mean, _)| mean),
        overhead_sd: overhead.map(|(_, sd)| sd),
        allocs_per_op: bare.per_call(bare.allocated.allocations),
        bytes_per_op: bare.per_call(bare.allocated.bytes),
        connections_opened: bare.counted.map(|counted| counted.connections),
        sample_means_us: bare.sample_means_us(),
        first_error: bare.first_error.clone(),
    };
    Ok(LatencyRow {
        client: run.name,
        protocol,
        tls,
        calls: port.calls,
        failures: port.failures,
        mean_us: summary.map(|s| to_us(s.mean)),
        error_us: summary.and_then(|s| s.error).map(to_us),
        stddev_us: summary.and_then(|s| s.std_dev).map(to_us),
        median_us: median(&sorted).map(to_us),
        p99_us: percentile_nearest_rank(&sorted, 99.0).map(to_us),
        ratio: ratio.map(|(mean, _)| mean),
        ratio_sd: ratio.map(|(_, sd)| sd),
        allocs_per_op: port.per_call(port.allocated.allocations),
        bytes_per_op: port.per_call(port.allocated.bytes),
        connections_opened: port.counted.map(|counted| counted.connections),
        sample_means_us: port.sample_means_us(),
        first_error: port.first_error.clone(),
        noise: Some(noise),
        bare: Some(bare_figures),
    })
}

/// The means of the samples that had a successful call.
fn successful(sampled: &Sampled) -> Vec<f64> {
    sampled.sample_means_ns.iter().flatten().copied().collect()
}
