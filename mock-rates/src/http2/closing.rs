//! How a connection ends (RFC 9113 §6.8): at once after a connection error, gracefully in two
//! steps when idle (a GOAWAY naming the highest stream id and a PING, then, once the PING
//! comes back or the wait is over, a GOAWAY naming the last stream taken), or gracefully in
//! one when the client leaves.

use std::time::Duration;

use tokio::time::Instant;

use super::frame::Reason;
use crate::timing::REQUEST_TIMEOUT;

/// How long a graceful close waits for the ACK of its PING before it closes.
pub(super) const DRAIN_TIMEOUT: Duration = REQUEST_TIMEOUT;

/// Where the connection is in its ending, after the GOAWAY it sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    Open,
    /// A graceful close has begun: GOAWAY naming the highest stream id, and a PING; streams
    /// still arrive until its ACK (or [`DRAIN_TIMEOUT`]), which is when the last is named.
    Draining,
    /// No new stream; the connection closes once the open ones are done.
    Graceful,
    /// The connection closes once what was written has gone out.
    Now,
}

#[derive(Debug)]
pub(super) struct Closing {
    phase: Phase,
    /// When a drain stops waiting for its PING's ACK.
    drain_due: Option<Instant>,
}

impl Default for Closing {
    fn default() -> Self {
        Self {
            phase: Phase::Open,
            drain_due: None,
        }
    }
}

impl Closing {
    pub(super) fn phase(&self) -> Phase {
        self.phase
    }

    /// Whether new streams are taken: until the GOAWAY that names the last one.
    pub(super) fn takes_streams(&self) -> bool {
        matches!(self.phase, Phase::Open | Phase::Draining)
    }

    /// Moves to `phase` for `reason`: whether a GOAWAY is to be sent for it. One is sent
    /// per step, and none after the connection error's (or the close's).
    pub(super) fn go_away(&mut self, phase: Phase, reason: Reason) -> bool {
        if self.phase == Phase::Now || (self.phase == phase && reason == Reason::NoError) {
            return false;
        }
        self.phase = phase;
        self.drain_due = None;
        true
    }

    /// Begins a graceful close at `now`: whether the first GOAWAY and the PING are to be
    /// sent (only from an open connection).
    pub(super) fn drain(&mut self, now: Instant) -> bool {
        if self.phase != Phase::Open {
            return false;
        }
        self.phase = Phase::Draining;
        self.drain_due = Some(now + DRAIN_TIMEOUT);
        true
    }

    /// When the drain stops waiting, if one is waiting.
    pub(super) fn drain_due(&self) -> Option<Instant> {
        self.drain_due
    }

    /// Whether the drain has waited long enough at `now`.
    pub(super) fn drain_expired(&self, now: Instant) -> bool {
        self.drain_due.is_some_and(|due| due <= now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drain_takes_streams_until_its_second_goaway() {
        let now = Instant::now();
        let mut closing = Closing::default();
        assert!(closing.drain(now));
        assert!(!closing.drain(now), "once");
        assert!(closing.takes_streams());
        assert!(!closing.drain_expired(now));
        assert!(closing.drain_expired(now + DRAIN_TIMEOUT));
        assert!(closing.go_away(Phase::Graceful, Reason::NoError));
        assert!(!closing.takes_streams());
        assert_eq!(closing.drain_due(), None, "no longer waiting");
        assert!(!closing.go_away(Phase::Graceful, Reason::NoError), "once");
    }

    #[test]
    fn an_error_follows_a_graceful_close_and_nothing_follows_an_error() {
        let mut closing = Closing::default();
        assert!(closing.go_away(Phase::Graceful, Reason::NoError));
        assert!(closing.go_away(Phase::Now, Reason::ProtocolError));
        assert_eq!(closing.phase(), Phase::Now);
        assert!(!closing.go_away(Phase::Now, Reason::EnhanceYourCalm));
        assert!(!closing.drain(Instant::now()));
    }
}
