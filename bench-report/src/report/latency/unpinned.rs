//! The clients over http pinned and unpinned, side by side: whether the ranks hold without
//! the pinning.

use std::fmt::Write as _;

use crate::report::format::{TimeFormat, format_ratio};
use crate::report::table::{Align, Table};
use bench_model::{ClientName, LatencyRow, Protocol};

/// The clients over http pinned (the suite's rows) and unpinned, side by side, each ranked.
pub(super) fn unpinned_table(pinned: &[LatencyRow], unpinned: &[LatencyRow]) -> Table {
    use Align::{Left, Right};
    let time = TimeFormat::for_means_ns(
        unpinned
            .iter()
            .map(|row| row.mean_us.map(|us| us * 1_000.0)),
    );
    let pinned_http: Vec<&LatencyRow> = pinned
        .iter()
        .filter(|row| row.protocol == Protocol::Http)
        .collect();
    let pinned_ranks = ranks(&pinned_http);
    let unpinned_rows: Vec<&LatencyRow> = unpinned.iter().collect();
    let unpinned_ranks = ranks(&unpinned_rows);
    Table {
        title: "latency over http: pinned to one CPU (the table above) and not pinned".to_owned(),
        columns: vec![
            ("Client", Left),
            ("Pinned mean", Right),
            ("Rank", Right),
            ("Unpinned mean", Right),
            ("Error", Right),
            ("Rank", Right),
            ("Ratio to hyper unpinned", Right),
        ],
        rows: unpinned
            .iter()
            .map(|row| {
                let pinned_row = pinned_http
                    .iter()
                    .find(|pinned| pinned.client == row.client);
                let rank = |ranks: &[(ClientName, usize)]| {
                    ranks
                        .iter()
                        .find(|(client, _)| *client == row.client)
                        .map_or_else(|| "-".to_owned(), |(_, rank)| rank.to_string())
                };
                vec![
                    row.client.to_string(),
                    time.format_us(pinned_row.and_then(|pinned| pinned.mean_us)),
                    rank(&pinned_ranks),
                    time.format_us(row.mean_us),
                    time.format_us(row.error_us),
                    rank(&unpinned_ranks),
                    format_ratio(row.ratio),
                ]
            })
            .collect(),
    }
}

/// Each client's rank by mean (1 the fastest).
pub(super) fn ranks(rows: &[&LatencyRow]) -> Vec<(ClientName, usize)> {
    let mut means: Vec<(ClientName, f64)> = rows
        .iter()
        .filter_map(|row| Some((row.client, row.mean_us?)))
        .collect();
    means.sort_by(|a, b| a.1.total_cmp(&b.1));
    means
        .into_iter()
        .enumerate()
        .map(|(index, (client, _))| (client, index + 1))
        .collect()
}

/// Whether the order by mean over http is the same pinned and unpinned, and for each pair
/// that swapped, whether the swap is within the two measurements' noise.
pub(super) fn unpinned_verdict(pinned: &[LatencyRow], unpinned: &[LatencyRow]) -> String {
    let pinned_http: Vec<&LatencyRow> = pinned
        .iter()
        .filter(|row| row.protocol == Protocol::Http)
        .collect();
    let unpinned: Vec<&LatencyRow> = unpinned.iter().collect();
    let order = |rows: &[&LatencyRow]| -> Vec<ClientName> {
        ranks(rows).into_iter().map(|(client, _)| client).collect()
    };
    let (pinned_order, unpinned_order) = (order(&pinned_http), order(&unpinned));
    let names = |order: &[ClientName]| {
        order
            .iter()
            .map(|client| client.as_str())
            .collect::<Vec<_>>()
            .join(" < ")
    };
    let position = |order: &[ClientName], client| order.iter().position(|known| *known == client);
    // Each pair that the two orders rank the other way round, and whether its two means are
    // within their Errors in either measurement (then the swap says nothing).
    let mut swaps = Vec::new();
    for (index, &first) in pinned_order.iter().enumerate() {
        for &second in &pinned_order[index + 1..] {
            let (Some(a), Some(b)) = (
                position(&unpinned_order, first),
                position(&unpinned_order, second),
            ) else {
                continue;
            };
            if a < b {
                continue;
            }
            let apart = |rows: &[&LatencyRow]| {
                let of = |client| rows.iter().find(|row| row.client == client);
                let (Some(x), Some(y)) = (of(first), of(second)) else {
                    return false;
                };
                match (x.mean_us, x.error_us, y.mean_us, y.error_us) {
                    (Some(x), Some(x_error), Some(y), Some(y_error)) => {
                        (x - y).abs() > x_error + y_error
                    }
                    _ => false,
                }
            };
            let beyond = apart(&pinned_http) && apart(&unpinned);
            swaps.push(format!(
                "{first} and {second} ({})",
                if beyond {
                    "beyond the noise both ways"
                } else {
                    "within the noise of one of the two"
                }
            ));
        }
    }
    let mut text = format!(
        "**Pinning is a choice.** Over http, pinned: {}; unpinned: {} (a single round of a \
         third of the samples on a separate mock-rates with nothing pinned). ",
        names(&pinned_order),
        names(&unpinned_order)
    );
    if swaps.is_empty() {
        text.push_str("The ranks hold without the pinning.");
    } else {
        let _ = write!(
            text,
            "Pairs ranked the other way round: {}.",
            swaps.join("; ")
        );
    }
    text.push_str(
        " The pinned figures are the verdict's; unpinned, a call may also pay a cross-CPU \
         wake-up, which moves from call to call.",
    );
    text
}
