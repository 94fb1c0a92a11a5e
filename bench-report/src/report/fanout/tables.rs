//! A table per mode laid out like the reference's, and the detail behind the charts.

use super::cells::{
    REFERENCE_360MS, Upstream, cell, describe_upstream, find, shows_reference, upstreams,
};

use crate::report::format::{format_ms, protocol_cell};
use crate::report::table::{Align, Table};
use bench_model::{FanoutMode, FanoutRow, FanoutSeries, Results, group_sizes};

/// One table per upstream and mode: rows are group sizes, columns the clients (and, at 360
/// ms, the reference's figures).
pub(super) fn tables(results: &Results) -> Vec<Table> {
    let all = results.fanout_series();
    upstreams(&all)
        .into_iter()
        .flat_map(|upstream| {
            let series: Vec<FanoutSeries> = all
                .iter()
                .copied()
                .filter(|series| (series.protocol, series.stream_limit) == upstream)
                .collect();
            FanoutMode::ALL
                .into_iter()
                .filter(|&mode| {
                    results
                        .fanout
                        .iter()
                        .any(|row| row.mode == mode && (row.protocol, row.stream_limit) == upstream)
                })
                .map(|mode| mode_table(results, upstream, mode, &series))
                .collect::<Vec<_>>()
        })
        .collect()
}

pub(super) fn mode_table(
    results: &Results,
    upstream: Upstream,
    mode: FanoutMode,
    series: &[FanoutSeries],
) -> Table {
    let settings = &results.settings.fanout;
    let reference = shows_reference(settings);
    let mut columns = vec![("Group", Align::Left), ("Ideal", Align::Right)];
    columns.extend(
        series
            .iter()
            .map(|series| (series.client.as_str(), Align::Right)),
    );
    let reference_columns: &[&'static str] = match (reference, mode) {
        (false, _) => &[],
        (true, FanoutMode::Sequential) => &["ref: Feign sequential"],
        (true, FanoutMode::Concurrent) => &["ref: Spring @Async", "ref: AsyncFeign"],
    };
    columns.extend(reference_columns.iter().map(|name| (*name, Align::Right)));
    let rows = group_sizes(&results.fanout)
        .into_iter()
        // Sequential groups are sent at the smallest and largest sizes only.
        .filter(|&size| {
            results
                .fanout
                .iter()
                .any(|row| row.mode == mode && row.group_size == size)
        })
        .map(|size| {
            let ideal = results
                .fanout
                .iter()
                .find(|row| row.mode == mode && row.group_size == size)
                .map(|row| row.ideal_ms);
            let mut cells = vec![format!("{size} requests"), format_ms(ideal)];
            cells.extend(series.iter().map(|series| {
                find(&results.fanout, *series, mode, size).map_or_else(String::new, cell)
            }));
            if reference {
                let figures = REFERENCE_360MS.iter().find(|figures| figures.0 == size);
                let shown: Vec<u32> = match (figures, mode) {
                    (None, _) => Vec::new(),
                    (Some(figures), FanoutMode::Sequential) => vec![figures.1],
                    (Some(figures), FanoutMode::Concurrent) => vec![figures.2, figures.3],
                };
                cells.extend((0..reference_columns.len()).map(|index| {
                    shown
                        .get(index)
                        .map_or_else(String::new, |ms| format!("{ms} ms"))
                }));
            }
            cells
        })
        .collect();
    Table {
        title: format!(
            "fanout, {}, upstream {}: wall time of a group (the api's wall_time_ms, median of \
             {}; efficiency = ideal / wall in brackets)",
            mode.as_str(),
            describe_upstream(upstream),
            settings.repetitions_of(mode)
        ),
        columns,
        rows,
    }
}

/// Every row, every figure: the table behind the charts.
pub(super) fn detail_table(rows: &[FanoutRow]) -> Table {
    use Align::{Left, Right};
    Table {
        title: "fanout: every row".to_owned(),
        columns: vec![
            ("Client", Left),
            ("Protocol", Left),
            ("Mode", Left),
            ("Group", Right),
            ("Reps", Right),
            ("Wall (api)", Right),
            ("Request (bench)", Right),
            ("Ideal", Right),
            ("Efficiency", Right),
            ("Upstream calls", Right),
            ("Connections", Right),
            ("HTTP/2 streams; busy conns; on one", Right),
            ("Failures", Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                let unknown = || "?".to_owned();
                vec![
                    row.client.to_string(),
                    match row.stream_limit {
                        Some(limit) => format!(
                            "{} ({limit} streams)",
                            protocol_cell(row.protocol, row.tls.as_ref())
                        ),
                        None => protocol_cell(row.protocol, row.tls.as_ref()),
                    },
                    row.mode.as_str().to_owned(),
                    row.group_size.to_string(),
                    row.repetitions.to_string(),
                    format_ms(row.wall_ms_median),
                    format_ms(row.request_ms_median),
                    format_ms(Some(row.ideal_ms)),
                    row.efficiency
                        .map_or_else(|| "NA".to_owned(), |value| format!("{value:.3}")),
                    row.upstream_calls
                        .map_or_else(unknown, |calls| calls.to_string()),
                    row.connections_opened
                        .map_or_else(unknown, |count| count.to_string()),
                    row.h2.map_or_else(
                        || "-".to_owned(),
                        |spread| {
                            format!(
                                "{}; {}; {}",
                                spread.streams, spread.peak_connections, spread.peak_streams
                            )
                        },
                    ),
                    row.failures.to_string(),
                ]
            })
            .collect(),
    }
}
