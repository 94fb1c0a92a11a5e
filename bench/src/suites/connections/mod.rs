//! Suite `connections`: what a call costs when it does not reuse a connection, and when the
//! client itself is built for it, each against the same client's pooled call; and what building
//! a client costs. Over every protocol of the run:
//!
//! - `pooled`: one client, its connection reused (the latency suite's call);
//! - `new_connection`: one client keeping no idle connection (`max_idle_per_host = 0`), so each
//!   call connects (and over https shakes hands, resuming where the client keeps sessions);
//! - `new_connection_full`: the same against a mock-rates with resumption off (https only);
//! - `built_per_call`: a client built, called once and dropped per call;
//! - and client builds alone: plain, with the system's roots, with one extra CA.
//!
//! Every (mode, client) pair and every (trust, client) build is a subject; each gets a
//! warm-up whose mean sizes its samples, and the samples of the calls' subjects are
//! interleaved round by round, as in the latency suite, so that machine noise falls on all
//! alike and each mode's sample sits in the same round as the pooled sample it is divided by;
//! the builds' rounds come after. The mock's
//! counters are read around every batch: a mode that must open a connection per call and did
//! not, or a row over https without the TLS the mock counted, gives no figure but the reason.

mod measured;
pub mod settings;
mod tally;

use std::path::Path;
use std::time::{Duration, Instant};

use domain::CurrencyPair;
use indicatif::ProgressBar;
use rates_common::ClientSettings;

use crate::clients::{Counted, MockAdmin};
use crate::error::BenchError;
use crate::servers::{MockEndpoint, Serving};
use crate::suites::latency::cross_rate_pairs;
use crate::suites::progress::progress_bar;
use crate::suites::shape::{Outcome, Suite, SuiteContext};
use bench_model::stats::summary::block_means;
use bench_model::{
    ClientTrust, ConnectionMode, ConnectionsRow, ConnectionsSettings, ConstructionRow, NotCounted,
    Protocol, Run, SuiteName,
};
use bench_model::{NotRunWhy, Results, SuitePart};
use bench_report::report::reasons;
use measured::{MeasuredClient, Work};
use tally::{BatchOutcome, Tally, calls_per_sample, fill_ratios};

/// The suite's rows: calls, and builds.
#[derive(Debug, Default)]
pub struct Rows {
    pub calls: Vec<ConnectionsRow>,
    pub construction: Vec<ConstructionRow>,
}
/// The connections suite (see the module's documentation).
#[derive(Debug)]
pub struct Connections;

impl Suite for Connections {
    const NAME: SuiteName = SuiteName::Connections;
    type Rows = Rows;

    fn run(context: &SuiteContext<'_>) -> Result<Outcome<Rows>, BenchError> {
        self::run(context.settings, context.mock(Self::NAME)?).map(Outcome::Ran)
    }

    fn store(rows: Rows, results: &mut Results) -> Vec<(SuitePart, NotRunWhy)> {
        results.connections = rows.calls;
        results.construction = rows.construction;
        Vec::new()
    }
}

/// Runs the suite over every protocol of the run, each against mock-rates servers of its own
/// when the bench runs mock-rates itself; a mock given by URL serves plain HTTP only, so
/// `https` is then left out, and said so. Pinned like the latency suite when the run pins.
pub fn run(settings: &Run, mock: &MockEndpoint) -> Result<Rows, BenchError> {
    let _pinned = settings
        .latency_cpu
        .map(crate::affinity::Pinned::to)
        .transpose()
        .map_err(|source| BenchError::io(Path::new("the CPU affinity"), source))?;
    let mut rows = Rows::default();
    for protocol in settings.plan().protocols(SuiteName::Connections) {
        let Some(servers) = Servers::start(protocol, settings.latency_cpu, mock)? else {
            eprintln!(
                "bench: connections: https left out: it needs mock-rates of the bench's own, \
                 and --mock-url gives one over plain HTTP"
            );
            continue;
        };
        let (calls, construction) = measure(settings, &servers, protocol)?;
        rows.calls.extend(calls);
        rows.construction.extend(construction);
    }
    Ok(rows)
}

/// The mock-rates servers of one protocol.
struct Servers<'a> {
    /// Started for the suite, when the bench runs mock-rates itself.
    own: Option<MockEndpoint>,
    /// The run's mock, used over plain HTTP when the bench does not run it.
    given: &'a MockEndpoint,
    /// Over https, a server with session resumption off, for `new_connection_full`.
    no_resumption: Option<MockEndpoint>,
}

impl<'a> Servers<'a> {
    /// The servers `protocol` needs; `None` when it cannot have them (https without a mock
    /// of the bench's own).
    fn start(
        protocol: Protocol,
        cpu: Option<usize>,
        given: &'a MockEndpoint,
    ) -> Result<Option<Self>, BenchError> {
        if given.is_foreign() {
            // Its scheme chose the protocols; it has no twin without resumption.
            if protocol.is_tls() {
                eprintln!(
                    "bench: connections: new_connection_full left out: it needs a server with \
                     TLS session resumption off, and the upstream is not the bench's"
                );
            }
            return Ok(Some(Self {
                own: None,
                given,
                no_resumption: None,
            }));
        }
        if !given.is_child() {
            return Ok((protocol == Protocol::Http).then_some(Self {
                own: None,
                given,
                no_resumption: None,
            }));
        }
        let exe = crate::error::bench_executable()?;
        let (serving, no_resumption) = match protocol {
            Protocol::Http => (Serving::Http, None),
            // Never over h2 (see `SuiteName::runs_over`); it would be https's servers.
            Protocol::Https | Protocol::H2 => (
                Serving::HTTPS,
                Some(MockEndpoint::spawn_serving(
                    &exe,
                    cpu,
                    Serving::Https {
                        resumption: false,
                        max_concurrent_streams: None,
                    },
                )?),
            ),
        };
        Ok(Some(Self {
            own: Some(MockEndpoint::spawn_serving(&exe, cpu, serving)?),
            given,
            no_resumption,
        }))
    }

    /// Plain HTTP, or HTTPS that allows resumption.
    fn main(&self) -> &MockEndpoint {
        self.own.as_ref().unwrap_or(self.given)
    }

    /// The server `mode`'s calls go to, if the protocol has one for it.
    fn for_mode(&self, mode: ConnectionMode) -> Option<&MockEndpoint> {
        match mode {
            ConnectionMode::NewConnectionFull => self.no_resumption.as_ref(),
            ConnectionMode::Pooled
            | ConnectionMode::NewConnection
            | ConnectionMode::BuiltPerCall => Some(self.main()),
        }
    }
}

/// How a client of `mode` calling `mock` is built: the suite's one difference between the
/// modes that keep a client is the idle pool.
fn call_settings(mode: ConnectionMode, mock: &MockEndpoint) -> ClientSettings {
    let settings = ClientSettings {
        extra_ca_pem: mock.ca_pem().cloned(),
        ..ClientSettings::for_base_url(mock.base_url())
    };
    match mode {
        ConnectionMode::NewConnection | ConnectionMode::NewConnectionFull => ClientSettings {
            max_idle_per_host: 0,
            ..settings
        },
        ConnectionMode::Pooled | ConnectionMode::BuiltPerCall => settings,
    }
}

/// How a client that trusts `trust` is built, for `mock` (never called).
fn build_settings(trust: ClientTrust, mock: &MockEndpoint) -> ClientSettings {
    let settings = ClientSettings::for_base_url(mock.base_url());
    match trust {
        ClientTrust::Plain | ClientTrust::SystemRoots => settings,
        ClientTrust::SystemRootsAndCa => ClientSettings {
            extra_ca_pem: mock.ca_pem().cloned(),
            ..settings
        },
    }
}

/// The subjects of `protocol`, client by client: every mode that applies, then every build.
fn subjects<'m>(
    settings: &Run,
    servers: &'m Servers<'_>,
    protocol: Protocol,
) -> Result<Vec<MeasuredClient<'m>>, BenchError> {
    let mut subjects = Vec::new();
    let clients = settings.plan().clients(SuiteName::Connections, protocol);
    for &client in &clients {
        for mode in ConnectionMode::ALL {
            if mode.left_out_over(protocol).is_some() {
                continue;
            }
            if let Some(mock) = servers.for_mode(mode) {
                subjects.push(MeasuredClient::calls(
                    client,
                    mode,
                    call_settings(mode, mock),
                    mock,
                )?);
            }
        }
    }
    for &trust in ClientTrust::over(protocol) {
        // A foreign upstream given without --ca-file has no CA to add.
        if trust == ClientTrust::SystemRootsAndCa && servers.main().ca_pem().is_none() {
            continue;
        }
        for &client in &clients {
            subjects.push(MeasuredClient::builds(
                client,
                trust,
                build_settings(trust, servers.main()),
            ));
        }
    }
    Ok(subjects)
}

/// Every subject of `protocol`: warm-up, then the samples, interleaved.
fn measure(
    settings: &Run,
    servers: &Servers<'_>,
    protocol: Protocol,
) -> Result<(Vec<ConnectionsRow>, Vec<ConstructionRow>), BenchError> {
    let sizes = &settings.connections;
    let pairs = cross_rate_pairs();
    let system = actix_rt::System::new();
    let measured = system.block_on(async {
        let subjects = subjects(settings, servers, protocol)?;
        let bar = progress_bar(
            SuiteName::Connections,
            subjects.len() as u64 * (1 + u64::from(sizes.samples)),
        );
        let mut tallies: Vec<Tally> = subjects.iter().map(|_| Tally::new(sizes.samples)).collect();
        // The calls' rounds first, then the builds' on their own: builds compare with nothing
        // in their round, and in the calls' rounds they would only stretch the time a pooled
        // connection sits idle between two of its samples.
        let calls = subjects
            .iter()
            .take_while(|subject| matches!(subject.work, Work::Calls(_)))
            .count();
        let (call_subjects, build_subjects) = subjects.split_at(calls);
        let (call_tallies, build_tallies) = tallies.split_at_mut(calls);
        let rounds = Rounds {
            sizes,
            protocol,
            pairs: &pairs,
            bar: &bar,
        };
        rounds.run(call_subjects, call_tallies).await;
        rounds.run(build_subjects, build_tallies).await;
        bar.finish_and_clear();
        let kinds: Vec<_> = subjects
            .iter()
            .map(|subject| (subject.client, subject.work))
            .collect();
        // Inside the runtime: some clients stop background tasks or threads when dropped.
        drop(subjects);
        Ok::<_, BenchError>(kinds.into_iter().zip(tallies).collect::<Vec<_>>())
    })?;

    let mut calls = Vec::new();
    let mut construction = Vec::new();
    for ((client, work), tally) in measured {
        match work {
            Work::Calls(mode) => {
                let foreign = servers
                    .main()
                    .is_foreign()
                    .then(|| NotCounted::ForeignUpstream {
                        url: servers.main().base_url().to_owned(),
                    });
                let mut row = tally.calls_row(client, protocol, mode, foreign);
                row.round_means_us = block_means(&row.sample_means_us, settings.rounds);
                calls.push(row);
            }
            Work::Builds(trust) => {
                let mut row = tally.construction_row(client, trust);
                row.round_means_us = block_means(&row.sample_means_us, settings.rounds);
                construction.push(row);
            }
        }
    }
    fill_ratios(&mut calls);
    for row in &calls {
        if let Some(why) = &row.withheld {
            eprintln!(
                "bench: connections: {} {} {}: no figures: {}",
                row.client,
                row.protocol,
                row.mode,
                reasons::withheld(why)
            );
        }
    }
    Ok((calls, construction))
}

/// What the rounds of one group of subjects share.
struct Rounds<'a> {
    sizes: &'a ConnectionsSettings,
    protocol: Protocol,
    pairs: &'a [CurrencyPair],
    bar: &'a ProgressBar,
}

impl Rounds<'_> {
    /// Sample after sample, every subject of `subjects` once per round, each warmed up just
    /// before its first sample: were all warm-ups first, a pooled connection would sit idle
    /// past its timeout while the others warm up.
    async fn run(&self, subjects: &[MeasuredClient<'_>], tallies: &mut [Tally]) {
        let (sizes, protocol, bar) = (self.sizes, self.protocol, self.bar);
        let count = subjects.len();
        for sample in 0..sizes.samples as usize {
            for index in round_order(sample, count) {
                let (subject, tally) = (&subjects[index], &mut tallies[index]);
                if sample == 0 {
                    bar.set_message(format!("{protocol} warm-up {}", describe(subject)));
                    warm_up(subject, tally, sizes, self.pairs).await;
                    bar.inc(1);
                }
                bar.set_message(format!(
                    "{protocol} sample {}/{} {}",
                    sample + 1,
                    sizes.samples,
                    describe(subject)
                ));
                let (outcome, counted) =
                    counted_batch(subject, tally.calls_per_sample, None, self.pairs).await;
                tally.record(outcome, counted);
                bar.inc(1);
            }
        }
    }
}

/// The subjects' order in round `sample`, rotated so that no subject always runs right after
/// another one. Each round starts one subject earlier in the list, so a subject runs one place
/// later than in the round before and the last one wraps to the front: none waits more than a
/// round between two of its samples. (Rotated the other way, the one wrapping from first to
/// last would wait two rounds, long enough with many clients for a pooled connection to pass
/// its idle timeout.)
fn round_order(sample: usize, count: usize) -> impl Iterator<Item = usize> {
    let start = count - sample % count.max(1);
    (0..count).map(move |offset| (offset + start) % count)
}

fn describe(subject: &MeasuredClient<'_>) -> String {
    match subject.work {
        Work::Calls(mode) => format!("{} {mode}", subject.client),
        Work::Builds(trust) => format!("{} build, {trust}", subject.client),
    }
}

/// The warm-up: the first call alone (it opens the pooled connection, makes the first
/// handshake, reads the roots from disk for the first time), then the rest, whose mean is the
/// pilot that sizes the samples. The rest stops after about one sample's time: ten builds of a
/// client that takes 50 ms would stretch the first round past the pooled connections' idle
/// timeout, and one or two calls are pilot enough for calls that slow.
async fn warm_up(
    subject: &MeasuredClient<'_>,
    tally: &mut Tally,
    sizes: &ConnectionsSettings,
    pairs: &[CurrencyPair],
) {
    let (first, counted) = counted_batch(subject, sizes.warmup_calls.min(1), None, pairs).await;
    tally.warmed_up(&first, counted);
    let rest = sizes.warmup_calls.saturating_sub(1);
    let pilot = if rest == 0 {
        first.mean_ns()
    } else {
        let until = Instant::now() + Duration::from_millis(u64::from(sizes.sample_ms));
        let (outcome, counted) = counted_batch(subject, rest, Some(until), pairs).await;
        tally.warmed_up(&outcome, counted);
        outcome.mean_ns()
    };
    tally.calls_per_sample = calls_per_sample(pilot, sizes);
}

/// One batch, and what the subject's mock counted during it (nothing for builds, which call
/// no server).
async fn counted_batch(
    subject: &MeasuredClient<'_>,
    count: u32,
    until: Option<Instant>,
    pairs: &[CurrencyPair],
) -> (BatchOutcome, Option<Counted>) {
    let admin = subject.mock.map(MockEndpoint::admin);
    let before = admin.as_ref().and_then(MockAdmin::counters);
    let outcome = subject.run(count, until, pairs).await;
    let counted =
        admin.and_then(|admin| Counted::between(before.as_ref(), admin.counters().as_ref()));
    (outcome, counted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_round_holds_every_subject_and_none_waits_more_than_a_round() {
        let count = 7;
        let rounds: Vec<Vec<usize>> = (0..10)
            .map(|sample| round_order(sample, count).collect())
            .collect();
        assert_eq!(rounds[0], [0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(rounds[1], [6, 0, 1, 2, 3, 4, 5]);
        for round in &rounds {
            let mut sorted = round.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..count).collect::<Vec<_>>());
        }
        // Between a subject's two samples, at most the other subjects of one round run.
        let order: Vec<usize> = rounds.concat();
        for subject in 0..count {
            let places: Vec<usize> = (0..order.len())
                .filter(|&at| order[at] == subject)
                .collect();
            let longest = places.windows(2).map(|pair| pair[1] - pair[0] - 1).max();
            assert!(longest <= Some(count), "subject {subject}: {places:?}");
        }
        assert_eq!(round_order(0, 0).count(), 0);
    }
}
