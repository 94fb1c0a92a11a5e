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

use application::RatesProvider;
use domain::{Currency, CurrencyPair};
use mock_rates::Stats;
use rates_common::ClientSettings;

use crate::alloc::AllocSnapshot;
use crate::clients::{Counted, MockAdmin};
use crate::error::BenchError;
use crate::model::{ClientName, LatencyRow, Noise, Protocol, RunSettings, SuiteName};
use crate::noise;
use crate::servers::MockEndpoint;
use crate::stats::{SampleSummary, median, percentile_nearest_rank, ratio_mean_sd};
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
    /// Successful calls' durations in nanoseconds; reserved up front so that pushing never
    /// allocates inside a sample.
    call_ns: Vec<u64>,
    sample_means_ns: Vec<Option<f64>>,
    calls: u64,
    failures: u64,
    allocated: AllocSnapshot,
    /// What the mock counted during this client's warm-up and samples.
    counted: Option<Counted>,
    first_error: Option<String>,
    /// Rounds of samples taken: 1, or more when a noisy row was measured again.
    rounds: u32,
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
    for &protocol in &settings.protocols {
        let tls = protocol == Protocol::Https;
        let own_mock = if mock.is_child() && (tls || settings.latency_cpu.is_some()) {
            let exe = std::env::current_exe()
                .map_err(|source| BenchError::io(Path::new("the bench executable"), source))?;
            Some(MockEndpoint::spawn_on(&exe, settings.latency_cpu, tls)?)
        } else if tls {
            eprintln!(
                "bench: latency: https left out: it needs a mock-rates of the bench's own, \
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
        let mut runs = Vec::with_capacity(clients.len());
        for &name in &clients {
            providers.push(adapters::build(name, &client_settings)?);
            let capacity =
                (settings.samples as usize).saturating_mul(settings.calls_per_sample as usize);
            runs.push(ClientRun {
                name,
                call_ns: Vec::with_capacity(capacity),
                sample_means_ns: Vec::with_capacity(settings.samples as usize),
                calls: 0,
                failures: 0,
                allocated: AllocSnapshot::default(),
                counted: Some(Counted::default()),
                first_error: None,
                rounds: 1,
            });
        }

        for (run, provider) in runs.iter_mut().zip(&providers) {
            bar.set_message(format!("warm-up {}", run.name));
            let before = admin.counters();
            let mut discarded = Vec::with_capacity(settings.warmup_calls as usize);
            let outcome =
                call_repeatedly(&**provider, &pairs, settings.warmup_calls, &mut discarded).await;
            run.count(&admin, before.as_ref());
            if run.first_error.is_none() {
                run.first_error = outcome.first_error;
            }
            bar.inc(u64::from(settings.warmup_calls));
        }

        let round = Round {
            settings,
            admin: &admin,
            pairs: &pairs,
            bar: &bar,
        };
        round.sample(&mut runs, &providers).await;
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
            round.sample(&mut runs, &providers).await;
        }
        // Inside the runtime: some clients stop background tasks or threads when dropped.
        drop(providers);
        Ok::<_, BenchError>(runs)
    })?;
    bar.finish_and_clear();

    let baseline = runs
        .iter()
        .find(|run| run.name == ClientName::BASELINE)
        .map(|run| run.sample_means_ns.clone());
    runs.into_iter()
        .map(|run| summarize(run, baseline.as_deref(), protocol))
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
    async fn sample(&self, runs: &mut [ClientRun], providers: &[Box<dyn RatesProvider>]) {
        let settings = self.settings;
        let calls_per_sample = u64::from(settings.calls_per_sample);
        let count = runs.len();
        for sample in 0..settings.samples as usize {
            // Rotate the start so that no client always runs right after another one.
            for offset in 0..count {
                let index = (sample + offset) % count;
                let (run, provider) = (&mut runs[index], &*providers[index]);
                self.bar.set_message(format!(
                    "sample {}/{} {}",
                    sample + 1,
                    settings.samples,
                    run.name
                ));
                let before = self.admin.counters();
                let allocated_before = AllocSnapshot::now();
                let outcome = call_repeatedly(
                    provider,
                    self.pairs,
                    settings.calls_per_sample,
                    &mut run.call_ns,
                )
                .await;
                let allocated = AllocSnapshot::now().since(allocated_before);
                run.count(self.admin, before.as_ref());
                run.allocated.allocations += allocated.allocations;
                run.allocated.bytes += allocated.bytes;
                run.calls += calls_per_sample;
                run.failures += outcome.failures;
                run.sample_means_ns.push(outcome.mean_ns());
                if run.first_error.is_none() {
                    run.first_error = outcome.first_error;
                }
                self.bar.inc(calls_per_sample);
            }
        }
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

/// Makes `count` awaited calls one after another, timing each and checking its answer; the
/// durations of successful calls are appended to `durations_ns`.
async fn call_repeatedly(
    provider: &dyn RatesProvider,
    pairs: &[CurrencyPair],
    count: u32,
    durations_ns: &mut Vec<u64>,
) -> BatchOutcome {
    let mut outcome = BatchOutcome::default();
    for _ in 0..count {
        let start = Instant::now();
        let result = provider.fetch_quotes(pairs).await;
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
                durations_ns.push(nanos);
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
    /// The noise checks on this round's sample means.
    fn noise(&self) -> Noise {
        let means: Vec<f64> = self.sample_means_ns.iter().flatten().copied().collect();
        Noise {
            rounds: self.rounds,
            ..noise::check(&means)
        }
    }

    /// Forgets the round measured so far (its samples, calls and allocations) before another;
    /// what the mock counted, the warm-up included, is kept.
    fn start_round(&mut self) {
        self.call_ns.clear();
        self.sample_means_ns.clear();
        self.calls = 0;
        self.failures = 0;
        self.allocated = AllocSnapshot::default();
        self.rounds += 1;
    }

    /// Adds what the mock counted since `before`.
    fn count(&mut self, admin: &MockAdmin<'_>, before: Option<&Stats>) {
        let counted = Counted::between(before, admin.counters().as_ref());
        self.counted = Counted::add(self.counted, counted);
    }
}

fn summarize(
    run: ClientRun,
    baseline: Option<&[Option<f64>]>,
    protocol: Protocol,
) -> Result<LatencyRow, BenchError> {
    let tls = match protocol {
        Protocol::Http => None,
        Protocol::Https => Some(tls::negotiated(run.name, run.name, run.counted)?),
    };
    let to_us = |nanos: f64| nanos / 1_000.0;
    let noise = run.noise().in_unit(to_us);
    let means: Vec<f64> = run.sample_means_ns.iter().flatten().copied().collect();
    let summary = SampleSummary::of(&means);
    let mut sorted: Vec<f64> = run.call_ns.iter().map(|&nanos| nanos as f64).collect();
    sorted.sort_by(f64::total_cmp);
    let ratio = baseline.and_then(|baseline| ratio_mean_sd(&run.sample_means_ns, baseline));
    let per_call = |total: u64| {
        if run.calls == 0 {
            0.0
        } else {
            total as f64 / run.calls as f64
        }
    };
    Ok(LatencyRow {
        client: run.name,
        protocol,
        tls,
        calls: run.calls,
        failures: run.failures,
        mean_us: summary.map(|s| to_us(s.mean)),
        error_us: summary.and_then(|s| s.error).map(to_us),
        stddev_us: summary.and_then(|s| s.std_dev).map(to_us),
        median_us: median(&sorted).map(to_us),
        p99_us: percentile_nearest_rank(&sorted, 99.0).map(to_us),
        ratio: ratio.map(|(mean, _)| mean),
        ratio_sd: ratio.map(|(_, sd)| sd),
        allocs_per_op: per_call(run.allocated.allocations),
        bytes_per_op: per_call(run.allocated.bytes),
        connections_opened: run.counted.map(|counted| counted.connections),
        sample_means_us: run
            .sample_means_ns
            .iter()
            .map(|mean| mean.map(to_us))
            .collect(),
        first_error: run.first_error,
        noise: Some(noise),
    })
}
