//! Work done inside a network namespace: a thread of its own enters it, so that the caller's
//! stays where it was; sockets and TUN devices it makes belong to that namespace, and their
//! descriptors work from any.

use std::io;
use std::os::fd::AsFd;
use std::path::Path;

use nix::sched::{CloneFlags, setns};

/// Runs `work` on a thread inside the namespace whose handle is at `namespace`; sockets it
/// opens belong to that namespace.
///
/// # Errors
/// The namespace cannot be entered, or `work` failed.
pub fn in_namespace<T: Send>(
    namespace: &Path,
    work: impl FnOnce() -> io::Result<T> + Send,
) -> io::Result<T> {
    let handle = std::fs::File::open(namespace).map_err(|error| {
        io::Error::new(
            error.kind(),
            format!("opening the namespace {}: {error}", namespace.display()),
        )
    })?;
    std::thread::scope(|scope| {
        scope
            .spawn(move || {
                setns(handle.as_fd(), CloneFlags::CLONE_NEWNET).map_err(|errno| {
                    io::Error::other(format!("entering {}: {errno}", namespace.display()))
                })?;
                work()
            })
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}
