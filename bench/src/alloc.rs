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

/// The process's heap, followed while a [`PeakWindow`] is open.
static HEAP: LiveBytes = LiveBytes::new();

/// Bytes live on a heap since a window opened and their highest point. The allocator feeds
/// the process's one instance; a test feeds an instance of its own, which no other thread
/// touches.
#[derive(Debug)]
struct LiveBytes {
    /// Whether a window is open.
    tracking: AtomicBool,
    /// Allocated less freed since the window opened (negative when it freed more).
    live: AtomicI64,
    /// The highest `live` since the window opened.
    peak: AtomicI64,
}

impl LiveBytes {
    const fn new() -> Self {
        Self {
            tracking: AtomicBool::new(false),
            live: AtomicI64::new(0),
            peak: AtomicI64::new(0),
        }
    }

    fn open(&self) {
        self.live.store(0, Ordering::Relaxed);
        self.peak.store(0, Ordering::Relaxed);
        self.tracking.store(true, Ordering::Relaxed);
    }

    /// Follows a change of the live bytes, while a window is open.
    #[inline]
    fn change(&self, change: i64) {
        if !self.tracking.load(Ordering::Relaxed) {
            return;
        }
        let now = self.live.fetch_add(change, Ordering::Relaxed) + change;
        if change > 0 {
            self.peak.fetch_max(now, Ordering::Relaxed);
        }
    }

    /// The highest live bytes since the window opened (0 when it never went above).
    fn close(&self) -> u64 {
        self.tracking.store(false, Ordering::Relaxed);
        u64::try_from(self.peak.load(Ordering::Relaxed)).unwrap_or(0)
    }
}

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

/// Follows a change of the process's live bytes, while a window is open.
#[inline]
fn live(change: i64) {
    HEAP.change(change);
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
        HEAP.open();
        Self(())
    }

    /// The highest live bytes since the window opened (0 when it never went above).
    pub fn close(self) -> u64 {
        HEAP.close()
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

    // The window's arithmetic on an instance of the test's own: the process's heap is shared
    // with every other test thread, which allocate and free inside any window opened on it.
    #[test]
    fn a_window_sees_the_highest_point_not_the_sum() {
        let heap = LiveBytes::new();
        heap.open();
        for _ in 0..16 {
            heap.change(1 << 20);
            heap.change(-(1 << 20));
        }
        assert_eq!(heap.close(), 1 << 20);
    }

    #[test]
    fn a_window_counts_from_zero_and_only_while_open() {
        let heap = LiveBytes::new();
        heap.change(4 << 20);
        heap.open();
        // Memory allocated before the window and freed in it lowers the live bytes.
        heap.change(-(2 << 20));
        heap.change(1 << 20);
        heap.change(3 << 20);
        assert_eq!(heap.close(), 2 << 20);
        heap.change(8 << 20);
        heap.open();
        heap.change(100);
        assert_eq!(heap.close(), 100);
    }

    #[test]
    fn a_window_that_only_frees_peaks_at_zero() {
        let heap = LiveBytes::new();
        heap.open();
        heap.change(-4096);
        assert_eq!(heap.close(), 0);
    }
}
