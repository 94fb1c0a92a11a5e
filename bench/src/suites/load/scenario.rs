//! One scenario of the load suite over one stack, its rounds merged as they come in, and
//! the row made of them.

use std::sync::Arc;
use std::time::Duration;

use crate::clients::Counted;
use crate::servers::Stack;
use crate::suites::load::http::ReadyScenario;
use crate::suites::load::row::{ServerReadings, load_row};
use crate::suites::load::schedule::Schedule;
use crate::suites::load::tally::Tally;
use crate::suites::load::timeline::{Timeline, per_second};
use crate::suites::tls;
use bench_model::{LoadRound, LoadRow, NotCounted, SecondPoint, size_name};

/// One scenario over one stack, round after round.
pub(super) struct ScenarioRun<'s> {
    pub(super) stack: Stack<'s>,
    pub(super) target: Arc<ReadyScenario>,
    pub(super) pool_bound: Option<u64>,
    /// Its rate, and the upstream answer's size when it is not the ordinary one.
    pub(super) rps: u32,
    pub(super) body_bytes: Option<u64>,
    /// Every round's requests, merged.
    pub(super) tally: Option<Tally>,
    /// Every round's time on the timetable, and how long past it its last answer came.
    pub(super) span: Duration,
    pub(super) overrun: Duration,
    pub(super) per_second: Vec<SecondPoint>,
    pub(super) rounds: Vec<LoadRound>,
    pub(super) peak_rss_kib: Option<u64>,
    pub(super) rss_start_kib: Option<u64>,
    /// What mock-rates counted during the measured rounds, and from the first warm-up on.
    pub(super) counted: Option<Counted>,
    pub(super) counted_since_warmup: Option<Counted>,
    pub(super) busy_after_ms: Option<u64>,
}

impl<'s> ScenarioRun<'s> {
    /// A scenario over `stack`, at `rps` with answers of `body_bytes` (or the ordinary
    /// ones), nothing measured yet.
    pub(super) fn new(
        stack: Stack<'s>,
        target: Arc<ReadyScenario>,
        pool_bound: Option<u64>,
        (rps, body_bytes): (u32, Option<u64>),
        rounds: u32,
    ) -> Self {
        Self {
            stack,
            target,
            pool_bound,
            rps,
            body_bytes,
            tally: None,
            span: Duration::ZERO,
            overrun: Duration::ZERO,
            per_second: Vec::new(),
            rounds: Vec::with_capacity(rounds as usize),
            peak_rss_kib: None,
            rss_start_kib: None,
            counted: Some(Counted::default()),
            counted_since_warmup: Some(Counted::default()),
            busy_after_ms: None,
        }
    }

    pub(super) fn name(&self) -> String {
        let name = self.stack.protocol.qualify(self.target.scenario);
        match self.body_bytes {
            Some(bytes) => format!("{name}, {} answer", size_name(bytes)),
            None => name,
        }
    }
}

impl ScenarioRun<'_> {
    /// Adds one round: its requests, its readings of the service, what the mock counted
    /// during its warm-up and during the round itself.
    pub(super) fn add_round(
        &mut self,
        schedule: Schedule,
        (tally, timeline): (Tally, &Timeline),
        api_cpu_s: Option<f64>,
        (rss_before_kib, peak_rss_kib, busy_after_ms): (Option<u64>, Option<u64>, Option<u64>),
        (warmup, measured): (Option<Counted>, Option<Counted>),
    ) {
        let span = schedule.span();
        let offset = u32::try_from(self.per_second.len()).unwrap_or(u32::MAX);
        self.per_second.extend(
            per_second(timeline, span)
                .into_iter()
                .map(|point| SecondPoint {
                    second: point.second + offset,
                    ..point
                }),
        );
        self.rounds.push(LoadRound {
            duration_s: span.as_secs_f64(),
            ok: tally.ok,
            fail: tally.failures.total(),
            api_cpu_s,
            p99_us: tally.latencies.summary().p99_us,
        });
        self.span += span;
        self.overrun += tally.last_done.saturating_sub(span);
        self.rss_start_kib = self.rss_start_kib.or(rss_before_kib);
        self.peak_rss_kib = match (self.peak_rss_kib, peak_rss_kib) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.busy_after_ms = self.busy_after_ms.max(busy_after_ms);
        self.counted = Counted::add(self.counted, measured);
        self.counted_since_warmup =
            Counted::add(Counted::add(self.counted_since_warmup, warmup), measured);
        match &mut self.tally {
            Some(merged) => merged.merge(tally),
            None => self.tally = Some(tally),
        }
    }

    /// The scenario's row: its rounds merged, its TLS checked; against a foreign upstream,
    /// what of it is not measured, and what was checked instead.
    pub(super) fn row(self) -> LoadRow {
        let protocol = self.stack.protocol;
        let scenario = self.target.scenario;
        let not_measured = scenario
            .client()
            .filter(|_| self.stack.mock.is_foreign())
            .map(|_| NotCounted::ForeignUpstream {
                url: self.stack.mock.base_url().to_owned(),
            });
        let (tls, unchecked) = match scenario.client() {
            Some(client) if protocol.is_tls() && not_measured.is_none() => {
                match tls::negotiated(client, protocol, self.counted_since_warmup) {
                    Ok(negotiated) => (Some(negotiated), None),
                    Err(why) => (None, Some(why)),
                }
            }
            _ => (None, None),
        };
        let tally = self
            .tally
            .unwrap_or_else(|| Tally::new(std::time::Instant::now(), 0));
        let api_cpu_s = self
            .rounds
            .iter()
            .map(|round| round.api_cpu_s)
            .sum::<Option<f64>>();
        let readings = ServerReadings {
            api_cpu_s,
            api_peak_rss_kib: self.peak_rss_kib,
            api_rss_start_kib: self.rss_start_kib,
            mock: self.counted,
            tls,
            pool_bound: self.pool_bound,
            api_busy_after_ms: self.busy_after_ms,
        };
        let mut row = load_row(
            scenario,
            protocol,
            self.rps,
            (self.span, self.overrun),
            tally,
            readings,
        );
        row.body_bytes = self.body_bytes;
        row.per_second = self.per_second;
        row.rounds = self.rounds;
        row.unchecked = unchecked;
        row.not_measured = not_measured;
        row
    }
}
