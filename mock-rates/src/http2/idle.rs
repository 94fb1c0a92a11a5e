//! When an idle HTTP/2 connection is closed, and how.

use std::future::Future;
use std::pin::Pin;
use std::task::Context;
use std::time::Duration;

use tokio::time::{Instant, Sleep};

use crate::state::MockState;
use crate::timing::REQUEST_TIMEOUT;

/// When an idle connection (no stream open, none waiting) is closed, and how. With an idle
/// timeout: once idle that long, with GOAWAY(NO_ERROR) naming the last stream taken, then the
/// close, as h2 servers close idle connections (a request the client sends meanwhile is past
/// that stream: refused, not processed). Without one: gracefully (GOAWAY, then the open streams
/// finish) once idle for the keep-alive, as the HTTP/1.1 side closes an idle connection; the
/// first request may take longer. The timer is moved when it fires (or must fire sooner), not
/// at every request, and the limit is read from the state each time, so that a change at run
/// time applies.
pub(super) struct Idle {
    keep_alive: Duration,
    /// A stream was served: the first request's allowance is spent.
    served: bool,
    last_active: Instant,
    timer: Pin<Box<Sleep>>,
    closing: bool,
}

/// What the idle timer asks of the connection.
pub(super) enum Expired {
    /// It fired early and was moved.
    Moved,
    /// Idle for the keep-alive: GOAWAY, and let the open streams finish.
    Graceful,
    /// Idle for the idle timeout: GOAWAY(NO_ERROR), then close.
    GoAway,
}

impl Idle {
    pub(super) fn new(state: &MockState) -> Self {
        let mut idle = Self {
            keep_alive: state.keep_alive(),
            served: false,
            last_active: Instant::now(),
            timer: Box::pin(tokio::time::sleep(Duration::ZERO)),
            closing: false,
        };
        let (limit, _) = idle.limit(state);
        let deadline = idle.last_active + limit;
        idle.timer.as_mut().reset(deadline);
        idle
    }

    /// The time an idle connection is kept, and what follows it.
    pub(super) fn limit(&self, state: &MockState) -> (Duration, Expired) {
        match state.idle_timeout() {
            Some(timeout) => (timeout, Expired::GoAway),
            None if self.served => (self.keep_alive, Expired::Graceful),
            None => (self.keep_alive.max(REQUEST_TIMEOUT), Expired::Graceful),
        }
    }

    /// A stream arrived or finished; `busy` if streams are still waiting.
    pub(super) fn active(&mut self, state: &MockState, busy: bool) {
        let now = Instant::now();
        self.last_active = now;
        if !busy {
            self.served = true;
            let (limit, _) = self.limit(state);
            // Due sooner than the timer is set for (a zero keep-alive, a shorter idle
            // timeout): move it.
            if now + limit < self.timer.deadline() {
                self.timer.as_mut().reset(now + limit);
            }
        }
    }

    /// `None` while the timer has not fired; what the connection must do once it has.
    pub(super) fn poll_expired(
        &mut self,
        context: &mut Context<'_>,
        state: &MockState,
        busy: bool,
    ) -> Option<Expired> {
        if self.closing || self.timer.as_mut().poll(context).is_pending() {
            return None;
        }
        let now = Instant::now();
        let (limit, close) = self.limit(state);
        if busy {
            self.timer.as_mut().reset(now + limit);
            Some(Expired::Moved)
        } else if now < self.last_active + limit {
            self.timer.as_mut().reset(self.last_active + limit);
            Some(Expired::Moved)
        } else {
            self.closing = true;
            Some(close)
        }
    }
}
