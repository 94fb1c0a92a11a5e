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

mod protocol_run;
mod rows;
mod sampled;

/// Calls made one after another, each timed and its answer checked (the resolution suite's too).
pub(crate) use sampled::call_repeatedly;

use std::path::Path;

use domain::{Currency, CurrencyPair};

use crate::error::BenchError;
use crate::servers::MockEndpoint;
use crate::suites::adapters;
use crate::suites::progress::progress_bar;
use crate::suites::shape::{Outcome, Suite, SuiteContext};
use bench_model::{CalibrationRow, ClientName, Decode, LatencyRow, Protocol, Run, SuiteName};
use bench_model::{NotRunWhy, Results, SuitePart};
use protocol_run::{ProtocolRun, Round};
use rows::{Part, calibration_row, summarize};

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
    /// The clients over http with each larger answer (`settings.latency_body_sizes`).
    pub bodies: Vec<LatencyRow>,
}
/// The latency suite (see the module's documentation).
#[derive(Debug)]
pub struct Latency;

impl Suite for Latency {
    const NAME: SuiteName = SuiteName::Latency;
    type Rows = LatencyResults;

    fn run(context: &SuiteContext<'_>) -> Result<Outcome<LatencyResults>, BenchError> {
        self::run(context.settings, context.mock(Self::NAME)?).map(Outcome::Ran)
    }

    fn store(rows: LatencyResults, results: &mut Results) -> Vec<(SuitePart, NotRunWhy)> {
        results.latency = rows.rows;
        results.calibration = rows.calibration;
        results.latency_unpinned = rows.unpinned;
        results.latency_by_body = rows.bodies;
        Vec::new()
    }
}

/// Runs the suite over every protocol of the run. Each protocol gets a mock-rates of the
/// suite's own when the bench runs mock-rates itself (over TLS for `https` and `h2`, its CA
/// given to the clients), on the suite's CPU when pinned; a mock given by URL serves plain
/// HTTP only, so `https` and `h2` are then left out, and said so. Pinned, this thread and the
/// clients' threads run on `settings.latency_cpu` too; see [`crate::affinity`] for why. Then,
/// when it ran pinned with mocks of its own, the clients over http once more, unpinned.
pub fn run(settings: &Run, mock: &MockEndpoint) -> Result<LatencyResults, BenchError> {
    let exe = crate::error::bench_executable()?;
    let pinned = settings
        .latency_cpu
        .map(crate::affinity::Pinned::to)
        .transpose()
        .map_err(|source| BenchError::io(Path::new("the CPU affinity"), source))?;
    let mut own_mocks = Vec::new();
    for protocol in settings.plan().protocols(SuiteName::Latency) {
        let tls = protocol.is_tls();
        if mock.is_foreign() {
            // Its scheme already chose the protocols (`upstream::GivenUpstream::restrict`).
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
    // The larger answers, over http against the same (pinned) mock-rates of the bench's own.
    let http_mock = mocks
        .iter()
        .find(|(protocol, _)| *protocol == Protocol::Http)
        .map(|&(_, mock)| mock);
    let bodies = settings
        .plan()
        .over(SuiteName::Latency, Protocol::Http)
        .map(|over| over.bodies.clone())
        .unwrap_or_default();
    match http_mock {
        Some(http_mock) if mock.is_child() => {
            for &bytes in &bodies {
                let measured =
                    measure(settings, &[(Protocol::Http, http_mock)], Part::Body(bytes))?;
                results.bodies.extend(measured.rows);
            }
        }
        _ if bodies.is_empty() => {}
        _ => eprintln!(
            "bench: latency: the larger answers are not measured: they need a mock-rates of the \
             bench's own (its /size/N), and over http"
        ),
    }
    drop(own_mocks);
    drop(pinned);
    let unpinned_over_http = settings.latency_cpu.is_some()
        && mock.is_child()
        && settings.plan().runs(SuiteName::Latency, Protocol::Http);
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

/// Every client over each of `mocks`' protocols, in rounds.
fn measure(
    settings: &Run,
    mocks: &[(Protocol, &MockEndpoint)],
    part: Part,
) -> Result<LatencyResults, BenchError> {
    let pairs = cross_rate_pairs();
    let (samples, rounds) = match part {
        Part::Pinned | Part::Body(_) => (
            settings.samples,
            settings.rounds.clamp(1, settings.samples.max(1)),
        ),
        Part::Unpinned => ((settings.samples / 3).max(2), 1),
    };
    let calls_per_sample = part.calls(settings.calls_per_sample, 10);
    let warmup_calls = part.calls(settings.warmup_calls, 5);
    // A larger answer is also decoded as it arrives, by the clients that offer it, side by
    // side with the whole answer's calls.
    let decodes: &[Decode] = match part {
        Part::Body(_) => &[Decode::Whole, Decode::Streamed],
        Part::Pinned | Part::Unpinned => &[Decode::Whole],
    };
    let subjects: u64 = mocks
        .iter()
        .flat_map(|&(protocol, _)| {
            decodes.iter().map(move |&decode| {
                settings
                    .plan()
                    .clients(SuiteName::Latency, protocol)
                    .into_iter()
                    .filter(|&name| {
                        adapters::decodes(name).contains(&adapters::body_decode(decode))
                    })
                    .count() as u64
            })
        })
        .sum();
    let bar = progress_bar(
        SuiteName::Latency,
        subjects * (u64::from(warmup_calls) + u64::from(samples) * u64::from(calls_per_sample)),
    );
    match part {
        Part::Pinned => {}
        Part::Unpinned => bar.set_prefix("latency (unpinned)"),
        Part::Body(bytes) => bar.set_prefix(format!("latency ({bytes} B answer)")),
    }

    let system = actix_rt::System::new();
    let measured = system.block_on(async {
        let mut protocols = Vec::with_capacity(mocks.len());
        for &(protocol, mock) in mocks {
            for &decode in decodes {
                protocols.push(
                    ProtocolRun::build(settings, (mock, protocol, decode), part, &pairs).await?,
                );
            }
        }
        let round = Round {
            settings,
            pairs: &pairs,
            bar: &bar,
            bare: part == Part::Pinned,
            calls_per_sample,
            warmup_calls,
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
    for (protocol, decode, runs, calibration) in measured {
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
                .map(|run| summarize(run, baseline.as_deref(), (protocol, foreign, decode), part)),
        );
        results
            .calibration
            .extend(calibration.map(|sampled| calibration_row(protocol, &sampled)));
    }
    Ok(results)
}
