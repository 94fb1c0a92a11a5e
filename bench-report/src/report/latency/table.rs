//! The latency table itself and the instrument's calibration table.

use crate::report::format::{TimeFormat, format_bytes, format_count, format_ratio, protocol_cell};
use crate::report::noise;
use crate::report::table::{Align, Table};
use bench_model::{CalibrationRow, LatencyRow, Protocol};

pub(super) fn latency_table(rows: &[LatencyRow]) -> Table {
    use Align::{Left, Right};
    let time = TimeFormat::for_means_ns(rows.iter().map(|row| row.mean_us.map(|us| us * 1_000.0)));
    Table {
        title: "latency: one call through the port (EURUSD + USDJPY, one upstream request); \
                Ratio to hyper over the same protocol"
            .to_owned(),
        columns: vec![
            ("Client", Left),
            ("Protocol", Left),
            ("Mean", Right),
            ("Error", Right),
            ("StdDev", Right),
            ("Median", Right),
            ("P99", Right),
            ("Ratio", Right),
            ("RatioSD", Right),
            ("Allocated/op", Right),
            ("Allocs/op", Right),
            ("Connections", Right),
            ("Failures", Right),
            ("Noise", Left),
            ("Rounds", Right),
            ("Mock CPU", Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                vec![
                    row.client.to_string(),
                    match &row.not_measured {
                        Some(_) if row.protocol.is_tls() => {
                            format!("{} (TLS not measured)", row.protocol)
                        }
                        _ => protocol_cell(row.protocol, row.tls.as_ref()),
                    },
                    time.format_us(row.mean_us),
                    time.format_us(row.error_us),
                    time.format_us(row.stddev_us),
                    time.format_us(row.median_us),
                    time.format_us(row.p99_us),
                    format_ratio(row.ratio),
                    format_ratio(row.ratio_sd),
                    format_bytes(row.bytes_per_op),
                    format_count(row.allocs_per_op),
                    match (row.connections_opened, &row.not_measured) {
                        (Some(count), _) => count.to_string(),
                        (None, Some(_)) => NOT_MEASURED.to_owned(),
                        (None, None) => "?".to_owned(),
                    },
                    format!("{}/{}", row.failures, row.calls),
                    noise::cell(row.noise.as_ref()),
                    rounds_cell(&time, &row.round_means_us),
                    match (row.mock_cpu_us, &row.not_measured) {
                        (None, Some(_)) => NOT_MEASURED.to_owned(),
                        (cpu, _) => mock_cpu_cell(cpu, row.mean_us),
                    },
                ]
            })
            .collect(),
    }
}

/// A cell whose figure only mock-rates can give, against a server that is not mock-rates.
pub(super) const NOT_MEASURED: &str = "not measured";

/// Each round's mean, `60.1 / 61.0 / 59.8`.
pub(super) fn rounds_cell(time: &TimeFormat, rounds: &[f64]) -> String {
    if rounds.is_empty() {
        return "-".to_owned();
    }
    rounds
        .iter()
        .map(|&mean| time.format_us(Some(mean)))
        .collect::<Vec<_>>()
        .join(" / ")
}

/// The mock's CPU per call and its share of the call's mean: `21.3 us (35%)`.
pub(super) fn mock_cpu_cell(mock_cpu_us: Option<f64>, mean_us: Option<f64>) -> String {
    match (mock_cpu_us, mean_us) {
        (Some(cpu), Some(mean)) if mean > 0.0 => {
            format!("{cpu:.1} us ({:.0}%)", cpu * 100.0 / mean)
        }
        (Some(cpu), _) => format!("{cpu:.1} us"),
        _ => "NA".to_owned(),
    }
}

/// The mock's cost per call over h2 may be at most this factor of its cost over https.
pub const MOCK_H2_TARGET: f64 = 1.15;

pub(super) fn calibration_table(rows: &[CalibrationRow]) -> Table {
    use Align::{Left, Right};
    let time = TimeFormat::for_means_ns(rows.iter().map(|row| row.mean_us.map(|us| us * 1_000.0)));
    Table {
        title: "latency: the instrument, mock-rates called by a minimal client (calibration)"
            .to_owned(),
        columns: vec![
            ("Protocol", Left),
            ("Mean", Right),
            ("Error", Right),
            ("Rounds", Right),
            ("Mock CPU/call", Right),
            ("Failures", Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                vec![
                    row.protocol.to_string(),
                    time.format_us(row.mean_us),
                    time.format_us(row.error_us),
                    rounds_cell(&time, &row.round_means_us),
                    row.mock_cpu_us
                        .map_or_else(|| "NA".to_owned(), |cpu| format!("{cpu:.1} us")),
                    format!("{}/{}", row.failures, row.calls),
                ]
            })
            .collect(),
    }
}

/// The target line: mock-rates' CPU per call over h2 against over https, and the minimal
/// client's mean the same way; not measured when either row had a failed call.
pub(super) fn calibration_target(rows: &[CalibrationRow]) -> Option<String> {
    let of = |protocol| rows.iter().find(|row| row.protocol == protocol);
    let (h2, https) = (of(Protocol::H2)?, of(Protocol::Https)?);
    if let Some(failed) = [https, h2].into_iter().find(|row| row.failures > 0) {
        return Some(format!(
            "mock-rates over h2 against over https: not measured: the calibration over {} \
             failed {} of {} calls ({}).",
            failed.protocol,
            failed.failures,
            failed.calls,
            failed.first_error.as_deref().unwrap_or("no error recorded")
        ));
    }
    let cpu = h2.mock_cpu_us? / https.mock_cpu_us.filter(|&cpu| cpu > 0.0)?;
    let mean = h2
        .mean_us
        .zip(https.mean_us.filter(|&mean| mean > 0.0))
        .map(|(h2, https)| format!("; the minimal client's mean {:.2}x", h2 / https))
        .unwrap_or_default();
    Some(format!(
        "mock-rates over h2 against over https: its CPU per call {cpu:.2}x (target at most \
         {MOCK_H2_TARGET:.2}x: {}){mean}.",
        if cpu <= MOCK_H2_TARGET {
            "met"
        } else {
            "NOT met"
        }
    ))
}
