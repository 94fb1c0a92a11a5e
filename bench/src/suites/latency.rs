//! Suite `latency`: each adapter called through the `RatesProvider` port, one call at a time,
//! one reused client per adapter, BenchmarkDotNet style.
//!
//! Every adapter runs inside one actix `System` (a tokio current-thread runtime with a
//! `LocalSet`): awc's client is not `Send` and needs it, and the others get the same runtime so
//! the comparison is fair (ureq hops to the runtime's blocking pool, as in the api). Each
//! client gets its warm-up, then samples are interleaved (sample 1 of every client, then
//! sample 2, ...) so that machine noise falls on all clients alike. The samples are taken in
//! `--rounds` rounds spread over the suite: every protocol's round 1, then every protocol's
//! round 2, ...; what a figure moves between rounds is its noise in the verdict.
//!
//! Beside the clients, a minimal client of the bench's own (see [`calibration`]) calls the
//! same mock-rates in the same rotation, and mock-rates' own CPU time is read around every
//! sample: the instrument's cost per call, per protocol, shown beside the clients' rows.
//! Pinned (the default), the suite then measures the clients over http once more with
//! nothing pinned, so that the report can say whether the ranks hold without the pinning.
//!
//! [`calibration`]: crate::suites::calibration

use std::path::Path;
use std::time::Instant;

use application::{Quotes, RatesProvider};
use domain::{Currency, CurrencyPair};
use rates_common::ClientSettings;

use crate::alloc::AllocSnapshot;
use crate::clients::{Counted, MockAdmin};
use crate::error::BenchError;
use crate::model::{
    BareFigures, CalibrationRow, ClientName, LatencyRow, Noise, Protocol, RunSettings, SuiteName,
};
use crate::noise;
use crate::process_cpu::ProcessCpu;
use crate::servers::MockEndpoint;
use crate::stats::{SampleSummary, median, percentile_nearest_rank, ratio_mean_sd};
use crate::suites::adapters::Adapter;
use crate::suites::bare::BareCall;
use crate::suites::calibration::MinimalClient;
use crate::suites::progress::progress_bar;
use crate::suites::{adapters, tls};
use crate::upstream;

/// The cross-rate call of a EUR -> JPY payment: one upstream request for two pairs.
pub fn cross_rate_pairs() -> [CurrencyPair; 2] {
    let jpy = Currency::parse("JPY").expect("JPY is an ISO 4217 code");
    [
        CurrencyPair::new(Currency::EUR, Currency::USD),
        CurrencyPair::new(Currency::USD, jpy),
    ]
}

/// What the suite measured.
#[derive(Debug, Default)]
pub struct LatencyResults {
    pub rows: Vec<LatencyRow>,
    pub calibration: Vec<CalibrationRow>,
    /// The clients over http with nothing pinned, when the suite ran pinned.
    pub unpinned: Vec<LatencyRow>,
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
    /// Each round's mean per call (ns) and allocations per call.
    round_means_ns: Vec<f64>,
    round_allocs: Vec<f64>,
    /// Where the current round started: its first sample, the calls and allocations before it.
    round_start: (usize, u64, u64),
    /// The mock's CPU time during the timed calls, and the calls it covers; `None` once a
    /// reading failed.
    mock_cpu: Option<(u64, u64)>,
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
            round_means_ns: Vec::new(),
            round_allocs: Vec::new(),
            round_start: (0, 0, 0),
            mock_cpu: Some((0, 0)),
        }
    }

    /// Adds a sample of `calls` calls, and the mock's CPU time during them.
    fn add_sample(
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

    fn note_error(&mut self, outcome: BatchOutcome) {
        if self.first_error.is_none() {
            self.first_error = outcome.first_error;
        }
    }

    /// Closes the current round: its mean per call and allocations per call.
    fn end_round(&mut self) {
        let (first, calls_before, allocations_before) = self.round_start;
        let means: Vec<f64> = self.sample_means_ns[first..]
            .iter()
            .flatten()
            .copied()
            .collect();
        if !means.is_empty() {
            self.round_means_ns
                .push(means.iter().sum::<f64>() / means.len() as f64);
        }
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

    /// The mock's CPU per call, in us.
    fn mock_cpu_us(&self) -> Option<f64> {
        self.mock_cpu
            .filter(|&(_, calls)| calls > 0)
            .map(|(nanos, calls)| nanos as f64 / calls as f64 / 1_000.0)
    }

    fn round_means_us(&self) -> Vec<f64> {
        self.round_means_ns
            .iter()
            .map(|nanos| nanos / 1_000.0)
            .collect()
    }
}

/// Runs the suite over every protocol of the run. Each protocol gets a mock-rates of the
/// suite's own when the bench runs mock-rates itself (over TLS for `https` and `h2`, its CA
/// given to the clients), on the suite's CPU when pinned; a mock given by URL serves plain
/// HTTP only, so `https` and `h2` are then left out, and said so. Pinned, this thread and the
/// clients' threads run on `settings.latency_cpu` too; see [`crate::affinity`] for why. Then,
/// when it ran pinned with mocks of its own, the clients over http once more, unpinned.
pub fn run(settings: &RunSettings, mock: &MockEndpoint) -> Result<LatencyResults, BenchError> {
    let exe = std::env::current_exe()
        .map_err(|source| BenchError::io(Path::new("the bench executable"), source))?;
    let pinned = settings
        .latency_cpu
        .map(crate::affinity::Pinned::to)
        .transpose()
        .map_err(|source| BenchError::io(Path::new("the CPU affinity"), source))?;
    let mut own_mocks = Vec::new();
    for protocol in settings.protocols_of(SuiteName::Latency) {
        let tls = protocol.is_tls();
        if mock.is_foreign() {
            // Its scheme already chose the protocols (`upstream::Target::restrict`).
            own_mocks.push((protocol, None));
        } else if mock.is_child() && (tls || settings.latency_cpu.is_some()) {
            own_mocks.push((
                protocol,
                Some(MockEndpoint::spawn_on(&exe, settings.latency_cpu, tls)?),
            ));
        } else if tls {
            eprintln!(
                "bench: latency: {protocol} left out: it needs a mock-rates of the bench's own, \
                 and --mock-url gives one over plain HTTP"
            );
        } else {
            own_mocks.push((protocol, None));
        }
    }
    let mocks: Vec<(Protocol, &MockEndpoint)> = own_mocks
        .iter()
        .map(|(protocol, own)| (*protocol, own.as_ref().unwrap_or(mock)))
        .collect();
    let mut results = measure(settings, &mocks, Part::Pinned)?;
    drop(own_mocks);
    drop(pinned);
    let unpinned_over_http = settings.latency_cpu.is_some()
        && mock.is_child()
        && settings
            .protocols_of(SuiteName::Latency)
            .contains(&Protocol::Http);
    if unpinned_over_http {
        // A thread of its own, started unpinned, so that its runtime and blocking pool are too.
        results.unpinned = std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    let unpinned_mock = MockEndpoint::spawn_on(&exe, None, false)?;
                    measure(
                        settings,
                        &[(Protocol::Http, &unpinned_mock)],
                        Part::Unpinned,
                    )
                    .map(|unpinned| unpinned.rows)
                })
                .join()
                .unwrap_or_else(|_| {
                    Err(BenchError::Latency(
                        "the unpinned measurement panicked".to_owned(),
                    ))
                })
        })?;
    }
    Ok(results)
}

/// Which part of the suite a measurement is: the whole (pinned, when the run pins), or the
/// unpinned check (http only, fewer samples, one round, no bare calls, no calibration).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Pinned,
    Unpinned,
}

/// Everything measured over one protocol.
struct ProtocolRun<'m> {
    protocol: Protocol,
    mock: &'m MockEndpoint,
    admin: MockAdmin<'m>,
    providers: Vec<Box<dyn RatesProvider>>,
    bare_calls: Vec<BareCall>,
    runs: Vec<ClientRun>,
    /// The minimal client and its samples (the pinned part only).
    calibration: Option<(MinimalClient, Sampled)>,
}

/// Every client over each of `mocks`' protocols, in rounds.
fn measure(
    settings: &RunSettings,
    mocks: &[(Protocol, &MockEndpoint)],
    part: Part,
) -> Result<LatencyResults, BenchError> {
    let pairs = cross_rate_pairs();
    let (samples, rounds) = match part {
        Part::Pinned => (
            settings.samples,
            settings.rounds.clamp(1, settings.samples.max(1)),
        ),
        Part::Unpinned => ((settings.samples / 3).max(2), 1),
    };
    let calls_per_sample = u64::from(settings.calls_per_sample);
    let subjects: u64 = mocks
        .iter()
        .map(|&(protocol, _)| settings.clients_over(protocol).len() as u64)
        .sum();
    let bar = progress_bar(
        SuiteName::Latency,
        subjects * (u64::from(settings.warmup_calls) + u64::from(samples) * calls_per_sample),
    );
    if part == Part::Unpinned {
        bar.set_prefix("latency (unpinned)");
    }

    let system = actix_rt::System::new();
    let measured = system.block_on(async {
        let mut protocols = Vec::with_capacity(mocks.len());
        for &(protocol, mock) in mocks {
            protocols.push(ProtocolRun::build(settings, mock, protocol, part, &pairs).await?);
        }
        let round = Round {
            settings,
            pairs: &pairs,
            bar: &bar,
            bare: part == Part::Pinned,
        };
        for protocol in &mut protocols {
            round.warm_up(protocol).await;
        }
        let mut taken = 0;
        for index in 0..rounds {
            // The samples spread evenly, the first rounds taking one more when they do not
            // divide.
            let count = samples / rounds + u32::from(index < samples % rounds);
            for protocol in &mut protocols {
                round.sample(protocol, taken, count).await;
                protocol.end_round();
            }
            taken += count;
        }
        // Inside the runtime: some clients stop background tasks or threads when dropped.
        let summaries = protocols
            .into_iter()
            .map(ProtocolRun::finish)
            .collect::<Vec<_>>();
        Ok::<_, BenchError>(summaries)
    })?;
    bar.finish_and_clear();
    let mut results = LatencyResults::default();
    for (protocol, runs, calibration) in measured {
        // The URL of a foreign upstream, whose counters are not there to read.
        let foreign = mocks
            .iter()
            .find(|(over, mock)| *over == protocol && mock.is_foreign())
            .map(|(_, mock)| mock.base_url());
        let baseline = runs
            .iter()
            .find(|run| run.name == ClientName::BASELINE)
            .map(|run| run.port.sample_means_ns.clone());
        results.rows.extend(
            runs.iter()
                .map(|run| summarize(run, baseline.as_deref(), (protocol, foreign), part)),
        );
        results
            .calibration
            .extend(calibration.map(|sampled| calibration_row(protocol, &sampled)));
    }
    Ok(results)
}

impl<'m> ProtocolRun<'m> {
    /// The clients over `protocol`, each built twice (through the port, and bare), and the
    /// minimal client, all against `mock`.
    async fn build(
        settings: &RunSettings,
        mock: &'m MockEndpoint,
        protocol: Protocol,
        part: Part,
        pairs: &[CurrencyPair],
    ) -> Result<Self, BenchError> {
        let client_settings = ClientSettings {
            extra_ca_pem: mock.ca_pem().cloned(),
            http_version: protocol.client_http_version(),
            ..ClientSettings::for_base_url(mock.base_url())
        };
        let clients = settings.clients_over(protocol);
        let mut run = Self {
            protocol,
            mock,
            admin: mock.admin(),
            providers: Vec::with_capacity(clients.len()),
            bare_calls: Vec::with_capacity(clients.len()),
            runs: Vec::with_capacity(clients.len()),
            calibration: None,
        };
        for &name in &clients {
            run.providers.push(adapters::build(name, &client_settings)?);
            let bare_adapter = Adapter::build(name, &client_settings)?;
            run.bare_calls.push(
                BareCall::new(bare_adapter, &client_settings, pairs)
                    .map_err(|why| BenchError::Latency(format!("{name}'s bare call: {why}")))?,
            );
            run.runs.push(ClientRun::new(name, settings));
        }
        if part == Part::Pinned && mock.is_foreign() {
            eprintln!(
                "bench: latency: the calibration over {protocol} is not measured: it measures \
                 mock-rates' own cost, and the upstream is not mock-rates"
            );
        } else if part == Part::Pinned {
            match MinimalClient::connect(
                mock.base_url(),
                mock.ca_pem().map(|pem| &pem[..]),
                protocol,
                pairs,
            )
            .await
            {
                Ok(client) => {
                    run.calibration = Some((client, Sampled::new(settings.samples as usize)));
                }
                Err(why) => eprintln!(
                    "bench: latency: the calibration over {protocol} is not measured: {why}"
                ),
            }
        }
        Ok(run)
    }

    fn end_round(&mut self) {
        for run in &mut self.runs {
            run.port.end_round();
            run.bare.end_round();
        }
        if let Some((_, sampled)) = &mut self.calibration {
            sampled.end_round();
        }
    }

    /// The runs and the calibration's samples; the clients dropped (inside the runtime).
    fn finish(self) -> (Protocol, Vec<ClientRun>, Option<Sampled>) {
        drop(self.providers);
        drop(self.bare_calls);
        (
            self.protocol,
            self.runs,
            self.calibration.map(|(_, sampled)| sampled),
        )
    }
}

/// How the suite takes its calls.
struct Round<'a> {
    settings: &'a RunSettings,
    pairs: &'a [CurrencyPair],
    bar: &'a indicatif::ProgressBar,
    /// Whether each client's bare call is sampled beside it.
    bare: bool,
}

impl Round<'_> {
    /// Every client's un-timed warm-up calls, through the port and bare, and the minimal
    /// client's.
    async fn warm_up(&self, protocol: &mut ProtocolRun<'_>) {
        let (pairs, calls) = (self.pairs, self.settings.warmup_calls);
        let admin = &protocol.admin;
        for ((run, provider), bare) in protocol
            .runs
            .iter_mut()
            .zip(&protocol.providers)
            .zip(&protocol.bare_calls)
        {
            self.bar
                .set_message(format!("warm-up {} over {}", run.name, protocol.protocol));
            let (outcome, _, _) = counting(admin, None, &mut run.port, pairs, calls, None, || {
                provider.fetch_quotes(pairs)
            })
            .await;
            run.port.note_error(outcome);
            if self.bare {
                let (outcome, _, _) =
                    counting(admin, None, &mut run.bare, pairs, calls, None, || {
                        bare.call(pairs)
                    })
                    .await;
                run.bare.note_error(outcome);
            }
            self.bar.inc(u64::from(calls));
        }
        if let Some((client, sampled)) = &mut protocol.calibration {
            let (outcome, _, _) = counting(admin, None, sampled, pairs, calls, None, || {
                client.call(pairs)
            })
            .await;
            sampled.note_error(outcome);
        }
    }

    /// `count` samples of every subject over `protocol` (samples `first..first + count` of
    /// the suite), interleaved: each client through the port beside one of its bare calls
    /// (port first in even samples, bare first in odd ones, so that neither always runs on a
    /// machine just warmed, or disturbed, by the other), and the minimal client.
    async fn sample(&self, protocol: &mut ProtocolRun<'_>, first: u32, count: u32) {
        let settings = self.settings;
        let calls_per_sample = u64::from(settings.calls_per_sample);
        let clients = protocol.runs.len();
        let subjects = clients + usize::from(protocol.calibration.is_some());
        let cpu = protocol.mock.cpu();
        for sample in first as usize..(first + count) as usize {
            // Rotate the start so that no subject always runs right after another one.
            for offset in 0..subjects {
                let index = (sample + offset) % subjects;
                if index == clients {
                    if let Some((client, sampled)) = &mut protocol.calibration {
                        self.timed(&protocol.admin, cpu, sampled, || client.call(self.pairs))
                            .await;
                    }
                    continue;
                }
                let run = &mut protocol.runs[index];
                self.bar.set_message(format!(
                    "sample {}/{} {} over {}",
                    sample + 1,
                    settings.samples,
                    run.name,
                    protocol.protocol
                ));
                let provider = &*protocol.providers[index];
                let bare_call = &protocol.bare_calls[index];
                let (admin, pairs) = (&protocol.admin, self.pairs);
                let port_first = sample % 2 == 0;
                if port_first {
                    self.through_port(admin, cpu, run, provider).await;
                }
                if self.bare {
                    self.timed(admin, None, &mut run.bare, || bare_call.call(pairs))
                        .await;
                }
                if !port_first {
                    self.through_port(admin, cpu, run, provider).await;
                }
                self.bar.inc(calls_per_sample);
            }
        }
    }

    /// One sample of `run`'s calls through the port, the mock's CPU read around it.
    async fn through_port(
        &self,
        admin: &MockAdmin<'_>,
        cpu: Option<&ProcessCpu>,
        run: &mut ClientRun,
        provider: &dyn RatesProvider,
    ) {
        let calls = self.settings.calls_per_sample;
        let (outcome, allocated, mock_cpu_ns) = counting(
            admin,
            cpu,
            &mut run.port,
            self.pairs,
            calls,
            Some(&mut run.call_ns),
            || provider.fetch_quotes(self.pairs),
        )
        .await;
        run.port.add_sample(outcome, calls, allocated, mock_cpu_ns);
    }

    /// One sample of `call` into `into`.
    async fn timed<Call, Error>(
        &self,
        admin: &MockAdmin<'_>,
        cpu: Option<&ProcessCpu>,
        into: &mut Sampled,
        call: impl FnMut() -> Call,
    ) where
        Call: Future<Output = Result<Quotes, Error>>,
        Error: std::fmt::Display,
    {
        let calls = self.settings.calls_per_sample;
        let (outcome, allocated, mock_cpu_ns) =
            counting(admin, cpu, into, self.pairs, calls, None, call).await;
        into.add_sample(outcome, calls, allocated, mock_cpu_ns);
    }
}

/// `count` calls (see [`call_repeatedly`]), what they allocated, and the mock's CPU time
/// during them (read on `cpu`, when given), adding what the mock counted of them to `into`'s
/// count. The mock's counters are read outside the allocation count and the CPU reading.
async fn counting<Call, Error>(
    admin: &MockAdmin<'_>,
    cpu: Option<&ProcessCpu>,
    into: &mut Sampled,
    pairs: &[CurrencyPair],
    count: u32,
    durations_ns: Option<&mut Vec<u64>>,
    call: impl FnMut() -> Call,
) -> (BatchOutcome, AllocSnapshot, Option<u64>)
where
    Call: Future<Output = Result<Quotes, Error>>,
    Error: std::fmt::Display,
{
    let before = admin.counters();
    let cpu_before = cpu.and_then(ProcessCpu::nanos);
    let allocated_before = AllocSnapshot::now();
    let outcome = call_repeatedly(pairs, count, durations_ns, call).await;
    let allocated = AllocSnapshot::now().since(allocated_before);
    let mock_cpu_ns = cpu_before
        .zip(cpu.and_then(ProcessCpu::nanos))
        .map(|(before, after)| after.saturating_sub(before));
    into.counted = Counted::add(
        into.counted,
        Counted::between(before.as_ref(), admin.counters().as_ref()),
    );
    (outcome, allocated, mock_cpu_ns)
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
        }
    }

    /// The noise checks on the sample means through the port.
    fn noise(&self) -> Noise {
        noise::check(&successful(&self.port))
    }
}

/// `run`'s row over `protocol`, against the foreign upstream at the URL given with it, if one.
fn summarize(
    run: &ClientRun,
    baseline: Option<&[Option<f64>]>,
    (protocol, foreign): (Protocol, Option<&str>),
    which: Part,
) -> LatencyRow {
    let (port, bare) = (&run.port, &run.bare);
    // A row over TLS that mock-rates did not count as such is not a figure; the run goes on.
    // Against a foreign upstream nothing is counted: the row says so, and what was checked.
    let not_measured = foreign.map(|url| upstream::row_not_measured(protocol, url));
    let (tls, unchecked) = if protocol.is_tls() && not_measured.is_none() {
        match tls::negotiated(run.name, protocol, run.name, port.counted) {
            Ok(negotiated) => (Some(negotiated), None),
            Err(error) => (None, Some(error.to_string())),
        }
    } else {
        (None, None)
    };
    let to_us = |nanos: f64| nanos / 1_000.0;
    let noise = run.noise().in_unit(to_us);
    let summary = SampleSummary::of(&successful(port));
    let mut sorted: Vec<f64> = run.call_ns.iter().map(|&nanos| nanos as f64).collect();
    sorted.sort_by(f64::total_cmp);
    let ratio = baseline.and_then(|baseline| ratio_mean_sd(&port.sample_means_ns, baseline));
    let bare_figures = (which == Part::Pinned).then(|| {
        let bare_summary = SampleSummary::of(&successful(bare));
        let overhead = ratio_mean_sd(&port.sample_means_ns, &bare.sample_means_ns);
        BareFigures {
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
        }
    });
    LatencyRow {
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
        bare: bare_figures,
        round_means_us: port.round_means_us(),
        round_allocs_per_op: port.round_allocs.clone(),
        mock_cpu_us: port.mock_cpu_us(),
        unchecked,
        not_measured,
    }
}

/// The minimal client's row over `protocol`.
fn calibration_row(protocol: Protocol, sampled: &Sampled) -> CalibrationRow {
    let summary = SampleSummary::of(&successful(sampled));
    let to_us = |nanos: f64| nanos / 1_000.0;
    CalibrationRow {
        protocol,
        calls: sampled.calls,
        failures: sampled.failures,
        mean_us: summary.map(|s| to_us(s.mean)),
        error_us: summary.and_then(|s| s.error).map(to_us),
        round_means_us: sampled.round_means_us(),
        // Per call, the mock's CPU means something only when every call was answered.
        mock_cpu_us: sampled.mock_cpu_us().filter(|_| sampled.failures == 0),
        first_error: sampled.first_error.clone(),
    }
}

/// The means of the samples that had a successful call.
fn successful(sampled: &Sampled) -> Vec<f64> {
    sampled.sample_means_ns.iter().flatten().copied().collect()
}
