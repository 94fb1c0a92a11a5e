//! The adoption suite's section: the decision table of what taking on each client costs.

use crate::report::format::format_bytes;
use crate::report::not_run;
use crate::report::section::{Part, Section};
use crate::report::table::{Align, Table};
use bench_model::{AdoptionResults, AdoptionRow, HOW_TO_RUN_ADOPTION, Results, SuiteName};

/// The section: the two tables when the suite ran, why not when it was skipped, and how to
/// run it when the run left it out.
pub fn section(results: &Results) -> Section {
    let stored = results.adoption.stored_from.as_ref();
    let not_run: Vec<String> = not_run::suite_not_run(results, SuiteName::Adoption)
        .into_iter()
        .chain(
            not_run::parts_not_run(results, SuiteName::Adoption)
                .into_iter()
                .map(|(_, why)| why),
        )
        .collect();
    if !results.settings.suites.contains(&SuiteName::Adoption) && stored.is_none() {
        let text = std::iter::once(format!(
            "adoption: not run (minutes of clean builds): {HOW_TO_RUN_ADOPTION}"
        ))
        .chain(not_run.iter().cloned())
        .collect::<Vec<_>>()
        .join("; ");
        return Section::suite(SuiteName::Adoption).with(Part::Text(text));
    }
    if results.adoption.rows.is_empty() {
        let why = if not_run.is_empty() {
            "no client was measured".to_owned()
        } else {
            not_run.join("; ")
        };
        return Section::suite(SuiteName::Adoption)
            .with(Part::Text(format!("adoption: skipped: {why}")));
    }
    let adoption = &results.adoption;
    let section = match stored {
        Some(from) => Section::suite(SuiteName::Adoption).with(Part::Text(format!(
            "adoption: not built in this run: the figures below are those the run of {} ({}) \
             measured and stored on this machine, used because nothing they depend on has \
             changed since (the lock file, the toolchain, the probes' sources, the machine)",
            from.measured_utc, from.run
        ))),
        None => Section::suite(SuiteName::Adoption),
    };
    section
        .with(Part::Table(build_table(adoption)))
        .with(Part::Table(library_table(&adoption.rows)))
        .with_notes(notes(adoption, &not_run))
        .with(Part::Prose(NOTE.to_owned()))
}

fn build_table(adoption: &AdoptionResults) -> Table {
    use Align::{Left, Right};
    let how = adoption
        .settings
        .as_ref()
        .map_or_else(String::new, |settings| {
            format!(
                ", cargo build --release -j {} ({})",
                settings.jobs, settings.cargo
            )
        });
    let mut rows: Vec<Vec<String>> = adoption
        .base
        .iter()
        .map(|base| {
            vec![
                "(no client)".to_owned(),
                "-".to_owned(),
                format!("{:.1} s", base.build_wall_s),
                format!("{:.1} s", base.build_cpu_s),
                format_bytes(base.binary_bytes as f64),
                "-".to_owned(),
                peak(base.peak_rss_kib),
                base.crates.to_string(),
                "-".to_owned(),
                "-".to_owned(),
                "-".to_owned(),
            ]
        })
        .collect();
    rows.extend(adoption.rows.iter().map(|row| {
        vec![
            row.client.to_string(),
            row.tls.clone(),
            format!("{:.1} s", row.build.build_wall_s),
            format!("{:.1} s", row.build.build_cpu_s),
            format_bytes(row.build.binary_bytes as f64),
            row.added_bytes.map_or_else(
                || "NA".to_owned(),
                |added| format!("+{}", format_bytes(added as f64)),
            ),
            peak(row.build.peak_rss_kib),
            row.build.crates.to_string(),
            row.added_crates
                .map_or_else(|| "NA".to_owned(), |added| format!("{added:+}")),
            native(row),
            list(&row.system_libraries),
        ]
    }));
    Table {
        title: format!(
            "adoption: a probe (one GET and the decode) built alone in a clean target \
             directory, release, stripped{how}"
        ),
        columns: vec![
            ("Client", Left),
            ("TLS", Left),
            ("Build", Right),
            ("Build CPU", Right),
            ("Binary", Right),
            ("Added", Right),
            ("Peak memory", Right),
            ("Crates", Right),
            ("Added crates", Right),
            ("Native build (C, cmake, pkg-config)", Left),
            ("Shared libraries", Left),
        ],
        rows,
    }
}

fn peak(kib: Option<u64>) -> String {
    kib.map_or_else(|| "NA".to_owned(), |kib| format_bytes(kib as f64 * 1024.0))
}

/// `C: ring, aws-lc-sys; cmake: aws-lc-sys; pkg-config: openssl-sys`, or `none`.
fn native(row: &AdoptionRow) -> String {
    let parts: Vec<String> = [
        ("C", &row.builds_c),
        ("cmake", &row.cmake),
        ("pkg-config", &row.pkg_config),
    ]
    .into_iter()
    .filter(|(_, crates)| !crates.is_empty())
    .map(|(what, crates)| format!("{what}: {}", crates.join(", ")))
    .collect();
    if parts.is_empty() {
        "none".to_owned()
    } else {
        parts.join("; ")
    }
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}

fn library_table(rows: &[AdoptionRow]) -> Table {
    use Align::{Left, Right};
    Table {
        title: "adoption: what the library declares and needs".to_owned(),
        columns: vec![
            ("Client", Left),
            ("Library", Left),
            ("MSRV", Left),
            ("Tree MSRV", Left),
            ("Default TLS", Left),
            ("HTTP/2", Left),
            ("Compression", Left),
            ("Runtime", Left),
            ("Calls", Left),
            ("Threads", Right),
            ("Adapter lines", Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                vec![
                    row.client.to_string(),
                    format!("{} {}", row.library, row.version),
                    row.msrv
                        .clone()
                        .unwrap_or_else(|| "none declared".to_owned()),
                    row.tree_msrv
                        .as_ref()
                        .map_or_else(|| "NA".to_owned(), |(msrv, by)| format!("{msrv} ({by})")),
                    row.default_tls.clone(),
                    if row.http2.is_empty() {
                        "no".to_owned()
                    } else {
                        row.http2.join(", ")
                    },
                    list(&row.compression),
                    row.runtime.clone(),
                    if row.blocking { "blocking" } else { "async" }.to_owned(),
                    row.build
                        .threads
                        .map_or_else(|| "NA".to_owned(), |threads| threads.to_string()),
                    row.adapter_lines
                        .map_or_else(|| "NA".to_owned(), |lines| lines.to_string()),
                ]
            })
            .collect(),
    }
}

fn notes(adoption: &AdoptionResults, failed: &[String]) -> Vec<String> {
    let mut notes: Vec<String> = failed
        .iter()
        .map(|failure| format!("Not measured: {failure}"))
        .collect();
    let shared: Vec<String> = adoption
        .rows
        .iter()
        .filter(|row| !row.client.is_library_default())
        .map(|row| format!("{} shares {}'s", row.client, row.client.library_default()))
        .collect();
    if !shared.is_empty() {
        notes.push(format!(
            "Adapter lines are per library: {} (one adapter, a TLS backend chosen at build).",
            shared.join(", ")
        ));
    }
    notes.push(
        "Every probe ran once against mock-rates and printed the rate it decoded; Threads is \
         its process's thread count as the call ended."
            .to_owned(),
    );
    notes
}

const NOTE: &str = "\
Each probe (`bench/probes/`) does what an adapter does and no more: one GET of
`/api/live?pairs=EURUSD` and the same typed decode, with the library's features and TLS
backend as its adapter here asks for them, versions from the workspace's `Cargo.lock`. It is
built alone, `--offline`, in an empty target directory (the crates' sources were already
fetched, so download time is not counted), stripped. **Build** is wall time and **Build CPU**
the CPU time of cargo and every compiler it ran: one build each, so a busy machine moves it.
**Added** and **Added crates** are over the probe with no HTTP client (the same decode of a
body from stdin). **Peak memory** is the probe process's peak resident memory (VmHWM) as its
one call ended: runtime, client, TLS set-up, call and decode, each client in a process of its
own. **Crates** are the packages resolved for this platform (normal and build
dependencies, proc macros included). **Native build** names the crates with a build dependency on `cc` (their
build scripts compile C), on `cmake`, or on `pkg-config` (they may look for a system library;
whether a build script uses each can depend on the platform); **Shared libraries** are the binary's ELF `NEEDED` entries beyond the C runtime's,
which must be installed wherever it runs. **MSRV** is the library's declared `rust-version`;
**Tree MSRV** the highest declared in its whole tree. **Default TLS**, **HTTP/2** and
**Compression** read the library's own feature table (`(default)`: on by default), or say
`built in` when the library has no feature for it and the crate that does it is in its tree
(awc always speaks HTTP/2; libcurl decodes gzip with libz-sys).
**Runtime** is the async runtime in the probe's tree; **Adapter lines** count this
repository's adapter, comments, blank lines and tests left out.";
