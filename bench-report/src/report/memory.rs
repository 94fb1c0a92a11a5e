//! The memory suite's section: per protocol and client, what the client holds in its process
//! once built, with one pooled connection and with its pool warm, and per pooled connection.

use crate::report::reasons;
use crate::report::section::{Part, Section};
use crate::report::table::{Align, Table};
use bench_model::{ClientName, MemoryRound, MemoryRow, Protocol, Results, SuiteName};

/// The section, when the suite ran.
pub fn section(results: &Results) -> Option<Section> {
    let rows = &results.memory;
    if rows.is_empty() {
        return None;
    }
    let burst = results.settings.memory.burst;
    let mut section = Section::suite(SuiteName::Memory);
    for protocol in Protocol::ALL {
        let mine: Vec<&MemoryRow> = rows.iter().filter(|row| row.protocol == protocol).collect();
        if !mine.is_empty() {
            section = section.with(Part::Table(table(protocol, burst, &mine)));
        }
    }
    let failed: Vec<String> = rows
        .iter()
        .flat_map(|row| {
            row.failed.iter().map(move |why| {
                format!(
                    "{}: {}",
                    row.protocol.qualify(row.client),
                    reasons::round_failed(why, row.protocol)
                )
            })
        })
        .collect();
    Some(
        section
            .with_notes(failed)
            .with(Part::Prose(HOW.trim_end().to_owned())),
    )
}

fn table(protocol: Protocol, burst: u32, rows: &[&MemoryRow]) -> Table {
    let mut sorted = rows.to_vec();
    sorted.sort_by_key(|row| order(row.client));
    Table {
        title: format!(
            "memory over {protocol}: what the client holds in a process of its own, beyond the \
             process before it was built (median of the rounds; the range of the rounds in \
             brackets); warm: after one call and then {burst} at once"
        ),
        columns: vec![
            ("Client", Align::Left),
            ("Rounds", Align::Right),
            ("Resident, warm", Align::Right),
            ("Heap, built", Align::Right),
            ("Heap, one connection", Align::Right),
            ("Heap, warm", Align::Right),
            ("Heap per connection", Align::Right),
            ("Connections, warm", Align::Right),
            ("Threads started", Align::Right),
        ],
        rows: sorted.into_iter().map(cells).collect(),
    }
}

fn cells(row: &MemoryRow) -> Vec<String> {
    if row.rounds.is_empty() {
        let mut cells = vec![row.client.to_string(), "0".to_owned()];
        cells.extend(std::iter::repeat_n("no reading".to_owned(), 7));
        return cells;
    }
    let held: Vec<f64> = row.held_kib_rounds();
    let (low, high) = held
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), &value| {
            (low.min(value), high.max(value))
        });
    let kib = |value: f64| format!("{value:.0} KiB");
    let heap =
        |figure: fn(&MemoryRound) -> f64| row.median(figure).map_or_else(|| "-".to_owned(), bytes);
    vec![
        row.client.to_string(),
        row.rounds.len().to_string(),
        format!(
            "{} ({}-{})",
            row.median(MemoryRound::held_kib)
                .map_or_else(|| "-".to_owned(), kib),
            kib(low),
            kib(high)
        ),
        heap(MemoryRound::built_heap_bytes),
        heap(MemoryRound::one_call_heap_bytes),
        heap(MemoryRound::held_heap_bytes),
        row.heap_per_connection()
            .map_or_else(|| "-".to_owned(), bytes),
        row.median(|round| round.warm.connections as f64)
            .map_or_else(|| "-".to_owned(), |n| format!("{n:.0}")),
        row.median(MemoryRound::threads_started)
            .map_or_else(|| "-".to_owned(), |n| format!("{n:.0}")),
    ]
}

/// Bytes as KiB or MiB, signed (a client can free more than it took).
fn bytes(value: f64) -> String {
    if value.abs() >= 1024.0 * 1024.0 {
        format!("{:.2} MiB", value / (1024.0 * 1024.0))
    } else {
        format!("{:.1} KiB", value / 1024.0)
    }
}

fn order(client: ClientName) -> usize {
    ClientName::ALL
        .iter()
        .position(|known| *known == client)
        .unwrap_or(usize::MAX)
}

const HOW: &str = "\
Each round is a fresh process of the bench's own (`bench __memory`), one per client, protocol
and round, the clients' rounds interleaved: it reads its memory before building the client,
once built, after one call (one pooled connection) and after a burst of calls at once (the pool
warm), each after the answers were checked and a settle time passed; every figure is what the
reading grew by from before the client was built. **Heap** is what glibc's allocator has
handed out and not had back (`mallinfo2`), the Rust heap and C code's (libcurl under isahc)
alike: **Heap, warm** is the figure the verdict judges (memory held, pool warm), since it
repeats between runs within a few percent. **Resident, warm** is the anonymous resident memory
(`RssAnon`: heap, thread stacks, every page written), what a container's memory limit charges;
it includes the pages the allocator keeps after the burst's buffers were freed, and moved
between runs several-fold (hyper over https: 692 KiB in one run, 4 368 KiB in another) where
the heap moved 1%, so it is shown, not judged.
**Heap per connection** is what the burst added to the heap, divided by the connections it
added (the process's TCP sockets established to the upstream, read from /proc): '-' where it
added none (h2 multiplexes the burst on one connection; a pool may keep fewer than it opened).
**Threads started** counts the threads the client left running with its pool warm: isahc's curl
thread, reqwest-blocking's runtime thread, and for a blocking client the blocking pool's threads
its calls ran on (a service pays for those too).
";
