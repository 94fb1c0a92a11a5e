//! Criteria of adopting a client: build time, binary size and crates.

use super::judged::{judgement, once};
use crate::verdict::judge::{Better, Criterion, Figure, Judgement, NoiseRule};
use bench_model::{Results, SuiteName};

/// Band for a timed figure measured once per client (the adoption suite's builds).
pub(crate) const ONCE: NoiseRule = NoiseRule::Once(0.10);
/// Band for figures that do not move between builds beyond a trace: stripped sizes.
pub(crate) const CLOSE: NoiseRule = NoiseRule::Band(0.01);

/// How the adoption suite's source reads: measured in this run, or stored by an earlier run
/// on this machine whose inputs are unchanged (when, and which run).
fn from_adoption(results: &Results, what: &str) -> String {
    match &results.adoption.stored_from {
        Some(from) => format!(
            "adoption suite: {what}; stored: measured by the run of {} ({}) on this machine, \
             its inputs unchanged",
            from.measured_utc, from.run
        ),
        None => format!("adoption suite: {what}"),
    }
}

/// The adoption suite: build time, binary size; dependencies from the adoption rows, or from
/// the dependencies suite's trees (read without building).
pub(super) fn adoption(results: &Results) -> Vec<Judgement> {
    let rows = &results.adoption.rows;
    let figures = |value: &dyn Fn(&bench_model::AdoptionRow) -> (f64, String)| {
        rows.iter()
            .map(|row| {
                let (number, shown) = value(row);
                once(row.client, number, shown)
            })
            .collect::<Vec<_>>()
    };
    vec![
        judgement(
            Criterion::BuildTime,
            from_adoption(results, "clean release build of a probe, wall time"),
            figures(&|row| {
                (
                    row.build.build_wall_s,
                    format!("{:.0} s", row.build.build_wall_s),
                )
            }),
            Better::Lower,
            ONCE,
            SuiteName::Adoption,
        ),
        judgement(
            Criterion::BinarySize,
            from_adoption(
                results,
                "stripped release probe (and its bytes over a probe with no client)",
            ),
            figures(&|row| {
                let megabytes = |bytes: f64| bytes / (1024.0 * 1024.0);
                let added = row.added_bytes.unwrap_or(0) as f64;
                let bytes = row.build.binary_bytes as f64;
                (
                    bytes,
                    format!("{:.2} MB (+{:.2})", megabytes(bytes), megabytes(added)),
                )
            }),
            Better::Lower,
            CLOSE,
            SuiteName::Adoption,
        ),
        dependencies(results),
    ]
}

/// Crates in each client's probe tree over the base probe's: from the adoption rows when that
/// suite ran, else from the dependencies suite (the same trees, read without a build).
fn dependencies(results: &Results) -> Judgement {
    let (figures, source): (Vec<Figure>, String) = if results.adoption.rows.is_empty() {
        (
            results
                .dependencies
                .rows
                .iter()
                .map(|row| {
                    once(
                        row.client,
                        f64::from(row.crates),
                        format!("+{}", row.added_crates),
                    )
                })
                .collect(),
            "dependencies suite: crates in the probe's tree (cargo metadata, no build) over a \
             probe with no client"
                .to_owned(),
        )
    } else {
        (
            results
                .adoption
                .rows
                .iter()
                .map(|row| {
                    once(
                        row.client,
                        f64::from(row.build.crates),
                        format!("+{}", row.added_crates.unwrap_or(0)),
                    )
                })
                .collect(),
            from_adoption(
                results,
                "crates in the probe's tree over a probe with no client",
            ),
        )
    };
    judgement(
        Criterion::Dependencies,
        source,
        figures,
        Better::Lower,
        NoiseRule::Exact,
        SuiteName::Dependencies,
    )
}
