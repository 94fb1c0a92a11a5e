//! The decode suite's ways judged, body by body: the fastest, the ways within its Error, the
//! leanest, and where the adapters' way stands. The ways are methods, not clients, so no
//! criterion ranks them; this is their judgement, computed once per rendering beside the
//! verdict, and the decode section only writes it down.

use bench_model::stats::difference::combined_error;
use bench_model::{DecodeBody, DecodeMethod, DecodeRow};

/// One body's ways judged.
#[derive(Clone, Debug, PartialEq)]
pub struct DecodeWays {
    pub body: DecodeBody,
    /// The fastest way, with its mean.
    pub fastest: DecodeMethod,
    pub fastest_mean_ns: f64,
    /// The other ways whose mean is within the combined Error of the fastest's.
    pub within_error: Vec<DecodeMethod>,
    /// The way with the fewest allocations, and the one with the fewest bytes (the same way,
    /// or another).
    pub fewest_allocations: Lean,
    pub fewest_bytes: Lean,
    /// Where the adapters' way ([`DecodeMethod::BASELINE`]) stands; `None` when the run did
    /// not measure it on this body.
    pub adapters: Option<Standing>,
}

/// A way's allocations and bytes per decode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lean {
    pub method: DecodeMethod,
    pub allocs_per_op: f64,
    pub bytes_per_op: f64,
}

/// Where the adapters' way stands against the fastest.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Standing {
    /// The fastest, or within its Error.
    AsFast,
    /// Slower beyond the Error: so many times the fastest's mean.
    Slower(f64),
}

/// The decode bodies, each once, in the order the rows name them.
pub fn bodies_in_order(rows: &[DecodeRow]) -> Vec<DecodeBody> {
    let mut bodies = Vec::new();
    for row in rows {
        if !bodies.contains(&row.body) {
            bodies.push(row.body);
        }
    }
    bodies
}

/// Each body's ways judged, in the order the rows name the bodies; a body without a timed
/// row is left out.
pub fn decode_ways(rows: &[DecodeRow]) -> Vec<DecodeWays> {
    bodies_in_order(rows)
        .into_iter()
        .filter_map(|body| {
            let body_rows: Vec<&DecodeRow> = rows.iter().filter(|row| row.body == body).collect();
            judge(body, &body_rows)
        })
        .collect()
}

fn judge(body: DecodeBody, rows: &[&DecodeRow]) -> Option<DecodeWays> {
    let fastest = rows
        .iter()
        .filter(|row| row.mean_ns.is_some())
        .min_by(|a, b| mean_or_max(a).total_cmp(&mean_or_max(b)))?;
    let fewest_bytes = rows
        .iter()
        .min_by(|a, b| a.bytes_per_op.total_cmp(&b.bytes_per_op))?;
    let fewest_allocations = rows
        .iter()
        .min_by(|a, b| a.allocs_per_op.total_cmp(&b.allocs_per_op))?;
    let adapters = rows
        .iter()
        .find(|row| row.method == DecodeMethod::BASELINE)
        .map(|ours| {
            if ours.method == fastest.method || within_error(ours, fastest) {
                Standing::AsFast
            } else {
                Standing::Slower(mean_or_max(ours) / mean_or_max(fastest))
            }
        });
    Some(DecodeWays {
        body,
        fastest: fastest.method,
        fastest_mean_ns: mean_or_max(fastest),
        within_error: rows
            .iter()
            .filter(|row| row.method != fastest.method && within_error(row, fastest))
            .map(|row| row.method)
            .collect(),
        fewest_allocations: lean(fewest_allocations),
        fewest_bytes: lean(fewest_bytes),
        adapters,
    })
}

fn lean(row: &DecodeRow) -> Lean {
    Lean {
        method: row.method,
        allocs_per_op: row.allocs_per_op,
        bytes_per_op: row.bytes_per_op,
    }
}

fn mean_or_max(row: &DecodeRow) -> f64 {
    row.mean_ns.unwrap_or(f64::MAX)
}

/// Whether two rows' means differ by no more than their combined Error.
fn within_error(row: &DecodeRow, other: &DecodeRow) -> bool {
    match (row.mean_ns, other.mean_ns) {
        (Some(a), Some(b)) => {
            let combined =
                combined_error(row.error_ns.unwrap_or(0.0), other.error_ns.unwrap_or(0.0));
            (a - b).abs() <= combined
        }
        _ => false,
    }
}
