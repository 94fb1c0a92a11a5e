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

    #[test]
    fn work_shows_as_cpu_time() {
        let before = CpuTime::now().unwrap();
        let start = std::time::Instant::now();
        let mut sum = 0_u64;
        while start.elapsed() < Duration::from_millis(30) {
            sum = std::hint::black_box(sum.wrapping_add(1));
        }
        let spent = CpuTime::now().unwrap().since(before);
        // Other test threads may add to it, so only a lower bound holds (at tick precision).
        assert!(spent.total() >= Duration::from_millis(10), "{spent:?}");
        assert_eq!(spent.plus(spent).total(), spent.total() * 2);
        assert_eq!(before.since(before.plus(spent)), CpuTime::default());
    }
}
