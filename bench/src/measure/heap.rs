//! The heap this process holds, as glibc's allocator counts it: every byte handed out by
//! `malloc` and not freed, from Rust (the global allocator forwards to it) and from C code
//! (libcurl under isahc) alike.

// `mallinfo2` is a C function; this module is the only place that calls it.
#![allow(unsafe_code)]

/// Bytes in use: the arenas' allocated chunks (`uordblks`) and the chunks `malloc` gave its own
/// mapping (`hblkhd`, allocations above the mmap threshold), summed over every arena.
pub fn in_use() -> u64 {
    // SAFETY: `mallinfo2` takes no arguments and returns a plain struct by value; glibc
    // takes its own locks while it walks the arenas.
    let info = unsafe { libc::mallinfo2() };
    (info.uordblks + info.hblkhd) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_allocation_shows_in_the_heap() {
        // Above the mmap threshold (128 KiB by default), so it is a mapping of its own that no
        // other test thread's frees can hide.
        const SIZE: usize = 4 << 20;
        let before = in_use();
        let held = vec![1u8; SIZE];
        let during = in_use();
        drop(std::hint::black_box(held));
        assert!(
            during >= before + SIZE as u64 - (1 << 20),
            "{before} then {during}"
        );
    }
}
