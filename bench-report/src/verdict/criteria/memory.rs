//! The memory suite: what a client holds in its process with its pool warm.

use crate::report::reasons;
use crate::verdict::criteria::judged::{any, rounds};
use crate::verdict::judge::{Better, Criterion, Figure, Judgement, NoiseRule};
use bench_model::{MemoryRound, Protocol, Results, SuiteName};

/// The heap's figure repeats within a run's rounds more closely than between runs (how many
/// connections a burst opens, and so how many buffers it keeps, varies from process to
/// process): a margin must also exceed this share. Four runs on the Xeon VM moved hyper's,
/// awc's and reqwest's medians over https by at most 1% and isahc's by 5%, where the resident
/// figure (shown in the suite's table, not judged) moved several-fold (hyper: 692 to 4 368
/// KiB): the allocator's retained pages and thread stacks, not the client's data.
const BAND: f64 = 0.10;

/// Heap a client holds with its pool warm over `protocol`, beyond the process before it was
/// built, one figure per round (a fresh process each); `None` when the suite did not measure
/// over `protocol`. A row with a failed round is left out with why.
pub(super) fn memory_held(results: &Results, protocol: Protocol) -> Option<Judgement> {
    let mine = || results.memory.iter().filter(|row| row.protocol == protocol);
    let figures: Vec<Figure> = mine()
        .filter(|row| row.failed.is_empty())
        .filter_map(|row| {
            let median = row.median(MemoryRound::held_heap_bytes)?;
            Some(rounds(
                row.client,
                median,
                row.rounds
                    .iter()
                    .map(MemoryRound::held_heap_bytes)
                    .collect(),
                None,
                format!("{:.0} KiB", median / 1024.0),
            ))
        })
        .collect();
    let left_out = mine()
        .filter(|row| !row.failed.is_empty())
        .map(|row| {
            let failed: Vec<String> = row
                .failed
                .iter()
                .map(|why| reasons::round_failed(why, row.protocol))
                .collect();
            (row.client, failed.join("; "))
        })
        .collect();
    any(
        Criterion::Memory(protocol),
        format!(
            "memory suite: heap in use (glibc's allocator: Rust's and C code's alike) a client \
             holds in a process of its own with its pool warm over {protocol} (after one call \
             and a burst of {} at once), beyond the process before it was built; a fresh \
             process per round",
            results.settings.memory.burst
        ),
        figures,
        Better::Lower,
        NoiseRule::RoundsAndBand(BAND),
        SuiteName::Memory,
    )
    .map(|judgement| judgement.leaving_out(left_out))
}
