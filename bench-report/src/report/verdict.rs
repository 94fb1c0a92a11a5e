//! The verdict's section, first in the terminal and the report. report.md and report.html
//! open with the answer: a pick per use case with its reason in a clause, what decides the
//! picks the run left undecided, and what the run could tell apart on the criteria that decide
//! them; then the verdict's chart, each pick's rule and figures in full, and each criterion.
//! Computed by `crate::verdict` from this run's results, once per rendering
//! (`report::Rendering`); nothing here decides.

use crate::report::answer;
use crate::report::reasons;
use crate::report::section::{Part, Section, Summary};
use crate::report::table::{Align, Table};
use crate::verdict::{Agreement, Criterion, Judgement, Outcome, Resolution, Verdict, percent};
use bench_model::Results;

/// The section's title (its anchor in report.html is `verdict`).
pub const TITLE: &str = "Verdict";

/// The id of the pick table in report.html, the first thing on the page.
pub const PICKS_ID: &str = "picks";

/// The id of the table of each pick's rule and figures in report.html; its rows are
/// `rules-{slug of the use case}`.
const RULES_ID: &str = "rules";

/// The section of `verdict`, the verdict of `results`; `charts` are the SVG files written
/// beside report.md, the verdict's picture among them first.
pub fn section(results: &Results, verdict: &Verdict, charts: &[String]) -> Section {
    let environment = &results.environment;
    let unchecked = reasons::unchecked_rows(results);
    let mut section = Section::new(TITLE).with(Part::Summary(Summary {
        table: picks_in_brief(verdict),
        id: PICKS_ID,
        full: Some((RULES_ID, "rule and figures")),
    }));
    let undecided: Vec<String> = verdict
        .picks
        .iter()
        .filter_map(answer::undecided)
        .map(|line| format!("- {line}"))
        .collect();
    if !undecided.is_empty() {
        section = section.with(Part::Prose(format!(
            "{}\n\n{}",
            answer::UNDECIDED,
            undecided.join("\n")
        )));
    }
    let mut section = section
        .with(Part::Summary(Summary {
            table: told_apart(verdict),
            id: "told-apart",
            full: None,
        }))
        .with(Part::Prose(
            "Each criterion's two best among every client it measured, the rows of a \
             documented setting among them; a rule weighs its own candidates, so a pick can be \
             beyond the noise where its criterion's two best tie (each pick's rule and figures \
             are below). **Calls from** is the smallest margin this run could have called \
             between those two."
                .to_owned(),
        ))
        .with_charts(charts, "verdict")
        .with(Part::Anchored(picks(verdict), RULES_ID))
        .with(Part::Table(criteria(verdict)))
        .with(Part::DetailTable(sources(verdict)));
    if !unchecked.is_empty() {
        section = section.with(Part::Notes(
            std::iter::once(
                "Rows that could not be checked, so no figure (left out of every table and \
                 ranked nowhere); the run went on:"
                    .to_owned(),
            )
            .chain(unchecked)
            .collect(),
        ));
    }
    section.with(Part::Notes(vec![format!(
        "Computed from this run's figures only ({}, {} logical cores, {}), by the rules \
                 shown; each figure is in its suite's section below. Each timed figure was \
                 measured in rounds spread over its suite, and **Rounds moved** is the most any \
                 client's figure moved between them: a margin the rounds do not separate (or \
                 within the noise rule of a figure measured once) is called a tie. **Calls \
                 from** is the smallest margin this run could have called between the two best \
                 figures as they were measured: a tie says the clients are closer than that, not \
                 that they are equal. More rounds do not lower it (the rule compares the \
                 rounds' ranges, which more rounds widen); rounds that move less do: longer \
                 rounds, a quieter machine, or a count instead of a time. A pick whose \
                 rule needs a figure this run did not measure is not decided. `bench verdict \
                 A/results.json B/results.json ...` holds the verdicts of several runs side by \
                 side.",
        environment.cpu_model, environment.logical_cores, environment.started_utc
    )]))
}

/// `bench verdict`: the runs' verdicts side by side (`labels` name the runs), then the verdict
/// of the runs together.
pub fn agreement(runs: &[Results], labels: &[String]) -> Section {
    let agreement = crate::verdict::agreement(runs);
    let held = agreement.picks.iter().filter(|pick| pick.held).count();
    let contradicted = agreement
        .criteria
        .iter()
        .filter(|criterion| matches!(criterion.status, crate::verdict::Status::Contradicted(_)))
        .count();
    Section::new("Verdict across runs")
        .with(Part::Notes(
            labels
                .iter()
                .enumerate()
                .map(|(index, label)| format!("run {}: {label}", index + 1))
                .collect(),
        ))
        .with(Part::Table(pick_agreement(&agreement, Weighed::AsShipped)))
        .with(Part::Table(pick_agreement(
            &agreement,
            Weighed::AsConfigured,
        )))
        .with(Part::Table(criterion_agreement(&agreement)))
        .with(Part::Prose(format!(
            "**{held} of {} picks held in every run; {contradicted} \"beyond the noise\" claims \
             were contradicted by another run.** A claim is contradicted when a run has one \
             client beyond the noise over another and any other run ranks the other one ahead. \
             **Between runs** is the most a client's figure moved from run to run, as a share \
             of its median; **between rounds** the most it moved between one run's rounds: the \
             noise each run's verdict held its margins against. **Calls from, each run** is each \
             run's resolution on the criterion: the smallest margin between its two best figures \
             that run would have called beyond the noise (a tie says they are closer than that, \
             not equal); a resolution that holds in every run is what a run on this machine can \
             tell apart.",
            agreement.picks.len()
        )))
        .with(Part::Table(Table {
            title: "verdict of the runs together (every run's rounds pooled): a pick per use case"
                .to_owned(),
            ..picks(&agreement.together)
        }))
        .with(Part::Table(Table {
            title: "verdict of the runs together: per criterion".to_owned(),
            ..criteria(&agreement.together)
        }))
}

/// Which picks a table shows: as shipped, or with documented settings.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Weighed {
    AsShipped,
    AsConfigured,
}

fn pick_agreement(agreement: &Agreement, weighed: Weighed) -> Table {
    use Align::Left;
    let mut columns = vec![("Use case", Left)];
    columns.extend(
        run_names(agreement.runs.len())
            .iter()
            .map(|&name| (name, Left)),
    );
    columns.push(("Held", Left));
    Table {
        title: match weighed {
            Weighed::AsShipped => "verdict across runs: the pick of each run".to_owned(),
            Weighed::AsConfigured => {
                "verdict across runs: the pick of each run with each library's documented \
                 settings (the rows of a setting the runs measured as candidates too)"
                    .to_owned()
            }
        },
        columns,
        rows: agreement
            .picks
            .iter()
            .map(|pick| {
                let mut row = vec![pick.use_case.to_owned()];
                match weighed {
                    Weighed::AsShipped => {
                        row.extend(pick.choices.iter().map(ToString::to_string));
                        row.push(pick.held_cell());
                    }
                    Weighed::AsConfigured => {
                        row.extend(pick.configured.iter().map(ToString::to_string));
                        row.push(pick.configured_held_cell());
                    }
                }
                row
            })
            .collect(),
    }
}

fn criterion_agreement(agreement: &Agreement) -> Table {
    use Align::{Left, Right};
    let mut columns = vec![("Criterion", Left)];
    columns.extend(
        run_names(agreement.runs.len())
            .iter()
            .map(|&name| (name, Left)),
    );
    columns.extend([
        ("Between runs", Right),
        ("Between rounds", Right),
        ("Calls from, each run", Right),
        ("Claims", Left),
    ]);
    let share = |value: Option<f64>| {
        value.map_or_else(|| "-".to_owned(), |share| format!("{:.0}%", share * 100.0))
    };
    Table {
        title: "verdict across runs: per criterion, each run's best (beyond the noise, or a tie)"
            .to_owned(),
        columns,
        rows: agreement
            .criteria
            .iter()
            .map(|criterion| {
                let mut row = vec![criterion.criterion.name()];
                row.extend(criterion.per_run.iter().map(|run| match run {
                    Some((client, true)) => format!("{client}, beyond"),
                    Some((client, false)) => format!("{client}, tie"),
                    None => "not measured".to_owned(),
                }));
                row.push(share(criterion.between_runs));
                row.push(share(criterion.within_runs));
                row.push(
                    criterion
                        .resolutions
                        .iter()
                        .map(|run| run.map_or_else(|| "-".to_owned(), Resolution::describe))
                        .collect::<Vec<_>>()
                        .join(" / "),
                );
                row.push(criterion.status.describe());
                row
            })
            .collect(),
    }
}

/// `text` ending with a full stop.
fn sentence(text: &str) -> String {
    if text.ends_with('.') {
        text.to_owned()
    } else {
        format!("{text}.")
    }
}

/// The most runs `bench verdict` compares (a column each).
pub const MAX_RUNS: usize = 8;

/// `Run 1`, `Run 2`, ... for `count` runs (at most [`MAX_RUNS`]).
fn run_names(count: usize) -> &'static [&'static str] {
    const NAMES: [&str; MAX_RUNS] = [
        "Run 1", "Run 2", "Run 3", "Run 4", "Run 5", "Run 6", "Run 7", "Run 8",
    ];
    &NAMES[..count.min(MAX_RUNS)]
}

/// The pick per use case with its reason in a clause or two, as the terminal's answer has it.
fn picks_in_brief(verdict: &Verdict) -> Table {
    use Align::Left;
    Table {
        title: "verdict: a pick per use case".to_owned(),
        columns: vec![
            ("Use case", Left),
            ("Pick", Left),
            ("With documented settings", Left),
            ("Why", Left),
        ],
        rows: verdict
            .picks
            .iter()
            .map(|pick| {
                vec![
                    pick.use_case.to_owned(),
                    pick.choice.to_string(),
                    pick.configured.choice.to_string(),
                    answer::brief(pick),
                ]
            })
            .collect(),
    }
}

/// The criteria that decide the picks (each rule's first, then the tie-breaks), with this
/// run's margin between the two best, whether it beat the noise, and the smallest margin the
/// run could have called: what it could and could not tell apart.
fn told_apart(verdict: &Verdict) -> Table {
    use Align::{Left, Right};
    let firsts = verdict.picks.iter().filter_map(|pick| pick.deciding.first);
    let tie_breaks = verdict
        .picks
        .iter()
        .filter_map(|pick| pick.deciding.tie_break);
    let mut deciding: Vec<Criterion> = Vec::new();
    for criterion in firsts.chain(tie_breaks) {
        if !deciding.contains(&criterion) {
            deciding.push(criterion);
        }
    }
    Table {
        title: "verdict: what this run could and could not tell apart, on the criteria that \
                decide the picks"
            .to_owned(),
        columns: vec![
            ("Criterion", Left),
            ("Best, runner-up", Left),
            ("Margin", Right),
            ("Beyond noise", Left),
            ("Calls from", Right),
        ],
        rows: deciding
            .into_iter()
            .filter_map(|criterion| {
                verdict
                    .criteria
                    .iter()
                    .find(|judgement| judgement.criterion == criterion)
            })
            .map(|judgement| {
                let cells = CriterionCells::of(judgement);
                let (two_best, beyond) = match &judgement.outcome {
                    Outcome::NotMeasured(_) => ("-".to_owned(), "not measured".to_owned()),
                    Outcome::Alone(figure) => (figure.client.to_string(), cells.beyond),
                    Outcome::Ranked(ranking) => (
                        format!("{}, {}", ranking.best.client, ranking.runner_up.client),
                        cells.beyond,
                    ),
                };
                vec![cells.name, two_best, cells.margin, beyond, cells.calls_from]
            })
            .collect(),
    }
}

/// Each pick with its rule and how this run's figures made it, in full.
fn picks(verdict: &Verdict) -> Table {
    use Align::Left;
    Table {
        title: "verdict: a pick per use case, its rule and this run's figures".to_owned(),
        columns: vec![
            ("Use case", Left),
            ("Pick", Left),
            ("With documented settings", Left),
            ("Rule, and this run's figures", Left),
        ],
        rows: verdict
            .picks
            .iter()
            .map(|pick| {
                let configured = &pick.configured;
                let reason = if configured.choice == pick.choice && configured.reason == pick.reason
                {
                    pick.reason.clone()
                } else {
                    format!(
                        "{} With documented settings: {}",
                        sentence(&pick.reason),
                        configured.reason
                    )
                };
                vec![
                    pick.use_case.to_owned(),
                    pick.choice.to_string(),
                    configured.choice.to_string(),
                    reason,
                ]
            })
            .collect(),
    }
}

fn criteria(verdict: &Verdict) -> Table {
    use Align::{Left, Right};
    Table {
        title: "verdict: per criterion, the best client and the runner-up".to_owned(),
        columns: vec![
            ("Criterion", Left),
            ("Best", Left),
            ("Runner-up", Left),
            ("Margin", Right),
            ("Rounds moved", Right),
            ("Beyond noise", Left),
            ("Calls from", Right),
        ],
        rows: verdict
            .criteria
            .iter()
            .map(|judgement| CriterionCells::of(judgement).row())
            .collect(),
    }
}

/// Where each criterion's figures come from, and the noise its margin had to beat.
fn sources(verdict: &Verdict) -> Table {
    use Align::Left;
    Table {
        title: "verdict: where each criterion's figures come from".to_owned(),
        columns: vec![("Criterion", Left), ("From", Left), ("Noise rule", Left)],
        rows: verdict
            .criteria
            .iter()
            .map(|judgement| {
                let (from, rule) = match &judgement.outcome {
                    Outcome::NotMeasured(how) => (how.clone(), "-".to_owned()),
                    _ => (judgement.source.clone(), judgement.rule.describe()),
                };
                vec![judgement.criterion.name(), from, rule]
            })
            .collect(),
    }
}

/// The most a figure of the criterion moved between its rounds, as a share of the figure:
/// `up to 7%`; `measured once` for figures without rounds.
fn moved(judgement: &Judgement) -> String {
    judgement.spread().map_or_else(
        || "measured once".to_owned(),
        |spread| format!("up to {:.0}%", spread * 100.0),
    )
}

/// A criterion's row of the criteria table, cell by cell.
struct CriterionCells {
    name: String,
    best: String,
    runner_up: String,
    margin: String,
    moved: String,
    beyond: String,
    calls_from: String,
}

impl CriterionCells {
    fn of(judgement: &Judgement) -> Self {
        let shown = |figure: &crate::verdict::Figure| format!("{} {}", figure.client, figure.shown);
        let none = || "-".to_owned();
        let calls_from = judgement
            .resolution()
            .map_or_else(none, Resolution::describe);
        let name = judgement.criterion.name();
        match &judgement.outcome {
            Outcome::NotMeasured(_) => Self {
                name,
                best: "not measured".to_owned(),
                runner_up: none(),
                margin: none(),
                moved: none(),
                beyond: none(),
                calls_from,
            },
            Outcome::Alone(figure) => Self {
                name,
                best: shown(figure),
                runner_up: none(),
                margin: none(),
                moved: moved(judgement),
                beyond: "one client only".to_owned(),
                calls_from,
            },
            Outcome::Ranked(ranking) => Self {
                name,
                best: shown(&ranking.best),
                runner_up: shown(&ranking.runner_up),
                margin: percent(ranking.margin),
                moved: moved(judgement),
                beyond: if ranking.decisive { "yes" } else { "no: a tie" }.to_owned(),
                calls_from,
            },
        }
    }

    fn row(self) -> Vec<String> {
        vec![
            self.name,
            self.best,
            self.runner_up,
            self.margin,
            self.moved,
            self.beyond,
            self.calls_from,
        ]
    }
}
