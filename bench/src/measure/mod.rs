//! What a process costs and what the machine does meanwhile: the one place the bench reads
//! /proc, cgroups and `getrusage`. Suites measure through it and read no such file themselves.
//!
//! - [`process`]: a process by its pid (a server the bench started, or the bench itself): its
//!   CPU time by a clock of its own (cgroup, else schedstat) and its CPU quota, its memory and
//!   threads from `/proc/<pid>/status`, its descriptors and TCP sockets, and a wait until it is
//!   idle.
//! - [`own`]: the bench process's own CPU time, and its waited-for children's (`getrusage`).
//! - [`heap`]: the heap of the process that asks, as glibc's allocator counts it (a process
//!   reports it itself: the memory suite's child does).
//! - [`machine`]: the machine's busy and stolen CPU (`/proc/stat`) and its load average,
//!   sampled during the whole run.

pub mod heap;
pub mod machine;
pub mod own;
pub mod process;
