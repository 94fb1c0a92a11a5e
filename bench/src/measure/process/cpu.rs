//! The CPU time of a server the bench started, every thread of it, to the nanosecond where the
//! machine allows. /proc/<pid>/stat counts in clock ticks (10 ms), which a few hundred
//! payments turn into a figure that moves in steps of a tick; so the bench puts each server
//! in a cgroup of its own and reads the kernel's own account of it (cgroup v1's
//! `cpuacct.usage`, v2's `cpu.stat` `usage_usec`), which also keeps the time of threads that
//! have ended. Where it cannot make one (not root, no cgroup file system), it sums
//! `/proc/<pid>/task/*/schedstat` (nanoseconds, but only threads still alive), and says which.

use std::fs;
use std::path::{Path, PathBuf};

/// cgroup v1's cpuacct hierarchy, as Debian mounts it.
const V1_CPUACCT: &str = "/sys/fs/cgroup/cpuacct";
/// cgroup v1's cpu hierarchy: CFS quotas.
const V1_CPU: &str = "/sys/fs/cgroup/cpu";
/// The CFS period a container's CPU limit is a share of, as Kubernetes sets it (100 ms).
pub const LIMIT_PERIOD_US: u64 = 100_000;
/// cgroup v2's unified hierarchy: alone at /sys/fs/cgroup, or beside v1 (hybrid).
const V2_ROOTS: [&str; 2] = ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"];

/// Where a process's CPU time is read from.
#[derive(Debug)]
enum Source {
    /// A cgroup v1 cpuacct group of the bench's own: `cpuacct.usage`, in ns.
    CgroupV1(PathBuf),
    /// A cgroup v2 group of the bench's own: `cpu.stat`'s `usage_usec`.
    CgroupV2(PathBuf),
    /// The sum of the live threads' schedstat, in ns.
    Threads,
}

/// One process's CPU clock, and the CPU quota it may be held to; dropping it moves the process
/// back to the root groups (if it still runs) and removes the groups.
#[derive(Debug)]
pub struct ProcessCpu {
    pid: u32,
    source: Source,
    /// cgroup v1: the cpu group holding the quota (v2 keeps it in the clock's group).
    quota_group: Option<PathBuf>,
}

impl ProcessCpu {
    /// A clock for `pid`: a cgroup named after the bench and `name` when one can be made, else
    /// the threads' schedstat.
    pub fn attach(pid: u32, name: &str) -> Self {
        let group = format!("rest-libraries-{}-{name}-{pid}", std::process::id());
        let source = attach_v1(pid, &group)
            .map(Source::CgroupV1)
            .or_else(|| attach_v2(pid, &group).map(Source::CgroupV2))
            .unwrap_or(Source::Threads);
        Self {
            pid,
            source,
            quota_group: None,
        }
    }

    /// Holds the process to `cpus` CPUs (1.0, 0.5) by a CFS quota of `cpus` x `period_us` per
    /// period of `period_us` (cgroup v1 `cpu.cfs_quota_us`, v2 `cpu.max`): a container's CPU
    /// limit with [`LIMIT_PERIOD_US`]; a quota set before is replaced. Fails, saying why, where
    /// no cgroup could be made (not root, no cgroup file system).
    pub fn limit(&mut self, cpus: f64, period_us: u64) -> Result<(), String> {
        if !(cpus.is_finite() && cpus > 0.0) {
            return Err(format!(
                "a CPU quota must be a positive number of CPUs, not {cpus}"
            ));
        }
        let period_us = period_us.clamp(1_000, 1_000_000);
        let quota_us = ((cpus * period_us as f64).round() as u64).max(1_000);
        let write = |path: PathBuf, value: String| {
            fs::write(&path, &value).map_err(|error| format!("{}: {error}", path.display()))
        };
        // cgroup v1 checks a new period against the quota in force: lift it first.
        let lift = |group: &Path| write(group.join("cpu.cfs_quota_us"), "-1".to_owned());
        match &self.source {
            Source::CgroupV2(dir) => {
                // The cpu controller must be on for the groups under the root.
                if let Some(root) = dir.parent() {
                    let _ = fs::write(root.join("cgroup.subtree_control"), "+cpu");
                }
                write(dir.join("cpu.max"), format!("{quota_us} {period_us}"))
            }
            Source::CgroupV1(clock) => {
                let root = Path::new(V1_CPU);
                if !root.join("cpu.cfs_quota_us").is_file() {
                    return Err(format!("no cgroup v1 cpu controller at {V1_CPU}"));
                }
                // Where cpu and cpuacct are one hierarchy (`cpu,cpuacct`), the clock's group
                // holds the quota too: a group of its own would take the process out of it.
                if fs::canonicalize(root).ok() == fs::canonicalize(V1_CPUACCT).ok() {
                    lift(clock)?;
                    write(clock.join("cpu.cfs_period_us"), period_us.to_string())?;
                    return write(clock.join("cpu.cfs_quota_us"), quota_us.to_string());
                }
                let group = root.join(format!(
                    "rest-libraries-{}-quota-{}",
                    std::process::id(),
                    self.pid
                ));
                if !group.is_dir() {
                    fs::create_dir(&group)
                        .map_err(|error| format!("{}: {error}", group.display()))?;
                }
                self.quota_group = Some(group.clone());
                lift(&group)?;
                write(group.join("cpu.cfs_period_us"), period_us.to_string())?;
                write(group.join("cpu.cfs_quota_us"), quota_us.to_string())?;
                write(group.join("cgroup.procs"), self.pid.to_string())
            }
            Source::Threads => Err(
                "no cgroup of the bench's own could be made for the process (root and a cgroup \
                 file system are needed), so no CPU quota"
                    .to_owned(),
            ),
        }
    }

    /// Lifts the quota [`ProcessCpu::limit`] set, if any: the process may use every CPU again.
    pub fn unlimit(&mut self) -> Result<(), String> {
        let write = |path: PathBuf, value: &str| {
            fs::write(&path, value).map_err(|error| format!("{}: {error}", path.display()))
        };
        match (&self.source, &self.quota_group) {
            (_, Some(group)) => write(group.join("cpu.cfs_quota_us"), "-1"),
            (Source::CgroupV1(clock), None) if clock.join("cpu.cfs_quota_us").is_file() => {
                write(clock.join("cpu.cfs_quota_us"), "-1")
            }
            (Source::CgroupV2(dir), None) if dir.join("cpu.max").is_file() => {
                write(dir.join("cpu.max"), &format!("max {LIMIT_PERIOD_US}"))
            }
            _ => Ok(()),
        }
    }

    /// The process's CPU time so far (user and system, every thread), in nanoseconds; `None`
    /// when it cannot be read.
    pub fn nanos(&self) -> Option<u64> {
        match &self.source {
            Source::CgroupV1(dir) => fs::read_to_string(dir.join("cpuacct.usage"))
                .ok()?
                .trim()
                .parse()
                .ok(),
            Source::CgroupV2(dir) => {
                usage_usec(&fs::read_to_string(dir.join("cpu.stat")).ok()?).map(|us| us * 1_000)
            }
            Source::Threads => threads_nanos(self.pid),
        }
    }

    /// How the clock reads, for the report.
    pub fn method(&self) -> &'static str {
        match self.source {
            Source::CgroupV1(_) => "a cgroup of its own (cgroup v1 cpuacct.usage, ns)",
            Source::CgroupV2(_) => "a cgroup of its own (cgroup v2 cpu.stat, us)",
            Source::Threads => {
                "the sum of /proc/<pid>/task/*/schedstat (ns; threads that ended are not counted)"
            }
        }
    }
}

impl Drop for ProcessCpu {
    fn drop(&mut self) {
        if let Some(group) = self.quota_group.take() {
            let _ = fs::write(Path::new(V1_CPU).join("cgroup.procs"), self.pid.to_string());
            let _ = fs::remove_dir(group);
        }
        let (dir, root) = match &self.source {
            Source::CgroupV1(dir) => (dir, PathBuf::from(V1_CPUACCT)),
            Source::CgroupV2(dir) => match dir.parent() {
                Some(root) => (dir, root.to_path_buf()),
                None => return,
            },
            Source::Threads => return,
        };
        // Still running: back to the root group, or the directory cannot go.
        let _ = fs::write(root.join("cgroup.procs"), self.pid.to_string());
        let _ = fs::remove_dir(dir);
    }
}

/// Removes the groups this process made, for a bench stopped by a signal, whose clocks are
/// never dropped: called once its children were stopped and reaped, so the groups are empty.
pub fn remove_own_groups() {
    let prefix = format!("rest-libraries-{}-", std::process::id());
    for root in [V1_CPUACCT, V1_CPU].into_iter().chain(V2_ROOTS) {
        let Ok(entries) = fs::read_dir(root) else {
            continue;
        };
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = fs::remove_dir(entry.path());
            }
        }
    }
}

fn attach_v1(pid: u32, group: &str) -> Option<PathBuf> {
    let root = Path::new(V1_CPUACCT);
    if !root.join("cpuacct.usage").is_file() {
        return None;
    }
    join(root.join(group), pid)
}

fn attach_v2(pid: u32, group: &str) -> Option<PathBuf> {
    let root = V2_ROOTS
        .iter()
        .map(Path::new)
        .find(|root| root.join("cgroup.controllers").is_file())?;
    join(root.join(group), pid)
}

/// Makes `dir` and moves `pid` (all its threads) into it; `None`, leaving nothing behind, if
/// either fails.
fn join(dir: PathBuf, pid: u32) -> Option<PathBuf> {
    fs::create_dir(&dir).ok()?;
    if fs::write(dir.join("cgroup.procs"), pid.to_string()).is_err() {
        let _ = fs::remove_dir(&dir);
        return None;
    }
    Some(dir)
}

/// `usage_usec` from the text of a cgroup v2 `cpu.stat`.
fn usage_usec(stat: &str) -> Option<u64> {
    stat.lines()
        .find_map(|line| line.strip_prefix("usage_usec "))
        .and_then(|value| value.trim().parse().ok())
}

/// The time on CPU of every live thread of `pid`: the first field of each
/// `/proc/<pid>/task/<tid>/schedstat`.
fn threads_nanos(pid: u32) -> Option<u64> {
    let tasks = fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut total = 0_u64;
    for task in tasks.flatten() {
        let Ok(text) = fs::read_to_string(task.path().join("schedstat")) else {
            continue;
        };
        total += text
            .split_whitespace()
            .next()
            .and_then(|nanos| nanos.parse::<u64>().ok())
            .unwrap_or(0);
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_usage_from_a_v2_cpu_stat() {
        let stat = "usage_usec 1234567\nuser_usec 1000000\nsystem_usec 234567\n";
        assert_eq!(usage_usec(stat), Some(1_234_567));
        assert_eq!(usage_usec("user_usec 5\n"), None);
    }

    #[test]
    fn a_busy_process_of_our_own_has_a_clock_that_moves() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .spawn()
            .expect("sh runs");
        let clock = ProcessCpu::attach(child.id(), "test");
        let first = clock.nanos();
        std::thread::sleep(std::time::Duration::from_millis(50));
        let second = clock.nanos();
        let _ = child.kill();
        let _ = child.wait();
        drop(clock);
        let (Some(first), Some(second)) = (first, second) else {
            panic!("unread: {first:?}, {second:?}");
        };
        assert!(second > first, "{first} then {second}");
    }

    #[test]
    fn a_quota_holds_a_busy_process_to_its_share_of_a_cpu() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .spawn()
            .expect("sh runs");
        let mut clock = ProcessCpu::attach(child.id(), "quota-test");
        assert!(clock.limit(0.0, LIMIT_PERIOD_US).is_err());
        // A budget with a short period first, then replaced by a container's limit.
        let limited = clock
            .limit(0.5, bench_model::BUDGET_PERIOD_US)
            .and_then(|()| clock.limit(0.2, LIMIT_PERIOD_US));
        // Measured over a second of wall time: a free busy loop takes about a whole CPU.
        let first = clock.nanos();
        std::thread::sleep(std::time::Duration::from_secs(1));
        let second = clock.nanos();
        let lifted = clock.unlimit();
        let _ = child.kill();
        let _ = child.wait();
        drop(clock);
        assert_eq!(lifted, Ok(()), "the quota is lifted as it was set");
        match limited {
            // 0.2 CPU for a second is 200 ms; the CFS period (100 ms) can let one more through.
            Ok(()) => {
                let used = second.zip(first).map(|(b, a)| b - a);
                assert!(
                    used.is_some_and(|nanos| nanos < 400_000_000),
                    "{used:?} ns in a second under a 0.2 CPU quota"
                );
            }
            Err(why) => assert!(why.contains("cgroup"), "{why}"),
        }
    }
}
