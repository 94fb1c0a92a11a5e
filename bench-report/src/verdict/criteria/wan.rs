//! The WAN suite's criteria, over https (how a service reaches a rates API across a network):
//! the 99th percentile of payments across the lossy link and the connections they opened, and
//! the payments lost after a middlebox forgot the pool's connections and how soon one
//! succeeded.

use crate::verdict::criteria::judged::{judgement, not_measured, once, rounds};
use crate::verdict::judge::{Better, Criterion, Judgement, NoiseRule};
use bench_model::stats::quantile::median_of;
use bench_model::{Protocol, Results, SuiteName, WanRow};

/// The profile the WAN use case reads: 50 ms, 2% of packets lost each way in bursts.
pub(crate) const LOSSY: &str = "lossy";
/// The profile the NAT use case reads: a middlebox forgetting flows idle over 5 s.
pub(crate) const FORGETFUL: &str = "forgetful";
/// The protocol both read.
const OVER: Protocol = Protocol::Https;

/// The time to the first success after a forgotten flow is whole round trips of the link
/// (30 ms each: a new connection's TCP and TLS handshakes, then the payment) and the
/// service's own; measured once per client, a margin within 20% (about one round trip at the
/// figures seen, 160-300 ms) is a tie.
pub(crate) const FIRST_SUCCESS: NoiseRule = NoiseRule::Once(0.20);

fn rows<'a>(results: &'a Results, profile: &'a str) -> impl Iterator<Item = &'a WanRow> {
    results
        .wan
        .rows
        .iter()
        .filter(move |row| row.profile == profile && row.protocol == OVER)
}

/// The profile was not measured: the suite, or the profile, was not in the run.
fn not_in_run(criterion: Criterion, results: &Results, profile: &str) -> Option<Judgement> {
    if rows(results, profile).next().is_some() {
        return None;
    }
    let mut judged = not_measured(criterion, SuiteName::Wan);
    if !results.wan.rows.is_empty() {
        judged.outcome = crate::verdict::judge::Outcome::NotMeasured(format!(
            "not in this run: the wan suite's {profile} profile over https (--suite wan \
             --wan-profiles {profile})"
        ));
    }
    Some(judged)
}

/// A row's 99th percentile of every payment, a failed one at the time its failure came back:
/// with none failed, the answered ones' (the suite's first runs recorded only those). `Err`
/// with why when the row has no such figure.
fn p99_of_every(row: &WanRow) -> Result<f64, String> {
    let unsent = row.failures.get("unsent").copied().unwrap_or(0);
    if unsent > 0 {
        return Err(format!(
            "{unsent} of its {} payments were not sent",
            row.payments
        ));
    }
    let figure = if row.failed() == 0 {
        row.p99_every_ms.or(row.p99_ms)
    } else {
        row.p99_every_ms
    };
    figure.ok_or_else(|| {
        format!(
            "{} of its {} payments failed, and the run did not time them",
            row.failed(),
            row.payments
        )
    })
}

/// The 99th percentile of the payments across the lossy link, from each one's due time, a
/// failed one counted at the time its failure came back (a 504 after the service's 2 s
/// timeout, slower than any answer), its stretch sent in rounds with the clients in turn.
///
/// The figure is the median of the rounds' percentiles, and a margin counts only when the
/// rounds' ranges are apart and it is past each one's spread: a round's percentile of its 20
/// payments is its slowest, the link's round trip (about 52 ms) unless a burst of loss met one
/// of them (150-330 ms). As the stretch's percentile (its worst round), one unlucky round made
/// a margin of 6x look past the spread, with the two clients' other rounds 0.2 ms apart at the
/// floor (run 2 of results-2026-12-07-wan-2: hyper 53 / 52 / 52 ms against reqwest-native-tls
/// 53 / 53 / 330), and the next run had them the other way round.
pub(super) fn wan_p99(results: &Results) -> Judgement {
    let criterion = Criterion::WanP99;
    if let Some(judged) = not_in_run(criterion, results, LOSSY) {
        return judged;
    }
    let figures = rows(results, LOSSY)
        .filter_map(|row| {
            let p99 = p99_of_every(row).ok()?;
            let median = median_of(&row.round_p99_ms).unwrap_or(p99);
            let shown: Vec<String> = row
                .round_p99_ms
                .iter()
                .map(|ms| format!("{ms:.0}"))
                .collect();
            let failed = match row.failed() {
                0 => String::new(),
                failed => format!("; {failed} of {} failed", row.payments),
            };
            Some(rounds(
                row.client,
                median,
                row.round_p99_ms.clone(),
                None,
                format!(
                    "{median:.0} ms (rounds {} ms; the stretch's {p99:.0} ms{failed})",
                    shown.join(" / ")
                ),
            ))
        })
        .collect();
    judgement(
        criterion,
        "wan suite: the 99th percentile of payments across the lossy link (50 ms, 2% of packets \
         lost each way in bursts) over https, from each one's due time, a failed one at the \
         time its failure came back; the stretch in rounds, the clients in turn, the median of \
         the rounds' percentiles"
            .to_owned(),
        figures,
        Better::Lower,
        NoiseRule::Rounds,
        SuiteName::Wan,
    )
    .leaving_out(
        rows(results, LOSSY)
            .filter_map(|row| p99_of_every(row).err().map(|why| (row.client, why)))
            .collect(),
    )
}

/// New connections the upstream accepted per 1 000 of those payments, round by round (the
/// stretch's rounds, the clients in turn): a count of a few per round (0-3 of 20 payments), so
/// the ranges of the rounds must not overlap for a margin to count. As one figure per run with
/// a 50% band, one client's fell on either side of the band in two runs (lossy, https: awc
/// 83.3 then 33.3 per 1 000, 2-vCPU AMD EPYC VM, 2026-12-07) and the tie's members moved.
pub(super) fn wan_connections(results: &Results) -> Judgement {
    let criterion = Criterion::WanConnections;
    if let Some(judged) = not_in_run(criterion, results, LOSSY) {
        return judged;
    }
    let figures = rows(results, LOSSY)
        .filter_map(|row| {
            let per_1000 = row.connections_per_1000?;
            let opened = (per_1000
                * (row.payments - row.failures.get("unsent").unwrap_or(&0)) as f64
                / 1_000.0)
                .round();
            let shown: Vec<String> = row
                .round_connections_per_1000
                .iter()
                .map(|count| format!("{count:.0}"))
                .collect();
            Some(rounds(
                row.client,
                per_1000,
                row.round_connections_per_1000.clone(),
                None,
                format!(
                    "{per_1000:.1} ({opened:.0} for {} payments; rounds {})",
                    row.payments,
                    shown.join(" / ")
                ),
            ))
        })
        .collect();
    judgement(
        criterion,
        "wan suite: new connections the upstream accepted per 1 000 payments across the lossy \
         link over https; the stretch in rounds, the clients in turn"
            .to_owned(),
        figures,
        Better::Lower,
        NoiseRule::Rounds,
        SuiteName::Wan,
    )
}

/// Payments lost after the pool's connections sat idle until the middlebox forgot them: a
/// count.
pub(super) fn wan_lost(results: &Results) -> Judgement {
    let criterion = Criterion::WanLost;
    if let Some(judged) = not_in_run(criterion, results, FORGETFUL) {
        return judged;
    }
    let figures = rows(results, FORGETFUL)
        .filter_map(|row| {
            let recovery = row.recovery.as_ref()?;
            Some(once(
                row.client,
                recovery.lost as f64,
                format!("{} of {}", recovery.lost, row.payments),
            ))
        })
        .collect();
    judgement(
        criterion,
        "wan suite: payments lost when the pool's connections had sat idle until a middlebox \
         forgot them (idle over 5 s, then 20 payments a second) over https"
            .to_owned(),
        figures,
        Better::Lower,
        NoiseRule::Exact,
        SuiteName::Wan,
    )
}

/// From the start of those payments to the first answered (ms).
pub(super) fn wan_first_success(results: &Results) -> Judgement {
    let criterion = Criterion::WanFirstSuccess;
    if let Some(judged) = not_in_run(criterion, results, FORGETFUL) {
        return judged;
    }
    let measured: Vec<&WanRow> = rows(results, FORGETFUL).collect();
    let figures = measured
        .iter()
        .filter_map(|row| {
            let ms = row.recovery.as_ref()?.first_success_ms?;
            Some(once(row.client, ms, format!("{ms:.0} ms")))
        })
        .collect();
    judgement(
        criterion,
        "wan suite: from the start of the payments after a forgotten flow to the first \
         answered, over https"
            .to_owned(),
        figures,
        Better::Lower,
        FIRST_SUCCESS,
        SuiteName::Wan,
    )
    .leaving_out(
        measured
            .iter()
            .filter(|row| {
                row.recovery
                    .as_ref()
                    .is_some_and(|recovery| recovery.first_success_ms.is_none())
            })
            .map(|row| (row.client, "no payment succeeded after it".to_owned()))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::judge::Outcome;
    use bench_model::ClientName;

    fn lossy(client: ClientName, rounds: &[f64]) -> WanRow {
        WanRow {
            profile: LOSSY.to_owned(),
            client,
            protocol: OVER,
            rtt_ms: 50.2,
            cold_ms: Some(150.0),
            warm_ms: Some(50.5),
            payments: 60,
            ok: 60,
            failures: std::collections::BTreeMap::new(),
            first_error: None,
            p50_ms: Some(51.0),
            p99_ms: Some(60.0),
            p99_every_ms: Some(60.0),
            max_ms: Some(61.0),
            round_p99_ms: vec![58.0, 60.0, 61.0],
            connections_per_1000: Some(rounds.iter().sum::<f64>() / rounds.len() as f64),
            round_connections_per_1000: rounds.to_vec(),
            handshakes_per_1000: Some(0.0),
            batch: None,
            recovery: None,
        }
    }

    fn with_rows(rows: Vec<WanRow>) -> Results {
        let mut results = Results::new(
            bench_model::test_rows::environment("now"),
            bench_model::test_rows::default_settings(),
        );
        results.wan.rows = rows;
        results
    }

    fn judged(rows: Vec<WanRow>) -> Judgement {
        wan_connections(&with_rows(rows))
    }

    #[test]
    fn connections_count_only_when_their_rounds_do_not_overlap() {
        // awc's 83.3 against hyper's 33.3 per 1 000: a 150% margin, but a round of awc's
        // opened no more than one of hyper's did.
        let overlapping = judged(vec![
            lossy(ClientName::Hyper, &[50.0, 50.0, 0.0]),
            lossy(ClientName::Awc, &[150.0, 50.0, 50.0]),
        ]);
        let Outcome::Ranked(ranking) = &overlapping.outcome else {
            panic!("{overlapping:?}")
        };
        assert_eq!(ranking.best.client, ClientName::Hyper);
        assert!(!ranking.decisive, "{ranking:?}");
        assert!(
            ranking.best.shown.contains("rounds 50 / 50 / 0"),
            "{ranking:?}"
        );
        let apart = judged(vec![
            lossy(ClientName::Hyper, &[0.0, 50.0, 50.0]),
            lossy(ClientName::Awc, &[600.0, 650.0, 700.0]),
        ]);
        let Outcome::Ranked(ranking) = &apart.outcome else {
            panic!("{apart:?}")
        };
        assert!(ranking.decisive, "{ranking:?}");
        // None in every round against some in every round: a count that did not move.
        let none = judged(vec![
            lossy(ClientName::Hyper, &[0.0, 0.0, 0.0]),
            lossy(ClientName::Awc, &[50.0, 100.0, 50.0]),
        ]);
        let Outcome::Ranked(ranking) = &none.outcome else {
            panic!("{none:?}")
        };
        assert_eq!(ranking.best.client, ClientName::Hyper);
        assert!(ranking.decisive, "{ranking:?}");
        let both_none = judged(vec![
            lossy(ClientName::Hyper, &[0.0, 0.0, 0.0]),
            lossy(ClientName::Awc, &[0.0, 0.0, 0.0]),
        ]);
        let Outcome::Ranked(ranking) = &both_none.outcome else {
            panic!("{both_none:?}")
        };
        assert!(!ranking.decisive, "{ranking:?}");
    }

    #[test]
    fn a_failed_payment_counts_at_the_time_its_failure_came_back() {
        let mut results = with_rows(Vec::new());
        let mut failed = lossy(ClientName::Isahc, &[0.0, 0.0, 0.0]);
        failed.failures.insert("504".to_owned(), 1);
        failed.ok = 59;
        failed.p99_every_ms = Some(2_051.0);
        failed.round_p99_ms = vec![154.0, 53.0, 2_051.0];
        let mut old = lossy(ClientName::Ureq, &[0.0, 0.0, 0.0]);
        old.failures.insert("504".to_owned(), 2);
        old.p99_every_ms = None;
        results.wan.rows = vec![lossy(ClientName::Hyper, &[0.0, 0.0, 0.0]), failed, old];
        let judgement = wan_p99(&results);
        let Outcome::Ranked(ranking) = &judgement.outcome else {
            panic!("{judgement:?}")
        };
        assert_eq!(ranking.best.client, ClientName::Hyper);
        let isahc = &ranking.order[1];
        assert_eq!(isahc.client, ClientName::Isahc);
        assert!(
            isahc.shown
                == "154 ms (rounds 154 / 53 / 2051 ms; the stretch's 2051 ms; 1 of 60 failed)",
            "{}",
            isahc.shown
        );
        // Ranges overlap (53 against 58-61): a tie, isahc in it.
        assert!(!ranking.decisive, "{ranking:?}");
        // A row with failures and no time for them (the suite's first runs) is no figure.
        assert_eq!(
            judgement.left_out,
            vec![(
                ClientName::Ureq,
                "2 of its 60 payments failed, and the run did not time them".to_owned()
            )]
        );
    }

    #[test]
    fn one_unlucky_round_does_not_place_a_client_behind_beyond_the_noise() {
        // Run 2 of results-2026-12-07-wan-2: the ranges 0.2 ms apart at the link's floor, one
        // round of reqwest-native-tls's met a burst of loss.
        let mut results = with_rows(Vec::new());
        let mut hyper = lossy(ClientName::Hyper, &[150.0, 0.0, 0.0]);
        hyper.round_p99_ms = vec![53.3, 52.2, 52.4];
        hyper.p99_every_ms = Some(53.3);
        let mut unlucky = lossy(ClientName::ReqwestNativeTls, &[150.0, 0.0, 0.0]);
        unlucky.round_p99_ms = vec![53.5, 53.4, 330.0];
        unlucky.p99_every_ms = Some(330.0);
        results.wan.rows = vec![hyper.clone(), unlucky];
        let Outcome::Ranked(ranking) = &wan_p99(&results).outcome else {
            panic!()
        };
        assert!(!ranking.decisive, "{ranking:?}");
        // Slower in every round: placed behind.
        let mut slower = lossy(ClientName::Awc, &[100.0, 0.0, 0.0]);
        slower.round_p99_ms = vec![151.0, 152.0, 153.0];
        slower.p99_every_ms = Some(153.0);
        results.wan.rows = vec![hyper, slower];
        let Outcome::Ranked(ranking) = &wan_p99(&results).outcome else {
            panic!()
        };
        assert_eq!(ranking.best.client, ClientName::Hyper);
        assert!(ranking.decisive, "{ranking:?}");
    }

    #[test]
    fn a_run_without_the_lossy_profile_says_how_to_measure_it() {
        let mut other = lossy(ClientName::Hyper, &[0.0, 0.0, 0.0]);
        other.profile = FORGETFUL.to_owned();
        let judgement = judged(vec![other]);
        let Outcome::NotMeasured(how) = &judgement.outcome else {
            panic!("{judgement:?}")
        };
        assert!(how.contains("--wan-profiles lossy"), "{how}");
    }
}
