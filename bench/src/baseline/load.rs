//! The load suite's rows: the open-model runs (a mean latency from thousands of requests) and
//! the capacity step (one throughput per run, no samples).

use crate::baseline::rules::{beyond_repeatability, beyond_standard_errors, counts_differ, pairs};
use crate::model::{Both, CapacityChange, CapacityRow, Judged, LoadChange, LoadRow};

/// How far one run's capacity (its best level's requests per second) is taken to be from
/// another run's of the same build: 15% of each, about 21% in all (in quadrature). Measured on
/// this project's 2-vCPU machine with two back-to-back default load runs of one build (the
/// second with `--baseline` on the first): the 14 scenarios' Now/Baseline lay between 0.79 and
/// 1.08, the widest apart isahc's (whose https row fails requests) and the TLS rows; at 10% a
/// run, 5 of the 14 were called changed. The figure is one level of 1.5 s (0.5 s with
/// --quick), with no samples to give it an Error, on 2 cores that the generator, the api and
/// mock-rates share. One pair of runs is a small measure: a machine's own is the Now/Baseline
/// column of such a pair.
pub const CAPACITY_REPEATABILITY: f64 = 0.15;

/// Open-model rows matched by scenario and protocol.
pub fn load(then: &[LoadRow], now: &[LoadRow]) -> Vec<LoadChange> {
    pairs(then, now, |old, new| {
        old.scenario == new.scenario && old.protocol == new.protocol
    })
    .map(|(old, new)| LoadChange {
        scenario: new.scenario,
        protocol: new.protocol,
        target_rps: Both {
            baseline: old.target_rps,
            now: new.target_rps,
        },
        mean_us: mean_latency(old, new),
        p99_us: Both {
            baseline: old.latency.p99_us,
            now: new.latency.p99_us,
        },
        failures: counts_differ(
            (old.fail + old.skipped, old.scheduled),
            (new.fail + new.skipped, new.scheduled),
            true,
        ),
    })
    .collect()
}

/// The mean latencies, judged by their standard errors; not at all when the runs sent at
/// different rates, since a different offered load is a different experiment.
fn mean_latency(then: &LoadRow, now: &LoadRow) -> Judged<Option<f64>> {
    if then.target_rps != now.target_rps {
        return Judged {
            baseline: then.latency.mean_us,
            now: now.latency.mean_us,
            significant: None,
            rule: format!(
                "sent at {} RPS then, {} now: not comparable",
                then.target_rps, now.target_rps
            ),
        };
    }
    beyond_standard_errors(
        then.latency.mean_us,
        standard_error(then),
        now.latency.mean_us,
        standard_error(now),
        "us",
    )
}

/// The standard error of a run's mean latency, StdDev / sqrt(successful requests), as if the
/// requests were independent draws. They are not: they queue behind one another on two cores
/// and share the machine's state, and latency runs from the intended send time, so one stall
/// delays every request due during it. The real noise of the mean is larger, so this is a lower
/// bound on it: a change beyond it is beyond sampling noise, not necessarily beyond how much
/// the machine drifts between runs. `None` below two successful requests.
fn standard_error(row: &LoadRow) -> Option<f64> {
    if row.ok < 2 {
        return None;
    }
    row.latency
        .stddev_us
        .map(|stddev| stddev / (row.ok as f64).sqrt())
}

/// Capacity rows matched by scenario and protocol.
pub fn capacity(then: &[CapacityRow], now: &[CapacityRow]) -> Vec<CapacityChange> {
    pairs(then, now, |old, new| {
        old.scenario == new.scenario && old.protocol == new.protocol
    })
    .map(|(old, new)| CapacityChange {
        scenario: new.scenario,
        protocol: new.protocol,
        max_rps: max_rps(old.max_rps, new.max_rps),
        at_concurrency: Both {
            baseline: old.at_concurrency,
            now: new.at_concurrency,
        },
        same_levels: old
            .levels
            .iter()
            .map(|level| level.concurrency)
            .eq(new.levels.iter().map(|level| level.concurrency)),
    })
    .collect()
}

/// The best level's throughput, judged by [`CAPACITY_REPEATABILITY`]; a scenario with a level
/// free of failures in only one run has changed.
fn max_rps(then: Option<f64>, now: Option<f64>) -> Judged<Option<f64>> {
    let judged = |significant, rule: &str| Judged {
        baseline: then,
        now,
        significant: Some(significant),
        rule: rule.to_owned(),
    };
    match (then, now) {
        (Some(then), Some(now)) => beyond_repeatability(then, now, CAPACITY_REPEATABILITY, "req/s"),
        (None, None) => judged(false, "no level without failures in either run"),
        (Some(_), None) => judged(true, "no level without failures now"),
        (None, Some(_)) => judged(true, "no level without failures then"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CapacityLevel, ClientName, FailureCounts, Protocol, Scenario};

    /// The shared test row, with `scenario`, `protocol`, this mean and standard deviation.
    fn load_row(
        scenario: Scenario,
        protocol: Protocol,
        (mean_us, stddev_us): (f64, f64),
        fail: u64,
    ) -> LoadRow {
        let mut row =
            crate::model::test_rows::load_row(scenario.client(), 480.0, mean_us * 3.0, fail);
        row.scenario = scenario;
        row.protocol = protocol;
        row.latency.mean_us = Some(mean_us);
        row.latency.stddev_us = Some(stddev_us);
        row.latency.p50_us = Some(mean_us);
        row
    }

    const HYPER: Scenario = Scenario::Payments(ClientName::Hyper);
    const AWC: Scenario = Scenario::Payments(ClientName::Awc);

    #[test]
    fn load_means_change_beyond_their_standard_errors() {
        // StdDev 200 us over 4800 requests: SE 2.89 us a run, the threshold 3.29 x 4.08 = 13.4.
        let then = [
            load_row(Scenario::Health, Protocol::Http, (170.0, 200.0), 0),
            load_row(HYPER, Protocol::Http, (300.0, 200.0), 0),
            load_row(HYPER, Protocol::Https, (320.0, 200.0), 0),
            load_row(AWC, Protocol::Http, (350.0, 200.0), 0),
        ];
        let now = [
            // Doubled, with a small spread: slower.
            load_row(HYPER, Protocol::Http, (600.0, 200.0), 0),
            // 5 us more: within the noise.
            load_row(Scenario::Health, Protocol::Http, (175.0, 200.0), 0),
            // 5 us more, but the spread is 100 times wider: within it.
            load_row(AWC, Protocol::Http, (355.0, 20_000.0), 0),
            load_row(
                Scenario::Payments(ClientName::Ureq),
                Protocol::Http,
                (1.0, 1.0),
                0,
            ),
        ];
        let changes = load(&then, &now);
        let decided: Vec<(Scenario, Option<bool>)> = changes
            .iter()
            .map(|change| (change.scenario, change.mean_us.significant))
            .collect();
        assert_eq!(
            decided,
            [
                (HYPER, Some(true)),
                (Scenario::Health, Some(false)),
                (AWC, Some(false)),
            ]
        );
        assert_eq!(changes[0].protocol, Protocol::Http);
        assert_eq!(changes[0].mean_us.rule, "|+300.0| > 13.4 us (3.29 SE)");
        assert_eq!(
            (changes[0].p99_us.baseline, changes[0].p99_us.now),
            (Some(900.0), Some(1800.0))
        );
        assert!(
            changes
                .iter()
                .all(|change| change.failures.significant == Some(false))
        );
    }

    #[test]
    fn load_failures_appearing_or_going_always_count() {
        let then = [
            load_row(HYPER, Protocol::Http, (300.0, 200.0), 0),
            load_row(AWC, Protocol::Https, (300.0, 200.0), 742),
        ];
        let mut now = [
            load_row(HYPER, Protocol::Http, (300.0, 200.0), 1),
            load_row(AWC, Protocol::Https, (300.0, 200.0), 0),
        ];
        let changes = load(&then, &now);
        assert_eq!(
            (changes[0].failures.baseline, changes[0].failures.now),
            (0, 1)
        );
        assert!(changes.iter().all(|change| change.failures.changed()));
        assert!(changes.iter().all(|change| !change.mean_us.changed()));
        // Skipped requests (never sent) are failures too.
        now[0] = load_row(HYPER, Protocol::Http, (300.0, 200.0), 0);
        now[0].skipped = 4;
        assert_eq!(load(&then, &now)[0].failures.now, 4);
        assert!(load(&then, &now)[0].failures.changed());
    }

    #[test]
    fn a_load_row_without_successful_requests_cannot_be_judged() {
        let then = [load_row(HYPER, Protocol::Http, (300.0, 200.0), 0)];
        let mut now = [load_row(HYPER, Protocol::Http, (300.0, 200.0), 4800)];
        now[0].latency.mean_us = None;
        now[0].latency.stddev_us = None;
        let change = &load(&then, &now)[0];
        assert_eq!(change.mean_us.significant, None);
        assert_eq!(change.mean_us.rule, "no mean now");
        assert!(change.failures.changed());
    }

    #[test]
    fn load_means_at_different_rates_are_not_judged() {
        let then = [load_row(HYPER, Protocol::Http, (300.0, 200.0), 0)];
        let mut now = [load_row(HYPER, Protocol::Http, (600.0, 200.0), 0)];
        now[0].target_rps = 200;
        let change = &load(&then, &now)[0];
        assert_eq!(change.mean_us.significant, None);
        assert_eq!(
            change.mean_us.rule,
            "sent at 480 RPS then, 200 now: not comparable"
        );
        assert_eq!(
            (change.target_rps.baseline, change.target_rps.now),
            (480, 200)
        );
    }

    fn capacity_row(scenario: Scenario, max_rps: Option<f64>, levels: &[u32]) -> CapacityRow {
        CapacityRow {
            scenario,
            protocol: Protocol::Http,
            max_rps,
            at_concurrency: levels.last().copied(),
            p99_us: None,
            levels: levels
                .iter()
                .map(|&concurrency| CapacityLevel {
                    concurrency,
                    ok: 1,
                    fail: 0,
                    failures: FailureCounts::default(),
                    rps: max_rps.unwrap_or(0.0),
                    p50_us: None,
                    p99_us: None,
                    connections: u64::from(concurrency),
                    first_error: None,
                })
                .collect(),
        }
    }

    #[test]
    fn capacity_changes_beyond_its_repeatability() {
        let then = [
            capacity_row(Scenario::Health, Some(63_719.0), &[1, 4, 16, 64]),
            capacity_row(HYPER, Some(23_266.0), &[1, 4, 16, 64]),
            capacity_row(AWC, Some(18_581.0), &[1, 4, 16, 64]),
            capacity_row(Scenario::Payments(ClientName::Isahc), None, &[4, 32]),
        ];
        let now = [
            // 8% more: within 15% a run.
            capacity_row(Scenario::Health, Some(68_817.0), &[1, 4, 16, 64]),
            // 30% fewer: beyond it.
            capacity_row(HYPER, Some(16_286.0), &[1, 4, 16, 64]),
            // Every level failed now.
            capacity_row(AWC, None, &[4, 32]),
            capacity_row(Scenario::Payments(ClientName::Isahc), None, &[4, 32]),
        ];
        let changes = capacity(&then, &now);
        let decided: Vec<Option<bool>> = changes
            .iter()
            .map(|change| change.max_rps.significant)
            .collect();
        assert_eq!(decided, [Some(false), Some(true), Some(true), Some(false)]);
        assert_eq!(changes[2].max_rps.rule, "no level without failures now");
        assert_eq!(
            (
                changes[0].at_concurrency.baseline,
                changes[0].at_concurrency.now
            ),
            (Some(64), Some(64))
        );
        assert!(changes[0].same_levels && !changes[2].same_levels);
    }
}
