//! The shared state of one server: settings, counters and the fault generator.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crate::faults::{Decision, Faults};
use crate::history::SizedAnswers;
use crate::settings::{AdminToken, ContentType, Framing, IdleClose, Settings, TimestampUnit};
use crate::stats::Stats;
use crate::tls::{Handshake, Tls};
use bytes::Bytes;

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
    /// The idle timeout in milliseconds; 0 for none.
    idle_timeout_ms: AtomicU64,
    /// Whether an idle HTTP/1.1 connection is closed when its next request arrives
    /// ([`IdleClose::OnArrival`]) rather than when the timeout passes.
    idle_close_on_arrival: AtomicBool,
    seed: u64,
    tls: Option<Tls>,
    admin_token: Option<AdminToken>,
    // One lock for both, so each request takes it once.
    faults: Mutex<FaultState>,
    requests: AtomicU64,
    connections: AtomicU64,
    live_requests: AtomicU64,
    faults_injected: AtomicU64,
    tls_handshakes_full: AtomicU64,
    tls_handshakes_resumed: AtomicU64,
    tls13_handshakes: AtomicU64,
    tls12_handshakes: AtomicU64,
    tls_handshake_failures: AtomicU64,
    max_concurrent_streams: Option<u32>,
    tls_alpn_h2: AtomicU64,
    h2_connections: AtomicU64,
    h2_streams: AtomicU64,
    h2_peak_streams: AtomicU64,
    /// HTTP/2 connections with a stream open now.
    h2_busy_connections: AtomicU64,
    h2_peak_connections: AtomicU64,
    idle_closes: AtomicU64,
    idle_close_races: AtomicU64,
    /// Large answers, built once per pairs and size.
    sized_answers: SizedAnswers,
}

#[derive(Debug)]
struct FaultState {
    faults: Faults,
    rng: fastrand::Rng,
}

impl MockState {
    /// A fresh state with zeroed counters, and with `settings.tls` a freshly made CA and
    /// certificate.
    ///
    /// # Panics
    ///
    /// With `settings.tls`, if the certificates cannot be made, which only happens when the
    /// system's random source fails; [`MockState::try_new`] returns that as an error.
    pub fn new(settings: Settings) -> Self {
        match Self::try_new(settings) {
            Ok(state) => state,
            Err(error) => panic!("mock-rates could not set up TLS: {error}"),
        }
    }

    /// A fresh state with zeroed counters, and with `settings.tls` a freshly made CA and
    /// certificate.
    ///
    /// # Errors
    ///
    /// The certificates or the TLS configuration could not be made.
    pub fn try_new(settings: Settings) -> io::Result<Self> {
        let tls = settings.tls.as_ref().map(Tls::generate).transpose()?;
        Ok(Self {
            inner: Arc::new(Inner {
                content_type: settings.content_type,
                framing: settings.framing,
                timestamp_unit: settings.timestamp_unit,
                keep_alive: settings.keep_alive,
                idle_timeout_ms: AtomicU64::new(idle_timeout_ms(settings.idle_timeout)),
                idle_close_on_arrival: AtomicBool::new(false),
                seed: settings.seed,
                tls,
                admin_token: settings.admin_token,
                faults: Mutex::new(FaultState {
                    faults: settings.faults,
                    rng: fastrand::Rng::with_seed(settings.seed),
                }),
                requests: AtomicU64::new(0),
                connections: AtomicU64::new(0),
                live_requests: AtomicU64::new(0),
                faults_injected: AtomicU64::new(0),
                tls_handshakes_full: AtomicU64::new(0),
                tls_handshakes_resumed: AtomicU64::new(0),
                tls13_handshakes: AtomicU64::new(0),
                tls12_handshakes: AtomicU64::new(0),
                tls_handshake_failures: AtomicU64::new(0),
                max_concurrent_streams: settings
                    .tls
                    .as_ref()
                    .and_then(|tls| tls.max_concurrent_streams),
                tls_alpn_h2: AtomicU64::new(0),
                h2_connections: AtomicU64::new(0),
                h2_streams: AtomicU64::new(0),
                h2_peak_streams: AtomicU64::new(0),
                h2_busy_connections: AtomicU64::new(0),
                h2_peak_connections: AtomicU64::new(0),
                idle_closes: AtomicU64::new(0),
                idle_close_races: AtomicU64::new(0),
                sized_answers: SizedAnswers::default(),
            }),
        })
    }

    /// The counters now.
    pub fn stats(&self) -> Stats {
        let inner = &self.inner;
        Stats {
            requests: inner.requests.load(Ordering::Relaxed),
            connections: inner.connections.load(Ordering::Relaxed),
            live_requests: inner.live_requests.load(Ordering::Relaxed),
            faults_injected: inner.faults_injected.load(Ordering::Relaxed),
            tls_handshakes_full: inner.tls_handshakes_full.load(Ordering::Relaxed),
            tls_handshakes_resumed: inner.tls_handshakes_resumed.load(Ordering::Relaxed),
            tls13_handshakes: inner.tls13_handshakes.load(Ordering::Relaxed),
            tls12_handshakes: inner.tls12_handshakes.load(Ordering::Relaxed),
            tls_handshake_failures: inner.tls_handshake_failures.load(Ordering::Relaxed),
            tls_alpn_h2: inner.tls_alpn_h2.load(Ordering::Relaxed),
            h2_connections: inner.h2_connections.load(Ordering::Relaxed),
            h2_streams: inner.h2_streams.load(Ordering::Relaxed),
            h2_peak_streams: inner.h2_peak_streams.load(Ordering::Relaxed),
            h2_peak_connections: inner.h2_peak_connections.load(Ordering::Relaxed),
            idle_closes: inner.idle_closes.load(Ordering::Relaxed),
            idle_close_races: inner.idle_close_races.load(Ordering::Relaxed),
        }
    }

    /// The PEM of the CA that signed the server's certificate; `None` when TLS is off.
    pub fn ca_pem(&self) -> Option<&str> {
        self.inner.tls.as_ref().map(Tls::ca_pem)
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

    /// Sets the idle timeout (`None`: none, the keep-alive alone decides). A connection
    /// reads it each time it becomes idle; an HTTP/2 connection already idle, when its timer
    /// next fires (at the latest after the previous limit).
    pub fn set_idle_timeout(&self, timeout: Option<Duration>) {
        self.inner
            .idle_timeout_ms
            .store(idle_timeout_ms(timeout), Ordering::Relaxed);
    }

    /// Sets when an HTTP/1.1 connection idle past the timeout is closed; read each time a
    /// connection becomes idle.
    pub fn set_idle_close(&self, close: IdleClose) {
        self.inner
            .idle_close_on_arrival
            .store(close == IdleClose::OnArrival, Ordering::Relaxed);
    }

    /// When an idle HTTP/1.1 connection is closed.
    pub fn idle_close(&self) -> IdleClose {
        if self.inner.idle_close_on_arrival.load(Ordering::Relaxed) {
            IdleClose::OnArrival
        } else {
            IdleClose::Timer
        }
    }

    /// The idle timeout in force, if any.
    pub fn idle_timeout(&self) -> Option<Duration> {
        match self.inner.idle_timeout_ms.load(Ordering::Relaxed) {
            0 => None,
            ms => Some(Duration::from_millis(ms)),
        }
    }

    /// Zeroes the counters, removes every fault and the idle timeout (back to closing on the
    /// timer), and reseeds the
    /// generator, so a run after a reset draws the same faults as a run after start.
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
            &self.inner.tls_handshakes_full,
            &self.inner.tls_handshakes_resumed,
            &self.inner.tls13_handshakes,
            &self.inner.tls12_handshakes,
            &self.inner.tls_handshake_failures,
            &self.inner.tls_alpn_h2,
            &self.inner.h2_connections,
            &self.inner.h2_streams,
            &self.inner.idle_closes,
            &self.inner.idle_close_races,
        ] {
            counter.store(0, Ordering::Relaxed);
        }
        self.set_idle_timeout(None);
        self.set_idle_close(IdleClose::Timer);
        self.reset_peaks();
    }

    /// Zeroes the peaks (`h2_peak_streams`, `h2_peak_connections`) only, so that a client can
    /// measure the peaks of one burst without losing the other counters or the faults.
    pub fn reset_peaks(&self) {
        self.inner.h2_peak_streams.store(0, Ordering::Relaxed);
        self.inner.h2_peak_connections.store(
            self.inner.h2_busy_connections.load(Ordering::Relaxed),
            Ordering::Relaxed,
        );
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

    pub(crate) fn tls(&self) -> Option<&Tls> {
        self.inner.tls.as_ref()
    }

    /// The token the admin endpoints require, if one was given.
    pub(crate) fn admin_token(&self) -> Option<&str> {
        self.inner.admin_token.as_ref().map(AdminToken::as_str)
    }

    pub(crate) fn count_handshake(&self, handshake: Handshake) {
        let inner = &self.inner;
        let kind = if handshake.resumed {
            &inner.tls_handshakes_resumed
        } else {
            &inner.tls_handshakes_full
        };
        let version = if handshake.tls13 {
            &inner.tls13_handshakes
        } else {
            &inner.tls12_handshakes
        };
        for counter in [kind, version] {
            counter.fetch_add(1, Ordering::Relaxed);
        }
        if handshake.h2 {
            inner.tls_alpn_h2.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub(crate) fn count_handshake_failure(&self) {
        self.inner
            .tls_handshake_failures
            .fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn count_connection(&self) {
        self.inner.connections.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn max_concurrent_streams(&self) -> Option<u32> {
        self.inner.max_concurrent_streams
    }

    pub(crate) fn count_h2_connection(&self) {
        self.inner.h2_connections.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one HTTP/2 stream, `open` of them now open on its connection.
    pub(crate) fn count_h2_stream(&self, open: u64) {
        let inner = &self.inner;
        inner.h2_streams.fetch_add(1, Ordering::Relaxed);
        inner.h2_peak_streams.fetch_max(open, Ordering::Relaxed);
        if open == 1 {
            let busy = inner.h2_busy_connections.fetch_add(1, Ordering::Relaxed) + 1;
            inner.h2_peak_connections.fetch_max(busy, Ordering::Relaxed);
        }
    }

    /// The last open stream of an HTTP/2 connection ended.
    pub(crate) fn count_h2_connection_idle(&self) {
        self.inner
            .h2_busy_connections
            .fetch_sub(1, Ordering::Relaxed);
    }

    /// The `/api/live` answer for `pairs` padded with history to `size` bytes, built (quoting
    /// `timestamp`) the first time it is asked for and shared after.
    pub(crate) fn sized_answer(
        &self,
        pairs: &[(&'static str, &'static str)],
        size: usize,
        timestamp: u64,
    ) -> Bytes {
        self.inner
            .sized_answers
            .get(pairs, size, timestamp, self.inner.timestamp_unit)
    }

    /// A connection was closed for sitting idle.
    pub(crate) fn count_idle_race(&self) {
        self.inner.idle_close_races.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn count_idle_close(&self) {
        self.inner.idle_closes.fetch_add(1, Ordering::Relaxed);
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

/// An idle timeout as stored: milliseconds (at least 1), or 0 for none.
fn idle_timeout_ms(timeout: Option<Duration>) -> u64 {
    timeout.map_or(0, |timeout| {
        u64::try_from(timeout.as_millis())
            .unwrap_or(u64::MAX)
            .max(1)
    })
}
