//! Presenting results: every suite's section, rendered for the terminal, as report.md and as
//! report.html, with the header above them; results.json; the SVG charts. Nothing here
//! measures.

mod adoption;
mod answer;
mod baseline;
mod charts;
mod connections;
mod cost;
mod decode;
mod dependencies;
mod fanout;
mod faults;
mod format;
mod header;
mod html;
mod idle;
pub mod json;
mod latency;
mod load;
mod machine;
mod memory;
mod noise;
pub(crate) mod not_run;
pub mod reasons;
mod releases;
mod rendering;
mod resilience;
mod resolution;
mod section;
mod table;
mod upstream;
mod verdict;
mod wan;

pub use answer::{WIDTH as ANSWER_WIDTH, answer};
pub use charts::write_charts;
pub use html::Chart;
pub use not_run::not_run_line;
pub use rendering::Rendering;
pub use upstream::left_out as left_out_of_upstream;
pub use verdict::agreement;

use std::fmt::Write as _;

use crate::report::section::{Part, Section};
use bench_model::Results;

/// The header the terminal shows before a run: environment, settings and servers, one fact
/// per line.
pub fn header(results: &Results) -> String {
    let mut out = String::new();
    for line in header::lines(results) {
        let _ = writeln!(out, "{line}");
    }
    out
}

/// The header's first lines, what the terminal shows before a run unless `--tables` asks for
/// the whole header: the bench, the machine and the toolchain, and the suites with their
/// clients (every setting, version and server is in report.md's header).
pub fn header_brief(results: &Results) -> String {
    let mut out = String::new();
    for line in header::brief_lines(results) {
        for part in answer::wrap(&line, answer::WIDTH) {
            let _ = writeln!(out, "{part}");
        }
    }
    out
}

/// Every section for the terminal, after the run.
pub fn terminal(rendering: &Rendering) -> String {
    sections(rendering, &[])
        .iter()
        .map(Section::terminal)
        .collect()
}

/// report.md: the header, every section, and how to read them; `charts` are the SVG files
/// written beside it.
pub fn markdown(rendering: &Rendering, charts: &[String]) -> String {
    let results = rendering.results;
    let mut out = format!("# {TITLE}\n\n");
    for line in header::lines(results) {
        let _ = writeln!(out, "- {line}");
    }
    for section in sections(rendering, charts) {
        out.push_str(&section.markdown());
    }
    out.push_str(&how_to_read().markdown());
    out
}

/// report.html: every section of report.md, the charts inlined, then the header's lines.
pub fn html(rendering: &Rendering, charts: &[Chart]) -> String {
    let names: Vec<String> = charts.iter().map(|chart| chart.name.clone()).collect();
    let mut sections = sections(rendering, &names);
    sections.push(how_to_read());
    let results = rendering.results;
    html::page(TITLE, &sections, &header::lines(results), charts)
}

const TITLE: &str = "HTTP clients through the rates port: bench results";

fn how_to_read() -> Section {
    Section::new("How to read this").with(Part::Prose(HOW_TO_READ.trim_end().to_owned()))
}

/// The sections of the suites that ran, in the order of a default run.
fn sections(rendering: &Rendering, charts: &[String]) -> Vec<Section> {
    // A row that could not be checked is no figure: the verdict names it, no table shows it.
    let results = &rendering.checked;
    [
        Some(verdict::section(
            rendering.results,
            &rendering.verdict,
            charts,
        )),
        upstream::section(results),
        latency::section(results, charts),
        connections::section(results),
        memory::section(results),
        idle::section(results),
        resolution::section(results),
        decode::section(results, &rendering.decode, charts),
        cost::section(results),
        load::section(results, charts),
        fanout::section(results, charts),
        faults::section(results),
        resilience::section(results),
        wan::section(results),
        dependencies::section(results),
        Some(adoption::section(results)),
        Some(releases::section(results, &rendering.releases, charts)),
        baseline::section(results),
        machine::section(results),
    ]
    .into_iter()
    .flatten()
    .collect()
}

const HOW_TO_READ: &str = "\
- **Mean** is the mean of the sample means; a sample is a batch of calls (latency) or decodes
  (decode). **StdDev** is the standard deviation of those sample means.
- **Error** is half the width of the 99.9% confidence interval of the Mean, as BenchmarkDotNet
  reports it: t(0.9995, n-1) x StdDev / sqrt(n) over n samples. With few samples t is large
  (12.9 for 4 samples, 4.78 for 10), so Error is wide; NA means a single sample. Two means
  whose difference is within their combined Error are not shown to differ.
- **Median** and **P99** (latency) are over every successful call of every sample; P99 uses the
  nearest-rank method (an observed call time). In decode, single decodes are too short to time,
  so Median is the median of the sample means.
- **Ratio** is computed per sample: each sample's mean divided by the baseline's sample of the
  same index (hyper for latency, `borrowed_typed` for decode), then the mean (Ratio) and
  standard deviation (RatioSD) of those ratios. Samples are interleaved across clients, so the
  two samples of a pair ran close in time and share the machine's noise. Ratio is therefore not
  the ratio of the Means; when samples are noisy (see StdDev) the two can differ a lot.
- **Allocated/op** and **Allocs/op** come from a counting global allocator around each sample,
  over all threads of the bench (mock-rates runs in its own process and is not counted). They
  cover the Rust heap only: memory libcurl allocates with its own malloc (isahc) and kernel
  socket buffers are not counted. A realloc counts as one allocation of its new size.
- **Connections** are the TCP connections mock-rates accepted during a client's warm-up and
  samples: 1 means one connection served every call.
- **Failures** are calls that returned an error or lacked a pair; they are never timed.
";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Outcome;
    use bench_model::{ClientName, FaultCase, FaultRow, PaymentOutcome, SuiteName};

    #[test]
    fn every_output_shows_the_verdict_of_its_rendering() {
        let mut results = fanout::test_rows::results("360");
        results.load = vec![
            bench_model::test_rows::load_row(Some(ClientName::Hyper), 480.0, 900.0, 0),
            bench_model::test_rows::load_row(Some(ClientName::Awc), 480.0, 2_000.0, 0),
        ];
        let mut rendering = Rendering::of(&results);
        // A figure no computation from the results gives: an output that judged the run
        // again would show the computed one instead.
        let planted = "planted 123 us";
        let ranking = rendering
            .verdict
            .criteria
            .iter_mut()
            .find_map(|judgement| match &mut judgement.outcome {
                Outcome::Ranked(ranking) => Some(ranking),
                _ => None,
            })
            .expect("a ranked criterion");
        // The best figure, as the tables show it and as the chart draws it (first in order).
        ranking.best.shown = planted.to_owned();
        ranking.order[0].shown = planted.to_owned();
        let dir = tempfile::tempdir().unwrap();
        let charts = write_charts(&rendering, dir.path()).unwrap();
        assert_eq!(
            charts.first().map(String::as_str),
            Some(charts::VERDICT_CHART)
        );
        let svg = std::fs::read_to_string(dir.path().join(charts::VERDICT_CHART)).unwrap();
        let inline = [Chart {
            name: charts::VERDICT_CHART.to_owned(),
            svg: svg.clone(),
        }];
        for (output, text) in [
            ("terminal", terminal(&rendering)),
            ("report.md", markdown(&rendering, &charts)),
            ("report.html", html(&rendering, &inline)),
            ("verdict.svg", svg),
        ] {
            assert!(text.contains(planted), "{output} judged again:\n{text}");
        }
    }

    #[test]
    fn the_page_has_every_section_of_report_md_in_its_order() {
        let mut results = fanout::test_rows::results("360");
        results.load = vec![
            bench_model::test_rows::load_row(None, 480.0, 900.0, 0),
            bench_model::test_rows::load_row(Some(ClientName::Hyper), 480.0, 2_000.0, 0),
        ];
        results.faults = vec![FaultRow {
            client: ClientName::Hyper,
            fault: FaultCase::None,
            expected_kind: PaymentOutcome::Ok,
            kind: PaymentOutcome::Ok,
            expected_status: 200,
            status: Some(200),
            elapsed_ms: 2.5,
            timeout_ms: 500,
            next_ok: true,
            hung: false,
        }];
        let chart = Chart {
            name: "fanout_wall_time.svg".to_owned(),
            svg: "<svg xmlns=\"http://www.w3.org/2000/svg\"><text>planted</text></svg>".to_owned(),
        };
        let rendering = Rendering::of(&results);
        let page = html(&rendering, std::slice::from_ref(&chart));
        let listed = sections(&rendering, std::slice::from_ref(&chart.name));
        let titles: Vec<&str> = listed
            .iter()
            .map(|section| section.title.as_str())
            .collect();
        for title in ["load", "fanout", "faults"] {
            assert!(titles.contains(&title), "{titles:?}");
        }
        let mut after = 0;
        for section in listed.iter().chain([&how_to_read()]) {
            let opening = format!(
                "<section id=\"{}\" data-suite=\"{}\">\n<h2>{}</h2>",
                section.title.to_lowercase().replace(' ', "-"),
                section.suite.map_or("", SuiteName::as_str),
                section.title
            );
            let at = page[after..]
                .find(&opening)
                .unwrap_or_else(|| panic!("{opening} missing, or out of order"));
            after += at + opening.len();
        }
        assert!(page[after..].contains("<section id=\"environment\" data-suite=\"\">"));
        let first = format!(
            "<section id=\"{}\"",
            listed[0].title.to_lowercase().replace(' ', "-")
        );
        assert_eq!(
            page.find("<section "),
            page.find(&first),
            "the first section is the first of sections()"
        );
        let fanout =
            &page[page.find("id=\"fanout\"").unwrap()..page.find("id=\"faults\"").unwrap()];
        assert!(
            fanout.contains("<text>planted</text>"),
            "the chart is inlined in its section"
        );
        assert!(
            page.contains("<td class=\"expected\">200 ok 2.50 ms</td>"),
            "{page}"
        );
    }

    /// A run with figures enough to rank, and a pick it leaves undecided.
    fn ranked_run() -> bench_model::Results {
        let mut results = fanout::test_rows::results("360");
        results.load = vec![
            bench_model::test_rows::load_row(Some(ClientName::Hyper), 480.0, 900.0, 0),
            bench_model::test_rows::load_row(Some(ClientName::Awc), 480.0, 2_000.0, 0),
        ];
        results
    }

    /// Panics unless `markers` are found in `text` one after the other.
    fn in_order(output: &str, text: &str, markers: &[&str]) {
        let mut after = 0;
        for marker in markers {
            let at = text[after..]
                .find(marker)
                .unwrap_or_else(|| panic!("{output}: {marker:?} missing or out of order"));
            after += at + marker.len();
        }
    }

    #[test]
    fn report_md_opens_with_the_answer_and_the_terminal_leaves_it_to_its_own() {
        let results = ranked_run();
        let rendering = Rendering::of(&results);
        let verdict = &rendering.verdict;
        assert!(
            verdict.picks.iter().any(|pick| pick.undecided.is_some()),
            "the run leaves a pick undecided"
        );
        let chart = charts::VERDICT_CHART;
        // The picks in brief, the undecided, what the run told apart, then the chart, the
        // rules in full and each criterion.
        let markdown = markdown(&rendering, &[chart.to_owned()]);
        let verdict_md = &markdown[markdown.find("\n## Verdict\n").unwrap()..];
        in_order(
            "report.md",
            verdict_md,
            &[
                "\n## Verdict\n\n### verdict: a pick per use case\n\n| Use case ",
                "| Why ",
                answer::UNDECIDED,
                "### verdict: what this run could and could not tell apart",
                "| Calls from |",
                &format!("![{chart}]({chart})"),
                "### verdict: a pick per use case, its rule and this run's figures",
                "### verdict: per criterion",
                "\n## ",
            ],
        );
        let brief = &verdict_md[..verdict_md.find(answer::UNDECIDED).unwrap()];
        let told_apart = &verdict_md[verdict_md.find("### verdict: what this run").unwrap()
            ..verdict_md.find(chart).unwrap()];
        for pick in &verdict.picks {
            assert!(brief.contains(&answer::brief(pick)), "{brief}");
            assert!(
                !brief.contains(&pick.reason),
                "the reason in full is further down"
            );
            for criterion in [pick.deciding.first, pick.deciding.tie_break]
                .into_iter()
                .flatten()
            {
                assert!(
                    told_apart.contains(&format!("| {} ", criterion.name())),
                    "{told_apart}"
                );
            }
        }
        assert!(told_apart.contains("| Instructions per payment, whole service "));
        assert!(
            !told_apart.contains("| Per-call latency, https "),
            "decides no pick"
        );
        // The terminal prints the answer after its tables (`answer`): its verdict holds the
        // rules in full and each criterion, as before, and none of the summaries.
        let terminal = terminal(&rendering);
        in_order(
            "terminal",
            &terminal,
            &[
                "\nverdict: a pick per use case, its rule and this run's figures\n",
                "\nverdict: per criterion",
            ],
        );
        for summary in [
            "verdict: a pick per use case\n",
            answer::UNDECIDED,
            "what this run could and could not tell apart",
        ] {
            assert!(!terminal.contains(summary), "{summary:?} in the terminal");
        }
    }

    #[test]
    fn the_page_opens_with_the_pick_table_each_row_linked_to_its_rule() {
        let results = ranked_run();
        let rendering = Rendering::of(&results);
        let dir = tempfile::tempdir().unwrap();
        let charts = write_charts(&rendering, dir.path()).unwrap();
        assert!(charts.iter().any(|name| name == charts::VERDICT_CHART));
        let inline = [Chart {
            name: charts::VERDICT_CHART.to_owned(),
            svg: std::fs::read_to_string(dir.path().join(charts::VERDICT_CHART)).unwrap(),
        }];
        let page = html(&rendering, &inline);
        assert_eq!(page.find("<table"), page.find("<table id=\"picks\">"));
        in_order(
            "report.html",
            &page,
            &[
                "<section id=\"verdict\"",
                "<table id=\"picks\">",
                answer::UNDECIDED,
                "<table id=\"told-apart\">",
                "<figure class=\"chart\" id=\"chart-verdict-svg\">",
                "<tr id=\"rules-",
                "<h3>verdict: per criterion",
                "</section>",
            ],
        );
        let picks = &page[page.find("<table id=\"picks\">").unwrap()..];
        let picks = &picks[..picks.find("</table>").unwrap()];
        for pick in &rendering.verdict.picks {
            let id = format!("rules-{}", pick.use_case.to_lowercase().replace(' ', "-"));
            assert!(picks.contains(&format!("<a href=\"#{id}\">")), "{picks}");
            assert!(page.contains(&format!("<tr id=\"{id}\">")), "{id} missing");
        }
    }
}
