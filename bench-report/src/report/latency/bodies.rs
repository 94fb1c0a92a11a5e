//! The clients over http with larger answers: what a call costs as the answer grows.

use crate::report::format::{TimeFormat, format_bytes, format_count};
use crate::report::latency::table::rounds_cell;
use crate::report::table::{Align, Table};
use bench_model::{Decode, LatencyRow, Protocol};

/// Per answer size and client: the mean per call, its rounds, allocations and bytes
/// allocated per call, the peak heap of a call, and the mean against the same client's ordinary answer over http.
pub(super) fn bodies_table(ordinary: &[LatencyRow], bodies: &[LatencyRow]) -> Table {
    use Align::{Left, Right};
    let time =
        TimeFormat::for_means_ns(bodies.iter().map(|row| row.mean_us.map(|us| us * 1_000.0)));
    let mut sorted: Vec<&LatencyRow> = bodies.iter().collect();
    // Stable: within a size and decode, the suite's client order.
    sorted.sort_by_key(|row| (row.body_bytes, row.decode == Decode::Streamed));
    let whole_of = |row: &LatencyRow| {
        bodies.iter().find(|other| {
            other.client == row.client
                && other.body_bytes == row.body_bytes
                && other.decode == Decode::Whole
        })
    };
    Table {
        title: "latency over http: larger answers (the same pairs with a history of points)"
            .to_owned(),
        columns: vec![
            ("Client", Left),
            ("Answer", Right),
            ("Decode", Left),
            ("Mean", Right),
            ("Error", Right),
            ("Rounds", Right),
            ("Allocs/call", Right),
            ("Allocated/call", Right),
            ("Peak heap/call", Right),
            ("Against the ordinary answer", Right),
            ("Streamed against whole: time, peak", Right),
            ("Failures", Right),
        ],
        rows: sorted
            .into_iter()
            .map(|row| {
                let ordinary_mean = ordinary
                    .iter()
                    .find(|other| {
                        other.client == row.client
                            && other.protocol == Protocol::Http
                            && other.body_bytes.is_none()
                    })
                    .and_then(|other| other.mean_us);
                vec![
                    row.client.to_string(),
                    row.body_bytes
                        .map_or_else(|| "-".to_owned(), |bytes| format_bytes(bytes as f64)),
                    row.decode.as_str().to_owned(),
                    time.format_us(row.mean_us),
                    time.format_us(row.error_us),
                    rounds_cell(&time, &row.round_means_us),
                    format_count(row.allocs_per_op),
                    format_bytes(row.bytes_per_op),
                    row.peak_bytes
                        .map_or_else(|| "not measured".to_owned(), format_bytes),
                    match (row.mean_us, ordinary_mean) {
                        (Some(mean), Some(ordinary)) if ordinary > 0.0 => {
                            format!("{:.1}x", mean / ordinary)
                        }
                        _ => "-".to_owned(),
                    },
                    match whole_of(row).filter(|_| row.decode == Decode::Streamed) {
                        Some(whole) => format!(
                            "{}, {}",
                            ratio(row.mean_us, whole.mean_us),
                            ratio(row.peak_bytes, whole.peak_bytes)
                        ),
                        None => "-".to_owned(),
                    },
                    format!("{}/{}", row.failures, row.calls),
                ]
            })
            .collect(),
    }
}

/// `a / b` as `0.93x`, or `-` without both.
fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}x", a / b),
        _ => "-".to_owned(),
    }
}

/// How the larger answers are measured, for the prose under the table.
pub(super) const BODIES: &str = "**Larger answers**: each client is called over http for the same \
    two pairs, answered by mock-rates' `/size/N` with a history of points that brings the answer \
    to N bytes (the adapters decode it as the ordinary answer, reading the whole body first, under \
    a limit of twice its size). Same pinned CPU and rounds as the table above, no bare calls; a \
    larger answer gets fewer calls per sample (as many as move about the bytes of a sample of \
    ordinary answers, at least 10). **Allocs/call** and **Allocated/call** are the Rust heap's \
    (libcurl's own buffers, isahc, are not counted). **Peak heap/call** is the most Rust heap the \
    calls of a sample held at once beyond what was live before it (allocated less freed, on every \
    thread), the median over the samples: with one call at a time, what a call needs at its peak, \
    where Allocated/call adds up every buffer it ever took. A client that grows its buffer by \
    doubling holds about twice the answer at the peak; one that knows the length first, about \
    once; libcurl's buffers are not seen here either. **Decode**: `whole` reads the body into one \
    buffer and decodes it from there (`serde_json::from_slice`, as the service does); `streamed` \
    decodes it as the client receives it, never joined into one buffer \
    (`serde_json::from_reader`): ureq from the connection as it reads, and reqwest-blocking from \
    its body reader, on their blocking threads; hyper, reqwest and awc from the pieces they \
    received, read in turn once the last is in (serde_json pulls from a blocking reader, which an \
    async body is not); isahc has no such way (its async body is a pipe read into the caller's \
    buffer). The two are measured in the same rounds; **Streamed against whole** divides the \
    streamed row's mean and peak heap by the same client's whole row.";
