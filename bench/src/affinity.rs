//! CPU affinity for the latency suite.
//!
//! On a 2-vCPU machine a call whose client and server run on different CPUs pays for a
//! cross-CPU wake-up that costs as much as the rest of the call, and whether it does changes
//! from sample to sample: unpinned, one sample of hyper averaged 20 µs and the next 50 µs, and
//! the Error was two thirds of the Mean. Pinned to one CPU, client and mock-rates take turns
//! on it and the samples agree within a few percent, so what is left to compare is the
//! clients' own work. (Measured with `--samples 10`, pinned vs unpinned, in one session.)

#![allow(unsafe_code)] // sched_{get,set}affinity have no safe wrapper in libc.

use std::io;

/// A thread's CPU set, to restore after pinning.
#[derive(Clone, Copy)]
pub struct CpuSet(libc::cpu_set_t);

impl std::fmt::Debug for CpuSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.cpus()).finish()
    }
}

impl CpuSet {
    /// The calling thread's current set.
    pub fn of_current_thread() -> io::Result<Self> {
        // SAFETY: an all-zero cpu_set_t is a valid empty set; the kernel writes at most
        // `size_of::<cpu_set_t>()` bytes into it.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        let result = unsafe {
            libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &raw mut set)
        };
        if result == 0 {
            Ok(Self(set))
        } else {
            Err(io::Error::last_os_error())
        }
    }

    /// A set of one CPU.
    pub fn single(cpu: usize) -> Self {
        // SAFETY: as above; CPU_SET only writes inside the set for cpu < CPU_SETSIZE, checked.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        if cpu < libc::CPU_SETSIZE as usize {
            unsafe { libc::CPU_SET(cpu, &mut set) };
        }
        Self(set)
    }

    /// The CPUs in the set, ascending.
    pub fn cpus(&self) -> Vec<usize> {
        (0..libc::CPU_SETSIZE as usize)
            // SAFETY: CPU_ISSET only reads inside the set for cpu < CPU_SETSIZE.
            .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &self.0) })
            .collect()
    }

    /// Makes this the calling thread's set; threads it starts afterwards inherit it.
    pub fn apply_to_current_thread(&self) -> io::Result<()> {
        // SAFETY: the set is a valid cpu_set_t of the size given.
        let result = unsafe {
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &raw const self.0)
        };
        if result == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
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
