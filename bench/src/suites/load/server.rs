//! What the api child did during a scenario: its CPU time (its clock, see
//! [`ProcessCpu`]) and peak memory, read through [`crate::measure::process`], and
//! how well its clients reused their connections to mock-rates. Every reading is best effort:
//! `None` when the process is not ours (an external api) or the file cannot be read.

use crate::measure::process::{ProcessCpu, Status, reset_peak_rss};

/// The most connections the service's pool may hold to its upstream: `rates.max_connections`
/// (per worker, from `GET /clients`) times the actix workers, `APP__SERVER__WORKERS` as the
/// bench passes it on to its api child, or one per CPU (actix's default, and the api's when the
/// setting is 0).
pub fn pool_bound(max_connections: u64, workers_setting: Option<&str>, cpus: u64) -> u64 {
    let workers = workers_setting
        .and_then(|workers| workers.trim().parse::<u64>().ok())
        .filter(|&workers| workers > 0)
        .unwrap_or(cpus);
    max_connections * workers
}

/// The readings of one process taken before a scenario (or a round of it).
#[derive(Debug)]
pub struct ProcessProbe<'a> {
    pid: Option<u32>,
    cpu: Option<&'a ProcessCpu>,
    cpu_nanos_before: Option<u64>,
    peak_reset: bool,
    /// The resident set size when the scenario started, in KiB: what earlier scenarios of the
    /// same process left allocated is in every peak after them.
    pub rss_before_kib: Option<u64>,
}

impl<'a> ProcessProbe<'a> {
    /// Resets the process's peak RSS to its current RSS (`5` to clear_refs) and reads its CPU
    /// clock, when it has one.
    pub fn start(pid: Option<u32>, cpu: Option<&'a ProcessCpu>) -> Self {
        let peak_reset = pid.is_some_and(reset_peak_rss);
        Self {
            pid,
            cpu,
            cpu_nanos_before: cpu.and_then(ProcessCpu::nanos),
            peak_reset,
            rss_before_kib: pid.and_then(|pid| Status::read(pid).ok()?.rss_kib),
        }
    }

    /// The CPU seconds used since [`ProcessProbe::start`], and the peak RSS (KiB) in between.
    /// The peak is `None` if it could not be reset at the start: it would be the process's
    /// lifetime peak, not the scenario's.
    pub fn finish(&self) -> (Option<f64>, Option<u64>) {
        let cpu = self
            .cpu_nanos_before
            .zip(self.cpu.and_then(ProcessCpu::nanos))
            .and_then(|(before, after)| after.checked_sub(before))
            .map(|nanos| nanos as f64 / 1e9);
        let peak = match self.pid {
            Some(pid) if self.peak_reset => Status::read(pid)
                .ok()
                .and_then(|status| status.peak_rss_kib),
            _ => None,
        };
        (cpu, peak)
    }
}

/// Upstream calls per new connection: how many requests each connection the api opened to the
/// mock carried. `None` without calls, or when every call reused a connection opened before
/// the scenario (the ratio is unbounded; the row shows 0 connections).
pub fn reuse_ratio(upstream_calls: u64, connections: u64) -> Option<f64> {
    (upstream_calls > 0 && connections > 0).then(|| upstream_calls as f64 / connections as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_bound_is_per_worker_times_the_workers() {
        assert_eq!(pool_bound(100, Some("3"), 2), 300);
        assert_eq!(pool_bound(100, Some("0"), 2), 200);
        assert_eq!(pool_bound(100, Some("many"), 2), 200);
        assert_eq!(pool_bound(100, None, 4), 400);
    }

    #[test]
    fn reads_this_process_peak_and_nothing_without_a_process() {
        let probe = ProcessProbe::start(Some(std::process::id()), None);
        let (cpu, peak) = probe.finish();
        assert_eq!(cpu, None, "no clock given");
        assert!(peak.is_some_and(|kib| kib > 0), "{peak:?}");
        assert_eq!(ProcessProbe::start(None, None).finish(), (None, None));
    }

    #[test]
    fn reuse_ratio_is_calls_per_connection() {
        assert_eq!(reuse_ratio(4800, 2), Some(2400.0));
        assert_eq!(reuse_ratio(4800, 4800), Some(1.0));
        assert_eq!(reuse_ratio(4800, 0), None);
        assert_eq!(reuse_ratio(0, 0), None);
    }
}
