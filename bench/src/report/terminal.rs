//! The terminal: the header before the run, the tables after it.

use std::fmt::Write as _;

use crate::cli::RunSettings;
use crate::env::Environment;
use crate::report::json::Results;
use crate::report::{baseline_table, decode_tables, latency_table, markdown, settings_lines};

/// The header: environment and settings, one fact per line.
pub fn header(environment: &Environment, settings: &RunSettings) -> String {
    let mut out = String::new();
    for line in environment
        .header_lines()
        .into_iter()
        .chain(settings_lines(settings))
    {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The tables, each under its title, and the notes a reader needs to trust them.
pub fn tables(results: &Results) -> String {
    let mut out = String::new();
    if !results.latency.is_empty() {
        let table = latency_table(&results.latency);
        let _ = write!(out, "\n{}\n\n{}", table.title, table.render());
        out.push_str(
            "Allocations: Rust heap only, all threads; libcurl's own malloc (isahc) is not counted.\n",
        );
        for row in &results.latency {
            if let Some(error) = &row.first_error {
                let _ = writeln!(
                    out,
                    "{}: {} of {} calls failed; first: {error}",
                    row.client, row.failures, row.calls
                );
            }
        }
    }
    for table in decode_tables(&results.decode) {
        let _ = write!(out, "\n{}\n\n{}", table.title, table.render());
    }
    if !results.decode.is_empty() {
        for line in markdown::decode_verdicts(&results.decode) {
            let _ = writeln!(out, "{line}");
        }
    }
    out.push_str(&crate::report::load::terminal_section(results));
    out.push_str(&crate::report::fanout::terminal_section(results));
    out.push_str(&crate::report::faults::terminal_section(results));
    if let Some(comparison) = &results.baseline {
        let table = baseline_table(comparison);
        let _ = write!(out, "\n{}\n\n{}", table.title, table.render());
    }
    out
}
