//! How figures are written in every table: one unit per time column, bytes and ratios as
//! BenchmarkDotNet prints them, milliseconds with the precision their size calls for.

use bench_model::{ClientName, NegotiatedTls, Protocol, Run, SuiteName};

/// A row's Protocol cell: `http`, or `https rustls (aws-lc-rs) TLSv1.3` with the TLS the row
/// negotiated.
pub fn protocol_cell(protocol: Protocol, tls: Option<&NegotiatedTls>) -> String {
    tls.map_or_else(
        || protocol.to_string(),
        |tls| format!("{protocol} {}", tls.describe()),
    )
}

/// A note comparing each client's row over h2 with its row over https: `compare` writes one
/// client's part (or none), and the note is `intro: part, part.`; `None` without any part.
pub fn h2_against_https<R>(
    rows: &[R],
    key: impl Fn(&R) -> (ClientName, Protocol),
    compare: impl Fn(&R, &R) -> Option<String>,
    intro: &str,
) -> Option<String> {
    let parts: Vec<String> = rows
        .iter()
        .filter(|row| key(row).1 == Protocol::H2)
        .filter_map(|row| {
            let https = rows
                .iter()
                .find(|other| key(other) == (key(row).0, Protocol::Https))?;
            compare(row, https)
        })
        .collect();
    (!parts.is_empty()).then(|| format!("{intro}: {}.", parts.join(", ")))
}

/// Why the run's clients that cannot speak `protocol` have no rows over it, when `suite` ran
/// over it: "ureq speaks HTTP/1.1 only: no rows over h2."
pub fn unable_note(settings: &Run, suite: SuiteName, protocol: Protocol) -> Option<String> {
    let plan = settings.plan();
    if !plan.runs(suite, protocol) {
        return None;
    }
    let unable: Vec<&str> = plan
        .unable(protocol)
        .into_iter()
        .map(ClientName::as_str)
        .collect();
    (!unable.is_empty()).then(|| {
        format!(
            "{} speak{} {} only, by design: no rows over {protocol}.",
            unable.join(" and "),
            if unable.len() == 1 { "s" } else { "" },
            Protocol::Http.http_version()
        )
    })
}

/// How the times of one table are written: one unit and one number of decimals for every
/// time column, chosen from the smallest mean, so that a column lines up and reads at a glance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeFormat {
    unit: &'static str,
    nanos_per_unit: u32,
    decimals: usize,
}

impl TimeFormat {
    /// Nanoseconds below 1 us, else microseconds; 3 decimals below 100 units, 2 below 1000,
    /// else 1.
    pub fn for_smallest_ns(smallest_ns: f64) -> Self {
        let (unit, nanos_per_unit) = if smallest_ns >= 1_000.0 {
            ("us", 1_000)
        } else {
            ("ns", 1)
        };
        Self {
            unit,
            nanos_per_unit,
            decimals: decimals_for(smallest_ns / f64::from(nanos_per_unit)),
        }
    }

    /// The format for a set of means in nanoseconds (`None` ignored).
    pub fn for_means_ns(means: impl IntoIterator<Item = Option<f64>>) -> Self {
        let smallest = means
            .into_iter()
            .flatten()
            .filter(|mean| mean.is_finite())
            .fold(f64::INFINITY, f64::min);
        Self::for_smallest_ns(if smallest.is_finite() { smallest } else { 0.0 })
    }

    /// "72.412 us"; "NA" for a figure that cannot be computed.
    pub fn format_ns(self, nanos: Option<f64>) -> String {
        match nanos {
            Some(nanos) if nanos.is_finite() => {
                format!("{:.*} {}", self.decimals, self.scale(nanos), self.unit)
            }
            _ => "NA".to_owned(),
        }
    }

    pub fn unit(self) -> &'static str {
        self.unit
    }

    /// `nanos` in this format's unit.
    pub fn scale(self, nanos: f64) -> f64 {
        nanos / f64::from(self.nanos_per_unit)
    }

    pub fn format_us(self, micros: Option<f64>) -> String {
        self.format_ns(micros.map(|micros| micros * 1_000.0))
    }
}

fn decimals_for(value: f64) -> usize {
    if value.abs() >= 1_000.0 {
        1
    } else if value.abs() >= 100.0 {
        2
    } else {
        3
    }
}

/// One time with its own precision and unit; "NA" when it cannot be computed.
pub fn format_time(value: Option<f64>, unit: &str) -> String {
    match value {
        Some(value) if value.is_finite() => format!("{value:.*} {unit}", decimals_for(value)),
        _ => "NA".to_owned(),
    }
}

pub fn format_ratio(value: Option<f64>) -> String {
    value.map_or_else(|| "?".to_owned(), |value| format!("{value:.2}"))
}

/// Bytes as BenchmarkDotNet prints them: B below 1 KB, else KB or MB of 1024.
pub fn format_bytes(bytes: f64) -> String {
    if bytes < 1024.0 {
        format!("{bytes:.0} B")
    } else if bytes < 1024.0 * 1024.0 {
        format!("{:.2} KB", bytes / 1024.0)
    } else {
        format!("{:.2} MB", bytes / (1024.0 * 1024.0))
    }
}

pub fn format_count(value: f64) -> String {
    format!("{value:.1}")
}

/// Milliseconds to three significant digits or more: whole from 100 ms, then one, two or
/// three decimals as the value gets smaller ("25299 ms", "51.2 ms", "1.89 ms", "0.067 ms");
/// "NA" for a figure that cannot be computed.
pub fn format_ms(value: Option<f64>) -> String {
    match value {
        Some(value) if value.is_finite() => {
            let decimals = match value.abs() {
                size if size >= 100.0 => 0,
                size if size >= 10.0 => 1,
                size if size >= 1.0 => 2,
                _ => 3,
            };
            format!("{value:.decimals$} ms")
        }
        _ => "NA".to_owned(),
    }
}

/// Microseconds as [`format_ms`] writes milliseconds.
pub fn format_us_as_ms(micros: Option<f64>) -> String {
    format_ms(micros.map(|micros| micros / 1_000.0))
}

/// A figure that may be missing: `show` it, else "NA".
pub fn optional<T>(value: Option<T>, show: impl FnOnce(T) -> String) -> String {
    value.map_or_else(|| "NA".to_owned(), show)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_figures() {
        assert_eq!(format_time(Some(72.4123), "us"), "72.412 us");
        let micros = TimeFormat::for_smallest_ns(61_234.0);
        assert_eq!(micros.format_ns(Some(61_234.0)), "61.234 us");
        assert_eq!(micros.format_us(Some(1_234.5)), "1234.500 us");
        assert_eq!(micros.format_ns(None), "NA");
        let nanos = TimeFormat::for_means_ns([Some(812.34), None, Some(9_000.0)]);
        assert_eq!(nanos.format_ns(Some(9_000.0)), "9000.00 ns");
        let large = TimeFormat::for_means_ns([Some(8_047.5), Some(11_447.49)]);
        assert_eq!(large.format_ns(Some(11_447.49)), "11.447 us");
        assert_eq!(format_time(Some(156.25), "us"), "156.25 us");
        assert_eq!(format_time(Some(21_034.56), "ns"), "21034.6 ns");
        assert_eq!(format_time(None, "us"), "NA");
        assert_eq!(format_bytes(912.0), "912 B");
        assert_eq!(format_bytes(39_034.0), "38.12 KB");
        assert_eq!(format_ratio(Some(1.0)), "1.00");
        assert_eq!(format_ratio(None), "?");
    }

    #[test]
    fn milliseconds_keep_three_significant_digits() {
        assert_eq!(format_ms(Some(14_940.4)), "14940 ms");
        assert_eq!(format_ms(Some(51.25)), "51.2 ms");
        assert_eq!(format_ms(Some(3.25)), "3.25 ms");
        assert_eq!(format_ms(Some(0.0671)), "0.067 ms");
        assert_eq!(format_ms(None), "NA");
        assert_eq!(format_us_as_ms(Some(1_893.4)), "1.89 ms");
        assert_eq!(optional(Some(3), |n| n.to_string()), "3");
        assert_eq!(optional(None::<u64>, |n| n.to_string()), "NA");
    }
}
