//! The use cases: each a rule over the criteria, applied to this run's judgements.

use crate::model::{ClientName, Protocol};
use crate::verdict::judge::{Criterion, Figure, Judgement, Outcome, compare};

/// One use case's pick.
#[derive(Clone, Debug, PartialEq)]
pub struct Pick {
    pub use_case: &'static str,
    /// `None` when the run lacks the figures the rule needs.
    pub client: Option<ClientName>,
    /// The rule, and how this run's figures made the pick, in one line.
    pub reason: String,
}

/// The clients a caller can use from blocking code without an async runtime of its own:
/// ureq (blocking only) and isahc (blocking or async, on its own agent thread).
const BLOCKING: [ClientName; 3] = [
    ClientName::Ureq,
    ClientName::UreqNativeTls,
    ClientName::Isahc,
];

/// Every use case, in the table's order.
pub fn pick_all(criteria: &[Judgement]) -> Vec<Pick> {
    let find = |criterion: Criterion| criteria.iter().find(|j| j.criterion == criterion);
    let capacity = find(Criterion::Capacity);
    let async_clients: Vec<ClientName> = ClientName::ALL
        .into_iter()
        .filter(|client| !matches!(client, ClientName::Ureq | ClientName::UreqNativeTls))
        .collect();
    vec![
        choose(
            "A high-throughput async service",
            "the highest capacity among async clients, a tie broken by the lower CPU per request",
            &async_clients,
            capacity,
            find(Criterion::CpuPerRequest),
        ),
        on_actix(capacity),
        choose(
            "Blocking or CLI code",
            "the lowest per-call latency over http among clients callable without an async \
             runtime (ureq, isahc), a tie broken by the smaller binary",
            &BLOCKING,
            find(Criterion::Latency(Protocol::Http)),
            find(Criterion::BinarySize),
        ),
        choose(
            "The smallest binary",
            "the smallest stripped probe, a tie broken by fewer crates",
            &ClientName::ALL,
            find(Criterion::BinarySize),
            find(Criterion::Dependencies),
        ),
        choose(
            "The fastest builds",
            "the shortest clean release build of the probe, a tie broken by fewer crates",
            &ClientName::ALL,
            find(Criterion::BuildTime),
            find(Criterion::Dependencies),
        ),
    ]
}

/// The figures of `judgement` among `candidates`, best first.
fn among<'a>(judgement: Option<&'a Judgement>, candidates: &[ClientName]) -> Vec<&'a Figure> {
    judgement
        .map(|judgement| {
            judgement
                .order()
                .iter()
                .filter(|figure| candidates.contains(&figure.client))
                .collect()
        })
        .unwrap_or_default()
}

fn not_measured(judgement: Option<&Judgement>) -> String {
    match judgement.map(|judgement| &judgement.outcome) {
        Some(Outcome::NotMeasured(how)) => how.clone(),
        _ => "no candidate was measured in this run".to_owned(),
    }
}

/// The best candidate by `primary`; among those it does not beat beyond the noise, the best by
/// `tiebreak` when that was measured.
fn choose(
    use_case: &'static str,
    rule: &str,
    candidates: &[ClientName],
    primary: Option<&Judgement>,
    tiebreak: Option<&Judgement>,
) -> Pick {
    let figures = among(primary, candidates);
    let (Some(judgement), Some(best)) = (primary, figures.first()) else {
        return Pick {
            use_case,
            client: None,
            reason: format!("{rule}: {}", not_measured(primary)),
        };
    };
    let Some(second) = figures.get(1) else {
        return Pick {
            use_case,
            client: Some(best.client),
            reason: format!(
                "{rule}: {} {}, the only candidate measured",
                best.client, best.shown
            ),
        };
    };
    let (margin, decisive) = compare(best, second, judgement.better, judgement.rule);
    if decisive {
        return Pick {
            use_case,
            client: Some(best.client),
            reason: format!(
                "{rule}: {} {} against {} {} ({}, beyond the noise)",
                best.client,
                best.shown,
                second.client,
                second.shown,
                percent(margin)
            ),
        };
    }
    let tied: Vec<ClientName> = figures
        .iter()
        .filter(|figure| !compare(best, figure, judgement.better, judgement.rule).1)
        .map(|figure| figure.client)
        .collect();
    let names = tied
        .iter()
        .map(|client| client.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let broken = among(tiebreak, &tied);
    match (tiebreak, broken.first()) {
        (Some(tiebreak), Some(winner)) => Pick {
            use_case,
            client: Some(winner.client),
            reason: format!(
                "{rule}: {names} tie on {} (within the noise); {}: {} {}{}",
                judgement.criterion.phrase(),
                tiebreak.criterion.phrase(),
                winner.client,
                winner.shown,
                broken
                    .get(1)
                    .map(|next| format!(" against {} {}", next.client, next.shown))
                    .unwrap_or_default()
            ),
        },
        _ => Pick {
            use_case,
            client: Some(best.client),
            reason: format!(
                "{rule}: {names} tie on {} (within the noise), the tie-break was not measured; \
                 {} has the better figure, {}",
                judgement.criterion.phrase(),
                best.client,
                best.shown
            ),
        },
    }
}

/// awc, on actix's own runtime, unless another client's capacity beats it beyond the noise.
fn on_actix(capacity: Option<&Judgement>) -> Pick {
    let use_case = "A service already on actix-web";
    let rule = "awc (it runs on actix's own runtime, no second one), unless another client's \
                capacity beats it beyond the noise";
    let figures = among(capacity, &ClientName::ALL);
    let awc = figures
        .iter()
        .find(|figure| figure.client.library_default() == ClientName::Awc);
    let (Some(judgement), Some(best), Some(awc)) = (capacity, figures.first(), awc) else {
        return Pick {
            use_case,
            client: Some(ClientName::Awc),
            reason: format!("{rule}: capacity not measured ({})", not_measured(capacity)),
        };
    };
    let (margin, decisive) = compare(best, awc, judgement.better, judgement.rule);
    if best.client != awc.client && decisive {
        Pick {
            use_case,
            client: Some(best.client),
            reason: format!(
                "{rule}: {} {} against {} {} ({}, beyond the noise)",
                best.client,
                best.shown,
                awc.client,
                awc.shown,
                percent(margin)
            ),
        }
    } else {
        Pick {
            use_case,
            client: Some(awc.client),
            reason: if best.client == awc.client {
                format!("{rule}: {} has the highest, {}", awc.client, awc.shown)
            } else {
                format!(
                    "{rule}: {} {} is within the noise of {}'s {}",
                    awc.client, awc.shown, best.client, best.shown
                )
            },
        }
    }
}

/// A margin as `+25%`.
pub fn percent(margin: f64) -> String {
    if margin.is_finite() {
        format!("{:+.0}%", margin * 100.0)
    } else {
        "any".to_owned()
    }
}
