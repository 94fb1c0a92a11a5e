//! One suite's part of the report, written once and rendered for the terminal and as Markdown.

use std::fmt::Write as _;

use crate::report::table::Table;
use bench_model::SuiteName;

/// A suite's tables, notes and explanations, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// The suite's heading in report.md.
    pub title: String,
    /// The suite whose results these are; `None` for a section about the whole run.
    pub suite: Option<SuiteName>,
    pub parts: Vec<Part>,
}

/// One piece of a section. The terminal shows the figures and what a reader must know to
/// trust them; report.md adds the explanations, the detail tables and the charts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// A table, in both.
    Table(Table),
    /// A table, in both, whose cells report.html colours: `marks` holds a row of marks per
    /// row of the table (a missing mark is [`Mark::Plain`]).
    Marked(Table, Vec<Vec<Mark>>),
    /// A table only report.md has room for.
    DetailTable(Table),
    /// A table report.md and report.html open with and the terminal leaves out: it prints
    /// the answer its own way after its tables (`report::answer`), and holds every figure of
    /// such a table in one it shows.
    Summary(Summary),
    /// A table, in both, whose rows report.html gives ids, `{id}-{slug of the row's first
    /// cell}`: what a [`Summary`] links each of its rows to.
    Anchored(Table, &'static str),
    /// A paragraph, in both.
    Text(String),
    /// Lines, in both (a bulleted list in report.md).
    Notes(Vec<String>),
    /// A paragraph of explanation, in report.md only.
    Prose(String),
    /// SVG files beside report.md, shown there.
    Charts(Vec<String>),
}

/// A [`Part::Summary`]: the table, its id in report.html, and where each row is in full.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub table: Table,
    /// The table's id in report.html, for a link (or a check) to find it.
    pub id: &'static str,
    /// The id of the [`Part::Anchored`] table holding each row in full, and the text of the
    /// link to it report.html adds to each row, in a last column.
    pub full: Option<(&'static str, &'static str)>,
}

/// How a cell of a [`Part::Marked`] table turned out, shown in report.html as its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Nothing to judge (a label).
    Plain,
    /// What was expected (green).
    Expected,
    /// Not what was expected (red).
    Unexpected,
    /// Expected at first sight, with a doubt (amber).
    Doubtful,
}

impl Section {
    /// A section about the whole run, under `title`.
    pub fn new(title: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            suite: None,
            parts: Vec::new(),
        }
    }

    /// A suite's section, titled with the suite's name.
    pub fn suite(suite: SuiteName) -> Self {
        Self {
            suite: Some(suite),
            ..Self::new(suite.as_str())
        }
    }

    /// Adds `part`, and returns the section for more.
    #[must_use]
    pub fn with(mut self, part: Part) -> Self {
        self.parts.push(part);
        self
    }

    /// Adds `notes` unless there are none.
    #[must_use]
    pub fn with_notes(self, notes: Vec<String>) -> Self {
        if notes.is_empty() {
            self
        } else {
            self.with(Part::Notes(notes))
        }
    }

    /// The charts among `written` whose names start with `prefix`, unless there are none.
    #[must_use]
    pub fn with_charts(self, written: &[String], prefix: &str) -> Self {
        let mine: Vec<String> = written
            .iter()
            .filter(|name| name.starts_with(prefix))
            .cloned()
            .collect();
        if mine.is_empty() {
            self
        } else {
            self.with(Part::Charts(mine))
        }
    }

    pub fn terminal(&self) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Table(table) | Part::Marked(table, _) | Part::Anchored(table, _) => {
                    let _ = write!(out, "\n{}\n\n{}", table.title, table.render());
                }
                Part::Text(text) => {
                    let _ = writeln!(out, "{text}");
                }
                Part::Notes(notes) => {
                    for note in notes {
                        let _ = writeln!(out, "{note}");
                    }
                }
                Part::DetailTable(_) | Part::Summary(_) | Part::Prose(_) | Part::Charts(_) => {}
            }
        }
        out
    }

    pub fn markdown(&self) -> String {
        let mut out = format!("\n## {}\n", self.title);
        for part in &self.parts {
            match part {
                Part::Table(table)
                | Part::Marked(table, _)
                | Part::DetailTable(table)
                | Part::Summary(Summary { table, .. })
                | Part::Anchored(table, _) => {
                    let _ = write!(out, "\n### {}\n\n{}", table.title, table.render());
                }
                Part::Text(text) | Part::Prose(text) => {
                    let _ = writeln!(out, "\n{text}");
                }
                Part::Notes(notes) => {
                    out.push('\n');
                    for note in notes {
                        let _ = writeln!(out, "- {note}");
                    }
                }
                Part::Charts(names) => {
                    out.push('\n');
                    for name in names {
                        let _ = writeln!(out, "![{name}]({name})");
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::Align;

    #[test]
    fn the_terminal_shows_figures_and_report_md_adds_the_rest() {
        let table = |title: &str| Table {
            title: title.to_owned(),
            columns: vec![("Client", Align::Left)],
            rows: vec![vec!["hyper".to_owned()]],
        };
        let section = Section::new("latency")
            .with(Part::Summary(Summary {
                table: table("at a glance"),
                id: "glance",
                full: Some(("rows", "in full")),
            }))
            .with(Part::Table(table("main")))
            .with(Part::Text("Allocations: Rust heap only.".to_owned()))
            .with(Part::Prose("How the calls were made.".to_owned()))
            .with(Part::DetailTable(table("every row")))
            .with_notes(vec!["hyper: 1 of 5 calls failed".to_owned()])
            .with_notes(Vec::new())
            .with_charts(
                &["latency_mean.svg".to_owned(), "decode_small.svg".to_owned()],
                "latency",
            )
            .with(Part::Anchored(table("rows"), "rows"));
        let terminal = section.terminal();
        assert_eq!(
            terminal,
            "\nmain\n\n| Client |\n| ------ |\n| hyper  |\nAllocations: Rust heap only.\n\
             hyper: 1 of 5 calls failed\n\nrows\n\n| Client |\n| ------ |\n| hyper  |\n"
        );
        let markdown = section.markdown();
        assert!(markdown.starts_with("\n## latency\n\n### at a glance\n\n| Client |"));
        for text in [
            "### main\n\n| Client |",
            "\nHow the calls were made.\n",
            "### every row",
            "- hyper: 1 of 5 calls failed",
            "![latency_mean.svg](latency_mean.svg)",
            "### rows\n\n| Client |",
        ] {
            assert!(markdown.contains(text), "{text:?} missing from {markdown}");
        }
        assert!(!markdown.contains("decode_small"));
    }
}
