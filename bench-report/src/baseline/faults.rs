//! The faults suite's cells: a categorical outcome, compared exactly, and the time to answer,
//! judged only against the service's timeout.

use crate::baseline::rules::pairs;
use bench_model::{Both, FaultChange, FaultOutcome, FaultRow, Judged};

/// How far past the service's timeout, as a share of it, an answer may come before its time
/// counts as late (1.5 x the timeout). Generous on purpose: a timeout fires at the timeout
/// plus the few milliseconds of a timer and a scheduler, and one payment per cell is no sample
/// to judge milliseconds by; the bench calls a payment hung only at the timeout + 5 s.
pub const LATE_AFTER_TIMEOUT: f64 = 0.5;

/// Cells matched by client and fault.
pub fn faults(then: &[FaultRow], now: &[FaultRow]) -> Vec<FaultChange> {
    pairs(then, now, |old, new| {
        old.client == new.client && old.fault == new.fault
    })
    .map(|(old, new)| FaultChange {
        client: new.client,
        fault: new.fault,
        outcome: outcome(old, new),
        elapsed_ms: elapsed(old, new),
        timeout_ms: Both {
            baseline: old.timeout_ms,
            now: new.timeout_ms,
        },
    })
    .collect()
}

/// Kind, status, recovery and hang: any difference is a change.
fn outcome(then: &FaultRow, now: &FaultRow) -> Judged<FaultOutcome> {
    let of = |row: &FaultRow| FaultOutcome {
        kind: row.kind.clone(),
        status: row.status,
        next_ok: row.next_ok,
        hung: row.hung,
    };
    let (old, new) = (of(then), of(now));
    let status = |status: Option<u16>| status.map_or_else(|| "none".to_owned(), |s| s.to_string());
    let recovery = |ok: bool| if ok { "ok" } else { "failed" };
    let hung = |hung: bool| if hung { "yes" } else { "no" };
    let mut differences = Vec::new();
    if old.kind != new.kind {
        differences.push(format!("kind {} -> {}", old.kind, new.kind));
    }
    if old.status != new.status {
        differences.push(format!(
            "status {} -> {}",
            status(old.status),
            status(new.status)
        ));
    }
    if old.next_ok != new.next_ok {
        differences.push(format!(
            "next payment {} -> {}",
            recovery(old.next_ok),
            recovery(new.next_ok)
        ));
    }
    if old.hung != new.hung {
        differences.push(format!("hung {} -> {}", hung(old.hung), hung(new.hung)));
    }
    let significant = !differences.is_empty();
    Judged {
        baseline: old,
        now: new,
        significant: Some(significant),
        rule: if significant {
            differences.join(", ")
        } else {
            "kind, status, next payment and hang the same".to_owned()
        },
    }
}

/// Whether the answer came later than [`LATE_AFTER_TIMEOUT`] allows.
fn late(row: &FaultRow) -> bool {
    row.elapsed_ms > row.timeout_ms as f64 * (1.0 + LATE_AFTER_TIMEOUT)
}

/// A change only when the answer crossed 1.5 x the timeout, one way or the other.
fn elapsed(then: &FaultRow, now: &FaultRow) -> Judged<f64> {
    let limit = |row: &FaultRow| format!("1.5 x {} ms", row.timeout_ms);
    let (was, is) = (late(then), late(now));
    let rule = match (was, is) {
        (false, false) => "within 1.5 x the timeout in both runs".to_owned(),
        (true, true) => "past 1.5 x the timeout in both runs".to_owned(),
        (false, true) => format!("now past {}", limit(now)),
        (true, false) => format!("now within {}, past {} then", limit(now), limit(then)),
    };
    Judged {
        baseline: then.elapsed_ms,
        now: now.elapsed_ms,
        significant: Some(was != is),
        rule,
    }
}

#[cfg(test)]
mod tests {
    use application::RatesErrorKind;

    use super::*;
    use bench_model::{ClientName, FaultCase, PaymentOutcome};

    fn row(
        client: ClientName,
        fault: FaultCase,
        kind: PaymentOutcome,
        elapsed_ms: f64,
    ) -> FaultRow {
        let status = match kind {
            PaymentOutcome::Ok => Some(200),
            PaymentOutcome::Failed(RatesErrorKind::Timeout) => Some(504),
            _ => Some(502),
        };
        FaultRow {
            client,
            fault,
            expected_kind: fault.expected(),
            kind,
            expected_status: 502,
            status,
            elapsed_ms,
            timeout_ms: 2_000,
            next_ok: true,
            hung: false,
        }
    }

    const TIMEOUT: PaymentOutcome = PaymentOutcome::Failed(RatesErrorKind::Timeout);
    const CONNECT: PaymentOutcome = PaymentOutcome::Failed(RatesErrorKind::Connect);

    #[test]
    fn any_change_of_the_outcome_counts() {
        use ClientName::{Awc, Hyper, Isahc, Ureq};
        let then = [
            row(Hyper, FaultCase::Hang, TIMEOUT, 2_003.0),
            row(Awc, FaultCase::Reset, CONNECT, 2.0),
            row(Ureq, FaultCase::Eof, CONNECT, 3.0),
            row(Isahc, FaultCase::Drip, TIMEOUT, 2_010.0),
        ];
        let mut recovered_badly = row(Ureq, FaultCase::Eof, CONNECT, 3.0);
        recovered_badly.next_ok = false;
        let mut hung = row(Isahc, FaultCase::Drip, PaymentOutcome::Hung, 7_000.0);
        hung.status = None;
        hung.hung = true;
        let now = [
            row(Hyper, FaultCase::Hang, TIMEOUT, 2_004.0),
            row(Awc, FaultCase::Reset, TIMEOUT, 2_001.0),
            recovered_badly,
            hung,
        ];
        let changes = faults(&then, &now);
        let rules: Vec<(Option<bool>, &str)> = changes
            .iter()
            .map(|change| (change.outcome.significant, change.outcome.rule.as_str()))
            .collect();
        assert_eq!(
            rules,
            [
                (Some(false), "kind, status, next payment and hang the same"),
                (Some(true), "kind connect -> timeout, status 502 -> 504"),
                (Some(true), "next payment ok -> failed"),
                (
                    Some(true),
                    "kind timeout -> hung, status 504 -> none, hung no -> yes"
                ),
            ]
        );
        assert_eq!(changes[1].outcome.now.kind, TIMEOUT);
    }

    #[test]
    fn elapsed_time_counts_only_past_one_and_a_half_timeouts() {
        let hang = |elapsed| row(ClientName::Hyper, FaultCase::Hang, TIMEOUT, elapsed);
        let reset = |elapsed| row(ClientName::Hyper, FaultCase::Reset, CONNECT, elapsed);
        let judged = |then: FaultRow, now: FaultRow| faults(&[then], &[now])[0].elapsed_ms.clone();
        // 2003 -> 2950 ms: slower, but within 3000 ms.
        assert_eq!(
            judged(hang(2_003.0), hang(2_950.0)).significant,
            Some(false)
        );
        let late = judged(hang(2_003.0), hang(3_500.0));
        assert_eq!(
            (late.significant, late.rule.as_str()),
            (Some(true), "now past 1.5 x 2000 ms")
        );
        // A fast failure ten times slower is still fast.
        assert_eq!(judged(reset(3.0), reset(30.0)).significant, Some(false));
        assert_eq!(judged(reset(3.1), reset(3_100.0)).significant, Some(true));
        assert_eq!(judged(hang(3_100.0), hang(2_001.0)).significant, Some(true));
    }
}
