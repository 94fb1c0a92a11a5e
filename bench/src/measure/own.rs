//! The CPU time of the bench process, every thread of it, user and system apart, from
//! `getrusage(RUSAGE_SELF)`: what a suite reads before and after each sample (and, from
//! `RUSAGE_CHILDREN`, what its waited-for children spent). The servers run in processes of
//! their own and are not in it. Linux gives the sum to the microsecond (from
//! the scheduler's own account); the split between user and system is its estimate from
//! sampling at clock ticks, so over a short span only the sum is exact.

use std::time::Duration;

use nix::sys::resource::{UsageWho, getrusage};
use nix::sys::time::TimeVal;

/// The process's CPU time at one instant, since it started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuTime {
    pub user: Duration,
    pub system: Duration,
}

impl CpuTime {
    /// Now; `None` if the kernel refuses (it does not for RUSAGE_SELF).
    pub fn now() -> Option<Self> {
        Self::of(UsageWho::RUSAGE_SELF)
    }

    /// What the process's children that have ended and been waited for spent, with their own
    /// waited-for children (RUSAGE_CHILDREN): a build's compilers, for one.
    pub fn children() -> Option<Self> {
        Self::of(UsageWho::RUSAGE_CHILDREN)
    }

    fn of(who: UsageWho) -> Option<Self> {
        let usage = getrusage(who).ok()?;
        Some(Self {
            user: duration(usage.user_time()),
            system: duration(usage.system_time()),
        })
    }

    /// What was spent between `earlier` and `self`.
    #[must_use]
    pub fn since(self, earlier: Self) -> Self {
        Self {
            user: self.user.saturating_sub(earlier.user),
            system: self.system.saturating_sub(earlier.system),
        }
    }

    /// The sum of two spans.
    #[must_use]
    pub fn plus(self, more: Self) -> Self {
        Self {
            user: self.user + more.user,
            system: self.system + more.system,
        }
    }

    pub fn total(self) -> Duration {
        self.user + self.system
    }
}

/// A `timeval` (microseconds) as a `Duration`; a negative field, which the kernel never
/// gives, as zero.
fn duration(time: TimeVal) -> Duration {
    let seconds = u64::try_from(time.tv_sec()).unwrap_or(0);
    let micros = u64::try_from(time.tv_usec()).unwrap_or(0);
    Duration::from_secs(seconds) + Duration::from_micros(micros)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This thread's CPU time (RUSAGE_THREAD), which only its own work moves.
    fn this_thread() -> CpuTime {
        CpuTime::of(UsageWho::RUSAGE_THREAD).unwrap()
    }

    // The work is counted in this thread's own CPU time, not in wall time: on a loaded machine
    // 30 ms of wall time can hold 3 ms of CPU. The process's CPU time holds this thread's and
    // every other thread's, so it is at least what this thread spent, whatever they do.
    #[test]
    fn work_shows_as_cpu_time() {
        let before = CpuTime::now().unwrap();
        let thread_before = this_thread();
        let mut sum = 0_u64;
        while this_thread().since(thread_before).total() < Duration::from_millis(20) {
            for _ in 0..10_000 {
                sum = std::hint::black_box(sum.wrapping_add(1));
            }
        }
        let thread_spent = this_thread().since(thread_before);
        let spent = CpuTime::now().unwrap().since(before);
        assert!(thread_spent.total() >= Duration::from_millis(20));
        // Each reading's user and system parts are cut to the microsecond apart.
        let truncation = Duration::from_micros(4);
        assert!(
            spent.total() + truncation >= thread_spent.total(),
            "{spent:?} < {thread_spent:?}"
        );
        assert_eq!(spent.plus(spent).total(), spent.total() * 2);
        assert_eq!(before.since(before.plus(spent)), CpuTime::default());
    }
}
