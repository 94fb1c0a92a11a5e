//! The fanout suite's section: a table per mode laid out like the reference's (rows = group
//! size, columns = clients), the notes that explain it, and the detail behind the charts.

use std::fmt::Write as _;

use crate::report::format::unable_note;
use crate::report::section::{Part, Section};
use bench_model::{Protocol, Results, SuiteName};

mod cells;
mod notes;
mod tables;

use cells::{REFERENCE_360MS, shows_reference};
use notes::notes;
use tables::{detail_table, tables};

/// The section, when the suite ran; `charts` are the SVG files written beside report.md.
pub fn section(results: &Results, charts: &[String]) -> Option<Section> {
    if results.fanout.is_empty() {
        return None;
    }
    let settings = &results.settings.fanout;
    let mut section = Section::suite(SuiteName::Fanout).with(Part::Prose(format!(
        "Groups of independent payments (1 EUR -> JPY each, one upstream call each) sent to \
         `POST /payments/{{client}}/batch`, run one after another (`sequential`) or all at once \
         (`concurrent`), against mock-rates with {} ms added to every upstream call{}. Like the \
         reference (Spring + Feign against a ~360 ms API: sequential, `@Async`, `AsyncFeign`), \
         rows are group sizes; columns here are the clients. **Ideal** is N upstream latencies \
         in sequence and one overlapped (with jitter: N mean draws, or the expected slowest of \
         N); **efficiency** = ideal / wall, so 1.00 is perfect overlap and its inverse is the \
         wall time in ideals.",
        settings.upstream_latency_ms,
        if settings.upstream_jitter_ms > 0 {
            format!(" plus 0..={} ms of jitter", settings.upstream_jitter_ms)
        } else {
            String::new()
        }
    )));
    for table in tables(results) {
        section = section.with(Part::Table(table));
    }
    let h2_tables = h2::tables(results);
    if !h2_tables.is_empty() {
        section = section.with(Part::Prose(H2.to_owned()));
    }
    for table in h2_tables {
        section = section.with(Part::Table(table));
    }
    if shows_reference(settings) {
        section = section.with(Part::Prose(reference_note()));
    }
    Some(
        section
            .with_notes(
                notes(results)
                    .into_iter()
                    .chain(unable_note(
                        &results.settings,
                        SuiteName::Fanout,
                        Protocol::H2,
                    ))
                    .collect(),
            )
            .with(Part::Prose(HOW_MEASURED.to_owned()))
            .with(Part::DetailTable(detail_table(&results.fanout)))
            .with_charts(charts, "fanout"),
    )
}

/// What the reference's figures are, and why its sequential column is lower than ours.
fn reference_note() -> String {
    let mut note = "The `ref:` columns are the reference's figures (a public API measured with \
        Postman over the internet; Java thread pools): context, not a like-for-like run."
        .to_owned();
    let per_call = |(size, sequential, _, _): (u32, u32, u32, u32)| sequential / size;
    if let (Some(&first), Some(&last)) = (REFERENCE_360MS.first(), REFERENCE_360MS.last()) {
        let _ = write!(
            note,
            " Its sequential column implies {} ms per request at {} and {} ms at {}, so its API \
             did not answer in a steady 360 ms; here every call gets the same added latency.",
            per_call(first),
            first.0,
            per_call(last),
            last.0
        );
    }
    note
}

const H2: &str = "Over `h2` the service's clients are built with `rates.http_version = \"2\"` \
    and call the same mock-rates over HTTP/2 (its CA trusted as over https). mock-rates counts \
    what the clients did with each batch: **busy connections** is the most HTTP/2 connections \
    with a stream open at once, and **streams on one** the most streams open at once on one \
    connection, both reset before every batch and the most of any batch kept. A client that \
    multiplexes sends a whole group on one connection. The second table sends the same groups \
    through a mock-rates whose connections allow only so many streams at once \
    (`SETTINGS_MAX_CONCURRENT_STREAMS`, `--h2-stream-limit`), to a service of its own, and reads \
    from the figures what each client does past the limit: queue on the one connection (one \
    round of upstream latency per limit's worth of calls), open more connections, or fail.";

const HOW_MEASURED: &str = "Each client runs as one block: an un-timed warm-up group \
    (concurrent, the largest size), its concurrent groups, then its sequential ones. Over \
    `https` the service calls a mock-rates of its own serving TLS, whose CA it is given with \
    `rates.ca_file`, and only concurrent groups are sent: a sequential group takes N pooled \
    calls' upstream latencies whatever the protocol, while a concurrent one opens up to N \
    connections, each with its handshake; the Protocol column of the detail gives the TLS \
    mock-rates counted for the client from its warm-up on. Every batch \
    is awaited and checked: status 200, the right client and mode, every payment converted; a \
    batch with a failed payment is counted in Failures and not timed. **Wall (api)** is the \
    api's `wall_time_ms` (first upstream call started to last finished); **Request (bench)** is \
    the bench's time around the whole HTTP exchange. **Upstream calls** and **Connections** are \
    what mock-rates counted during a row's batches: one call per payment, and the TCP \
    connections the api's pool opened.";

mod h2;

/// Fanout results for tests.
#[cfg(test)]
pub mod test_rows;

#[cfg(test)]
mod tests;
