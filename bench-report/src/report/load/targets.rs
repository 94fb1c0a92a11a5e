//! The load suite's targets, measured against each row (reported, never asserted).

use crate::report::format::format_us_as_ms;
use crate::report::table::{Align, Table};
use bench_model::LoadRow;

/// p99 targets at the reference rate: the framework alone, and a payment with its upstream call.
const HEALTH_P99_TARGET_US: f64 = 1_000.0;
const PAYMENT_P99_TARGET_US: f64 = 2_000.0;
/// Achieved RPS within this fraction of the target.
const RPS_TOLERANCE: f64 = 0.01;

/// Whether one row met the targets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TargetCheck {
    pub no_failures: bool,
    pub rps_within: bool,
    /// The p99 target in microseconds, and whether it was met (false without a p99).
    pub p99_target_us: f64,
    pub p99_within: bool,
    /// Over `https`: whether the TLS handshakes from the warm-up on stayed within the service's
    /// pool bound; `None` over http or when either is unknown.
    pub handshakes_within: Option<bool>,
}

impl TargetCheck {
    pub fn of(row: &LoadRow) -> Self {
        let p99_target_us = if row.scenario.client().is_some() {
            PAYMENT_P99_TARGET_US
        } else {
            HEALTH_P99_TARGET_US
        };
        let target = f64::from(row.target_rps);
        Self {
            no_failures: row.fail == 0 && row.skipped == 0,
            rps_within: (row.achieved_rps - target).abs() <= target * RPS_TOLERANCE,
            p99_target_us,
            p99_within: row.latency.p99_us.is_some_and(|p99| p99 < p99_target_us),
            handshakes_within: row
                .tls
                .as_ref()
                .zip(row.pool_bound)
                .map(|(tls, bound)| tls.handshakes <= bound),
        }
    }

    pub fn all(self) -> bool {
        self.no_failures
            && self.rps_within
            && self.p99_within
            && self.handshakes_within != Some(false)
    }
}

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "NOT met" }
}

/// The targets, measured: one row per scenario (of the ordinary answer: `rows` holds no
/// other).
pub fn targets_table(rows: &[LoadRow]) -> Table {
    use Align::{Left, Right};
    Table {
        title: "load: targets (measured, not asserted)".to_owned(),
        columns: vec![
            ("Scenario", Left),
            ("Failures (0)", Right),
            ("RPS (target +-1%)", Right),
            ("p99 (target)", Right),
            ("TLS handshakes (pool bound)", Right),
            ("All met", Left),
        ],
        rows: rows
            .iter()
            .map(|row| {
                let check = TargetCheck::of(row);
                vec![
                    row.label(),
                    format!("{}: {}", row.fail + row.skipped, verdict(check.no_failures)),
                    format!(
                        "{:.1} of {}: {}",
                        row.achieved_rps,
                        row.target_rps,
                        verdict(check.rps_within)
                    ),
                    format!(
                        "{} < {:.0} ms: {}",
                        format_us_as_ms(row.latency.p99_us),
                        check.p99_target_us / 1_000.0,
                        verdict(check.p99_within)
                    ),
                    match (&row.tls, row.pool_bound, check.handshakes_within) {
                        (Some(tls), Some(bound), Some(within)) => {
                            format!("{} <= {bound}: {}", tls.handshakes, verdict(within))
                        }
                        (Some(_), _, _) => "bound unknown".to_owned(),
                        _ if row.not_measured.is_some() && row.protocol.is_tls() => {
                            "not measured".to_owned()
                        }
                        _ => String::new(),
                    },
                    if check.all() { "yes" } else { "no" }.to_owned(),
                ]
            })
            .collect(),
    }
}

/// What the targets are, and that they are not asserted.
pub const TARGETS_NOTE: &str = "\
Targets at the reference rate: zero failed or skipped requests in every scenario; achieved RPS
within 1% of the target; p99 under 1 ms for `/health/live` and under 2 ms for every payments
scenario; over https, the TLS handshakes mock-rates counted from the warm-up on within the
service's pool bound (`rates.max_connections` per worker times the workers): connections stay at
the pool's size, not at the request count. They are measured and reported, not asserted: a run
on a busy machine can miss them.
";
