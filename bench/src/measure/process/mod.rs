//! One process, by its pid, read from /proc (Linux): its CPU time (a clock of its own, see
//! [`ProcessCpu`], and the coarse ticks of `/proc/<pid>/stat` that [`settle`] watches), its
//! memory and threads ([`Status`]), its descriptors and TCP sockets ([`Descriptors`]). Every
//! reading is best effort: the process may be gone, or not the bench's.

mod cpu;
mod fds;

use std::fs;
use std::io;
use std::time::{Duration, Instant};

pub use cpu::{LIMIT_PERIOD_US, ProcessCpu, remove_own_groups};
pub use fds::{Descriptors, FdReading, TCP_CLOSE_WAIT, TCP_ESTABLISHED, TcpSocket, read_fds};

/// What `/proc/<pid>/status` says of a process's memory and threads; a field it lacks is
/// `None`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Status {
    /// The resident set size now, in KiB (`VmRSS`).
    pub rss_kib: Option<u64>,
    /// The peak resident set size, in KiB (`VmHWM`): since the process started or since
    /// [`reset_peak_rss`].
    pub peak_rss_kib: Option<u64>,
    /// The anonymous resident memory, in KiB (`RssAnon`): heap and stacks, what a cgroup's
    /// memory limit charges for them.
    pub rss_anon_kib: Option<u64>,
    /// The threads (`Threads`).
    pub threads: Option<u64>,
}

impl Status {
    /// Reads `/proc/<pid>/status`.
    pub fn read(pid: u32) -> io::Result<Self> {
        let status = fs::read_to_string(format!("/proc/{pid}/status"))?;
        Ok(Self::parse(&status))
    }

    /// The fields from the text of a `/proc/<pid>/status`: the first figure after each name
    /// (sizes are in kB).
    pub fn parse(status: &str) -> Self {
        let field = |name: &str| {
            status
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|value| value.parse::<u64>().ok())
        };
        Self {
            rss_kib: field("VmRSS:"),
            peak_rss_kib: field("VmHWM:"),
            rss_anon_kib: field("RssAnon:"),
            threads: field("Threads:"),
        }
    }
}

/// Resets the process's peak RSS (`VmHWM`) to its current RSS (`5` to `clear_refs`); `false`
/// when that is refused (a process not the bench's user's, no /proc).
pub fn reset_peak_rss(pid: u32) -> bool {
    fs::write(format!("/proc/{pid}/clear_refs"), "5").is_ok()
}

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

fn read_cpu_ticks(pid: u32) -> Option<u64> {
    cpu_ticks(&fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn reads_the_memory_and_threads_of_a_status() {
        let status = "Name:\tbench\nVmPeak:\t  200000 kB\nVmHWM:\t   12345 kB\nVmRSS:\t 9000 kB\n\
                      RssAnon:\t    4000 kB\nRssFile:\t    5000 kB\nThreads:\t7\n";
        assert_eq!(
            Status::parse(status),
            Status {
                rss_kib: Some(9000),
                peak_rss_kib: Some(12_345),
                rss_anon_kib: Some(4000),
                threads: Some(7),
            }
        );
        assert_eq!(Status::parse("Name:\tbench\n"), Status::default());
    }
}
