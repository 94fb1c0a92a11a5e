//! One client's samples over the run, and the calls that make them: each call awaited, timed
//! and its answer checked, with the allocations and the mock's CPU time around a sample.

use std::time::Instant;

use application::Quotes;
use domain::CurrencyPair;

use crate::alloc::{AllocSnapshot, PeakWindow};
use crate::clients::{Counted, MockAdmin};
use crate::measure::process::ProcessCpu;
use bench_model::noise;
use bench_model::stats::summary::mean;
use bench_model::{ClientName, Noise, Run};

/// One client's measurements over the run.
pub(super) struct ClientRun {
    pub(super) name: ClientName,
    /// Successful calls' durations through the port in nanoseconds; reserved up front so that
    /// pushing never allocates inside a sample.
    pub(super) call_ns: Vec<u64>,
    /// With a larger answer: each sample's peak of live heap bytes through the port (see
    /// [`PeakWindow`]), reserved up front; `None` for the ordinary answer.
    pub(super) peak_bytes: Option<Vec<u64>>,
    /// The calls through the port.
    pub(super) port: Sampled,
    /// The same client called bare, sample for sample (see [`crate::suites::bare`]), on a
    /// client of its own.
    pub(super) bare: Sampled,
}

impl ClientRun {
    /// With `peaks`, each sample's peak heap is kept too.
    pub(super) fn new(name: ClientName, settings: &Run, peaks: bool) -> Self {
        let capacity =
            (settings.samples as usize).saturating_mul(settings.calls_per_sample as usize);
        Self {
            name,
            call_ns: Vec::with_capacity(capacity),
            peak_bytes: peaks.then(|| Vec::with_capacity(settings.samples as usize)),
            port: Sampled::new(settings.samples as usize),
            bare: Sampled::new(settings.samples as usize),
        }
    }

    /// The noise checks on the sample means through the port.
    pub(super) fn noise(&self) -> Noise {
        noise::check(&self.port.successful())
    }
}

/// One way of calling a client, over the run: its samples, calls, allocations and what the
/// mock counted of them.
#[derive(Debug)]
pub(super) struct Sampled {
    pub(super) sample_means_ns: Vec<Option<f64>>,
    pub(super) calls: u64,
    pub(super) failures: u64,
    pub(super) allocated: AllocSnapshot,
    /// What the mock counted during these calls, the warm-up included.
    pub(super) counted: Option<Counted>,
    pub(super) first_error: Option<String>,
    /// Each round's mean per call (ns) and allocations per call.
    pub(super) round_means_ns: Vec<f64>,
    pub(super) round_allocs: Vec<f64>,
    /// Where the current round started: its first sample, the calls and allocations before it.
    pub(super) round_start: (usize, u64, u64),
    /// The mock's CPU time during the timed calls, and the calls it covers; `None` once a
    /// reading failed.
    pub(super) mock_cpu: Option<(u64, u64)>,
}

impl Sampled {
    pub(super) fn new(samples: usize) -> Self {
        Self {
            sample_means_ns: Vec::with_capacity(samples),
            calls: 0,
            failures: 0,
            allocated: AllocSnapshot::default(),
            counted: Some(Counted::default()),
            first_error: None,
            round_means_ns: Vec::new(),
            round_allocs: Vec::new(),
            round_start: (0, 0, 0),
            mock_cpu: Some((0, 0)),
        }
    }

    /// Adds a sample of `calls` calls, and the mock's CPU time during them.
    pub(super) fn add_sample(
        &mut self,
        outcome: BatchOutcome,
        calls: u32,
        allocated: AllocSnapshot,
        mock_cpu_ns: Option<u64>,
    ) {
        self.allocated.add(allocated);
        self.calls += u64::from(calls);
        self.failures += outcome.failures;
        self.sample_means_ns.push(outcome.mean_ns());
        self.mock_cpu = self
            .mock_cpu
            .zip(mock_cpu_ns)
            .map(|((nanos, covered), more)| (nanos + more, covered + u64::from(calls)));
        self.note_error(outcome);
    }

    pub(super) fn note_error(&mut self, outcome: BatchOutcome) {
        if self.first_error.is_none() {
            self.first_error = outcome.first_error;
        }
    }

    /// Closes the current round: its mean per call and allocations per call.
    pub(super) fn end_round(&mut self) {
        let (first, calls_before, allocations_before) = self.round_start;
        let means: Vec<f64> = self.sample_means_ns[first..]
            .iter()
            .flatten()
            .copied()
            .collect();
        self.round_means_ns.extend(mean(&means));
        let calls = self.calls - calls_before;
        if calls > 0 {
            self.round_allocs
                .push((self.allocated.allocations - allocations_before) as f64 / calls as f64);
        }
        self.round_start = (
            self.sample_means_ns.len(),
            self.calls,
            self.allocated.allocations,
        );
    }

    /// `total` per call; 0 without calls.
    pub(super) fn per_call(&self, total: u64) -> f64 {
        if self.calls == 0 {
            0.0
        } else {
            total as f64 / self.calls as f64
        }
    }

    pub(super) fn sample_means_us(&self) -> Vec<Option<f64>> {
        self.sample_means_ns
            .iter()
            .map(|mean| mean.map(|nanos| nanos / 1_000.0))
            .collect()
    }

    /// The mock's CPU per call, in us.
    pub(super) fn mock_cpu_us(&self) -> Option<f64> {
        self.mock_cpu
            .filter(|&(_, calls)| calls > 0)
            .map(|(nanos, calls)| nanos as f64 / calls as f64 / 1_000.0)
    }

    pub(super) fn round_means_us(&self) -> Vec<f64> {
        self.round_means_ns
            .iter()
            .map(|nanos| nanos / 1_000.0)
            .collect()
    }

    /// The means of the samples that had a successful call.
    pub(super) fn successful(&self) -> Vec<f64> {
        self.sample_means_ns.iter().flatten().copied().collect()
    }
}

/// `count` calls (see [`call_repeatedly`]), what they allocated, and the mock's CPU time
/// during them (read on `cpu`, when given), adding what the mock counted of them to `into`'s
/// count. The mock's counters are read outside the allocation count and the CPU reading. With
/// `timed`, the durations are kept, and with its `peak_bytes` the peak of live heap bytes
/// over the calls (a [`PeakWindow`] around them alone).
pub(super) async fn counting<Call, Error>(
    admin: &MockAdmin<'_>,
    cpu: Option<&ProcessCpu>,
    into: &mut Sampled,
    pairs: &[CurrencyPair],
    count: u32,
    timed: Option<Timed<'_>>,
    call: impl FnMut() -> Call,
) -> (BatchOutcome, AllocSnapshot, Option<u64>)
where
    Call: Future<Output = Result<Quotes, Error>>,
    Error: std::fmt::Display,
{
    let before = admin.counters();
    let cpu_before = cpu.and_then(ProcessCpu::nanos);
    let (durations_ns, peak_bytes) = match timed {
        Some(Timed {
            durations_ns,
            peak_bytes,
        }) => (Some(durations_ns), peak_bytes),
        None => (None, None),
    };
    let window = peak_bytes.is_some().then(PeakWindow::open);
    let allocated_before = AllocSnapshot::now();
    let outcome = call_repeatedly(pairs, count, durations_ns, call).await;
    let allocated = AllocSnapshot::now().since(allocated_before);
    if let (Some(window), Some(peaks)) = (window, peak_bytes) {
        peaks.push(window.close());
    }
    let mock_cpu_ns = cpu_before
        .zip(cpu.and_then(ProcessCpu::nanos))
        .map(|(before, after)| after.saturating_sub(before));
    into.counted = Counted::add(
        into.counted,
        Counted::between(before.as_ref(), admin.counters().as_ref()),
    );
    (outcome, allocated, mock_cpu_ns)
}

/// Where a timed sample through the port keeps its calls' durations (ns) and, with a larger
/// answer, its peak of live heap bytes.
pub(super) struct Timed<'a> {
    pub(super) durations_ns: &'a mut Vec<u64>,
    pub(super) peak_bytes: Option<&'a mut Vec<u64>>,
}

/// What one batch of calls gave.
#[derive(Debug, Default)]
pub(crate) struct BatchOutcome {
    pub(crate) ok: u64,
    pub(super) failures: u64,
    pub(super) ok_ns: u64,
    pub(crate) first_error: Option<String>,
}

impl BatchOutcome {
    pub(super) fn mean_ns(&self) -> Option<f64> {
        (self.ok > 0).then(|| self.ok_ns as f64 / self.ok as f64)
    }
}

/// Makes `count` awaited calls one after another, timing each and checking its answer (both
/// pairs present); with `durations_ns`, the durations of successful calls are appended to it.
pub(crate) async fn call_repeatedly<Call, Error>(
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
