//! The resilience suite's sizes and rows: an upstream restart under load, overload at twice
//! the capacity, slow and idle connections, and a soak, per client through the service.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::{
    ClientName, FailureCounts, GeneratorNotMeasured, NegotiatedTls, Protocol, Refuted, Scenario,
    StatusCount, Unchecked,
};

/// The sizes of the suite's four parts (`--quick`, the default, or `--resilience-full`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResilienceSettings {
    /// Whether the full sizes were asked for (`--resilience-full`).
    pub full: bool,
    /// Each client's capacity: `RunSettings::rounds` rounds of an open-model ramp of steps
    /// this long, then confirmation stretches of `confirm_ms` (see the suite).
    pub ramp_step_ms: u64,
    #[serde(default)]
    pub confirm_ms: u64,
    /// Upstream restart: the open model's rate, the time before mock-rates is stopped, how
    /// long it stays down, and the time measured after it is back.
    pub restart_rps: u32,
    pub restart_before_ms: u64,
    pub restart_outage_ms: u64,
    pub restart_after_ms: u64,
    /// Overload: half the capacity before and after, `overload_percent` of it in between.
    pub overload_percent: u32,
    pub overload_before_ms: u64,
    pub overload_ms: u64,
    pub overload_after_ms: u64,
    /// `GET /health/live` sent alongside the overload, at this rate.
    pub health_rps: u32,
    /// Slow clients: connections that send half a request head and wait, and the payments'
    /// open model (rate, time per client) measured without them and with them.
    pub slow_connections: u32,
    pub slow_rps: u32,
    pub slow_phase_ms: u64,
    /// Soak: `soak_percent` of the capacity for `soak_ms` per client, the service's memory
    /// and descriptors read every `soak_sample_ms`, growth counted from `soak_warmup_ms` on.
    pub soak_percent: u32,
    pub soak_ms: u64,
    pub soak_warmup_ms: u64,
    pub soak_sample_ms: u64,
    /// The CPU quotas (millicpus: 500 is half a CPU) each client's capacity was measured
    /// again under, the service held to each by a CFS quota (`--cpu-quota`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpu_quotas_millicpus: Vec<u32>,
    /// Whether every part ran over the run's protocols over TLS too (`--resilience-tls`), each
    /// against a mock-rates over TLS and a service of its own; http only otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub over_tls: bool,
    /// The CPU budget (millicpus) the service was held to through the suite, after the
    /// generator against wrk, by a CFS quota with a short period ([`BUDGET_PERIOD_US`]), so
    /// that the CPU the generator and mock-rates take from the machine does not set the
    /// service's figures (`--service-cpus`); `None`: the service shared the machine with them
    /// (asked for, or results from before the budget).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_cpus_millicpus: Option<u32>,
}

/// The CFS period of the service's CPU budget, in microseconds: short, so that a budget spent
/// early in a period stalls the service for a few milliseconds, well within the capacity's
/// latency objective, and the capacity is the rate its CPU time allows. A Kubernetes CPU limit
/// (`--cpu-quota`) keeps its 100 ms period.
pub const BUDGET_PERIOD_US: u64 = 10_000;

/// Milliseconds as a `Duration`.
pub fn millis(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

/// The requests of one stretch of time (by their due time): how many were sent, how they
/// ended, the answers by status.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseCounts {
    /// Requests sent in the stretch (those the generator skipped are not).
    pub sent: u64,
    /// Answered 200 with the expected body.
    pub ok: u64,
    /// Every answer by status, 200 included.
    pub statuses: Vec<StatusCount>,
    /// Failures by kind: `status` counts the non-200 answers above; `connect`, `reset` and
    /// `timeout` (the generator's 5 s) are requests that got no answer.
    pub failures: FailureCounts,
    /// Median and 99th percentile time to answer, from the due time, of every answer (failed
    /// ones included: a fast 502 and a slow 504 differ here); `None` without answers.
    pub answer_p50_ms: Option<f64>,
    pub answer_p99_ms: Option<f64>,
    /// The 99th percentile of the successful payments alone, from the due time.
    pub ok_p99_ms: Option<f64>,
}

impl PhaseCounts {
    /// Answers with `status`.
    pub fn with_status(&self, status: u16) -> u64 {
        self.statuses
            .iter()
            .filter(|count| count.status == status)
            .map(|count| count.count)
            .sum()
    }

    /// Requests that got no answer at all.
    pub fn unanswered(&self) -> u64 {
        self.failures.connect + self.failures.reset + self.failures.timeout
    }
}

/// One client through an upstream restart: mock-rates killed under a steady load, started
/// again on the same port.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RestartRow {
    pub client: ClientName,
    /// What the service's client spoke to mock-rates.
    #[serde(default)]
    pub protocol: Protocol,
    pub rps: u32,
    /// From the kill to the new mock-rates listening, as measured.
    pub outage_ms: f64,
    pub before: PhaseCounts,
    /// Requests due while mock-rates was down.
    pub outage: PhaseCounts,
    /// Requests due after it was back.
    pub after: PhaseCounts,
    /// From mock-rates listening again to the first successful payment sent after that.
    pub first_success_ms: Option<f64>,
    /// From mock-rates listening again to the answer of the last failed payment sent after
    /// that; `None` when none failed.
    pub last_failure_ms: Option<f64>,
    /// Requests the generator skipped (too many in flight).
    pub skipped: u64,
    /// The first failed call's error as the library (or the server) gave it: evidence, quoted
    /// as it came, not a reason the bench wrote (those are values: [`crate::reasons`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
}

/// One client at `overload_percent` of its capacity, between two stretches at half of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OverloadRow {
    pub client: ClientName,
    /// What the service's client spoke to mock-rates.
    #[serde(default)]
    pub protocol: Protocol,
    /// The capacity measured just before (closed model, successful payments per second).
    pub capacity_rps: f64,
    pub normal_rps: u32,
    pub overload_rps: u32,
    pub before: PhaseCounts,
    pub overload: PhaseCounts,
    pub after: PhaseCounts,
    /// Requests the generator skipped because too many were in flight (never sent).
    pub skipped: u64,
    /// Requests on the timetable: each was either sent (and counted in a stretch) or skipped.
    pub scheduled: u64,
    /// `GET /health/live` during the overload: sent, answered 200, and its p99 from the due
    /// time.
    pub health: PhaseCounts,
    /// After the overload ended, when latency was back to normal for good: the start of the
    /// first 100 ms window from which every window has no failure and a p99 within twice the
    /// p99 before the overload (at least 1 ms); `None` if that never happened.
    pub recovered_after_ms: Option<f64>,
}

impl OverloadRow {
    /// Whether every request of the timetable is accounted for: counted in a stretch (an
    /// answer, or a counted error) or skipped by the generator.
    pub fn accounted(&self) -> bool {
        self.before.sent + self.overload.sent + self.after.sent + self.skipped == self.scheduled
    }
}

/// One client's payments without and with the slow connections held open.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SlowClientsRow {
    pub client: ClientName,
    /// What the service's client spoke to mock-rates.
    #[serde(default)]
    pub protocol: Protocol,
    pub rps: u32,
    pub without: PhaseCounts,
    pub with: PhaseCounts,
    /// Slow connections open when the `with` run started.
    pub held_at_start: u64,
}

/// The slow connections themselves: how the service ended them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SlowConnections {
    /// Connections opened (one per slot, again each time the service closed one while the
    /// payments ran).
    pub opened: u64,
    /// Connections the bench could not open or write to.
    pub failed: u64,
    /// Connections the service closed, and those of them that got a 408 first.
    pub closed_by_server: u64,
    pub answered_408: u64,
    /// Still open when the bench stopped waiting (its wait: the request timeout + 5 s).
    pub still_open: u64,
    /// From opening to the service's close: min, median, max.
    pub lifetime_min_ms: Option<f64>,
    pub lifetime_p50_ms: Option<f64>,
    pub lifetime_max_ms: Option<f64>,
}

/// One reading of the service's process during the soak.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SoakSample {
    /// After the start of the client's soak.
    pub at_ms: u64,
    pub rss_kib: u64,
    pub fds: u64,
}

/// One client's soak.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SoakRow {
    pub client: ClientName,
    /// What the service's client spoke to mock-rates.
    #[serde(default)]
    pub protocol: Protocol,
    pub rps: u32,
    pub duration_ms: u64,
    pub requests: PhaseCounts,
    pub samples: Vec<SoakSample>,
    /// The first reading from the warm-up's end on, and the last.
    pub rss_after_warmup_kib: Option<u64>,
    pub rss_end_kib: Option<u64>,
    pub fds_after_warmup: Option<u64>,
    pub fds_end: Option<u64>,
}

impl SoakRow {
    /// RSS growth after the warm-up, in percent of the reading at its end.
    pub fn rss_growth_percent(&self) -> Option<f64> {
        let (start, end) = (self.rss_after_warmup_kib?, self.rss_end_kib?);
        (start > 0).then(|| (end as f64 - start as f64) * 100.0 / start as f64)
    }

    /// Descriptors opened after the warm-up and still open at the end.
    pub fn fd_growth(&self) -> Option<i64> {
        Some(self.fds_end?.cast_signed() - self.fds_after_warmup?.cast_signed())
    }
}

/// One step of a capacity ramp as it went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RampStep {
    pub rps: u32,
    pub requests: PhaseCounts,
    /// The CPU each process spent during the stretch, where the suite read it (its ramp steps
    /// and confirmation stretches).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<StretchCpu>,
}

impl RampStep {
    /// Whether every request the stretch sent was answered 200, with a p99 (from the due time)
    /// within `objective_ms`.
    pub fn answered_within(&self, objective_ms: f64) -> bool {
        let requests = &self.requests;
        requests.ok == requests.sent && requests.ok_p99_ms.is_some_and(|p99| p99 <= objective_ms)
    }
}

/// The CPU time the processes on the machine spent during one stretch, in seconds: the
/// payment service, mock-rates, and the bench itself (the generator sending and checking the
/// requests, and the bench's own few threads beside it); `None` where a process's clock could
/// not be read. In a stretch paired with the reference (see [`Beside`]) each side has its own
/// service and mock-rates, and the generator's time is shared between the sides by the
/// requests each answered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StretchCpu {
    pub service_s: Option<f64>,
    pub mock_s: Option<f64>,
    pub generator_s: Option<f64>,
}

impl StretchCpu {
    /// Each process's CPU per answered request, in microseconds: (service, mock, generator).
    pub fn per_request_us(&self, answered: u64) -> (Option<f64>, Option<f64>, Option<f64>) {
        let per = |seconds: Option<f64>| {
            seconds
                .filter(|_| answered > 0)
                .map(|seconds| seconds * 1e6 / answered as f64)
        };
        (per(self.service_s), per(self.mock_s), per(self.generator_s))
    }
}

/// One round of a client's capacity search: a ramp to find the region, then confirmation
/// stretches from the highest candidate down until one holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CapacityRound {
    /// The rate confirmed: its stretch had nothing failed or unsent and a p99 within the
    /// objective; `None` if no candidate held.
    pub capacity_rps: Option<u32>,
    /// The ramp as it went (steps of √2, each `ramp_step_ms`, until two misses in a row).
    pub steps: Vec<RampStep>,
    /// The confirmation stretches, in the order tried (each `confirm_ms`).
    pub confirmations: Vec<RampStep>,
    /// The reference service driven beside the round, in the same stretches (runs before
    /// 2026-12-07 measured each client alone and have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beside: Option<Beside>,
}

/// The reference service beside a round: a second payment service with a mock-rates of its
/// own, held to the same CPU budget, serving the reference client (hyper), driven at the same
/// rate as the client's service in every stretch of the round, the two timetables started
/// together. Both services meet the machine's slowdowns at once, so the ratio of their CPU per
/// payment in a stretch does not move with them (see [`ClientCapacity::cpu_beside`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Beside {
    pub reference: ClientName,
    /// Which of the suite's two services ran the client this round (0 or 1; the reference ran
    /// on the other): the sides alternate between rounds.
    pub side: u8,
    /// What the reference gave in each of the round's ramp steps, in order.
    pub steps: Vec<RampStep>,
    /// What the reference gave in each of the round's confirmation stretches, in order.
    pub confirmations: Vec<RampStep>,
    /// The ramp steps both services missed, run again once (the rate of each, in order): a
    /// stall both met is not the client's, and the second run is the step's (runs before
    /// 2026-12-07's last builds repeated none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repeated: Vec<u32>,
}

/// One round's service CPU per payment beside the reference's: over the ramp steps both sides
/// sustained (every request answered 200, p99 within the objective), at the same rate in the
/// same stretch, the median of the steps' ratios of the client's service CPU per answered
/// payment to the reference's, and the median of each side's own.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuBeside {
    pub ratio: f64,
    pub own_us: f64,
    pub reference_us: f64,
    /// The ramp steps it is the median of.
    pub steps: usize,
}

/// A client's capacity as the suite measured it, which sizes its overload and soak: the
/// median of its rounds' confirmed rates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClientCapacity {
    pub client: ClientName,
    /// What the service's client spoke to mock-rates.
    #[serde(default)]
    pub protocol: Protocol,
    /// The median of the rounds (a round with no confirmed rate counts as 0); `None` when no
    /// round confirmed one.
    pub capacity_rps: Option<u32>,
    pub latency_objective_ms: f64,
    pub rounds: Vec<CapacityRound>,
    /// Why the figure is refuted, when its own soak at `soak_percent` of it failed requests
    /// or missed the objective: the suite caught a capacity that was not sustained, and the
    /// verdict does not rank it.
    #[serde(
        default,
        deserialize_with = "crate::reasons::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub refuted: Option<Refuted>,
    /// After a refutation, the lower rates the suite tried, a quarter step (2^¼) apart, in
    /// order: each a confirmation stretch at it, then a soak at `soak_percent` of it. The
    /// first that held both is the capacity sustained (see [`Self::sustained_rps`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub step_downs: Vec<StepDown>,
    /// The CPU quota the service was held to (millicpus), `None` for none: the capacity the
    /// verdict ranks, and the overload and soak are sized from, is the one without.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_quota_millicpus: Option<u32>,
    /// Over https or h2: the TLS and HTTP version mock-rates counted for the client's
    /// capacity rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<NegotiatedTls>,
    /// Over https or h2: why the row could not be checked (mock-rates counted no TLS, or
    /// another HTTP version): the bench says so and goes on, and the row is no figure.
    #[serde(
        default,
        deserialize_with = "crate::reasons::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub unchecked: Option<Unchecked>,
}

/// A lower rate tried after a soak refuted a capacity.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepDown {
    pub rps: u32,
    /// The confirmation stretch at `rps`.
    pub confirmation: RampStep,
    /// The soak at `soak_percent` of `rps`, when the confirmation held.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soak: Option<RampStep>,
    /// Why the rate did not hold (its confirmation or its soak); `None` when it held.
    #[serde(
        default,
        deserialize_with = "crate::reasons::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub refuted: Option<Refuted>,
}

impl ClientCapacity {
    /// The capacity the suite stands behind: the median of the rounds when its soak held;
    /// after a refutation, the first lower rate whose confirmation and soak both held; `None`
    /// when none did (or no round confirmed a rate).
    pub fn sustained_rps(&self) -> Option<u32> {
        match &self.refuted {
            None => self.capacity_rps,
            Some(_) => self
                .step_downs
                .iter()
                .find(|step| step.refuted.is_none())
                .map(|step| step.rps),
        }
    }

    /// Per round, the service's CPU per payment beside the reference's (see [`CpuBeside`]);
    /// `None` for a round with no reference beside it or no ramp step both sides sustained.
    pub fn cpu_beside(&self) -> Vec<Option<CpuBeside>> {
        let sustained = |step: &RampStep| {
            step.requests.ok > 0 && step.answered_within(self.latency_objective_ms)
        };
        let per_payment = |step: &RampStep| {
            let (service_us, _, _) = step.cpu?.per_request_us(step.requests.ok);
            service_us.filter(|&us| us > 0.0)
        };
        let median = crate::stats::quantile::median_of;
        self.rounds
            .iter()
            .map(|round| {
                let beside = round.beside.as_ref()?;
                let pairs: Vec<(f64, f64)> = round
                    .steps
                    .iter()
                    .zip(&beside.steps)
                    .filter(|(own, theirs)| {
                        own.rps == theirs.rps && sustained(own) && sustained(theirs)
                    })
                    .filter_map(|(own, theirs)| Some((per_payment(own)?, per_payment(theirs)?)))
                    .collect();
                let ratios: Vec<f64> = pairs.iter().map(|(own, theirs)| own / theirs).collect();
                let own: Vec<f64> = pairs.iter().map(|&(own, _)| own).collect();
                let theirs: Vec<f64> = pairs.iter().map(|&(_, theirs)| theirs).collect();
                Some(CpuBeside {
                    ratio: median(&ratios)?,
                    own_us: median(&own)?,
                    reference_us: median(&theirs)?,
                    steps: pairs.len(),
                })
            })
            .collect()
    }

    /// Whether the verdict ranks this capacity: over http, without a CPU quota (the rows over
    /// TLS and under quotas are shown beside it).
    pub fn is_ranked(&self) -> bool {
        self.protocol == Protocol::Http && self.cpu_quota_millicpus.is_none()
    }
}

/// A row's client as the tables name it: bare over http, `client over https` otherwise.
macro_rules! labelled {
    ($($row:ty),*) => {$(
        impl $row {
            pub fn label(&self) -> String {
                self.protocol.qualify(self.client)
            }
        }
    )*};
}

labelled!(
    RestartRow,
    OverloadRow,
    SlowClientsRow,
    SoakRow,
    ClientCapacity
);

/// Everything the suite measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ResilienceResults {
    pub capacity: Vec<ClientCapacity>,
    pub restart: Vec<RestartRow>,
    pub overload: Vec<OverloadRow>,
    pub slow_clients: Vec<SlowClientsRow>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slow_connections: Option<SlowConnections>,
    pub soak: Vec<SoakRow>,
    /// The bench's generator against wrk, before the capacities, over http.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub generator: Vec<GeneratorRow>,
}

/// The bench's generator against wrk, each driving the service in a closed loop (every
/// connection sends its next request when its last is answered) with the same connections and
/// threads for the same time: what rate the generator can drive, and what it costs the machine
/// per request beside the service.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GeneratorRow {
    /// `GET /health/live` or `POST /payments/<client>`, and the client of a payment.
    #[serde(flatten)]
    pub scenario: Scenario,
    /// `bench` (the suite's generator) or `wrk`.
    pub tool: String,
    pub connections: u32,
    pub threads: u32,
    /// From the first request to the last answer.
    pub duration_s: f64,
    /// Answered as expected: for the bench a 200 with its body checked, for wrk any 2xx or
    /// 3xx (wrk reads no body).
    pub ok: u64,
    /// Other answers, and requests that got none.
    pub failed: u64,
    /// The tool's own CPU time during the run: the bench process (its generator and its few
    /// other threads), or wrk's (a child the bench waited for).
    pub tool_cpu_s: Option<f64>,
    /// The service's CPU time during the run.
    pub service_cpu_s: Option<f64>,
    /// Why the row has no figures (wrk not installed, or it failed), when it has none.
    #[serde(
        default,
        deserialize_with = "crate::reasons::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub not_measured: Option<GeneratorNotMeasured>,
}

impl GeneratorRow {
    /// Answered requests per second.
    pub fn rps(&self) -> Option<f64> {
        (self.not_measured.is_none() && self.duration_s > 0.0)
            .then(|| self.ok as f64 / self.duration_s)
    }

    /// A CPU time per answered request, in microseconds.
    pub fn per_request_us(&self, seconds: Option<f64>) -> Option<f64> {
        (self.ok > 0)
            .then_some(seconds?)
            .map(|seconds| seconds * 1e6 / self.ok as f64)
    }
}

impl ResilienceResults {
    pub fn is_empty(&self) -> bool {
        self.capacity.is_empty()
            && self.restart.is_empty()
            && self.overload.is_empty()
            && self.slow_clients.is_empty()
            && self.soak.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_counts_answers_and_errors() {
        let failures = FailureCounts {
            status: 3,
            connect: 1,
            timeout: 1,
            ..FailureCounts::default()
        };
        let phase = PhaseCounts {
            sent: 10,
            ok: 5,
            statuses: vec![
                StatusCount {
                    status: 200,
                    count: 5,
                },
                StatusCount {
                    status: 502,
                    count: 3,
                },
            ],
            failures,
            ..PhaseCounts::default()
        };
        assert_eq!(phase.with_status(502), 3);
        assert_eq!(phase.unanswered(), 2);
    }

    #[test]
    fn soak_growth_from_the_warm_up_on() {
        let row = SoakRow {
            client: ClientName::BASELINE,
            protocol: Protocol::Http,
            rps: 100,
            duration_ms: 1_000,
            requests: PhaseCounts::default(),
            samples: Vec::new(),
            rss_after_warmup_kib: Some(20_000),
            rss_end_kib: Some(20_500),
            fds_after_warmup: Some(40),
            fds_end: Some(39),
        };
        assert_eq!(row.rss_growth_percent(), Some(2.5));
        assert_eq!(row.fd_growth(), Some(-1));
        let unread = SoakRow {
            rss_end_kib: None,
            ..row
        };
        assert_eq!(unread.rss_growth_percent(), None);
    }
}
