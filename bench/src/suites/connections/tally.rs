//! What one subject's batches add up to, and the checks that turn it into a row: pure, so that
//! the counting, the checks against the mock's counters and the ratios have tests of their own.

use crate::alloc::AllocSnapshot;
use crate::clients::Counted;
use crate::measure::own::CpuTime;
use crate::suites::tls;
use bench_model::stats::summary::{SampleSummary, ratio_mean_sd};
use bench_model::{
    ClientName, ClientTrust, ConnectionMode, ConnectionsRow, ConnectionsSettings, ConstructionRow,
    NotCounted, Protocol, Withheld,
};

/// What one batch of calls (or builds) gave.
#[derive(Debug, Default)]
pub struct BatchOutcome {
    pub ok: u64,
    pub failures: u64,
    /// Successful calls' time, summed.
    pub ok_ns: u64,
    pub allocated: AllocSnapshot,
    /// `None` when the CPU time could not be read.
    pub cpu: Option<CpuTime>,
    pub first_error: Option<String>,
}

impl BatchOutcome {
    pub fn attempts(&self) -> u64 {
        self.ok + self.failures
    }

    pub fn mean_ns(&self) -> Option<f64> {
        (self.ok > 0).then(|| self.ok_ns as f64 / self.ok as f64)
    }

    /// Records one successful call of `nanos`.
    pub fn succeeded(&mut self, nanos: u64) {
        self.ok += 1;
        self.ok_ns += nanos;
    }

    /// Records one failed call.
    pub fn failed(&mut self, message: String) {
        self.failures += 1;
        if self.first_error.is_none() {
            self.first_error = Some(message);
        }
    }
}

/// Calls per sample for a subject whose calls took `pilot_ns` each in its warm-up: as many as
/// fill `sample_ms`, at least one and at most the cap. One without a pilot (every warm-up call
/// failed): the samples then only confirm the failure.
pub fn calls_per_sample(pilot_ns: Option<f64>, settings: &ConnectionsSettings) -> u32 {
    let Some(pilot_ns) = pilot_ns.filter(|nanos| *nanos > 0.0) else {
        return 1;
    };
    let fill = (f64::from(settings.sample_ms) * 1_000_000.0 / pilot_ns).round();
    fill.clamp(1.0, f64::from(settings.max_calls_per_sample.max(1))) as u32
}

/// One subject's warm-up and samples.
#[derive(Debug)]
pub struct Tally {
    pub calls_per_sample: u32,
    warmup_calls: u64,
    /// What the mock counted during the warm-up; `None` once a read failed.
    warmup_counted: Option<Counted>,
    calls: u64,
    failures: u64,
    sample_means_ns: Vec<Option<f64>>,
    allocated: AllocSnapshot,
    cpu: Option<CpuTime>,
    /// What the mock counted during the samples.
    counted: Option<Counted>,
    first_error: Option<String>,
}

impl Tally {
    pub fn new(samples: u32) -> Self {
        Self {
            calls_per_sample: 1,
            warmup_calls: 0,
            warmup_counted: Some(Counted::default()),
            calls: 0,
            failures: 0,
            sample_means_ns: Vec::with_capacity(samples as usize),
            allocated: AllocSnapshot::default(),
            cpu: Some(CpuTime::default()),
            counted: Some(Counted::default()),
            first_error: None,
        }
    }

    /// Adds a warm-up batch and what the mock counted during it.
    pub fn warmed_up(&mut self, outcome: &BatchOutcome, counted: Option<Counted>) {
        self.warmup_calls += outcome.attempts();
        self.warmup_counted = Counted::add(self.warmup_counted, counted);
        if self.first_error.is_none() {
            self.first_error.clone_from(&outcome.first_error);
        }
    }

    /// Adds a sample and what the mock counted during it.
    pub fn record(&mut self, outcome: BatchOutcome, counted: Option<Counted>) {
        self.calls += outcome.attempts();
        self.failures += outcome.failures;
        self.sample_means_ns.push(outcome.mean_ns());
        self.allocated.allocations += outcome.allocated.allocations;
        self.allocated.bytes += outcome.allocated.bytes;
        self.cpu = self.cpu.zip(outcome.cpu).map(|(sum, more)| sum.plus(more));
        self.counted = Counted::add(self.counted, counted);
        if self.first_error.is_none() {
            self.first_error = outcome.first_error;
        }
    }

    /// The row of a subject making calls in `mode`. Its Ratio is left for [`fill_ratios`],
    /// once every row of the protocol is in. Against a foreign upstream (`not_measured` says
    /// what of it is not measured), there are no counts to check.
    pub fn calls_row(
        self,
        client: ClientName,
        protocol: Protocol,
        mode: ConnectionMode,
        not_measured: Option<NotCounted>,
    ) -> ConnectionsRow {
        let per_call = Figures::new(&self);
        let both = Counted::add(self.warmup_counted, self.counted);
        let checked = if not_measured.is_some() {
            Ok(None)
        } else {
            check_counts(mode, protocol, self.warmup_calls + self.calls, both)
        };
        let over_tls = protocol == Protocol::Https;
        let counted_per_call = |count: fn(&Counted) -> u64| {
            self.counted
                .as_ref()
                .and_then(|counted| per_call.of(count(counted)))
        };
        let mut row = ConnectionsRow {
            client,
            protocol,
            mode,
            tls_version: checked.as_ref().ok().cloned().flatten(),
            warmup_calls: self.warmup_calls,
            calls_per_sample: self.calls_per_sample,
            calls: self.calls,
            failures: self.failures,
            mean_us: per_call.summary.map(|summary| summary.mean),
            error_us: per_call.summary.and_then(|summary| summary.error),
            stddev_us: per_call.summary.and_then(|summary| summary.std_dev),
            ratio_to_pooled: None,
            ratio_sd: None,
            cpu_user_us_per_call: per_call.cpu_user_us,
            cpu_system_us_per_call: per_call.cpu_system_us,
            allocs_per_op: per_call.of(self.allocated.allocations),
            bytes_per_op: per_call.of(self.allocated.bytes),
            connections_opened: both.map(|counted| counted.connections),
            connections_per_call: counted_per_call(|counted| counted.connections),
            full_handshakes_per_call: counted_per_call(|counted| counted.tls_full)
                .filter(|_| over_tls),
            resumed_handshakes_per_call: counted_per_call(|counted| counted.tls_resumed)
                .filter(|_| over_tls),
            sample_means_us: per_call.sample_means_us,
            round_means_us: Vec::new(),
            withheld: None,
            first_error: self.first_error,
            not_measured,
        };
        if let Err(why) = checked {
            row.withhold(why);
        }
        row
    }

    /// The row of a subject building clients that trust `trust`.
    pub fn construction_row(self, client: ClientName, trust: ClientTrust) -> ConstructionRow {
        let per_build = Figures::new(&self);
        ConstructionRow {
            client,
            trust,
            builds_per_sample: self.calls_per_sample,
            builds: self.calls,
            failures: self.failures,
            mean_us: per_build.summary.map(|summary| summary.mean),
            error_us: per_build.summary.and_then(|summary| summary.error),
            stddev_us: per_build.summary.and_then(|summary| summary.std_dev),
            cpu_user_us_per_build: per_build.cpu_user_us,
            cpu_system_us_per_build: per_build.cpu_system_us,
            allocs_per_build: per_build.of(self.allocated.allocations).unwrap_or(0.0),
            bytes_per_build: per_build.of(self.allocated.bytes).unwrap_or(0.0),
            sample_means_us: per_build.sample_means_us,
            round_means_us: Vec::new(),
            first_error: self.first_error,
        }
    }
}

/// The per-call figures of a tally, in microseconds.
struct Figures {
    calls: u64,
    summary: Option<SampleSummary>,
    sample_means_us: Vec<Option<f64>>,
    cpu_user_us: Option<f64>,
    cpu_system_us: Option<f64>,
}

impl Figures {
    fn new(tally: &Tally) -> Self {
        let sample_means_us: Vec<Option<f64>> = tally
            .sample_means_ns
            .iter()
            .map(|mean| mean.map(|nanos| nanos / 1_000.0))
            .collect();
        let means: Vec<f64> = sample_means_us.iter().flatten().copied().collect();
        let micros = |duration: std::time::Duration| duration.as_nanos() as f64 / 1_000.0;
        let per = |total: f64| (tally.calls > 0).then(|| total / tally.calls as f64);
        Self {
            calls: tally.calls,
            summary: SampleSummary::of(&means),
            sample_means_us,
            cpu_user_us: tally.cpu.and_then(|cpu| per(micros(cpu.user))),
            cpu_system_us: tally.cpu.and_then(|cpu| per(micros(cpu.system))),
        }
    }

    /// `total` per timed call; `None` without a timed call.
    fn of(&self, total: u64) -> Option<f64> {
        (self.calls > 0).then(|| total as f64 / self.calls as f64)
    }
}

trait Withhold {
    /// Takes out every figure the counts contradict, keeping the counts themselves and
    /// `why`.
    fn withhold(&mut self, why: Withheld);
}

impl Withhold for ConnectionsRow {
    fn withhold(&mut self, why: Withheld) {
        self.mean_us = None;
        self.error_us = None;
        self.stddev_us = None;
        self.cpu_user_us_per_call = None;
        self.cpu_system_us_per_call = None;
        self.allocs_per_op = None;
        self.bytes_per_op = None;
        self.sample_means_us.clear();
        self.withheld = Some(why);
    }
}

/// Checks what mock-rates counted over a subject's warm-up and samples (`calls` attempts in
/// all) against its mode and protocol. `Ok` with the TLS version(s) counted over https (`None`
/// over http); `Err` with why the row's figures cannot be trusted:
/// - a mode that must open a connection per call opened another number of them;
/// - over https: no TLS counted, a connection without its one handshake, or a resumed
///   handshake on the server that allows none;
/// - the counts are unknown where the mode or the protocol needs them.
pub fn check_counts(
    mode: ConnectionMode,
    protocol: Protocol,
    calls: u64,
    counted: Option<Counted>,
) -> Result<Option<String>, Withheld> {
    let over_tls = protocol == Protocol::Https;
    let Some(counted) = counted else {
        return if mode.connection_per_call() || over_tls {
            Err(Withheld::CountersUnread)
        } else {
            Ok(None)
        };
    };
    if mode.connection_per_call() && counted.connections != calls {
        return Err(Withheld::NotOnePerCall {
            connections: counted.connections,
            calls,
        });
    }
    if !over_tls {
        return Ok(None);
    }
    let Some(version) = tls::version(&counted) else {
        return Err(Withheld::NoTls);
    };
    if counted.tls_handshakes != counted.connections {
        return Err(Withheld::HandshakesMissing {
            connections: counted.connections,
            handshakes: counted.tls_handshakes,
        });
    }
    if mode == ConnectionMode::NewConnectionFull && counted.tls_resumed > 0 {
        return Err(Withheld::Resumed {
            resumed: counted.tls_resumed,
        });
    }
    Ok(Some(version.to_owned()))
}

/// Each row's Ratio: its sample means over those of the same client's `pooled` row over the
/// same protocol, sample by sample (samples of one index ran in the same round). A row whose
/// pooled row is missing or withheld gets none.
pub fn fill_ratios(rows: &mut [ConnectionsRow]) {
    let pooled: Vec<(ClientName, Protocol, Vec<Option<f64>>)> = rows
        .iter()
        .filter(|row| row.mode == ConnectionMode::Pooled && row.withheld.is_none())
        .map(|row| (row.client, row.protocol, row.sample_means_us.clone()))
        .collect();
    for row in rows.iter_mut() {
        let baseline = pooled
            .iter()
            .find(|(client, protocol, _)| *client == row.client && *protocol == row.protocol);
        let ratio = baseline.and_then(|(_, _, means)| ratio_mean_sd(&row.sample_means_us, means));
        row.ratio_to_pooled = ratio.map(|(mean, _)| mean);
        row.ratio_sd = ratio.map(|(_, sd)| sd);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    const SETTINGS: ConnectionsSettings = ConnectionsSettings {
        samples: 3,
        warmup_calls: 3,
        sample_ms: 10,
        max_calls_per_sample: 200,
    };

    #[test]
    fn a_sample_holds_the_calls_that_fill_its_time_within_the_cap() {
        // 10 ms of 2 ms calls; of 20 us calls (500, capped at 200); of 30 ms calls.
        assert_eq!(calls_per_sample(Some(2_000_000.0), &SETTINGS), 5);
        assert_eq!(calls_per_sample(Some(20_000.0), &SETTINGS), 200);
        assert_eq!(calls_per_sample(Some(30_000_000.0), &SETTINGS), 1);
        assert_eq!(calls_per_sample(Some(3_000_000.0), &SETTINGS), 3);
        assert_eq!(calls_per_sample(None, &SETTINGS), 1);
        assert_eq!(calls_per_sample(Some(0.0), &SETTINGS), 1);
    }

    fn counted(connections: u64, full: u64, resumed: u64) -> Counted {
        Counted {
            connections,
            live_requests: connections,
            tls_handshakes: full + resumed,
            tls_full: full,
            tls_resumed: resumed,
            tls13: full + resumed,
            tls12: 0,
            ..Counted::default()
        }
    }

    #[test]
    fn a_new_connection_mode_must_open_one_connection_per_call() {
        use ConnectionMode::{BuiltPerCall, NewConnection, Pooled};
        let http = Protocol::Http;
        assert_eq!(
            check_counts(NewConnection, http, 10, Some(counted(10, 0, 0))),
            Ok(None)
        );
        let reused = check_counts(NewConnection, http, 10, Some(counted(1, 0, 0))).unwrap_err();
        assert_eq!(
            reused,
            Withheld::NotOnePerCall {
                connections: 1,
                calls: 10
            }
        );
        assert!(check_counts(BuiltPerCall, http, 10, Some(counted(11, 0, 0))).is_err());
        // The pooled call reuses; a reconnect is a figure, not an error.
        assert_eq!(
            check_counts(Pooled, http, 10, Some(counted(2, 0, 0))),
            Ok(None)
        );
        // Unknown counts: fine for pooled over http, never for a new-connection mode.
        assert_eq!(check_counts(Pooled, http, 10, None), Ok(None));
        assert!(check_counts(NewConnection, http, 10, None).is_err());
    }

    #[test]
    fn over_https_the_tls_must_be_what_the_mock_counted() {
        use ConnectionMode::{NewConnection, NewConnectionFull, Pooled};
        let https = Protocol::Https;
        assert_eq!(
            check_counts(NewConnection, https, 10, Some(counted(10, 1, 9))),
            Ok(Some("TLSv1.3".to_owned()))
        );
        assert_eq!(
            check_counts(NewConnectionFull, https, 10, Some(counted(10, 10, 0))),
            Ok(Some("TLSv1.3".to_owned()))
        );
        let resumed = check_counts(NewConnectionFull, https, 10, Some(counted(10, 9, 1)));
        assert_eq!(resumed, Err(Withheld::Resumed { resumed: 1 }));
        let tls12 = Counted {
            tls13: 0,
            tls12: 1,
            ..counted(1, 1, 0)
        };
        assert_eq!(
            check_counts(Pooled, https, 10, Some(tls12)),
            Ok(Some("TLSv1.2".to_owned()))
        );
        // A row claiming TLS with none counted, or a connection without its handshake.
        let plain = check_counts(Pooled, https, 10, Some(counted(1, 0, 0))).unwrap_err();
        assert_eq!(plain, Withheld::NoTls);
        let short = Counted {
            connections: 11,
            ..counted(10, 10, 0)
        };
        assert!(check_counts(Pooled, https, 10, Some(short)).is_err());
        assert!(check_counts(Pooled, https, 10, None).is_err());
    }

    fn sample(ok: u64, ok_ns: u64, cpu_us: u64) -> BatchOutcome {
        BatchOutcome {
            ok,
            ok_ns,
            allocated: AllocSnapshot {
                allocations: ok * 20,
                bytes: ok * 1_000,
            },
            cpu: Some(CpuTime {
                user: Duration::from_micros(cpu_us),
                system: Duration::from_micros(cpu_us / 2),
            }),
            ..BatchOutcome::default()
        }
    }

    #[test]
    fn a_row_gives_figures_per_timed_call_and_the_counts_of_the_mock() {
        let mut tally = Tally::new(2);
        tally.calls_per_sample = 4;
        tally.warmed_up(&sample(3, 3_000_000, 0), Some(counted(3, 1, 2)));
        // Two samples of 4 calls, means 100 us and 200 us; 400 us of user CPU each.
        tally.record(sample(4, 400_000, 400), Some(counted(4, 0, 4)));
        tally.record(sample(4, 800_000, 400), Some(counted(4, 0, 4)));
        let row = tally.calls_row(
            ClientName::Hyper,
            Protocol::Https,
            ConnectionMode::NewConnection,
            None,
        );
        assert_eq!(row.withheld, None);
        assert_eq!((row.warmup_calls, row.calls, row.failures), (3, 8, 0));
        assert_eq!(row.mean_us, Some(150.0));
        assert_eq!(row.sample_means_us, [Some(100.0), Some(200.0)]);
        assert_eq!(row.cpu_user_us_per_call, Some(100.0));
        assert_eq!(row.cpu_system_us_per_call, Some(50.0));
        assert_eq!(
            (row.allocs_per_op, row.bytes_per_op),
            (Some(20.0), Some(1_000.0))
        );
        assert_eq!(row.connections_opened, Some(11));
        assert_eq!(row.connections_per_call, Some(1.0));
        assert_eq!(row.full_handshakes_per_call, Some(0.0));
        assert_eq!(row.resumed_handshakes_per_call, Some(1.0));
        assert_eq!(row.tls_version.as_deref(), Some("TLSv1.3"));
    }

    #[test]
    fn against_a_foreign_upstream_the_counts_are_not_measured_and_the_times_stay() {
        let mut tally = Tally::new(1);
        tally.warmed_up(&sample(2, 200_000, 0), None);
        tally.record(sample(4, 400_000, 100), None);
        let why = NotCounted::ForeignUpstream {
            url: "https://localhost:8443".to_owned(),
        };
        let row = tally.calls_row(
            ClientName::Awc,
            Protocol::Https,
            ConnectionMode::NewConnection,
            Some(why.clone()),
        );
        assert_eq!(row.withheld, None);
        assert_eq!(row.not_measured, Some(why));
        assert_eq!(row.mean_us, Some(100.0));
        assert_eq!(
            (row.connections_opened, row.connections_per_call),
            (None, None)
        );
        assert_eq!(
            (row.tls_version, row.full_handshakes_per_call),
            (None, None)
        );
    }

    #[test]
    fn a_row_whose_counts_contradict_its_mode_gives_no_figure() {
        let mut tally = Tally::new(1);
        tally.warmed_up(&sample(2, 200_000, 0), Some(counted(1, 0, 0)));
        tally.record(sample(4, 400_000, 100), Some(counted(0, 0, 0)));
        let row = tally.calls_row(
            ClientName::Awc,
            Protocol::Http,
            ConnectionMode::NewConnection,
            None,
        );
        assert_eq!(
            row.withheld,
            Some(Withheld::NotOnePerCall {
                connections: 1,
                calls: 6
            })
        );
        assert_eq!((row.mean_us, row.allocs_per_op), (None, None));
        assert!(row.sample_means_us.is_empty());
        // What the mock counted stays: it is the evidence.
        assert_eq!(row.connections_opened, Some(1));
        assert_eq!(row.full_handshakes_per_call, None, "none over http");
    }

    #[test]
    fn a_failed_call_counts_as_a_call_and_its_error_is_kept() {
        let mut tally = Tally::new(1);
        let mut outcome = sample(1, 100_000, 10);
        outcome.failed("status 503".to_owned());
        outcome.failed("status 504".to_owned());
        tally.record(outcome, None);
        let row = tally.construction_row(ClientName::Isahc, ClientTrust::SystemRoots);
        assert_eq!((row.builds, row.failures), (3, 2));
        assert_eq!(row.mean_us, Some(100.0));
        assert_eq!(row.first_error.as_deref(), Some("status 503"));
    }

    fn pooled_and(mode: ConnectionMode, client: ClientName, means: &[f64]) -> ConnectionsRow {
        let mut tally = Tally::new(2);
        for &mean in means {
            tally.record(
                sample(1, (mean * 1_000.0) as u64, 0),
                Some(counted(1, 0, 0)),
            );
        }
        tally.calls_row(client, Protocol::Http, mode, None)
    }

    #[test]
    fn the_ratio_is_to_the_same_client_s_pooled_samples() {
        use ConnectionMode::{BuiltPerCall, NewConnection, Pooled};
        let mut rows = [
            pooled_and(Pooled, ClientName::Hyper, &[100.0, 200.0]),
            pooled_and(NewConnection, ClientName::Hyper, &[300.0, 400.0]),
            pooled_and(Pooled, ClientName::Ureq, &[10.0, 10.0]),
            pooled_and(BuiltPerCall, ClientName::Ureq, &[50.0, 70.0]),
            pooled_and(NewConnection, ClientName::Awc, &[1.0, 1.0]),
        ];
        fill_ratios(&mut rows);
        let ratios: Vec<Option<f64>> = rows.iter().map(|row| row.ratio_to_pooled).collect();
        // Per sample: 3 and 2 (not 700/300); 5 and 7; awc has no pooled row.
        assert_eq!(ratios, [Some(1.0), Some(2.5), Some(1.0), Some(6.0), None]);
        assert_eq!(rows[0].ratio_sd, Some(0.0));
    }
}
