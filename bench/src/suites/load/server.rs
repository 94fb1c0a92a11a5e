//! What the api child did during a scenario: its CPU time (its clock, see
//! [`crate::process_cpu`]) and peak memory, read from /proc, and
//! how well its clients reused their connections to mock-rates. Every reading is best effort:
//! `None` when the process is not ours (an external api) or the file cannot be read.

use std::fs;
use std::time::{Duration, Instant};

use crate::process_cpu::ProcessCpu;

/// Clock ticks per second, the unit of utime and stime in /proc/<pid>/stat.
fn clock_ticks_per_second() -> f64 {
    match nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK) {
        Ok(Some(ticks)) if ticks > 0 => ticks as f64,
        // USER_HZ is 100 on every mainstream Linux architecture.
        _ => 100.0,
    }
}

/// utime + stime, in clock ticks, from the text of /proc/<pid>/stat. The command name (field 2)
/// is in parentheses and may hold spaces, so fields are counted after the last ')': state is
/// field 3, utime field 14 and stime field 15.
pub fn cpu_ticks(stat: &str) -> Option<u64> {
    let (_, after_name) = stat.rsplit_once(')')?;
    let mut fields = after_name.split_whitespace().skip(14 - 3);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

/// The peak resident set size in KiB (`VmHWM`), from the text of /proc/<pid>/status.
pub fn peak_rss_kib(status: &str) -> Option<u64> {
    status_kib(status, "VmHWM:")
}

/// The resident set size now, in KiB (`VmRSS`).
pub fn rss_kib(status: &str) -> Option<u64> {
    status_kib(status, "VmRSS:")
}

fn status_kib(status: &str, field: &str) -> Option<u64> {
    status.lines().find_map(|line| {
        let value = line.strip_prefix(field)?;
        value.trim().strip_suffix("kB")?.trim().parse().ok()
    })
}

/// The text of /proc/<pid>/status, for [`rss_kib`] and [`peak_rss_kib`].
pub fn read_status(pid: u32) -> Option<String> {
    fs::read_to_string(format!("/proc/{pid}/status")).ok()
}

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
        let peak_reset =
            pid.is_some_and(|pid| fs::write(format!("/proc/{pid}/clear_refs"), "5").is_ok());
        Self {
            pid,
            cpu,
            cpu_nanos_before: cpu.and_then(ProcessCpu::nanos),
            peak_reset,
            rss_before_kib: pid.and_then(read_status).as_deref().and_then(rss_kib),
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
            Some(pid) if self.peak_reset => read_status(pid).as_deref().and_then(peak_rss_kib),
            _ => None,
        };
        (cpu, peak)
    }
}

/// A process is idle once it uses at most this share of one CPU over a [`SETTLE_WINDOW`].
const IDLE_SHARE: f64 = 0.1;
const SETTLE_WINDOW: Duration = Duration::from_millis(100);

/// Waits, at most `limit`, until process `pid` is idle (work left over from a scenario, such as
/// calls still running after their requests timed out, would otherwise fall on the next one),
/// and returns how long it stayed busy: `Some(ZERO)` when it was idle at once, `None` when
/// it cannot be read or was still busy at `limit`.
pub fn settle(pid: u32, limit: Duration) -> Option<Duration> {
    let started = Instant::now();
    let idle_ticks = IDLE_SHARE * SETTLE_WINDOW.as_secs_f64() * clock_ticks_per_second();
    let mut before = read_cpu_ticks(pid)?;
    loop {
        std::thread::sleep(SETTLE_WINDOW);
        let now = read_cpu_ticks(pid)?;
        if (now.saturating_sub(before) as f64) <= idle_ticks {
            return Some(started.elapsed().saturating_sub(SETTLE_WINDOW));
        }
        if started.elapsed() >= limit {
            return None;
        }
        before = now;
    }
}

fn read_cpu_ticks(pid: u32) -> Option<u64> {
    cpu_ticks(&fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
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
    fn reads_cpu_ticks_after_the_command_name() {
        // A command name with spaces and a parenthesis; utime 1234, stime 56.
        let stat = "4242 (bench (api) x) S 1 4242 4242 0 -1 4194560 900 0 0 0 1234 56 0 0 \
                    20 0 5 0 100 1000000 500 18446744073709551615";
        assert_eq!(cpu_ticks(stat), Some(1290));
        assert_eq!(cpu_ticks("4242 (api) S 1 2"), None);
        assert_eq!(cpu_ticks("no parenthesis"), None);
    }

    #[test]
    fn reads_the_peak_rss() {
        let status = "Name:\tbench\nVmPeak:\t  200000 kB\nVmHWM:\t   12345 kB\nVmRSS:\t 9000 kB\n";
        assert_eq!(rss_kib(status), Some(9000));
        assert_eq!(peak_rss_kib(status), Some(12_345));
        assert_eq!(peak_rss_kib("Name:\tbench\n"), None);
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
