//! The answer, as the terminal prints it after a run: the pick per use case in at most
//! [`WIDTH`] columns with its reason in one clause, a line per use case the run did not decide
//! naming what decides it, and where the report is. The rules, the figures and every suite's
//! tables are in report.md and report.html (and printed with `--tables`).

use std::fmt::Write as _;
use std::path::Path;

use crate::report::Rendering;
use crate::report::reasons;
use crate::verdict::{Choice, Pick};

/// The widest line the answer prints: the pick table wraps its reasons to fit.
pub const WIDTH: usize = 160;

/// What the lines of the picks the run did not decide are listed under.
pub(super) const UNDECIDED: &str = "Not decided in this run, and what decides it:";

/// The gap between two columns.
const GAP: &str = "  ";

/// The widest the use case and the two pick columns get (the reason takes the rest, at least
/// 56 columns); a longer cell wraps within its column.
const WIDEST_CELLS: [usize; 4] = [40, 28, 28, WIDTH];

/// The answer of `rendering`; `dir` is where report.md and report.html were written.
pub fn answer(rendering: &Rendering, dir: &Path) -> String {
    let environment = &rendering.results.environment;
    let mut out = format!(
        "\nThe answer: a pick per use case (this run: {}, {} logical cores, {})\n\n",
        environment.cpu_model, environment.logical_cores, environment.started_utc
    );
    let rows: Vec<[String; 4]> = rendering
        .verdict
        .picks
        .iter()
        .map(|pick| {
            [
                pick.use_case.to_owned(),
                pick.choice.to_string(),
                pick.configured.choice.to_string(),
                brief(pick),
            ]
        })
        .collect();
    let header = [
        "Use case".to_owned(),
        "Pick".to_owned(),
        "With documented settings".to_owned(),
        "Why".to_owned(),
    ];
    out.push_str(&columns(&header, &rows));
    let undecided: Vec<String> = rendering
        .verdict
        .picks
        .iter()
        .filter_map(undecided)
        .collect();
    if !undecided.is_empty() {
        let _ = writeln!(out, "\n{UNDECIDED}");
        for line in undecided {
            for (index, part) in wrap(&line, WIDTH - 2).into_iter().enumerate() {
                let indent = if index == 0 { "- " } else { "  " };
                let _ = writeln!(out, "{indent}{part}");
            }
        }
    }
    let unchecked = reasons::unchecked_rows(rendering.results).len();
    if unchecked > 0 {
        let _ = writeln!(
            out,
            "\n{unchecked} row(s) could not be checked: no figure, ranked nowhere (named in \
             report.md)."
        );
    }
    let _ = writeln!(
        out,
        "\nThe rules, each criterion's figures and every suite's tables (or --tables here):\n  \
         {}\n  {}\nEvery figure, and the charts, beside them: {}",
        dir.join("report.html").display(),
        dir.join("report.md").display(),
        dir.join("results.json").display()
    );
    out
}

/// A pick's reason in a clause or two: as shipped, and with settings where that differs.
pub(super) fn brief(pick: &Pick) -> String {
    let configured = &pick.configured;
    if configured.choice == pick.choice && configured.brief == pick.brief {
        pick.brief.clone()
    } else {
        format!("{}; with settings: {}", pick.brief, configured.brief)
    }
}

/// The line of a pick the run did not decide: its use case and what decides it.
pub(super) fn undecided(pick: &Pick) -> Option<String> {
    let configured = &pick.configured;
    match (&pick.undecided, &configured.undecided) {
        (Some(shipped), Some(with_settings)) if shipped != with_settings => Some(format!(
            "{}: {shipped}; with settings: {with_settings}",
            pick.use_case
        )),
        (Some(why), _) => Some(format!("{}: {why}", pick.use_case)),
        (None, Some(why)) if configured.choice == Choice::NotDecided => {
            Some(format!("{}, with settings: {why}", pick.use_case))
        }
        _ => None,
    }
}

/// `rows` under `header` in aligned columns, each cell wrapped within its column so that no
/// line is wider than [`WIDTH`]: the use case and the picks at most [`WIDEST_CELLS`] wide, the
/// reason in what is left.
fn columns(header: &[String; 4], rows: &[[String; 4]]) -> String {
    let width = |index: usize| {
        rows.iter()
            .chain([header])
            .map(|row| row[index].chars().count())
            .max()
            .unwrap_or(0)
            .min(WIDEST_CELLS[index])
    };
    let fixed = [width(0), width(1), width(2)];
    let indent = fixed.iter().sum::<usize>() + GAP.len() * fixed.len();
    let widths = [fixed[0], fixed[1], fixed[2], WIDTH.saturating_sub(indent)];
    let mut out = String::new();
    for row in std::iter::once(header).chain(rows) {
        let cells: Vec<Vec<String>> = row
            .iter()
            .zip(widths)
            .map(|(cell, width)| wrap(cell, width))
            .collect();
        let height = cells.iter().map(Vec::len).max().unwrap_or(1);
        for line in 0..height {
            let mut text = String::new();
            for (index, (cell, width)) in cells.iter().zip(widths).enumerate() {
                let part = cell.get(line).map_or("", String::as_str);
                if index + 1 == cells.len() {
                    text.push_str(part);
                } else {
                    let _ = write!(text, "{part:<width$}{GAP}");
                }
            }
            let _ = writeln!(out, "{}", text.trim_end());
        }
    }
    out
}

/// `text` in lines of at most `width` characters, broken at spaces (a word longer than
/// `width` gets a line of its own).
pub(super) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let needed = line.chars().count() + usize::from(!line.is_empty()) + word.chars().count();
        if !line.is_empty() && needed > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_that_measured_nothing_names_what_decides_each_pick() {
        use bench_model::test_rows::{default_settings, environment};
        let results =
            bench_model::Results::new(environment("2026-12-07T00:00:00Z"), default_settings());
        let rendering = Rendering::of(&results);
        let text = answer(&rendering, Path::new("/runs/1"));
        assert!(
            text.lines().all(|line| line.chars().count() <= WIDTH),
            "{text}"
        );
        let picks = &rendering.verdict.picks;
        // A line per use case, then one per undecided pick under its heading.
        for pick in picks {
            assert!(text.contains(pick.use_case), "{text}");
        }
        let undecided = text
            .split("Not decided in this run, and what decides it:\n")
            .nth(1)
            .expect("the undecided picks listed");
        assert_eq!(
            undecided
                .lines()
                .filter(|line| line.starts_with("- "))
                .count(),
            picks.len(),
            "{text}"
        );
        assert!(
            undecided.contains(
                "- The smallest binary: not in this run: cargo run --release -p \
                                bench -- --suite adoption"
            ),
            "{text}"
        );
        assert!(undecided.contains("(--suite cost)"), "{text}");
        assert!(text.contains("/runs/1/report.html"), "{text}");
    }

    #[test]
    fn wraps_at_spaces_within_the_width() {
        assert_eq!(
            wrap("one two three four", 9),
            vec!["one two", "three", "four"]
        );
        assert_eq!(wrap("", 9), vec![""]);
        assert_eq!(wrap("abcdefghijkl x", 5), vec!["abcdefghijkl", "x"]);
    }

    #[test]
    fn the_columns_fit_the_width_and_keep_their_order() {
        let long = "word ".repeat(80);
        let rows = [[
            "A service with a small memory budget".to_owned(),
            "a tie: hyper, awc".to_owned(),
            "a tie: hyper, awc, reqwest, ureq, reqwest-blocking, isahc, reqwest-retry".to_owned(),
            long.trim_end().to_owned(),
        ]];
        let header = [
            "Use case".to_owned(),
            "Pick".to_owned(),
            "With documented settings".to_owned(),
            "Why".to_owned(),
        ];
        let text = columns(&header, &rows);
        assert!(
            text.lines().all(|line| line.chars().count() <= WIDTH),
            "{text}"
        );
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("Use case "), "{text}");
        assert!(lines[1].starts_with("A service with a small memory budget  a tie: hyper, awc"));
        // The long tie wraps within its column, and the reason goes on under its own.
        let settings_at = lines[1].find("a tie: hyper, awc, reqwest,").unwrap();
        let at = lines[1].find("word").unwrap();
        assert!(lines.len() > 3, "{text}");
        assert!(lines[2][..settings_at].trim().is_empty(), "{text}");
        assert!(
            lines[2][settings_at..at].contains("reqwest-blocking"),
            "{text}"
        );
        for line in &lines[2..] {
            assert_eq!(line.chars().nth(at), Some('w'), "{text}");
        }
        assert_eq!(text.matches("word").count(), 80);
        assert!(text.contains("reqwest-retry"), "{text}");
    }
}
