//! The memory suite: what a client holds in its process with its pool warm.

use crate::verdict::criteria::judged::{any, rounds};
use crate::verdict::judge::{Better, Criterion, Figure, Judgement, NoiseRule};
use bench_model::{MemoryRound, Protocol, Results, SuiteName};

/// Anonymous resident memory the client holds with its pool warm over `protocol`, beyond the
/// process before it was built, one figure per round (a fresh process each); `None` when the
/// suite did not measure over `protocol`. A row with a failed round is left out with why.
pub(super) fn memory_held(results: &Results, protocol: Protocol) -> Option<Judgement> {
    let mine = || results.memory.iter().filter(|row| row.protocol == protocol);
    let figures: Vec<Figure> = mine()
        .filter(|row| row.failed.is_empty())
        .filter_map(|row| {
            let median = row.median(MemoryRound::held_kib)?;
            Some(rounds(
                row.client,
                median,
                row.held_kib_rounds(),
                None,
                format!("{median:.0} KiB"),
            ))
        })
        .collect();
    let left_out = mine()
        .filter(|row| !row.failed.is_empty())
        .map(|row| (row.client, row.failed.join("; ")))
        .collect();
    any(
        Criterion::Memory(protocol),
        format!(
            "memory suite: anonymous resident memory a client holds in a process of its own \
             with its pool warm over {protocol} (after one call and a burst of {} at once), \
             beyond the process before it was built; a fresh process per round",
            results.settings.memory.burst
        ),
        figures,
        Better::Lower,
        NoiseRule::Rounds,
        SuiteName::Memory,
    )
    .map(|judgement| judgement.leaving_out(left_out))
}
