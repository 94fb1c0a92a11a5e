//! Several runs' verdicts side by side (`bench verdict A.json B.json ...`): which picks and
//! which "beyond the noise" claims every run agrees on, how far each criterion's figures moved
//! between runs against how far they moved between one run's rounds, and the verdict of the
//! runs together, every run's rounds pooled.

use crate::verdict::judge::{Criterion, Figure, Judgement, Outcome, Resolution, rank};
use crate::verdict::of_run::{Verdict, verdict};
use crate::verdict::picks::{Choice, pick_all};
use bench_model::stats::quantile::median_of;
use bench_model::stats::spread::relative_range_about_median;
use bench_model::{ClientName, Results};

/// What the runs agree on.
#[derive(Clone, Debug, PartialEq)]
pub struct Agreement {
    /// Each run's verdict, in the order given.
    pub runs: Vec<Verdict>,
    pub picks: Vec<PickAgreement>,
    pub criteria: Vec<CriterionAgreement>,
    /// The verdict of the runs together: per client and criterion, every run's rounds (or its
    /// one figure) pooled, the figure the median of the runs'.
    pub together: Verdict,
}

/// One use case across the runs.
#[derive(Clone, Debug, PartialEq)]
pub struct PickAgreement {
    pub use_case: &'static str,
    pub choices: Vec<Choice>,
    /// Whether every run picked the same client, or declared the same tie, or left it
    /// undecided alike.
    pub held: bool,
    /// Each run's pick with documented settings, and whether those held.
    pub configured: Vec<Choice>,
    pub configured_held: bool,
}

impl PickAgreement {
    /// When the pick did not hold but every run decided it (a client or a tie), the clients
    /// every run picked or tied: what the runs agree on after all (`hyper, awc` when one run
    /// tied hyper, awc and isahc and another hyper and awc). `None` when it held, when a run
    /// did not decide, or when no client is in every run's choice.
    pub fn in_every_run(&self) -> Option<Vec<ClientName>> {
        in_every_run(&self.choices, self.held)
    }

    /// The table's Held cell: `yes`, `NO`, or `NO; in every run: hyper, awc`.
    pub fn held_cell(&self) -> String {
        held_cell(&self.choices, self.held)
    }

    /// The Held cell of the picks with documented settings.
    pub fn configured_held_cell(&self) -> String {
        held_cell(&self.configured, self.configured_held)
    }
}

/// What [`PickAgreement::in_every_run`] says of `choices`.
fn in_every_run(choices: &[Choice], held: bool) -> Option<Vec<ClientName>> {
    if held {
        return None;
    }
    let sets: Vec<Vec<ClientName>> = choices
        .iter()
        .map(|choice| match choice {
            Choice::Client(client) => Some(vec![*client]),
            Choice::Tie(clients) => Some(clients.clone()),
            Choice::NotDecided => None,
        })
        .collect::<Option<_>>()?;
    let (first, rest) = sets.split_first()?;
    let common: Vec<ClientName> = first
        .iter()
        .copied()
        .filter(|client| rest.iter().all(|set| set.contains(client)))
        .collect();
    (!common.is_empty()).then_some(common)
}

/// What [`PickAgreement::held_cell`] says of `choices`.
fn held_cell(choices: &[Choice], held: bool) -> String {
    if held {
        return "yes".to_owned();
    }
    match in_every_run(choices, held) {
        Some(common) => format!(
            "NO; in every run: {}",
            common
                .iter()
                .map(|client| client.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => "NO".to_owned(),
    }
}

/// One criterion across the runs.
#[derive(Clone, Debug, PartialEq)]
pub struct CriterionAgreement {
    pub criterion: Criterion,
    /// Each run's best client and whether its margin beat the noise; `None` where the run did
    /// not measure it.
    pub per_run: Vec<Option<(ClientName, bool)>>,
    pub status: Status,
    /// The most a client's figure moved between the runs, as a share of its median.
    pub between_runs: Option<f64>,
    /// The most a client's figure moved between one run's rounds, as a share of the figure
    /// (the largest over the runs).
    pub within_runs: Option<f64>,
    /// Each run's resolution: the smallest margin it could have called between its two best
    /// figures (`None` where it did not measure the criterion).
    pub resolutions: Vec<Option<Resolution>>,
}

/// How a criterion's claims fared across the runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Every run measured it and called the same best client beyond the noise.
    Held(ClientName),
    /// Every run that measured it called a tie (or had one client).
    TieInAll,
    /// Some runs called a client beyond the noise, others a tie, and no run ranked that
    /// claim's runner-up ahead.
    Partly,
    /// A run's claim that one client beats another beyond the noise, against a run that
    /// ranked the other one ahead.
    Contradicted(String),
    /// No run measured it.
    NotMeasured,
}

impl Status {
    pub fn describe(&self) -> String {
        match self {
            Self::Held(client) => format!("held: {client} beyond the noise in every run"),
            Self::TieInAll => "held: a tie in every run".to_owned(),
            Self::Partly => {
                "beyond the noise in some runs, a tie in others; never reversed".to_owned()
            }
            Self::Contradicted(why) => format!("CONTRADICTED: {why}"),
            Self::NotMeasured => "not measured".to_owned(),
        }
    }
}

/// The agreement of `runs` (at least one).
pub fn agreement(runs: &[Results]) -> Agreement {
    let verdicts: Vec<Verdict> = runs.iter().map(verdict).collect();
    let first = verdicts.first().cloned().unwrap_or(Verdict {
        criteria: Vec::new(),
        picks: Vec::new(),
    });
    let picks = first
        .picks
        .iter()
        .enumerate()
        .map(|(index, pick)| {
            let choices: Vec<Choice> = verdicts
                .iter()
                .map(|verdict| verdict.picks[index].choice.clone())
                .collect();
            let held = choices.windows(2).all(|pair| pair[0] == pair[1]);
            let configured: Vec<Choice> = verdicts
                .iter()
                .map(|verdict| verdict.picks[index].configured.choice.clone())
                .collect();
            let configured_held = configured.windows(2).all(|pair| pair[0] == pair[1]);
            PickAgreement {
                use_case: pick.use_case,
                choices,
                held,
                configured,
                configured_held,
            }
        })
        .collect();
    let criteria = first
        .criteria
        .iter()
        .map(|judgement| criterion_agreement(judgement.criterion, &verdicts))
        .collect();
    let together_criteria: Vec<Judgement> = first
        .criteria
        .iter()
        .map(|judgement| pooled(judgement.criterion, &verdicts))
        .collect();
    let together = Verdict {
        picks: pick_all(
            &together_criteria,
            runs.iter().any(|run| run.settings.quick),
        ),
        criteria: together_criteria,
    };
    Agreement {
        runs: verdicts,
        picks,
        criteria,
        together,
    }
}

/// `criterion`'s judgement in each run.
fn judgements(criterion: Criterion, verdicts: &[Verdict]) -> Vec<Option<&Judgement>> {
    verdicts
        .iter()
        .map(|verdict| {
            verdict
                .criteria
                .iter()
                .find(|judgement| judgement.criterion == criterion)
        })
        .collect()
}

fn criterion_agreement(criterion: Criterion, verdicts: &[Verdict]) -> CriterionAgreement {
    let judged = judgements(criterion, verdicts);
    let per_run: Vec<Option<(ClientName, bool)>> = judged
        .iter()
        .map(
            |judgement| match judgement.map(|judgement| &judgement.outcome) {
                Some(Outcome::Ranked(ranking)) => Some((ranking.best.client, ranking.decisive)),
                Some(Outcome::Alone(figure)) => Some((figure.client, false)),
                _ => None,
            },
        )
        .collect();
    let status = status(&judged, &per_run);
    let within_runs = judged
        .iter()
        .flatten()
        .filter_map(|judgement| judgement.spread())
        .fold(None, |most: Option<f64>, spread| {
            Some(most.map_or(spread, |most| most.max(spread)))
        });
    CriterionAgreement {
        criterion,
        per_run,
        status,
        between_runs: between_runs(&judged),
        within_runs,
        resolutions: judged
            .iter()
            .map(|judgement| judgement.and_then(Judgement::resolution))
            .collect(),
    }
}

fn status(judged: &[Option<&Judgement>], per_run: &[Option<(ClientName, bool)>]) -> Status {
    let measured: Vec<(ClientName, bool)> = per_run.iter().flatten().copied().collect();
    if measured.is_empty() {
        return Status::NotMeasured;
    }
    // Every claim "best beats runner-up beyond the noise" against every other run's order.
    for (index, judgement) in judged.iter().enumerate() {
        let Some(Outcome::Ranked(ranking)) = judgement.map(|judgement| &judgement.outcome) else {
            continue;
        };
        if !ranking.decisive {
            continue;
        }
        let (claimed, over) = (ranking.best.client, ranking.runner_up.client);
        for (other, judgement) in judged.iter().enumerate() {
            let Some(judgement) = judgement else {
                continue;
            };
            let position = |client| {
                judgement
                    .order()
                    .iter()
                    .position(|figure| figure.client == client)
            };
            if let (Some(claimed_at), Some(over_at)) = (position(claimed), position(over))
                && over_at < claimed_at
            {
                return Status::Contradicted(format!(
                    "run {} has {claimed} beyond the noise over {over}, run {} ranks {over} \
                     ahead",
                    index + 1,
                    other + 1
                ));
            }
        }
    }
    let decisive: Vec<ClientName> = measured
        .iter()
        .filter(|(_, decisive)| *decisive)
        .map(|(client, _)| *client)
        .collect();
    if decisive.is_empty() {
        Status::TieInAll
    } else if decisive.len() == per_run.len() && decisive.windows(2).all(|w| w[0] == w[1]) {
        Status::Held(decisive[0])
    } else {
        Status::Partly
    }
}

/// The most any client's figure moved between the runs that measured it, as a share of the
/// median of its figures.
fn between_runs(judged: &[Option<&Judgement>]) -> Option<f64> {
    let mut clients: Vec<ClientName> = Vec::new();
    for judgement in judged.iter().flatten() {
        for figure in judgement.order() {
            if !clients.contains(&figure.client) {
                clients.push(figure.client);
            }
        }
    }
    clients
        .into_iter()
        .filter_map(|client| {
            let values: Vec<f64> = judged
                .iter()
                .flatten()
                .filter_map(|judgement| judgement.figure(client))
                .map(|figure| figure.value)
                .collect();
            relative_range_about_median(&values)
        })
        .fold(None, |most: Option<f64>, moved| {
            Some(most.map_or(moved, |most| most.max(moved)))
        })
}

/// `criterion` over every run at once: per client, every run's rounds pooled (a figure measured
/// once gives its one value), the figure the median of the runs' figures, ranked by the
/// criterion's own rule.
fn pooled(criterion: Criterion, verdicts: &[Verdict]) -> Judgement {
    let judged = judgements(criterion, verdicts);
    let Some(template) = judged
        .iter()
        .flatten()
        .find(|judgement| !matches!(judgement.outcome, Outcome::NotMeasured(_)))
        .copied()
        .or_else(|| judged.iter().flatten().next().copied())
    else {
        return Judgement {
            criterion,
            source: "no run".to_owned(),
            better: crate::verdict::Better::Lower,
            rule: crate::verdict::NoiseRule::Exact,
            outcome: Outcome::NotMeasured("no run measured it".to_owned()),
            left_out: Vec::new(),
            claimed: Vec::new(),
        };
    };
    let mut clients: Vec<ClientName> = Vec::new();
    let mut left_out: Vec<(ClientName, String)> = Vec::new();
    let mut claimed: Vec<Figure> = Vec::new();
    for (index, judgement) in judged.iter().enumerate() {
        let Some(judgement) = judgement else { continue };
        claimed.extend(judgement.claimed.iter().cloned());
        for figure in judgement.order() {
            if !clients.contains(&figure.client) {
                clients.push(figure.client);
            }
        }
        for (client, why) in &judgement.left_out {
            left_out.push((*client, format!("run {}: {why}", index + 1)));
        }
    }
    let figures: Vec<Figure> = clients
        .into_iter()
        .filter_map(|client| {
            let figures: Vec<&Figure> = judged
                .iter()
                .flatten()
                .filter_map(|judgement| judgement.figure(client))
                .collect();
            // A client missing from a run (failed, unchecked) is not judged on the others.
            let runs = judged.iter().flatten().count();
            if figures.len() < runs {
                if !left_out.iter().any(|(out, _)| *out == client) {
                    left_out.push((
                        client,
                        format!("a figure in {} of {runs} runs", figures.len()),
                    ));
                }
                return None;
            }
            let values: Vec<f64> = figures.iter().map(|figure| figure.value).collect();
            let value = median_of(&values)?;
            let rounds = figures
                .iter()
                .flat_map(|figure| {
                    if figure.rounds.is_empty() {
                        vec![figure.value]
                    } else {
                        figure.rounds.clone()
                    }
                })
                .collect();
            let shown = figures
                .iter()
                .find(|figure| (figure.value - value).abs() < f64::EPSILON)
                .map_or_else(|| format!("{value:.1}"), |figure| figure.shown.clone());
            Some(Figure {
                client,
                value,
                rounds,
                half_width: None,
                shown,
            })
        })
        .collect();
    let outcome = rank(figures, template.better, template.rule)
        .unwrap_or_else(|| Outcome::NotMeasured("no client was measured in every run".to_owned()));
    Judgement {
        criterion,
        source: format!("{} (every run's rounds pooled)", template.source),
        better: template.better,
        rule: template.rule,
        outcome,
        left_out,
        claimed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::judge::{Better, NoiseRule, Ranking};

    fn figure(client: ClientName, value: f64, rounds: &[f64]) -> Figure {
        Figure {
            client,
            value,
            rounds: rounds.to_vec(),
            half_width: None,
            shown: format!("{value}"),
        }
    }

    #[test]
    fn a_pick_that_did_not_hold_says_what_every_run_agrees_on() {
        use ClientName::{Awc, Hyper, Isahc, Reqwest};
        let pick = |choices: Vec<Choice>| {
            let held = choices.windows(2).all(|pair| pair[0] == pair[1]);
            PickAgreement {
                use_case: "A high-throughput async service",
                configured: choices.clone(),
                configured_held: held,
                choices,
                held,
            }
        };
        let ties = pick(vec![
            Choice::Tie(vec![Hyper, Awc, Reqwest, Isahc]),
            Choice::Tie(vec![Hyper, Awc, Reqwest]),
            Choice::Client(Awc),
        ]);
        assert_eq!(ties.held_cell(), "NO; in every run: awc");
        let apart = pick(vec![Choice::Client(Hyper), Choice::Client(Awc)]);
        assert_eq!(apart.held_cell(), "NO", "nothing in common");
        let undecided = pick(vec![Choice::NotDecided, Choice::Tie(vec![Hyper, Awc])]);
        assert_eq!(undecided.in_every_run(), None, "a run that did not decide");
        let same = pick(vec![Choice::Tie(vec![Hyper, Awc]); 2]);
        assert_eq!(same.held_cell(), "yes");
    }

    fn latency(figures: Vec<Figure>) -> Verdict {
        let criteria = vec![Judgement {
            criterion: Criterion::Latency(bench_model::Protocol::Http),
            source: "test".to_owned(),
            better: Better::Lower,
            rule: NoiseRule::Rounds,
            outcome: rank(figures, Better::Lower, NoiseRule::Rounds).unwrap(),
            left_out: Vec::new(),
            claimed: Vec::new(),
        }];
        Verdict {
            picks: pick_all(&criteria, false),
            criteria,
        }
    }

    use ClientName::{Awc, Hyper, Isahc, Ureq};

    #[test]
    fn the_runs_pooled_keep_each_runs_refuted_claims() {
        let capacity = |left_out: Vec<(ClientName, String)>, claimed: Vec<Figure>| {
            let criteria = vec![Judgement {
                criterion: Criterion::Capacity,
                source: "test".to_owned(),
                better: Better::Higher,
                rule: NoiseRule::Rounds,
                outcome: rank(
                    vec![
                        figure(Awc, 9_000.0, &[8_800.0, 9_000.0, 9_200.0]),
                        figure(Hyper, 8_900.0, &[8_700.0, 8_900.0, 9_100.0]),
                    ],
                    Better::Higher,
                    NoiseRule::Rounds,
                )
                .unwrap(),
                left_out,
                claimed,
            }];
            Verdict {
                picks: pick_all(&criteria, false),
                criteria,
            }
        };
        let refuted = capacity(
            vec![(Ureq, "its soak failed".to_owned())],
            vec![figure(Ureq, 2_000.0, &[1_900.0, 2_000.0, 2_100.0])],
        );
        let clear = capacity(Vec::new(), Vec::new());
        let pooled = pooled(Criterion::Capacity, &[refuted, clear]);
        assert_eq!(
            pooled.left_out,
            [(Ureq, "run 1: its soak failed".to_owned())]
        );
        assert_eq!(pooled.claimed.len(), 1);
        // awc beats ureq's claimed 2000 RPS beyond the noise: the actix pick stands.
        let picks = pick_all(std::slice::from_ref(&pooled), false);
        let actix = picks
            .iter()
            .find(|pick| pick.use_case == "A service already on actix-web")
            .unwrap();
        assert_eq!(actix.choice, Choice::Client(Awc), "{actix:?}");
    }

    #[test]
    fn a_claim_every_run_makes_holds_and_a_reversed_one_is_contradicted() {
        let clear = |hyper: f64| {
            latency(vec![
                figure(Hyper, hyper, &[hyper - 1.0, hyper, hyper + 1.0]),
                figure(Awc, 60.0, &[59.0, 60.0, 61.0]),
            ])
        };
        let runs = [clear(40.0), clear(42.0)];
        let status = status_of(&runs);
        assert_eq!(status.status, Status::Held(Hyper));
        assert!((status.between_runs.unwrap() - 2.0 / 41.0).abs() < 1e-9);
        assert!((status.within_runs.unwrap() - 2.0 / 40.0).abs() < 1e-9);
        // Each run's resolution: its rounds move 5% at most, so it calls from about that on.
        assert_eq!(status.resolutions.len(), 2);
        assert!(
            status.resolutions.iter().all(|resolution| matches!(
                resolution,
                Some(Resolution::Margin(margin)) if (0.04..0.2).contains(margin)
            )),
            "{:?}",
            status.resolutions
        );
        // A third run in which awc comes ahead, even within the noise.
        let reversed = latency(vec![
            figure(Hyper, 61.0, &[55.0, 61.0, 66.0]),
            figure(Awc, 60.0, &[59.0, 60.0, 61.0]),
        ]);
        let status = status_of(&[clear(40.0), clear(42.0), reversed]);
        assert!(
            matches!(&status.status, Status::Contradicted(why) if why.contains("run 3 ranks awc ahead")),
            "{status:?}"
        );
    }

    #[test]
    fn ties_in_all_runs_and_claims_in_some_runs_are_told_apart() {
        let tie = latency(vec![
            figure(Ureq, 80.0, &[78.0, 80.0, 82.0]),
            figure(Isahc, 81.0, &[79.0, 81.0, 83.0]),
        ]);
        let apart = latency(vec![
            figure(Ureq, 70.0, &[69.0, 70.0, 71.0]),
            figure(Isahc, 81.0, &[79.0, 81.0, 83.0]),
        ]);
        assert_eq!(
            status_of(&[tie.clone(), tie.clone()]).status,
            Status::TieInAll
        );
        assert_eq!(status_of(&[tie, apart]).status, Status::Partly);
    }

    #[test]
    fn the_runs_together_pool_their_rounds() {
        let runs = [
            latency(vec![
                figure(Hyper, 40.0, &[39.0, 40.0, 41.0]),
                figure(Awc, 44.0, &[43.0, 44.0, 45.0]),
            ]),
            latency(vec![
                figure(Hyper, 46.0, &[45.0, 46.0, 47.0]),
                figure(Awc, 44.0, &[43.0, 44.0, 45.0]),
            ]),
        ];
        let agreement = agreement_of(&runs);
        let Outcome::Ranked(Ranking {
            best,
            decisive,
            order,
            ..
        }) = &agreement.together.criteria[0].outcome
        else {
            panic!("{:?}", agreement.together.criteria[0]);
        };
        // Hyper's pooled rounds 39-47 overlap awc's 43-45: a tie, whichever median is lower.
        assert!(!decisive, "{best:?}");
        assert_eq!(order[0].rounds.len(), 6);
        assert_eq!(agreement.together.picks.len(), 11);
    }

    fn agreement_of(verdicts: &[Verdict]) -> Agreement {
        let criteria = verdicts[0]
            .criteria
            .iter()
            .map(|judgement| criterion_agreement(judgement.criterion, verdicts))
            .collect();
        let together_criteria: Vec<Judgement> = verdicts[0]
            .criteria
            .iter()
            .map(|judgement| pooled(judgement.criterion, verdicts))
            .collect();
        Agreement {
            runs: verdicts.to_vec(),
            picks: Vec::new(),
            criteria,
            together: Verdict {
                picks: pick_all(&together_criteria, false),
                criteria: together_criteria,
            },
        }
    }

    fn status_of(verdicts: &[Verdict]) -> CriterionAgreement {
        criterion_agreement(verdicts[0].criteria[0].criterion, verdicts)
    }
}
