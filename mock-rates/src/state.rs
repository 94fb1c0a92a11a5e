//! The shared state of one server: settings, counters and the fault generator.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::faults::{Decision, Faults};
use crate::settings::{ContentType, Framing, Settings, TimestampUnit};

/// Counters since start or the last reset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// HTTP requests parsed, on every path (the admin request reading them included).
    pub requests: u64,
    /// TCP connections accepted; with `requests` it shows how well clients reuse connections.
    pub connections: u64,
    /// Requests to `/api/live`.
    pub live_requests: u64,
    /// `/api/live` requests answered with a fault.
    pub faults_injected: u64,
}

/// The shared state of one server: settings, counters, RNG. A cheap handle (an `Arc`).
#[derive(Clone, Debug)]
pub struct MockState {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    content_type: ContentType,
    framing: Framing,
    timestamp_unit: TimestampUnit,
    keep_alive: Duration,
    seed: u64,
    // One lock for both, so each request takes it once.
    faults: Mutex<FaultState>,
    requests: AtomicU64,
    connections: AtomicU64,
    live_requests: AtomicU64,
    faults_injected: AtomicU64,
}

#[derive(Debug)]
struct FaultState {
    faults: Faults,
    rng: fastrand::Rng,
}

impl MockState {
    /// A fresh state with zeroed counters.
    pub fn new(settings: Settings) -> Self {
        Self {
            inner: Arc::new(Inner {
                content_type: settings.content_type,
                framing: settings.framing,
                timestamp_unit: settings.timestamp_unit,
                keep_alive: settings.keep_alive,
                seed: settings.seed,
                faults: Mutex::new(FaultState {
                    faults: settings.faults,
                    rng: fastrand::Rng::with_seed(settings.seed),
                }),
                requests: AtomicU64::new(0),
                connections: AtomicU64::new(0),
                live_requests: AtomicU64::new(0),
                faults_injected: AtomicU64::new(0),
            }),
        }
    }

    /// The counters now.
    pub fn stats(&self) -> Stats {
        let inner = &self.inner;
        Stats {
            requests: inner.requests.load(Ordering::Relaxed),
            connections: inner.connections.load(Ordering::Relaxed),
            live_requests: inner.live_requests.load(Ordering::Relaxed),
            faults_injected: inner.faults_injected.load(Ordering::Relaxed),
        }
    }

    /// Replaces the faults; takes effect from the next request.
    ///
    /// Not checked here (the admin endpoint checks): see [`Faults::validate`].
    pub fn set_faults(&self, faults: Faults) {
        self.lock_faults().faults = faults;
    }

    /// The faults in force.
    pub fn faults(&self) -> Faults {
        self.lock_faults().faults.clone()
    }

    /// Zeroes the counters, removes every fault and reseeds the generator, so a run
    /// after a reset draws the same faults as a run after start.
    pub fn reset(&self) {
        {
            let mut state = self.lock_faults();
            state.faults = Faults::default();
            state.rng = fastrand::Rng::with_seed(self.inner.seed);
        }
        for counter in [
            &self.inner.requests,
            &self.inner.connections,
            &self.inner.live_requests,
            &self.inner.faults_injected,
        ] {
            counter.store(0, Ordering::Relaxed);
        }
    }

    pub(crate) fn content_type(&self) -> ContentType {
        self.inner.content_type
    }

    pub(crate) fn framing(&self) -> Framing {
        self.inner.framing
    }

    pub(crate) fn timestamp_unit(&self) -> TimestampUnit {
        self.inner.timestamp_unit
    }

    pub(crate) fn keep_alive(&self) -> Duration {
        self.inner.keep_alive
    }

    pub(crate) fn count_connection(&self) {
        self.inner.connections.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn count_request(&self) {
        self.inner.requests.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one `/api/live` request and draws its delay and fault.
    pub(crate) fn live_decision(&self) -> Decision {
        self.inner.live_requests.fetch_add(1, Ordering::Relaxed);
        let decision = {
            let mut state = self.lock_faults();
            let FaultState { faults, rng } = &mut *state;
            Decision::draw(faults, rng)
        };
        if decision.fault.is_some() {
            self.inner.faults_injected.fetch_add(1, Ordering::Relaxed);
        }
        decision
    }

    fn lock_faults(&self) -> MutexGuard<'_, FaultState> {
        // The guarded values are always consistent, so a panic elsewhere need not spread here.
        self.inner
            .faults
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}
