//! A counting global allocator: every Rust heap allocation in the process, on every thread,
//! adds to two atomic counters that a suite reads before and after each sample.
//!
//! What it cannot see: memory that C code allocates with its own `malloc` (libcurl under isahc)
//! and memory the kernel buffers for sockets. A `realloc` counts as one allocation of its new
//! size, as a fresh allocation plus a copy would.

// `GlobalAlloc` is an unsafe trait; this module is the only place in the bench that needs
// `unsafe` for it, and each block only forwards to `System` with the caller's own arguments.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Wraps `System` and counts what passes through it.
#[derive(Debug)]
pub struct CountingAllocator;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Off in the child servers (mock-rates, api): they run this same binary, and counting there
/// would only add shared-counter traffic to the servers being measured.
static COUNTING: AtomicBool = AtomicBool::new(true);

/// Stops counting for the rest of this process (child servers call it first thing).
pub fn stop_counting() {
    COUNTING.store(false, Ordering::Relaxed);
}

#[inline]
fn count(size: usize) {
    if !COUNTING.load(Ordering::Relaxed) {
        return;
    }
    ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    BYTES.fetch_add(size as u64, Ordering::Relaxed);
}

// SAFETY: every method forwards to `System`, which upholds `GlobalAlloc`'s contract; the
// counters are atomics and never allocate.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: the caller's `layout` is passed through unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        // SAFETY: `ptr` was allocated by `System` (through this wrapper) with `layout`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` (through this wrapper) with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// The counters at one instant, since the process started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocSnapshot {
    pub allocations: u64,
    pub bytes: u64,
}

impl AllocSnapshot {
    pub fn now() -> Self {
        Self {
            allocations: ALLOCATIONS.load(Ordering::Relaxed),
            bytes: BYTES.load(Ordering::Relaxed),
        }
    }

    /// What was allocated between `earlier` and `self`.
    #[must_use]
    pub fn since(self, earlier: Self) -> Self {
        Self {
            allocations: self.allocations.saturating_sub(earlier.allocations),
            bytes: self.bytes.saturating_sub(earlier.bytes),
        }
    }

    /// Adds what another stretch allocated.
    pub fn add(&mut self, other: Self) {
        self.allocations += other.allocations;
        self.bytes += other.bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_allocations_and_bytes() {
        let before = AllocSnapshot::now();
        let buffer: Vec<u8> = Vec::with_capacity(4096);
        std::hint::black_box(&buffer);
        let grown = AllocSnapshot::now().since(before);
        // Other test threads may allocate at the same time, so only a lower bound holds.
        assert!(grown.allocations >= 1);
        assert!(grown.bytes >= 4096);
    }
}
