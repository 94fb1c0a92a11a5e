//! A counting global allocator: every Rust heap allocation in the process, on every thread,
//! adds to two atomic counters that a suite reads before and after each sample.
//!
//! What it cannot see: memory that C code allocates with its own `malloc` (libcurl under isahc)
//! and memory the kernel buffers for sockets. A `realloc` counts as one allocation of its new
//! size, as a fresh allocation plus a copy would.
//!
//! While a [`PeakWindow`] is open it also follows the bytes live on the heap (allocated less
//! freed since the window opened) and their highest point: the most a stretch of calls held at
//! once beyond what was live before it. Outside a window that costs one relaxed load per
//! allocation and per free.

// `GlobalAlloc` is an unsafe trait; this module is the only place in the bench that needs
// `unsafe` for it, and each block only forwards to `System` with the caller's own arguments.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};

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

/// Whether a [`PeakWindow`] is open; `LIVE` and `PEAK` are its bytes live since it opened
/// (negative when it freed more than it allocated) and their highest point.
static TRACKING_PEAK: AtomicBool = AtomicBool::new(false);
static LIVE: AtomicI64 = AtomicI64::new(0);
static PEAK: AtomicI64 = AtomicI64::new(0);

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

/// Follows a change of the live bytes, while a window is open.
#[inline]
fn live(change: i64) {
    if !TRACKING_PEAK.load(Ordering::Relaxed) {
        return;
    }
    let now = LIVE.fetch_add(change, Ordering::Relaxed) + change;
    if change > 0 {
        PEAK.fetch_max(now, Ordering::Relaxed);
    }
}

/// A size as a change of the live bytes (no allocation comes near `i64::MAX`).
#[inline]
fn signed(size: usize) -> i64 {
    i64::try_from(size).unwrap_or(i64::MAX)
}

// SAFETY: every method forwards to `System`, which upholds `GlobalAlloc`'s contract; the
// counters are atomics and never allocate.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        live(signed(layout.size()));
        // SAFETY: the caller's `layout` is passed through unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        live(signed(layout.size()));
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        live(signed(new_size) - signed(layout.size()));
        // SAFETY: `ptr` was allocated by `System` (through this wrapper) with `layout`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        live(-signed(layout.size()));
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

/// The heap's live bytes followed from [`PeakWindow::open`] to [`PeakWindow::close`]: their
/// highest point is the most the stretch held at once beyond what was live when it opened, on
/// every thread. One window at a time in a process (the latency suite's samples, one after
/// another); memory freed in the window that was allocated before it lowers the live bytes.
#[derive(Debug)]
#[must_use = "a window follows the heap until it is closed"]
pub struct PeakWindow(());

impl PeakWindow {
    pub fn open() -> Self {
        LIVE.store(0, Ordering::Relaxed);
        PEAK.store(0, Ordering::Relaxed);
        TRACKING_PEAK.store(true, Ordering::Relaxed);
        Self(())
    }

    /// The highest live bytes since the window opened (0 when it never went above).
    pub fn close(self) -> u64 {
        TRACKING_PEAK.store(false, Ordering::Relaxed);
        u64::try_from(PEAK.load(Ordering::Relaxed)).unwrap_or(0)
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

    #[test]
    fn a_window_sees_the_highest_point_not_the_sum() {
        let window = PeakWindow::open();
        for _ in 0..16 {
            let buffer: Vec<u8> = Vec::with_capacity(1 << 20);
            std::hint::black_box(&buffer);
        }
        let peak = window.close();
        // Sixteen buffers of 1 MiB one after another: one live at a time (and whatever other
        // test threads held meanwhile), far from their sum.
        assert!(peak >= 1 << 20, "{peak}");
        assert!(peak < 8 << 20, "{peak}");
    }
}
