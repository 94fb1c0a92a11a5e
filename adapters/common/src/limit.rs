//! A bound on calls in flight, failing as `Unavailable` instead of queueing forever.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use application::RatesError;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// At most `capacity` calls in flight; a call waits at most `wait` for a slot.
#[derive(Clone, Debug)]
pub struct ConcurrencyLimit {
    slots: Arc<Semaphore>,
    /// Calls waiting for a slot right now (the queue depth, for metrics).
    waiting: Arc<AtomicUsize>,
    capacity: usize,
    wait: Duration,
}

/// A slot held for the duration of one call.
#[derive(Debug)]
pub struct Permit {
    _slot: OwnedSemaphorePermit,
}

impl ConcurrencyLimit {
    pub fn new(capacity: usize, wait: Duration) -> Self {
        let capacity = capacity.max(1);
        Self {
            slots: Arc::new(Semaphore::new(capacity)),
            waiting: Arc::new(AtomicUsize::new(0)),
            capacity,
            wait,
        }
    }

    /// Takes a slot, waiting up to the configured time for one to free up.
    ///
    /// # Errors
    /// `RatesError::Unavailable` when every slot stayed busy for the whole wait.
    pub async fn acquire(&self) -> Result<Permit, RatesError> {
        if let Ok(permit) = Arc::clone(&self.slots).try_acquire_owned() {
            return Ok(Permit { _slot: permit });
        }
        let queued = Queued::enter(&self.waiting);
        let acquired =
            tokio::time::timeout(self.wait, Arc::clone(&self.slots).acquire_owned()).await;
        drop(queued);
        match acquired {
            Ok(Ok(permit)) => Ok(Permit { _slot: permit }),
            // The semaphore is never closed; treat it like exhaustion if it ever is.
            Ok(Err(_)) | Err(_) => Err(RatesError::Unavailable(format!(
                "all {} slots busy for {} ms",
                self.capacity,
                self.wait.as_millis()
            ))),
        }
    }

    /// Calls waiting for a slot right now.
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Relaxed)
    }

    /// Calls in flight right now.
    pub fn in_use(&self) -> usize {
        self.capacity - self.slots.available_permits()
    }
}

/// Counts one waiting call for as long as it lives (also when the wait is cancelled).
struct Queued<'a>(&'a AtomicUsize);

impl<'a> Queued<'a> {
    fn enter(waiting: &'a AtomicUsize) -> Self {
        waiting.fetch_add(1, Ordering::Relaxed);
        Self(waiting)
    }
}

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn fails_as_unavailable_when_full() {
        let limit = ConcurrencyLimit::new(1, Duration::from_millis(10));
        let held = limit.acquire().await.unwrap();
        assert_eq!(limit.in_use(), 1);
        assert!(matches!(
            limit.acquire().await,
            Err(RatesError::Unavailable(_))
        ));
        assert_eq!(limit.waiting(), 0, "a timed-out wait leaves the queue");
        drop(held);
        assert!(limit.acquire().await.is_ok());
    }
}
