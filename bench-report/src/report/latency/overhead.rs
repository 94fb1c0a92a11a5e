//! What the port and adapter cost over the bare call, and what TLS and HTTP/2 cost per call.

use crate::report::format::{TimeFormat, format_bytes, format_ratio, h2_against_https};
use crate::report::table::{Align, Table};
use bench_model::stats::difference::combined_error;
use bench_model::{BareFigures, ClientName, LatencyRow, Protocol};

pub(super) const PORT_OVERHEAD_TARGET: f64 = 1.10;
pub(super) const PORT_EXTRA_ALLOCS_TARGET: f64 = 5.0;

pub(super) fn port_overhead_table(rows: &[LatencyRow]) -> Table {
    use Align::{Left, Right};
    let time = TimeFormat::for_means_ns(rows.iter().map(|row| row.mean_us.map(|us| us * 1_000.0)));
    Table {
        title: "latency: what the port and the adapter cost, against the library called bare"
            .to_owned(),
        columns: vec![
            ("Client", Left),
            ("Protocol", Left),
            ("Through the port", Right),
            ("Bare", Right),
            ("Bare Error", Right),
            ("Overhead", Right),
            ("OverheadSD", Right),
            ("Beyond noise", Left),
            ("Extra allocs/op", Right),
            ("Extra bytes/op", Right),
            ("Target (<= 1.10x, <= 5 allocs)", Left),
        ],
        rows: rows
            .iter()
            .filter_map(|row| {
                let bare = row.bare.as_ref()?;
                let extra_allocs = row.allocs_per_op - bare.allocs_per_op;
                Some(vec![
                    row.client.to_string(),
                    row.protocol.to_string(),
                    time.format_us(row.mean_us),
                    time.format_us(bare.mean_us),
                    time.format_us(bare.error_us),
                    bare.overhead
                        .map_or_else(|| "?".to_owned(), |factor| format!("{factor:.2}x")),
                    format_ratio(bare.overhead_sd),
                    beyond_noise(row, bare),
                    format!("{extra_allocs:+.1}"),
                    format_bytes_signed(row.bytes_per_op - bare.bytes_per_op),
                    overhead_target(bare.overhead, extra_allocs),
                ])
            })
            .collect(),
    }
}

/// Whether the port's and the bare call's means differ by more than their combined Error.
pub(super) fn beyond_noise(row: &LatencyRow, bare: &BareFigures) -> String {
    match (row.mean_us, row.error_us, bare.mean_us, bare.error_us) {
        (Some(port), Some(port_error), Some(bare), Some(bare_error)) => {
            if (port - bare).abs() > combined_error(port_error, bare_error) {
                "yes"
            } else {
                "no"
            }
        }
        _ => "?",
    }
    .to_owned()
}

pub(super) fn overhead_target(overhead: Option<f64>, extra_allocs: f64) -> String {
    let Some(overhead) = overhead else {
        return "?".to_owned();
    };
    let mut missed = Vec::new();
    if overhead > PORT_OVERHEAD_TARGET {
        missed.push(format!("{overhead:.2}x"));
    }
    if extra_allocs > PORT_EXTRA_ALLOCS_TARGET {
        missed.push(format!("{extra_allocs:+.1} allocs"));
    }
    if missed.is_empty() {
        "met".to_owned()
    } else {
        format!("NOT met: {}", missed.join(", "))
    }
}

pub(super) fn format_bytes_signed(bytes: f64) -> String {
    if bytes < 0.0 {
        format!("-{}", format_bytes(-bytes))
    } else {
        format!("+{}", format_bytes(bytes))
    }
}

/// Per client over both protocols: what a pooled call over TLS costs against one in the
/// clear (for another TLS backend, its library's default client in the clear: the same client
/// without TLS), the target being at most 1.3x for hyper.
pub(super) fn https_costs(rows: &[LatencyRow]) -> Vec<String> {
    let mut parts = Vec::new();
    for row in rows.iter().filter(|row| row.protocol == Protocol::Https) {
        let plain = rows.iter().find(|plain| {
            plain.client == row.client.library_default() && plain.protocol == Protocol::Http
        });
        if let Some((https, http)) = row.mean_us.zip(plain.and_then(|plain| plain.mean_us)) {
            let times = https / http;
            let target = if row.client == ClientName::BASELINE {
                format!(
                    " (target at most 1.30x: {})",
                    if times <= 1.3 { "met" } else { "NOT met" }
                )
            } else {
                String::new()
            };
            parts.push(format!("{} {times:.2}x{target}", row.client));
        }
    }
    if parts.is_empty() {
        Vec::new()
    } else {
        vec![format!(
            "A pooled call over https against one over http (means): {}.",
            parts.join(", ")
        )]
    }
}

/// Per client over h2 and https: what a pooled call over HTTP/2 costs against one over
/// HTTP/1.1 with the same TLS (one call at a time: HTTP/2's multiplexing has nothing to
/// share here, so this is its framing, HPACK and flow control).
pub(super) fn h2_costs(rows: &[LatencyRow]) -> Option<String> {
    h2_against_https(
        rows,
        |row| (row.client, row.protocol),
        |h2, https| {
            let times = h2.mean_us? / https.mean_us?;
            let allocs = h2.allocs_per_op - https.allocs_per_op;
            Some(format!(
                "{} {times:.2}x ({allocs:+.0} allocations)",
                h2.client
            ))
        },
        "A pooled call over h2 against one over https, the same TLS (means)",
    )
}
