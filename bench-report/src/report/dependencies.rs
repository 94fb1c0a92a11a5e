//! The dependencies suite's section: the crates each client's probe tree holds, read with
//! `cargo metadata`, against the probe with no HTTP client.

use crate::report::reasons;
use crate::report::section::{Part, Section};
use crate::report::table::{Align, Table};
use bench_model::{DependenciesResults, Results, SuiteName};

/// The section, when the suite ran: the table when a tree was read, why not for what was not.
pub fn section(results: &Results) -> Option<Section> {
    if !results.settings.suites.contains(&SuiteName::Dependencies) {
        return None;
    }
    let dependencies = &results.dependencies;
    let mut section = Section::suite(SuiteName::Dependencies);
    if dependencies.rows.is_empty() {
        let why = if dependencies.skipped.is_empty() {
            "no client was read".to_owned()
        } else {
            let skipped: Vec<String> = dependencies
                .skipped
                .iter()
                .map(reasons::dependencies_skipped)
                .collect();
            skipped.join("; ")
        };
        return Some(section.with(Part::Text(format!("dependencies: skipped: {why}"))));
    }
    section = section.with(Part::Table(table(dependencies)));
    Some(
        section
            .with_notes(
                dependencies
                    .skipped
                    .iter()
                    .map(|why| format!("not read: {}", reasons::dependencies_skipped(why)))
                    .collect(),
            )
            .with(Part::Prose(HOW.to_owned())),
    )
}

fn table(dependencies: &DependenciesResults) -> Table {
    use Align::{Left, Right};
    let mut rows: Vec<Vec<String>> = dependencies
        .base_crates
        .iter()
        .map(|base| vec!["(no client)".to_owned(), base.to_string(), "-".to_owned()])
        .collect();
    let mut mine: Vec<_> = dependencies.rows.iter().collect();
    mine.sort_by_key(|row| (row.crates, row.client.as_str()));
    rows.extend(mine.into_iter().map(|row| {
        vec![
            row.client.to_string(),
            row.crates.to_string(),
            format!("{:+}", row.added_crates),
        ]
    }));
    Table {
        title: "dependencies: the crates in each client's probe tree (cargo metadata, nothing \
                built), fewest first"
            .to_owned(),
        columns: vec![("Client", Left), ("Crates", Right), ("Added", Right)],
        rows,
    }
}

const HOW: &str = "Each probe is the smallest program that makes one call with the client and \
    TLS backend as the adoption suite builds it (the same manifests). Its tree is resolved with \
    `cargo metadata` against the workspace's Cargo.lock, for the host, and counted: every crate \
    a build would compile, build dependencies and proc macros included, the probe itself not \
    counted. **Added** is the count over the probe with no HTTP client. Nothing is built, so \
    this takes seconds; the adoption suite builds the same probes for build time and binary \
    size.";

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::{ClientName, DependencyRow};

    fn results(dependencies: DependenciesResults) -> Results {
        let mut results = crate::report::fanout::test_rows::results("360");
        results
            .settings
            .edit(|settings| settings.suites = vec![SuiteName::Dependencies]);
        results.dependencies = dependencies;
        results
    }

    #[test]
    fn the_table_lists_the_base_then_the_clients_fewest_crates_first() {
        let section = section(&results(DependenciesResults {
            base_crates: Some(40),
            rows: vec![
                DependencyRow {
                    client: ClientName::Reqwest,
                    crates: 140,
                    added_crates: 100,
                },
                DependencyRow {
                    client: ClientName::Ureq,
                    crates: 65,
                    added_crates: 25,
                },
            ],
            skipped: vec![bench_model::DependenciesSkipped::Client {
                client: bench_model::ClientName::Isahc,
                error: "cargo metadata failed".to_owned(),
            }],
        }))
        .expect("the suite ran");
        assert_eq!(section.suite, Some(SuiteName::Dependencies));
        let Part::Table(table) = &section.parts[0] else {
            panic!("{:?}", section.parts[0]);
        };
        let firsts: Vec<&str> = table.rows.iter().map(|row| row[0].as_str()).collect();
        assert_eq!(firsts, ["(no client)", "ureq", "reqwest"]);
        assert_eq!(table.rows[1], ["ureq", "65", "+25"]);
        assert!(
            section
                .terminal()
                .contains("not read: isahc: cargo metadata failed")
        );
    }

    #[test]
    fn a_suite_that_read_nothing_says_why_and_one_not_run_has_no_section() {
        let skipped = section(&results(DependenciesResults {
            skipped: vec![bench_model::DependenciesSkipped::Toolchain {
                toolchain: bench_model::Toolchain::CargoNotRun {
                    error: "not found".to_owned(),
                },
            }],
            ..DependenciesResults::default()
        }))
        .expect("the suite ran");
        assert!(
            skipped
                .terminal()
                .contains("dependencies: skipped: cargo cannot be run (not found)")
        );
        let mut not_run = results(DependenciesResults::default());
        not_run
            .settings
            .edit(|settings| settings.suites = vec![SuiteName::Latency]);
        assert_eq!(section(&not_run), None);
    }
}
