//! report.html's tests: escaping, sections and their ids, inlined charts, nothing external.

use super::*;
use bench_model::SuiteName;

fn table(title: &str, cell: &str) -> Table {
    Table {
        title: title.to_owned(),
        columns: vec![("Client", Align::Left), ("Mean", Align::Right)],
        rows: vec![vec![cell.to_owned(), "12.5 us".to_owned()]],
    }
}

const SVG: &str = "<svg width=\"960\" height=\"600\" viewBox=\"0 0 960 600\" \
    xmlns=\"http://www.w3.org/2000/svg\"><text>hyper http</text></svg>\n";

fn sample() -> (Vec<Section>, Vec<Chart>) {
    let sections = vec![
        Section::new("Verdict").with(Part::Prose("**hyper** wins".to_owned())),
        Section::suite(SuiteName::Latency)
            .with(Part::Table(table(
                "latency: per call",
                "<script>alert(1)</script>",
            )))
            .with(Part::DetailTable(table("latency: every sample", "hyper")))
            .with(Part::Charts(vec!["latency_mean.svg".to_owned()])),
        Section::suite(SuiteName::Faults).with(Part::Marked(
            table("faults: matrix", "502 connect"),
            vec![vec![Mark::Plain, Mark::Unexpected]],
        )),
        Section::new("Change against the baseline")
            .with(Part::Notes(vec!["`a` & b".to_owned()]))
            .with(Part::Text("one line".to_owned())),
    ];
    let charts = vec![Chart {
        name: "latency_mean.svg".to_owned(),
        svg: format!("<?xml version=\"1.0\"?>\n{SVG}"),
    }];
    (sections, charts)
}

fn rendered() -> String {
    let (sections, charts) = sample();
    page(
        "bench <results>",
        &sections,
        &[
            "bench 0.1.0, started now".to_owned(),
            "WARNING: debug".to_owned(),
        ],
        &charts,
    )
}

#[test]
fn a_cell_holding_markup_stays_text() {
    let html = rendered();
    assert!(html.contains("<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>"));
    assert!(!html.contains("<script"), "{html}");
    assert!(html.contains("<title>bench &lt;results&gt;</title>"));
}

#[test]
fn every_section_has_its_id_suite_and_contents_entry_in_order() {
    let html = rendered();
    let openings = [
        "<section id=\"verdict\" data-suite=\"\">",
        "<section id=\"latency\" data-suite=\"latency\">",
        "<section id=\"faults\" data-suite=\"faults\">",
        "<section id=\"change-against-the-baseline\" data-suite=\"\">",
        "<section id=\"environment\" data-suite=\"\">",
    ];
    let places: Vec<usize> = openings
        .iter()
        .map(|opening| {
            html.find(opening)
                .unwrap_or_else(|| panic!("{opening} missing"))
        })
        .collect();
    assert!(places.is_sorted(), "sections out of order: {places:?}");
    assert_eq!(html.matches("<section ").count(), openings.len());
    for id in [
        "verdict",
        "latency",
        "faults",
        "change-against-the-baseline",
    ] {
        let link = format!("<li><a href=\"#{id}\">");
        let link_at = html.find(&link).unwrap_or_else(|| panic!("{link} missing"));
        assert!(link_at < places[0], "the contents come first");
    }
    assert!(html.contains("<li class=\"warning\">WARNING: debug</li>"));
}

#[test]
fn parts_become_tables_lists_and_paragraphs() {
    let html = rendered();
    for text in [
        "<p><strong>hyper</strong> wins</p>",
        "<h3>latency: per call</h3>",
        "<th class=\"num\">Mean</th>",
        "<td class=\"num\">12.5 us</td>",
        "<details>\n<summary>latency: every sample</summary>",
        "<td class=\"num unexpected\">12.5 us</td>",
        "<ul class=\"notes\">\n<li><code>a</code> &amp; b</li>\n</ul>",
        "<p>one line</p>",
    ] {
        assert!(html.contains(text), "{text:?} missing from {html}");
    }
}

#[test]
fn charts_are_inlined_and_nothing_is_loaded() {
    let html = rendered();
    assert!(html.contains(&format!(
        "<figure class=\"chart\" id=\"chart-latency-mean-svg\">\n{}",
        SVG.trim_end()
    )));
    assert!(!html.contains("<?xml"));
    assert!(!html.contains("<img"));
    assert!(!html.contains("<script"));
    // No attribute that makes the browser fetch points anywhere but the page itself.
    for attribute in ["src=", "href=\"http", "href='http", "url("] {
        assert!(!html.contains(attribute), "{attribute} in the page");
    }
    let missing = page(
        "x",
        &[Section::new("a").with(Part::Charts(vec!["gone.svg".to_owned()]))],
        &[],
        &[],
    );
    assert!(missing.contains("Chart gone.svg was not written."));
}

#[test]
fn repeated_titles_get_distinct_ids() {
    assert_eq!(
        unique_ids(["load", "load", "Environment", "contents"].into_iter()),
        ["load", "load-2", "environment-2", "contents-2"]
    );
}

#[test]
fn a_summary_links_each_row_to_its_row_in_full() {
    let rows = |title: &str| Table {
        title: title.to_owned(),
        columns: vec![
            ("Use case", Align::Left),
            ("Pick", Align::Left),
            ("Why", Align::Left),
        ],
        rows: vec![
            vec![
                "Blocking or CLI code".to_owned(),
                "reqwest-blocking".to_owned(),
                "latency http 40.5 us against ureq 52.0 us (+28%)".to_owned(),
            ],
            vec![
                "The smallest <binary>".to_owned(),
                "a tie: hyper, awc, reqwest, ureq, reqwest-blocking, isahc".to_owned(),
                "binary size: a tie".to_owned(),
            ],
        ],
    };
    let html = page(
        "x",
        &[Section::new("Verdict")
            .with(Part::Summary(Summary {
                table: rows("picks"),
                id: "picks",
                full: Some(("rules", "rule and figures")),
            }))
            .with(Part::Anchored(rows("rules in full"), "rules"))],
        &[],
        &[],
    );
    for text in [
        "<h3>picks</h3>\n<div class=\"scroll\"><table id=\"picks\">\n<thead><tr><th>Use case</th>\
         <th>Pick</th><th>Why</th><th>In full</th></tr></thead>",
        // Read across: every cell on one line but the reason, which wraps.
        "<tr><td class=\"nowrap\">Blocking or CLI code</td><td class=\"nowrap\">reqwest-blocking\
         </td><td>latency http 40.5 us against ureq 52.0 us (+28%)</td><td class=\"link\">\
         <a href=\"#rules-blocking-or-cli-code\">rule and figures</a></td></tr>",
        // A long cell wraps, leaving the reason its room.
        "<td class=\"nowrap\">The smallest &lt;binary&gt;</td><td>a tie: hyper, awc, reqwest, \
         ureq, reqwest-blocking, isahc</td><td>binary size: a tie</td><td class=\"link\">\
         <a href=\"#rules-the-smallest-binary\">",
        "<div class=\"scroll\"><table>\n<thead><tr><th>Use case</th><th>Pick</th><th>Why</th>\
         </tr></thead>",
        "<tr id=\"rules-blocking-or-cli-code\"><td>Blocking or CLI code</td>",
        "<tr id=\"rules-the-smallest-binary\"><td>The smallest &lt;binary&gt;</td>",
    ] {
        assert!(html.contains(text), "{text:?} missing from {html}");
    }
    assert_eq!(html.matches("class=\"link\"").count(), 2);
}
