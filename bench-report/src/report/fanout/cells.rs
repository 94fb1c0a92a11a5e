//! The reference's figures, and the lookups and cells the tables and notes share.

use std::fmt::Write as _;

use crate::report::format::format_ms;
use bench_model::{FanoutMode, FanoutRow, FanoutSeries, FanoutSettings, Protocol};

/// The reference (Spring + Feign against a ~360 ms API, Postman): group size, then sequential,
/// Spring `@Async` and `AsyncFeign` wall times in ms.
pub(super) const REFERENCE_360MS: [(u32, u32, u32, u32); 9] = [
    (5, 2360, 720, 387),
    (10, 3390, 1291, 522),
    (15, 4400, 1443, 673),
    (20, 5560, 2110, 566),
    (25, 6810, 2430, 677),
    (30, 7600, 3170, 834),
    (40, 9810, 4140, 1009),
    (50, 10940, 5420, 1169),
    (70, 14940, 6960, 1669),
];

/// The reference's API answered in about this many ms; its columns are shown at this latency.
pub(super) const REFERENCE_LATENCY_MS: u64 = 360;

/// An efficiency this far above 1 means the api's upstream did not have the added latency.
pub(super) const IMPLAUSIBLE_EFFICIENCY: f64 = 1.05;

pub(super) fn find(
    rows: &[FanoutRow],
    series: FanoutSeries,
    mode: FanoutMode,
    size: u32,
) -> Option<&FanoutRow> {
    rows.iter()
        .find(|row| row.series() == series && row.mode == mode && row.group_size == size)
}

pub(super) fn shows_reference(settings: &FanoutSettings) -> bool {
    settings.upstream_latency_ms == REFERENCE_LATENCY_MS && settings.upstream_jitter_ms == 0
}

/// "51.2 ms (0.98)", with a `*` over the overlap cap and the failures when there were any.
pub(super) fn cell(row: &FanoutRow) -> String {
    let mut text = format_ms(row.wall_ms_median);
    if let Some(efficiency) = row.efficiency {
        let _ = write!(text, " ({efficiency:.2})");
    }
    if row.over_cap() {
        text.push('*');
    }
    if row.failures > 0 {
        let _ = write!(text, " [{} failed]", row.failures);
    }
    text
}

/// What the upstream of a table's columns was: a protocol, and over h2 a stream limit or none.
pub(super) type Upstream = (Protocol, Option<u32>);

/// The upstreams of `series`, each once, in their order.
pub(super) fn upstreams(series: &[FanoutSeries]) -> Vec<Upstream> {
    let mut upstreams: Vec<Upstream> = Vec::new();
    for series in series {
        let upstream = (series.protocol, series.stream_limit);
        if !upstreams.contains(&upstream) {
            upstreams.push(upstream);
        }
    }
    upstreams
}

/// "over h2", or "over h2 with a stream limit of 10".
pub(super) fn describe_upstream((protocol, stream_limit): Upstream) -> String {
    match stream_limit {
        Some(limit) => format!("over {protocol} with a stream limit of {limit}"),
        None => format!("over {protocol}"),
    }
}
