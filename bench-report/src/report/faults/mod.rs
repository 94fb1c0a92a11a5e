//! The faults suite's part of the report: the matrix (rows = fault, columns = clients), the
//! file-descriptor check, and the notes that say what stands out.

use std::collections::HashMap;
use std::fmt::Write as _;

use application::RatesErrorKind;

use crate::report::format::format_ms;
use crate::report::section::{Mark, Part, Section};
use crate::report::table::{Align, Table};
use bench_model::{
    ClientName, FaultCase, FaultRow, FdCheck, PaymentOutcome, REUSE_PAYMENTS, Results, SuiteName,
};

/// The section, when the suite ran.
pub fn section(results: &Results) -> Option<Section> {
    if results.faults.is_empty() {
        return None;
    }
    let mut section = Section::suite(SuiteName::Faults)
        .with(Part::Marked(
            matrix_table(&results.faults),
            matrix_marks(&results.faults),
        ))
        .with(Part::Text(LEGEND.to_owned()));
    if let Some(check) = &results.fd_check {
        section = section
            .with(Part::Table(fd_table(check)))
            .with(Part::Prose(format!(
                "Counted in `/proc/<pid>/fd` of the suite's api child: before the matrix; right \
                 after the storm (payments from every client at once, the faults in turn, the \
                 clean round last so that the pools end up full); after idling until the count \
                 is back to where it started or the api's idle timeout + 1.5 s has passed \
                 (mock-rates closes idle connections after 5 s); and after {REUSE_PAYMENTS} \
                 clean payments per client, one client after another. CLOSE_WAIT counts the \
                 api's TCP sockets whose peer has closed and the api has not: a pool's dead idle \
                 connections. The bench's own connections to the api close after each payment, \
                 so they do not count."
            )));
    }
    Some(section.with_notes(notes(&results.faults, results.fd_check.as_ref())))
}

/// Suffix of a cell whose kind is not the expected one or not the other clients' one.
const ODD: &str = " !";

/// The clients of the matrix, in the order their rows came.
fn clients(rows: &[FaultRow]) -> Vec<ClientName> {
    let mut clients = Vec::new();
    for row in rows {
        if !clients.contains(&row.client) {
            clients.push(row.client);
        }
    }
    clients
}

/// The faults of the matrix, in the order their rows came.
fn faults(rows: &[FaultRow]) -> Vec<FaultCase> {
    let mut faults = Vec::new();
    for row in rows {
        if !faults.contains(&row.fault) {
            faults.push(row.fault);
        }
    }
    faults
}

/// The kind most clients got for one fault (ties go to the expected kind, then to the first).
fn usual_kind<'a>(cells: &[&'a FaultRow]) -> Option<&'a PaymentOutcome> {
    let mut counts: HashMap<&PaymentOutcome, usize> = HashMap::new();
    for cell in cells {
        *counts.entry(&cell.kind).or_default() += 1;
    }
    let most = counts.values().copied().max()?;
    let expected = cells.first().map(|cell| &cell.expected_kind);
    if expected.is_some_and(|expected| counts.get(expected) == Some(&most)) {
        return expected;
    }
    cells
        .iter()
        .map(|cell| &cell.kind)
        .find(|kind| counts.get(kind) == Some(&most))
}

/// Whether a cell stands out: hung, a kind other than expected, or other than the usual one.
fn is_odd(cell: &FaultRow, usual: Option<&PaymentOutcome>) -> bool {
    cell.hung || cell.kind != cell.expected_kind || usual.is_some_and(|usual| cell.kind != *usual)
}

fn cell_text(cell: &FaultRow, usual: Option<&PaymentOutcome>) -> String {
    let mut text = if cell.hung {
        format!("HUNG > {}", format_ms(Some(cell.elapsed_ms)))
    } else {
        format!(
            "{} {} {}",
            cell.status
                .map_or_else(|| "-".to_owned(), |status| status.to_string()),
            cell.kind,
            format_ms(Some(cell.elapsed_ms))
        )
    };
    if !cell.hung && is_odd(cell, usual) {
        text.push_str(ODD);
    }
    if !cell.next_ok {
        text.push_str(" (next failed)");
    }
    text
}

/// The service's timeouts in the rows, e.g. "2000 ms".
fn timeouts(rows: &[FaultRow]) -> String {
    let mut timeouts: Vec<u64> = rows.iter().map(|row| row.timeout_ms).collect();
    timeouts.sort_unstable();
    timeouts.dedup();
    let timeouts: Vec<String> = timeouts.iter().map(|ms| format!("{ms} ms")).collect();
    timeouts.join(", ")
}

fn matrix_table(rows: &[FaultRow]) -> Table {
    let clients = clients(rows);
    let mut columns = vec![("Fault", Align::Left), ("Expected", Align::Left)];
    columns.extend(clients.iter().map(|client| (client.as_str(), Align::Left)));
    Table {
        title: format!(
            "faults: one payment per client under each fault, through POST /payments/{{client}} \
             (upstream timeout {}); cell = status, kind, time to answer",
            timeouts(rows)
        ),
        columns,
        rows: faults(rows)
            .into_iter()
            .map(|fault| {
                let cells: Vec<&FaultRow> = rows.iter().filter(|row| row.fault == fault).collect();
                let usual = usual_kind(&cells);
                let expected = cells.first().map_or_else(String::new, |cell| {
                    format!("{} {}", cell.expected_status, cell.expected_kind)
                });
                let mut line = vec![fault.description().to_owned(), expected];
                line.extend(clients.iter().map(|client| {
                    cells
                        .iter()
                        .find(|cell| cell.client == *client)
                        .map_or_else(|| "-".to_owned(), |cell| cell_text(cell, usual))
                }));
                line
            })
            .collect(),
    }
}

/// How each cell of [`matrix_table`] turned out: a hung payment or a failed next payment is
/// doubtful, a kind or status other than the expected one unexpected.
fn matrix_marks(rows: &[FaultRow]) -> Vec<Vec<Mark>> {
    let clients = clients(rows);
    faults(rows)
        .into_iter()
        .map(|fault| {
            let mut marks = vec![Mark::Plain, Mark::Plain];
            marks.extend(clients.iter().map(|client| {
                rows.iter()
                    .find(|row| row.fault == fault && row.client == *client)
                    .map_or(Mark::Plain, mark)
            }));
            marks
        })
        .collect()
}

fn mark(cell: &FaultRow) -> Mark {
    if cell.hung {
        Mark::Doubtful
    } else if cell.kind != cell.expected_kind || cell.status != Some(cell.expected_status) {
        Mark::Unexpected
    } else if !cell.next_ok {
        Mark::Doubtful
    } else {
        Mark::Expected
    }
}

fn count(value: Option<u64>) -> String {
    value.map_or_else(|| "NA".to_owned(), |value| value.to_string())
}

fn fd_table(check: &FdCheck) -> Table {
    use Align::{Left, Right};
    let difference = |open: Option<u64>| match (check.before, open) {
        (Some(before), Some(open)) => format!("{:+}", open.cast_signed() - before.cast_signed()),
        _ => "NA".to_owned(),
    };
    let reading = |when: String, open: Option<u64>, close_wait: Option<u64>| {
        let close_wait = if open.is_some() && close_wait.is_none() {
            "-".to_owned()
        } else {
            count(close_wait)
        };
        vec![when, count(open), difference(open), close_wait]
    };
    Table {
        title: "faults: the api's open file descriptors around the fault storm".to_owned(),
        columns: vec![
            ("When", Left),
            ("Descriptors", Right),
            ("vs before", Right),
            ("CLOSE_WAIT", Right),
        ],
        rows: vec![
            reading("before the matrix".to_owned(), check.before, None),
            reading(
                format!("after the storm ({} payments)", check.storm_requests),
                check.after_storm,
                None,
            ),
            reading(
                format!("after {:.1} s idle", check.idle_ms as f64 / 1_000.0),
                check.after_idle,
                check.close_wait_after_idle,
            ),
            reading(
                "after clean payments".to_owned(),
                check.after_reuse,
                check.close_wait_after_reuse,
            ),
        ],
    }
}

const LEGEND: &str = "A cell is the api's status, the error kind its problem `type` stands for \
     (`ok` for a converted payment) and the time from sending the payment to the end of the \
     answer. `!` marks a kind other than the expected one or than most clients' for that fault; \
     HUNG, no answer within the timeout + 5 s (the bench's bound); (next failed), the clean \
     payment right after the fault was removed failed. The clients of one fault run at the same \
     time, one payment each.";

/// What stands out: how late timeouts fired, odd cells, failed recoveries, the fd verdict.
fn notes(rows: &[FaultRow], check: Option<&FdCheck>) -> Vec<String> {
    let mut notes = Vec::new();
    let mut fired = Vec::new();
    for client in clients(rows) {
        let elapsed: Vec<(f64, u64)> = rows
            .iter()
            .filter(|row| {
                row.client == client
                    && row.kind == PaymentOutcome::Failed(RatesErrorKind::Timeout)
                    && row.kind == row.expected_kind
            })
            .map(|row| (row.elapsed_ms, row.timeout_ms))
            .collect();
        let late = |(elapsed, timeout): &(f64, u64)| elapsed - *timeout as f64;
        let fastest = elapsed.iter().map(late).fold(f64::INFINITY, f64::min);
        let slowest = elapsed.iter().map(late).fold(f64::NEG_INFINITY, f64::max);
        if fastest.is_finite() && slowest.is_finite() {
            fired.push(format!("{client} {fastest:+.0}..{slowest:+.0} ms"));
        }
    }
    if !fired.is_empty() {
        notes.push(format!(
            "Time to fail on timeouts, against the {} timeout: {}.",
            timeouts(rows),
            fired.join(", ")
        ));
    }
    for fault in faults(rows) {
        let cells: Vec<&FaultRow> = rows.iter().filter(|row| row.fault == fault).collect();
        let usual = usual_kind(&cells);
        for cell in cells.iter().filter(|cell| is_odd(cell, usual)) {
            notes.push(format!(
                "{} under `{fault}`: {} (expected {} {}).",
                cell.client,
                if cell.hung {
                    "no answer (hung)".to_owned()
                } else {
                    format!("{} {}", cell.status.map_or(0, |status| status), cell.kind)
                },
                cell.expected_status,
                cell.expected_kind
            ));
        }
        for cell in cells.iter().filter(|cell| !cell.next_ok) {
            notes.push(format!(
                "{}: the clean payment after `{fault}` failed.",
                cell.client
            ));
        }
    }
    if rows
        .iter()
        .all(|row| !row.hung && row.next_ok && row.kind == row.expected_kind)
        && !rows.is_empty()
    {
        notes.push(
            "Every cell has its expected kind and status, none hung, and every client's next \
             payment succeeded."
                .to_owned(),
        );
    }
    if rows
        .iter()
        .any(|row| row.kind == PaymentOutcome::Ok && row.expected_kind != PaymentOutcome::Ok)
    {
        notes.push("A fault that the api answered with a payment was not noticed.".to_owned());
    }
    if let Some(check) = check {
        notes.push(fd_verdict(check));
    }
    notes
}

fn fd_verdict(check: &FdCheck) -> String {
    let mut verdict = format!(
        "The storm sent {} payments ({} with another outcome than their fault's, {} hung). ",
        check.storm_requests, check.storm_unexpected, check.storm_hung
    );
    let (Some(before), Some(after_idle), Some(after_reuse), Some(close_wait)) = (
        check.before,
        check.after_idle,
        check.after_reuse,
        check.close_wait_after_reuse,
    ) else {
        verdict.push_str(
            "The api is not the bench's child process, so its file descriptors were not counted.",
        );
        return verdict;
    };
    let idle = format!("{:.1} s", check.idle_ms as f64 / 1_000.0);
    let stale: Vec<String> = check
        .stale_by_client
        .iter()
        .filter(|client| client.dropped > 0)
        .map(|client| format!("{} {}", client.client, client.dropped))
        .collect();
    let reuse_ok = check.reuse_failures == 0;
    // Each clean payment may leave one live connection in a pool.
    let live_bound = u64::from(REUSE_PAYMENTS) * check.stale_by_client.len() as u64;
    if after_idle <= before {
        let _ = write!(
            verdict,
            "After {idle} idle the api was back to {after_idle} descriptors ({before} before the \
             matrix): no descriptor or connection leaked."
        );
    } else if close_wait == 0 && after_reuse <= before + live_bound && reuse_ok {
        let _ = write!(
            verdict,
            "After {idle} idle the api held {after_idle} descriptors, {:+} against before the \
             matrix, with {} sockets in CLOSE_WAIT: idle pooled connections the upstream had \
             closed and the client had not, since its pool only looks at them when it next needs \
             a connection{}. The next clean payments dropped them all ({after_reuse} \
             descriptors, {:+} against before: the live connections they left pooled): no leak, \
             but these clients keep dead sockets while idle, up to their pool size.",
            after_idle.cast_signed() - before.cast_signed(),
            check.close_wait_after_idle.unwrap_or(0),
            if stale.is_empty() {
                String::new()
            } else {
                format!(" (cleared by: {})", stale.join(", "))
            },
            after_reuse.cast_signed() - before.cast_signed()
        );
    } else {
        let _ = write!(
            verdict,
            "After {idle} idle the api held {after_idle} descriptors and after clean payments \
             {after_reuse} ({close_wait} in CLOSE_WAIT, {} payments failed), against {before} \
             before the matrix: descriptors or connections may be leaking.",
            check.reuse_failures
        );
    }
    verdict
}

#[cfg(test)]
mod tests;
