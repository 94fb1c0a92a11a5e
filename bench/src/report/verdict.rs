//! The verdict's section, first in the terminal and the report: the picks, then each
//! criterion. Computed by `crate::verdict` from this run's results; nothing here decides.

use crate::model::Results;
use crate::report::section::{Part, Section};
use crate::report::table::{Align, Table};
use crate::verdict::{Judgement, Outcome, Verdict, percent, verdict};

/// The section's title (its anchor in report.html is `verdict`).
pub const TITLE: &str = "Verdict";

pub fn section(results: &Results) -> Section {
    let verdict = verdict(results);
    let environment = &results.environment;
    Section::new(TITLE)
        .with(Part::Table(picks(&verdict)))
        .with(Part::Table(criteria(&verdict)))
        .with(Part::DetailTable(sources(&verdict)))
        .with(Part::Notes(vec![format!(
            "Computed from this run's figures only ({}, {} logical cores, {}), by the rules \
                 shown; each figure is in its suite's section below. A margin within the noise \
                 is called a tie.",
            environment.cpu_model, environment.logical_cores, environment.started_utc
        )]))
}

fn picks(verdict: &Verdict) -> Table {
    use Align::Left;
    Table {
        title: "verdict: a pick per use case".to_owned(),
        columns: vec![
            ("Use case", Left),
            ("Pick", Left),
            ("Rule, and this run's figures", Left),
        ],
        rows: verdict
            .picks
            .iter()
            .map(|pick| {
                vec![
                    pick.use_case.to_owned(),
                    pick.client
                        .map_or_else(|| "none".to_owned(), |client| client.to_string()),
                    pick.reason.clone(),
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
            ("Beyond noise", Left),
        ],
        rows: verdict.criteria.iter().map(criterion_row).collect(),
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

fn criterion_row(judgement: &Judgement) -> Vec<String> {
    let name = judgement.criterion.name();
    let shown = |figure: &crate::verdict::Figure| format!("{} {}", figure.client, figure.shown);
    match &judgement.outcome {
        Outcome::NotMeasured(_) => vec![
            name,
            "not measured".to_owned(),
            "-".to_owned(),
            "-".to_owned(),
            "-".to_owned(),
        ],
        Outcome::Alone(figure) => vec![
            name,
            shown(figure),
            "-".to_owned(),
            "-".to_owned(),
            "one client only".to_owned(),
        ],
        Outcome::Ranked(ranking) => vec![
            name,
            shown(&ranking.best),
            shown(&ranking.runner_up),
            percent(ranking.margin),
            if ranking.decisive { "yes" } else { "no: a tie" }.to_owned(),
        ],
    }
}
