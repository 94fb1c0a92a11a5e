//! The load suite's rows: the open-model runs (a mean latency from thousands of requests).

use crate::baseline::rules::{beyond_standard_errors, counts_differ, pairs};
use bench_model::stats::summary::standard_error_of_mean;
use bench_model::{Both, Judged, LoadChange, LoadRow};

/// Open-model rows matched by scenario and protocol.
pub fn load(then: &[LoadRow], now: &[LoadRow]) -> Vec<LoadChange> {
    pairs(then, now, |old, new| {
        old.scenario == new.scenario
            && old.protocol == new.protocol
            && old.body_bytes == new.body_bytes
    })
    .map(|(old, new)| LoadChange {
        scenario: new.scenario,
        protocol: new.protocol,
        body_bytes: new.body_bytes,
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
        .map(|stddev| standard_error_of_mean(stddev, row.ok))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::{ClientName, Protocol, Scenario};

    /// The shared test row, with `scenario`, `protocol`, this mean and standard deviation.
    fn load_row(
        scenario: Scenario,
        protocol: Protocol,
        (mean_us, stddev_us): (f64, f64),
        fail: u64,
    ) -> LoadRow {
        let mut row =
            bench_model::test_rows::load_row(scenario.client(), 480.0, mean_us * 3.0, fail);
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
}
