//! Latency, decode and cost rows: a mean each, judged against the two runs' combined Error.
//!
//! A difference counts as real when it exceeds the combined Error of the two runs,
//! sqrt(Error_then^2 + Error_now^2): each Error is the half-width of a 99.9% confidence
//! interval, and for independent means the half-widths add in quadrature. Instruction counts
//! (the cost suite) have no samples: each run's count is taken as good to
//! [`COST_REPEATABILITY`], what two runs of one build gave on this project's machine.

use crate::baseline::rules::pairs;
use bench_model::stats::difference;
use bench_model::{Change, CostRow, DecodeRow, LatencyRow, SuiteName};

/// How far apart two runs of one build put a row's instructions per call: within 0.1% over
/// http and about 1% over https here. A change beyond the two runs' combined repeatability
/// (about 1.4%) is taken as real.
pub const COST_REPEATABILITY: f64 = 0.01;

struct Figures {
    mean: Option<f64>,
    error: Option<f64>,
    allocs_per_op: f64,
}

fn change(
    suite: SuiteName,
    row: String,
    unit: &str,
    then: &Figures,
    now: &Figures,
) -> Option<Change> {
    let (baseline_mean, mean) = (then.mean?, now.mean?);
    if baseline_mean <= 0.0 {
        return None;
    }
    let combined_error = then
        .error
        .zip(now.error)
        .map(|(a, b)| difference::combined_error(a, b));
    Some(Change {
        suite,
        row,
        unit: unit.to_owned(),
        baseline_mean,
        mean,
        ratio: mean / baseline_mean,
        combined_error,
        significant: combined_error.map(|error| (mean - baseline_mean).abs() > error),
        baseline_allocs_per_op: then.allocs_per_op,
        allocs_per_op: now.allocs_per_op,
    })
}

/// Latency rows matched by client and protocol.
pub fn latency(then: &[LatencyRow], now: &[LatencyRow]) -> Vec<Change> {
    let figures = |row: &LatencyRow| Figures {
        mean: row.mean_us,
        error: row.error_us,
        allocs_per_op: row.allocs_per_op,
    };
    pairs(then, now, |old, new| {
        old.client == new.client && old.protocol == new.protocol
    })
    .filter_map(|(old, new)| {
        change(
            SuiteName::Latency,
            format!("{} {}", new.client, new.protocol),
            "us",
            &figures(old),
            &figures(new),
        )
    })
    .collect()
}

/// Decode rows matched by method and body.
pub fn decode(then: &[DecodeRow], now: &[DecodeRow]) -> Vec<Change> {
    let figures = |row: &DecodeRow| Figures {
        mean: row.mean_ns,
        error: row.error_ns,
        allocs_per_op: row.allocs_per_op,
    };
    pairs(then, now, |old, new| {
        old.method == new.method && old.body == new.body
    })
    .filter_map(|(old, new)| {
        change(
            SuiteName::Decode,
            format!("{} / {}", new.method, new.body),
            "ns",
            &figures(old),
            &figures(new),
        )
    })
    .collect()
}

/// Cost rows matched by client and protocol.
pub fn cost(then: &[CostRow], now: &[CostRow]) -> Vec<Change> {
    let figures = |row: &CostRow| Figures {
        mean: Some(row.instructions_per_call),
        error: Some(row.instructions_per_call * COST_REPEATABILITY),
        allocs_per_op: row.allocs_per_call,
    };
    pairs(then, now, |old, new| {
        old.client == new.client && old.protocol == new.protocol
    })
    .filter_map(|(old, new)| {
        change(
            SuiteName::Cost,
            format!("{} {}", new.client, new.protocol),
            "instructions",
            &figures(old),
            &figures(new),
        )
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::ClientName;

    fn latency_row(client: ClientName, mean: f64, error: Option<f64>, allocs: f64) -> LatencyRow {
        LatencyRow {
            client,
            protocol: bench_model::Protocol::Http,
            body_bytes: None,
            decode: bench_model::Decode::Whole,
            tls: None,
            calls: 100,
            failures: 0,
            mean_us: Some(mean),
            error_us: error,
            stddev_us: Some(1.0),
            median_us: Some(mean),
            p99_us: Some(mean * 2.0),
            ratio: Some(1.0),
            ratio_sd: Some(0.0),
            allocs_per_op: allocs,
            bytes_per_op: 100.0,
            connections_opened: Some(1),
            sample_means_us: vec![Some(mean)],
            first_error: None,
            noise: None,
            bare: None,
            round_means_us: vec![mean],
            round_allocs_per_op: vec![allocs],
            mock_cpu_us: None,
            peak_bytes: None,
            unchecked: None,
            not_measured: None,
        }
    }

    #[test]
    fn flags_changes_beyond_the_combined_error() {
        let then = [
            latency_row(ClientName::Hyper, 100.0, Some(3.0), 19.0),
            latency_row(ClientName::Awc, 100.0, Some(3.0), 28.0),
            latency_row(ClientName::Ureq, 100.0, None, 41.0),
            latency_row(ClientName::Isahc, 100.0, Some(1.0), 1.0),
        ];
        let now = [
            // 10 us faster, combined Error sqrt(9 + 16) = 5: a real change.
            latency_row(ClientName::Hyper, 90.0, Some(4.0), 19.0),
            // 4 us slower, within the same 5.
            latency_row(ClientName::Awc, 104.0, Some(4.0), 30.0),
            // No Error then: cannot tell.
            latency_row(ClientName::Ureq, 50.0, Some(1.0), 41.0),
            latency_row(ClientName::Reqwest, 10.0, Some(1.0), 1.0),
        ];
        let changes = latency(&then, &now);
        assert_eq!(changes.len(), 3);
        let hyper = &changes[0];
        assert_eq!(hyper.row, "hyper http");
        assert!((hyper.ratio - 0.9).abs() < 1e-12);
        assert!((hyper.combined_error.unwrap() - 5.0).abs() < 1e-12);
        assert_eq!((hyper.significant, hyper.verdict()), (Some(true), "faster"));
        let awc = &changes[1];
        assert!((awc.ratio - 1.04).abs() < 1e-12);
        assert_eq!(awc.significant, Some(false));
        assert_eq!(
            (awc.baseline_allocs_per_op, awc.allocs_per_op),
            (28.0, 30.0)
        );
        let ureq = &changes[2];
        assert_eq!((ureq.significant, ureq.combined_error), (None, None));
    }

    fn cost_row(client: ClientName, instructions_per_call: f64) -> CostRow {
        CostRow {
            client,
            protocol: bench_model::Protocol::Https,
            tls: None,
            calls: (100, 2100),
            instructions: (
                450_000_000,
                450_000_000 + instructions_per_call as u64 * 2000,
            ),
            instructions_per_call,
            allocs_per_call: 25.0,
            bytes_per_call: 14_000.0,
            ratio: None,
            round_instructions_per_call: vec![instructions_per_call],
            unchecked: None,
        }
    }

    #[test]
    fn instruction_counts_change_beyond_their_repeatability() {
        let then = [
            cost_row(ClientName::Hyper, 47_769.0),
            cost_row(ClientName::Isahc, 172_905.0),
        ];
        // Two runs of one build here: hyper 47 769 then 47 349 (0.9%), within 1.4%; isahc
        // 172 905 then 180 000 (4.1%) is a real change.
        let now = [
            cost_row(ClientName::Hyper, 47_349.0),
            cost_row(ClientName::Isahc, 180_000.0),
        ];
        let changes = cost(&then, &now);
        let verdicts: Vec<(&str, &str)> = changes
            .iter()
            .map(|change| (change.row.as_str(), change.verdict()))
            .collect();
        assert_eq!(
            verdicts,
            [
                ("hyper https", "same (within 1.4%)"),
                ("isahc https", "more instructions")
            ]
        );
        assert_eq!(changes[0].unit, "instructions");
        assert_eq!(changes[0].suite, SuiteName::Cost);
    }
}
