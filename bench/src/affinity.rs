//! CPU affinity for the latency suite.
//!
//! On a 2-vCPU machine a call whose client and server run on different CPUs pays for a
//! cross-CPU wake-up that costs as much as the rest of the call, and whether it does changes
//! from sample to sample: unpinned, one sample of hyper averaged 20 µs and the next 50 µs, and
//! the Error was two thirds of the Mean. Pinned to one CPU, client and mock-rates take turns
//! on it and the samples agree within a few percent, so what is left to compare is the
//! clients' own work. (Measured with `--samples 10`, pinned vs unpinned, in one session.)

use std::io;

use nix::sched::{sched_getaffinity, sched_setaffinity};
use nix::unistd::Pid;

/// A thread's CPU set, to restore after pinning.
#[derive(Clone, Copy)]
pub struct CpuSet(nix::sched::CpuSet);

impl std::fmt::Debug for CpuSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.cpus()).finish()
    }
}

impl CpuSet {
    /// The calling thread's current set.
    pub fn of_current_thread() -> io::Result<Self> {
        Ok(Self(sched_getaffinity(Pid::from_raw(0))?))
    }

    /// A set of one CPU (empty for a CPU past the largest a set holds).
    pub fn single(cpu: usize) -> Self {
        let mut set = nix::sched::CpuSet::new();
        // Out of range is the empty set, which the kernel refuses when applied.
        let _ = set.set(cpu);
        Self(set)
    }

    /// The CPUs in the set, ascending.
    pub fn cpus(&self) -> Vec<usize> {
        (0..nix::sched::CpuSet::count())
            .filter(|&cpu| self.0.is_set(cpu).unwrap_or(false))
            .collect()
    }

    /// Makes this the calling thread's set; threads it starts afterwards inherit it.
    pub fn apply_to_current_thread(&self) -> io::Result<()> {
        Ok(sched_setaffinity(Pid::from_raw(0), &self.0)?)
    }
}

/// The CPU the latency suite pins to: the highest one this thread may run on.
pub fn latency_cpu() -> io::Result<usize> {
    CpuSet::of_current_thread()?
        .cpus()
        .last()
        .copied()
        .ok_or_else(|| io::Error::other("this thread may run on no CPU"))
}

/// Pins the calling thread to `cpu` until the guard drops, then restores its set.
#[derive(Debug)]
pub struct Pinned {
    previous: CpuSet,
}

impl Pinned {
    pub fn to(cpu: usize) -> io::Result<Self> {
        let previous = CpuSet::of_current_thread()?;
        CpuSet::single(cpu).apply_to_current_thread()?;
        Ok(Self { previous })
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        // Restoring can only fail if the set became invalid (CPUs went offline); the suites
        // after this one then run wherever the kernel lets them.
        let _ = self.previous.apply_to_current_thread();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_and_restores_the_calling_thread() {
        let before = CpuSet::of_current_thread().unwrap().cpus();
        let cpu = latency_cpu().unwrap();
        assert_eq!(Some(&cpu), before.last());
        {
            let _pinned = Pinned::to(cpu).unwrap();
            assert_eq!(CpuSet::of_current_thread().unwrap().cpus(), vec![cpu]);
        }
        assert_eq!(CpuSet::of_current_thread().unwrap().cpus(), before);
        assert_eq!(CpuSet::single(3).cpus(), vec![3]);
    }
}
