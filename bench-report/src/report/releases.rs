//! The releases suite's section: what upgrading changed, release by release against each
//! library's newest, then every release's figures, and what each resolved to underneath.

use crate::releases::{Call, Change, spins};
use crate::report::format::{format_bytes, format_ms, optional};
use crate::report::reasons;
use crate::report::section::{Part, Section};
use crate::report::table::{Align, Table};
use bench_model::{
    FigureNotMeasured, Protocol, ReleaseFailure, ReleaseMeasure, ReleaseRow, ReleasesResults,
    ReleasesSettings, Results, SuiteName,
};

/// How to run the suite, for a run that left it out.
pub const HOW_TO_RUN: &str = "cargo run --release -p bench -- --suite releases (about 26 \
     minutes on 2 cores for 22 releases, most of it clean builds; --clients ureq, or \
     --releases ureq@2.12.1,ureq@3.5.2, for fewer)";

/// The section: how to run the suite when the run left it out, its figures when it ran, with
/// `changes` (the rendering's judgement of what upgrading changed).
pub fn section(results: &Results, changes: &[Change], charts: &[String]) -> Section {
    let section = Section::suite(SuiteName::Releases);
    if !results.settings.suites.contains(&SuiteName::Releases) {
        return section.with(Part::Text(format!(
            "releases: not run (each library across its own releases: what upgrading \
             changes): {HOW_TO_RUN}"
        )));
    }
    let releases = &results.releases;
    if let Some(why) = &releases.skipped {
        return section.with(Part::Text(format!(
            "releases: skipped: {}",
            reasons::releases_skipped(why)
        )));
    }
    let Some(settings) = &releases.settings else {
        return section.with(Part::Text("releases: no release was measured".to_owned()));
    };
    section
        .with(Part::Text(summary(releases, settings)))
        .with(Part::Table(upgrades_table(releases, changes)))
        .with(Part::DetailTable(calls_table(releases)))
        .with(Part::DetailTable(stress_table(releases, settings)))
        .with(Part::DetailTable(stack_table(releases)))
        .with(Part::DetailTable(changes_table(changes)))
        .with_charts(charts, "releases_")
        .with_notes(notes(releases))
        .with(Part::Prose(HOW.to_owned()))
}

fn summary(releases: &ReleasesResults, settings: &ReleasesSettings) -> String {
    let built = releases
        .rows
        .iter()
        .filter(|row| row.failed.is_none())
        .count();
    format!(
        "releases: {} releases of {} ({} built), each a probe of its own with its own lock \
         file, built clean (cargo build --release -j {}, {}) and measured {} in {} rounds \
         interleaved across the releases: {} pooled calls after {} over http, https and h2, \
         {} calls on new connections over https, {} calls at once of {} over http and h2, a \
         body held open {} ms against a half-closing peer, and instructions per call under \
         callgrind; each older release judged against its library's newest",
        releases.rows.len(),
        releases.libraries().join(", "),
        built,
        settings.jobs,
        settings.cargo,
        settings.cpu.map_or_else(
            || "unpinned".to_owned(),
            |cpu| format!("with the probes and mocks on CPU {cpu}")
        ),
        settings.rounds,
        settings.calls,
        settings.warmup,
        settings.fresh_calls,
        settings.concurrency,
        format_bytes(settings.large_bytes as f64),
        settings.hold_ms,
    )
}

/// Per older release: what upgrading to the newest changed beyond the noise, and how many
/// figures were a tie.
fn upgrades_table(releases: &ReleasesResults, changes: &[Change]) -> Table {
    use Align::{Left, Right};
    let mut rows = Vec::new();
    for library in releases.libraries() {
        for row in releases.of(library) {
            let mine: Vec<&Change> = changes
                .iter()
                .filter(|change| change.library == library && change.from == row.release)
                .collect();
            let Some(first) = mine.first() else {
                if let Some(why) = &row.failed {
                    rows.push(vec![
                        row.label(),
                        "-".to_owned(),
                        format!(
                            "not measured: {}",
                            first_line(&reasons::release_failure(why))
                        ),
                        "-".to_owned(),
                    ]);
                }
                continue;
            };
            let beyond: Vec<String> = mine
                .iter()
                .filter(|change| change.call != Call::Tie)
                .map(|change| format!("{}: {}", change.compared.name(), change.describe()))
                .collect();
            let ties = mine
                .iter()
                .filter(|change| change.call == Call::Tie)
                .count();
            rows.push(vec![
                row.label(),
                first.to.clone(),
                if beyond.is_empty() {
                    "nothing beyond the noise".to_owned()
                } else {
                    beyond.join("; ")
                },
                ties.to_string(),
            ]);
        }
    }
    Table {
        title: "releases: what upgrading to the newest release changed, beyond the noise (the \
                verdict's rules; ties counted)"
            .to_owned(),
        columns: vec![
            ("From", Left),
            ("To", Left),
            ("Changed beyond the noise", Left),
            ("Ties", Right),
        ],
        rows,
    }
}

/// Every comparison, ties with what they could have called.
fn changes_table(changes: &[Change]) -> Table {
    use Align::{Left, Right};
    Table {
        title: "releases: every figure against the newest release".to_owned(),
        columns: vec![
            ("From", Left),
            ("To", Left),
            ("Figure", Left),
            ("Was", Right),
            ("Is", Right),
            ("Upgrading", Left),
        ],
        rows: changes
            .iter()
            .map(|change| {
                let unit = match change.compared {
                    crate::releases::Compared::Figure(measure, _) => measure.unit(),
                    crate::releases::Compared::BuildTime => "s",
                    crate::releases::Compared::BinarySize => "B",
                    crate::releases::Compared::Crates => "",
                };
                vec![
                    format!("{} {}", change.library, change.from),
                    change.to.clone(),
                    change.compared.name(),
                    value_cell(change.from_value, unit),
                    value_cell(change.to_value, unit),
                    change.describe(),
                ]
            })
            .collect(),
    }
}

fn value_cell(value: f64, unit: &str) -> String {
    match unit {
        "B" => format_bytes(value),
        "" if value >= 100.0 => format!("{value:.0}"),
        "" => format!("{value:.1}"),
        "ms" => format_ms(Some(value)),
        unit if value >= 100.0 => format!("{value:.0} {unit}"),
        unit => format!("{value:.1} {unit}"),
    }
}

/// A figure's cell: its value (with the spread of its rounds), or why it has none.
fn figure_cell(row: &ReleaseRow, measure: ReleaseMeasure, protocol: Protocol) -> String {
    if let Some(why) = &row.failed {
        return if matches!(why, ReleaseFailure::Build { .. }) {
            "does not build".to_owned()
        } else {
            "failed".to_owned()
        };
    }
    let Some(figure) = row.figure(measure, protocol) else {
        return "-".to_owned();
    };
    match (figure.value(), &figure.not_measured) {
        (Some(value), _) => value_cell(value, measure.unit()),
        (None, Some(FigureNotMeasured::WrongVersion { .. })) if protocol == Protocol::H2 => {
            "HTTP/1.1 only".to_owned()
        }
        (None, Some(FigureNotMeasured::NoValgrind)) => "not measured".to_owned(),
        (None, Some(FigureNotMeasured::Probe { error })) if error.starts_with("not measured") => {
            "not measured".to_owned()
        }
        (None, _) => "failed".to_owned(),
    }
}

fn calls_table(releases: &ReleasesResults) -> Table {
    use Align::{Left, Right};
    use ReleaseMeasure::{Allocations, Instructions, Latency, NewConnection};
    let rows = releases
        .rows
        .iter()
        .map(|row| {
            vec![
                row.label(),
                figure_cell(row, Latency, Protocol::Http),
                figure_cell(row, Latency, Protocol::Https),
                figure_cell(row, Latency, Protocol::H2),
                figure_cell(row, Allocations, Protocol::Http),
                figure_cell(row, Allocations, Protocol::H2),
                figure_cell(row, NewConnection, Protocol::Https),
                figure_cell(row, Instructions, Protocol::Http),
            ]
        })
        .collect();
    Table {
        title: "releases: one call (mean of the rounds): pooled latency, Rust heap allocations, \
                a new connection per call, instructions per call (callgrind)"
            .to_owned(),
        columns: vec![
            ("Release", Left),
            ("Latency http", Right),
            ("https", Right),
            ("h2", Right),
            ("Allocs/call http", Right),
            ("h2", Right),
            ("New conn. https", Right),
            ("Instr./call http", Right),
        ],
        rows,
    }
}

fn stress_table(releases: &ReleasesResults, settings: &ReleasesSettings) -> Table {
    use Align::{Left, Right};
    use ReleaseMeasure::{ConcurrentCpu, ConcurrentSlowest, ConcurrentWall, HalfCloseCpu};
    let rows = releases
        .rows
        .iter()
        .map(|row| {
            let half_close = match row.figure(HalfCloseCpu, Protocol::Http) {
                Some(figure) if figure.value().is_some() => format!(
                    "{}{}",
                    figure_cell(row, HalfCloseCpu, Protocol::Http),
                    if spins(figure, settings.hold_ms as f64) {
                        " (spins)"
                    } else {
                        ""
                    }
                ),
                _ => figure_cell(row, HalfCloseCpu, Protocol::Http),
            };
            vec![
                row.label(),
                figure_cell(row, ConcurrentWall, Protocol::Http),
                figure_cell(row, ConcurrentSlowest, Protocol::Http),
                figure_cell(row, ConcurrentCpu, Protocol::Http),
                figure_cell(row, ConcurrentWall, Protocol::H2),
                figure_cell(row, ConcurrentSlowest, Protocol::H2),
                figure_cell(row, ConcurrentCpu, Protocol::H2),
                half_close,
                optional(row.build.as_ref(), |build| {
                    format!("{:.0} s", build.build_wall_s)
                }),
                optional(row.build.as_ref(), |build| {
                    format_bytes(build.binary_bytes as f64)
                }),
                optional(row.build.as_ref(), |build| build.crates.to_string()),
            ]
        })
        .collect();
    Table {
        title: format!(
            "releases: {} calls at once of {} (all done, the slowest, the process's CPU), a \
             body held {} ms against a half-closing peer (CPU), and the clean build",
            settings.concurrency,
            format_bytes(settings.large_bytes as f64),
            settings.hold_ms
        ),
        columns: vec![
            ("Release", Left),
            ("All done http", Right),
            ("Slowest", Right),
            ("CPU", Right),
            ("All done h2", Right),
            ("Slowest", Right),
            ("CPU", Right),
            ("Half-close CPU", Right),
            ("Build", Right),
            ("Binary", Right),
            ("Crates", Right),
        ],
        rows,
    }
}

fn stack_table(releases: &ReleasesResults) -> Table {
    use Align::Left;
    let resolved = |row: &ReleaseRow, names: &[&str]| {
        names
            .iter()
            .filter_map(|name| Some(format!("{name} {}", row.resolved(name)?)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let rows = releases
        .rows
        .iter()
        .map(|row| {
            vec![
                row.label(),
                row.api.clone(),
                row.tls.clone(),
                or_dash(resolved(
                    row,
                    &["hyper", "hyper-util", "h2", "http", "tokio"],
                )),
                or_dash(resolved(
                    row,
                    &[
                        "rustls",
                        "aws-lc-rs",
                        "ring",
                        "native-tls",
                        "openssl-sys",
                        "curl",
                        "curl-sys",
                    ],
                )),
                row.why.clone().unwrap_or_default(),
            ]
        })
        .collect();
    Table {
        title: "releases: what each release is, and what it resolved to underneath".to_owned(),
        columns: vec![
            ("Release", Left),
            ("Calls through", Left),
            ("TLS", Left),
            ("HTTP stack", Left),
            ("TLS stack", Left),
            ("Why it is here", Left),
        ],
        rows,
    }
}

fn or_dash(text: String) -> String {
    if text.is_empty() {
        "-".to_owned()
    } else {
        text
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or(text)
}

/// Why a release has no figures, or some of its figures none (each reason once per release
/// and protocol, with the figures it took), and what the half-closing peer's call ended with.
fn notes(releases: &ReleasesResults) -> Vec<String> {
    let mut notes = Vec::new();
    for row in &releases.rows {
        if let Some(why) = &row.failed {
            notes.push(format!(
                "{}: {}",
                row.label(),
                reasons::release_failure(why)
            ));
            continue;
        }
        let mut said: Vec<(Protocol, String, Vec<&str>)> = Vec::new();
        for figure in &row.figures {
            let Some(why) = &figure.not_measured else {
                continue;
            };
            let why = reasons::figure_not_measured(why, figure.protocol);
            match said
                .iter_mut()
                .find(|(protocol, reason, _)| *protocol == figure.protocol && *reason == why)
            {
                Some((_, _, names)) => names.push(figure.measure.name()),
                None => said.push((figure.protocol, why, vec![figure.measure.name()])),
            }
        }
        for (protocol, why, names) in said {
            notes.push(format!(
                "{} over {protocol}: no figure of {}: {why}",
                row.label(),
                names.join(", ")
            ));
        }
        if let Some(figure) = row.figure(ReleaseMeasure::HalfCloseCpu, Protocol::Http)
            && let Some(outcome) = &figure.outcome
        {
            notes.push(format!("{}: half-closing peer: {outcome}", row.label()));
        }
    }
    notes
}

const HOW: &str = "\
Each release is pinned exactly (`=X`) with its library's default features, as users adopt it
(a feature is added only where the probe cannot work without it: reqwest's `stream` for the
held-open body; awc's `openssl`, since awc's default has no TLS), in a project of its own with
no lock file of anyone else's: what it resolves to underneath today (hyper, h2, rustls, the
crypto provider, libcurl) is in the last table, and is part of what it measures. The probe
(`bench/probes/releases/`) is one harness and one source per major API; every answer is
checked (status 200, the rates or the whole large body, the HTTP version the protocol asks
for), and a figure with a failed round is no figure. Over h2 the mock offers h2 and http/1.1:
a release that answers over HTTP/1.1 there does not negotiate HTTP/2 with its defaults.
Allocations are the Rust heap's (libcurl's malloc is not counted). Instructions per call are
the difference of callgrind's counts of runs with more and fewer calls, divided by the calls
between them. Half-close: the peer reads the request head and sends its FIN without
answering while the client still holds its body open; a client that takes more than half of
the hold in CPU spins (hyper#4085). The judging: each older release against its library's
newest, with the rule the verdict applies to figures of the kind; 'a tie' says what margin
the rule could have called.";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::releases::changes;
    use bench_model::{ReleaseBuild, ReleaseFigure};

    fn results() -> Results {
        let mut settings = bench_model::test_rows::quick_settings();
        settings.suites = vec![SuiteName::Releases];
        let mut results = Results::new(
            bench_model::test_rows::environment("2026-12-06T05:00:00Z"),
            settings,
        );
        let row = |release: &str, latency: f64, failed: Option<&str>| ReleaseRow {
            library: "ureq".to_owned(),
            release: release.to_owned(),
            api: "ureq Agent".to_owned(),
            tls: "rustls (ring)".to_owned(),
            why: None,
            stack: Vec::new(),
            build: failed.is_none().then_some(ReleaseBuild {
                build_wall_s: 20.0,
                build_cpu_s: 35.0,
                binary_bytes: 2_000_000,
                crates: 40,
            }),
            failed: failed.map(|error| ReleaseFailure::Build {
                error: error.to_owned(),
            }),
            figures: vec![
                ReleaseFigure {
                    measure: ReleaseMeasure::Latency,
                    protocol: Protocol::Http,
                    rounds: vec![latency, latency + 1.0],
                    version: Some("HTTP/1.1".to_owned()),
                    outcome: None,
                    not_measured: None,
                },
                ReleaseFigure {
                    measure: ReleaseMeasure::Latency,
                    protocol: Protocol::H2,
                    rounds: Vec::new(),
                    version: None,
                    outcome: None,
                    not_measured: Some(FigureNotMeasured::WrongVersion {
                        version: "HTTP/1.1".to_owned(),
                    }),
                },
            ],
        };
        results.releases = ReleasesResults {
            settings: Some(ReleasesSettings {
                rounds: 2,
                calls: 50,
                warmup: 10,
                fresh_calls: 10,
                concurrency: 100,
                large_bytes: 1 << 20,
                hold_ms: 1_000,
                instruction_calls: vec![20, 60, 100],
                cargo: "cargo 1.95.0".to_owned(),
                jobs: 2,
                cpu: Some(1),
            }),
            rows: vec![
                row("2.9.7", 0.0, Some("error[E0599]")),
                row("2.12.1", 80.0, None),
                row("3.5.2", 50.0, None),
            ],
            skipped: None,
        };
        results
    }

    #[test]
    fn the_section_says_what_upgrading_changed_and_why_a_release_has_no_figures() {
        let results = results();
        let section = section(&results, &changes(&results.releases), &[]);
        let text = section.markdown();
        assert!(
            text.contains("| ureq 2.12.1 | 3.5.2 | per-call latency, http: -37% faster"),
            "{text}"
        );
        assert!(
            text.contains("ureq 2.9.7: does not build: error[E0599]"),
            "{text}"
        );
        assert!(text.contains("HTTP/1.1 only"), "{text}");
        // The terminal has the upgrades, not the detail tables.
        let terminal = section.terminal();
        assert!(terminal.contains("what upgrading to the newest release changed"));
        assert!(!terminal.contains("what it resolved to underneath"));
    }

    #[test]
    fn a_run_without_the_suite_says_how_to_run_it() {
        let mut results = results();
        results
            .settings
            .edit(|settings| settings.suites = vec![SuiteName::Latency]);
        let section = section(&results, &changes(&results.releases), &[]);
        assert!(section.terminal().contains("releases: not run"));
        assert!(section.terminal().contains("--suite releases"));
    }
}
