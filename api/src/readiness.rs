//! Readiness: the service is ready when the rates upstream answered recently, and stops being
//! ready as soon as shutdown begins (so a load balancer drains it first).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Shared by all workers.
#[derive(Debug)]
pub struct Readiness {
    started: Instant,
    /// Milliseconds since `started` of the last successful upstream call, plus one (0 = never).
    last_upstream_ok: AtomicU64,
    shutting_down: AtomicBool,
}

/// How long a successful upstream call keeps the service ready without another check.
pub const FRESHNESS: Duration = Duration::from_secs(10);

impl Readiness {
    pub fn new() -> Self {
        Self {
            started: Instant::now(),
            last_upstream_ok: AtomicU64::new(0),
            shutting_down: AtomicBool::new(false),
        }
    }

    pub fn upstream_answered(&self) {
        let millis = self.started.elapsed().as_millis() as u64 + 1;
        self.last_upstream_ok.store(millis, Ordering::Relaxed);
    }

    /// Whether the upstream answered within [`FRESHNESS`].
    pub fn upstream_is_fresh(&self) -> bool {
        match self.last_upstream_ok.load(Ordering::Relaxed) {
            0 => false,
            at => {
                let now = self.started.elapsed().as_millis() as u64 + 1;
                now.saturating_sub(at) <= FRESHNESS.as_millis() as u64
            }
        }
    }

    pub fn begin_shutdown(&self) {
        self.shutting_down.store(true, Ordering::Relaxed);
    }

    pub fn is_shutting_down(&self) -> bool {
        self.shutting_down.load(Ordering::Relaxed)
    }
}

impl Default for Readiness {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ready_only_after_an_answer_and_until_shutdown() {
        let readiness = Readiness::new();
        assert!(!readiness.upstream_is_fresh());
        readiness.upstream_answered();
        assert!(readiness.upstream_is_fresh());
        assert!(!readiness.is_shutting_down());
        readiness.begin_shutdown();
        assert!(readiness.is_shutting_down());
    }
}
