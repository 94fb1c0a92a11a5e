//! A client's samples made into its row of the report, and the minimal client's calibration
//! row.

use crate::suites::latency::sampled::{ClientRun, Sampled};
use crate::suites::tls;
use bench_model::stats::quantile::{median, median_of, percentile_nearest_rank};
use bench_model::stats::summary::{SampleSummary, ratio_mean_sd};
use bench_model::{BareFigures, CalibrationRow, Decode, LatencyRow, NotCounted, Protocol};

/// Which part of the suite a measurement is: the whole (pinned, when the run pins), the
/// unpinned check (http only, fewer samples, one round, no bare calls, no calibration), or a
/// larger answer of so many bytes (http only, as pinned as the whole, no bare calls, no
/// calibration, fewer calls the larger the answer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Part {
    Pinned,
    Unpinned,
    Body(u64),
}

impl Part {
    /// The answer bytes a sample of the ordinary answer's calls moves, about: a larger answer
    /// gets as many calls per sample as move as many bytes, at least `floor`.
    const SAMPLE_BYTES: u64 = 1_000 * 4_096;

    /// `calls` (per sample, or of the warm-up) for this part: fewer for a larger answer, so
    /// that a sample takes about as long whatever the answer's size.
    pub(super) fn calls(self, calls: u32, floor: u32) -> u32 {
        match self {
            Self::Body(bytes) => {
                let scaled = u64::from(calls) * Self::SAMPLE_BYTES / 1_000 / bytes.max(1);
                u32::try_from(scaled)
                    .unwrap_or(calls)
                    .clamp(floor, calls.max(floor))
            }
            Self::Pinned | Self::Unpinned => calls,
        }
    }

    /// The base URL of `base`'s answers for this part: mock-rates' `/size/N` for a body.
    pub(super) fn base_url(self, base: &str) -> String {
        match self {
            Self::Body(bytes) => format!("{}/size/{bytes}", base.trim_end_matches('/')),
            Self::Pinned | Self::Unpinned => base.to_owned(),
        }
    }

    /// The answer's size, for a body.
    pub(super) fn body_bytes(self) -> Option<u64> {
        match self {
            Self::Body(bytes) => Some(bytes),
            Self::Pinned | Self::Unpinned => None,
        }
    }
}

/// `run`'s row over `protocol`, against the foreign upstream at the URL given with it, if one.
pub(super) fn summarize(
    run: &ClientRun,
    baseline: Option<&[Option<f64>]>,
    (protocol, foreign, decode): (Protocol, Option<&str>, Decode),
    which: Part,
) -> LatencyRow {
    let (port, bare) = (&run.port, &run.bare);
    // A row over TLS that mock-rates did not count as such is not a figure; the run goes on.
    // Against a foreign upstream nothing is counted: the row says so, and what was checked.
    let not_measured = foreign.map(|url| NotCounted::ForeignUpstream {
        url: url.to_owned(),
    });
    let (tls, unchecked) = if protocol.is_tls() && not_measured.is_none() {
        match tls::negotiated(run.name, protocol, port.counted) {
            Ok(negotiated) => (Some(negotiated), None),
            Err(why) => (None, Some(why)),
        }
    } else {
        (None, None)
    };
    let to_us = |nanos: f64| nanos / 1_000.0;
    let noise = run.noise().in_unit(to_us);
    let summary = SampleSummary::of(&port.successful());
    let mut sorted: Vec<f64> = run.call_ns.iter().map(|&nanos| nanos as f64).collect();
    sorted.sort_by(f64::total_cmp);
    let ratio = baseline.and_then(|baseline| ratio_mean_sd(&port.sample_means_ns, baseline));
    let bare_figures = (which == Part::Pinned).then(|| {
        let bare_summary = SampleSummary::of(&bare.successful());
        let overhead = ratio_mean_sd(&port.sample_means_ns, &bare.sample_means_ns);
        BareFigures {
            calls: bare.calls,
            failures: bare.failures,
            mean_us: bare_summary.map(|s| to_us(s.mean)),
            error_us: bare_summary.and_then(|s| s.error).map(to_us),
            overhead: overhead.map(|(mean, _)| mean),
            overhead_sd: overhead.map(|(_, sd)| sd),
            allocs_per_op: bare.per_call(bare.allocated.allocations),
            bytes_per_op: bare.per_call(bare.allocated.bytes),
            connections_opened: bare.counted.map(|counted| counted.connections),
            sample_means_us: bare.sample_means_us(),
            first_error: bare.first_error.clone(),
        }
    });
    LatencyRow {
        client: run.name,
        protocol,
        body_bytes: which.body_bytes(),
        decode,
        tls,
        calls: port.calls,
        failures: port.failures,
        mean_us: summary.map(|s| to_us(s.mean)),
        error_us: summary.and_then(|s| s.error).map(to_us),
        stddev_us: summary.and_then(|s| s.std_dev).map(to_us),
        median_us: median(&sorted).map(to_us),
        p99_us: percentile_nearest_rank(&sorted, 99.0).map(to_us),
        ratio: ratio.map(|(mean, _)| mean),
        ratio_sd: ratio.map(|(_, sd)| sd),
        allocs_per_op: port.per_call(port.allocated.allocations),
        bytes_per_op: port.per_call(port.allocated.bytes),
        connections_opened: port.counted.map(|counted| counted.connections),
        sample_means_us: port.sample_means_us(),
        first_error: port.first_error.clone(),
        noise: Some(noise),
        bare: bare_figures,
        round_means_us: port.round_means_us(),
        round_allocs_per_op: port.round_allocs.clone(),
        mock_cpu_us: port.mock_cpu_us(),
        peak_bytes: run.peak_bytes.as_deref().and_then(|peaks| {
            let peaks: Vec<f64> = peaks.iter().map(|&bytes| bytes as f64).collect();
            median_of(&peaks)
        }),
        unchecked,
        not_measured,
    }
}

/// The minimal client's row over `protocol`.
pub(super) fn calibration_row(protocol: Protocol, sampled: &Sampled) -> CalibrationRow {
    let summary = SampleSummary::of(&sampled.successful());
    let to_us = |nanos: f64| nanos / 1_000.0;
    CalibrationRow {
        protocol,
        calls: sampled.calls,
        failures: sampled.failures,
        mean_us: summary.map(|s| to_us(s.mean)),
        error_us: summary.and_then(|s| s.error).map(to_us),
        round_means_us: sampled.round_means_us(),
        // Per call, the mock's CPU means something only when every call was answered.
        mock_cpu_us: sampled.mock_cpu_us().filter(|_| sampled.failures == 0),
        first_error: sampled.first_error.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_larger_answer_gets_fewer_calls_and_its_own_path() {
        assert_eq!(Part::Pinned.calls(1_000, 10), 1_000);
        assert_eq!(Part::Body(16 * 1024).calls(1_000, 10), 250);
        assert_eq!(Part::Body(1024 * 1024).calls(1_000, 10), 10, "the floor");
        assert_eq!(
            Part::Body(100).calls(1_000, 10),
            1_000,
            "never more than asked"
        );
        assert_eq!(Part::Body(1024 * 1024).calls(200, 5), 5);
        assert_eq!(
            Part::Body(16_384).base_url("http://127.0.0.1:1/"),
            "http://127.0.0.1:1/size/16384"
        );
        assert_eq!(Part::Unpinned.base_url("http://h:1"), "http://h:1");
        assert_eq!(Part::Body(7).body_bytes(), Some(7));
    }
}
