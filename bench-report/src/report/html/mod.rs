//! report.html: the sections of report.md as one self-contained page (its style inline, every
//! chart's SVG inline, no script, nothing loaded from anywhere), a table of contents at the top
//! and the environment at the end.

mod text;

use std::fmt::Write as _;

use crate::report::html::text::{blocks, escape, inline, slug};
use crate::report::section::{Mark, Part, Section, Summary};
use crate::report::table::{Align, Table};

/// A chart written beside the page: its file name and its SVG.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chart {
    pub name: String,
    pub svg: String,
}

/// The page: `title`, a table of contents, `sections` in their order, each as
/// `<section id="{slug of its title}" data-suite="{its suite, or empty}">`, then `environment`
/// (the header's lines). The charts a section names are inlined from `charts`.
pub fn page(title: &str, sections: &[Section], environment: &[String], charts: &[Chart]) -> String {
    let ids = unique_ids(sections.iter().map(|section| section.title.as_str()));
    let mut out = String::with_capacity(64 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<link rel=\"icon\" href=\"data:,\">\n<style>\n{STYLE}</style>\n\
         </head>\n<body>\n<h1>{}</h1>\n",
        escape(title),
        escape(title)
    );
    out.push_str("<nav id=\"contents\">\n<h2>Contents</h2>\n<ol>\n");
    for (section, id) in sections.iter().zip(&ids) {
        let _ = writeln!(
            out,
            "<li><a href=\"#{id}\">{}</a></li>",
            escape(&section.title)
        );
    }
    out.push_str("<li><a href=\"#environment\">Environment</a></li>\n</ol>\n</nav>\n<main>\n");
    for (section, id) in sections.iter().zip(&ids) {
        render_section(&mut out, section, id, charts);
    }
    out.push_str("<section id=\"environment\" data-suite=\"\">\n<h2>Environment</h2>\n<ul>\n");
    for line in environment {
        let class = if line.starts_with("WARNING") {
            " class=\"warning\""
        } else {
            ""
        };
        let _ = writeln!(out, "<li{class}>{}</li>", inline(line));
    }
    out.push_str("</ul>\n</section>\n</main>\n</body>\n</html>\n");
    out
}

/// Each title's slug, with `-2`, `-3`, ... after a slug already taken.
fn unique_ids<'a>(titles: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut ids: Vec<String> = vec!["contents".to_owned(), "environment".to_owned()];
    for title in titles {
        let base = slug(title);
        let mut id = base.clone();
        let mut next = 2;
        while ids.contains(&id) {
            id = format!("{base}-{next}");
            next += 1;
        }
        ids.push(id);
    }
    ids.split_off(2)
}

fn render_section(out: &mut String, section: &Section, id: &str, charts: &[Chart]) {
    let suite = section.suite.map_or("", |suite| suite.as_str());
    let _ = writeln!(
        out,
        "<section id=\"{id}\" data-suite=\"{suite}\">\n<h2>{}</h2>",
        escape(&section.title)
    );
    for part in &section.parts {
        match part {
            Part::Table(table) => render_table(out, table, &Shape::default()),
            Part::Marked(table, marks) => {
                render_table(
                    out,
                    table,
                    &Shape {
                        marks,
                        ..Shape::default()
                    },
                );
                out.push_str(LEGEND);
            }
            Part::DetailTable(table) => render_table(
                out,
                table,
                &Shape {
                    detail: true,
                    ..Shape::default()
                },
            ),
            Part::Summary(Summary { table, id, full }) => render_table(
                out,
                table,
                &Shape {
                    id: Some(id),
                    links: *full,
                    ..Shape::default()
                },
            ),
            Part::Anchored(table, id) => render_table(
                out,
                table,
                &Shape {
                    row_ids: Some(id),
                    ..Shape::default()
                },
            ),
            Part::Text(text) => {
                let _ = writeln!(out, "<p>{}</p>", inline(text));
            }
            Part::Prose(text) => out.push_str(&blocks(text)),
            Part::Notes(notes) => {
                out.push_str("<ul class=\"notes\">\n");
                for note in notes {
                    let _ = writeln!(out, "<li>{}</li>", inline(note));
                }
                out.push_str("</ul>\n");
            }
            Part::Charts(names) => {
                for name in names {
                    render_chart(out, name, charts);
                }
            }
        }
    }
    out.push_str("<p class=\"top\"><a href=\"#contents\">contents</a></p>\n</section>\n");
}

/// What the colours of a marked table mean.
const LEGEND: &str = "<p class=\"legend\"><span class=\"expected\">as expected</span> \
    <span class=\"unexpected\">not as expected</span> \
    <span class=\"doubtful\">hung, or the next call failed</span></p>\n";

/// How a table is rendered beyond its cells.
#[derive(Default)]
struct Shape<'a> {
    /// The colours of its cells, a row of marks per row.
    marks: &'a [Vec<Mark>],
    /// Folded away under its title.
    detail: bool,
    /// The table's id: a summary's, whose short cells but the last column's stay on one line.
    id: Option<&'a str>,
    /// Each row's id is `{this}-{slug of its first cell}`.
    row_ids: Option<&'a str>,
    /// A last column, headed [`IN_FULL`], linking each row to the row `{.0}-{slug of its first
    /// cell}` (of a table with `row_ids` `.0`) by a link reading `.1`.
    links: Option<(&'a str, &'a str)>,
}

/// The longest cell of a summary kept on one line, in characters: a short use case's name, a
/// pick of one client, "not decided in this run"; a longer cell (a long use case, a tie of
/// several clients) wraps, leaving the reason its room. At 40 the pick table of a `--quick`
/// run (eleven use cases, three-client ties kept whole) ended 908 px down a 1400x900 window;
/// at 24 it ends near 700.
const KEPT_WHOLE: usize = 24;

/// The header of a summary's column of links to each row in full.
const IN_FULL: &str = "In full";

/// The id of the row of a table with row ids `prefix` whose first cell is `first`.
fn row_id(prefix: &str, first: Option<&String>) -> String {
    format!("{prefix}-{}", slug(first.map_or("", String::as_str)))
}

/// A table under its title, shaped by `shape`.
fn render_table(out: &mut String, table: &Table, shape: &Shape) {
    let Shape {
        marks,
        detail,
        id,
        row_ids,
        links,
    } = *shape;
    if detail {
        let _ = writeln!(
            out,
            "<details>\n<summary>{}</summary>",
            inline(&table.title)
        );
    } else {
        let _ = writeln!(out, "<h3>{}</h3>", inline(&table.title));
    }
    let align = |align: Align| match align {
        Align::Left => "",
        Align::Right => " class=\"num\"",
    };
    match id {
        Some(id) => {
            let _ = write!(out, "<div class=\"scroll\"><table id=\"{}\">", escape(id));
        }
        None => out.push_str("<div class=\"scroll\"><table>"),
    }
    out.push_str("\n<thead><tr>");
    for (header, column) in &table.columns {
        let _ = write!(out, "<th{}>{}</th>", align(*column), escape(header));
    }
    if links.is_some() {
        let _ = write!(out, "<th>{IN_FULL}</th>");
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for (index, row) in table.rows.iter().enumerate() {
        match row_ids {
            Some(prefix) => {
                let _ = write!(out, "<tr id=\"{}\">", escape(&row_id(prefix, row.first())));
            }
            None => out.push_str("<tr>"),
        }
        for (column, cell) in row.iter().enumerate() {
            let mark = marks
                .get(index)
                .and_then(|marks| marks.get(column))
                .copied()
                .unwrap_or(Mark::Plain);
            let right = table
                .columns
                .get(column)
                .is_some_and(|(_, align)| *align == Align::Right);
            // A summary is read across: each short cell stays on one line but the last
            // column's (the reason, say), which wraps in the width the others leave.
            let kept_whole = id.is_some()
                && column + 1 < table.columns.len()
                && cell.chars().count() <= KEPT_WHOLE;
            let classes: Vec<&str> = [
                right.then_some("num"),
                kept_whole.then_some("nowrap"),
                match mark {
                    Mark::Plain => None,
                    Mark::Expected => Some("expected"),
                    Mark::Unexpected => Some("unexpected"),
                    Mark::Doubtful => Some("doubtful"),
                },
            ]
            .into_iter()
            .flatten()
            .collect();
            if classes.is_empty() {
                let _ = write!(out, "<td>{}</td>", escape(cell));
            } else {
                let _ = write!(
                    out,
                    "<td class=\"{}\">{}</td>",
                    classes.join(" "),
                    escape(cell)
                );
            }
        }
        if let Some((target, text)) = links {
            let _ = write!(
                out,
                "<td class=\"link\"><a href=\"#{}\">{}</a></td>",
                escape(&row_id(target, row.first())),
                escape(text)
            );
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n");
    if detail {
        out.push_str("</details>\n");
    }
}

/// A chart's SVG inlined (from its `<svg` on, so no XML declaration lands in the page).
fn render_chart(out: &mut String, name: &str, charts: &[Chart]) {
    let svg = charts
        .iter()
        .find(|chart| chart.name == name)
        .and_then(|chart| chart.svg.find("<svg").map(|start| &chart.svg[start..]));
    match svg {
        Some(svg) => {
            let _ = writeln!(
                out,
                "<figure class=\"chart\" id=\"chart-{}\">\n{}\n<figcaption>{}</figcaption>\n\
                 </figure>",
                slug(name),
                svg.trim_end(),
                escape(name)
            );
        }
        None => {
            let _ = writeln!(
                out,
                "<p class=\"warning\">Chart {} was not written.</p>",
                escape(name)
            );
        }
    }
}

const STYLE: &str = "\
body { font: 15px/1.45 system-ui, sans-serif; color: #1b1b1b; margin: 0 auto; padding: 0 1.5rem 3rem; max-width: 110rem; }
h1 { font-size: 1.6rem; margin: 1.2rem 0 .5rem; }
h2 { font-size: 1.35rem; border-bottom: 1px solid #ccc; padding-bottom: .2rem; margin-top: 2.5rem; }
h3 { font-size: 1rem; margin: 1.5rem 0 .4rem; }
nav#contents { font-size: .85rem; }
nav#contents h2 { display: inline; font-size: inherit; border: 0; margin: 0 .5rem 0 0; padding: 0; }
nav#contents ol, nav#contents li { display: inline; padding: 0; margin: 0; }
nav#contents li + li::before { content: \"\\00b7\"; color: #888; margin: 0 .4rem; }
main > section:first-child > h2 { margin-top: 1rem; }
code { font: .9em ui-monospace, monospace; background: #f2f2f2; padding: 0 .2em; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: .9rem; margin: .3rem 0 1rem; }
th, td { border: 1px solid #d4d4d4; padding: .2rem .5rem; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tbody tr:nth-child(even) { background: #fafafa; }
.expected { background: #d8f0d8; }
.unexpected { background: #f6d0d0; }
.doubtful { background: #fbe6b8; }
.legend span { padding: .1rem .5rem; margin-right: .4rem; border: 1px solid #ccc; }
details { margin: .8rem 0; }
summary { cursor: pointer; font-weight: 600; }
td.nowrap, td.link { white-space: nowrap; }
tr:target { background: #fff1b8; }
figure.chart { margin: 1rem 0; }
figure.chart svg { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: .8rem; color: #666; }
.warning { color: #8a1c1c; font-weight: 600; }
.top { font-size: .8rem; }
";

#[cfg(test)]
mod tests;
