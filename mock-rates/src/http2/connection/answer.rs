//! What the server sends: answers (HEADERS, DATA) as a route decided, as far as the windows
//! let them; resets; and the streams that wait for a time (latency, a drip, a body late).

use std::collections::VecDeque;
use std::future::Future;
use std::task::Context;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::time::Instant;

use super::{Connection, MAX_BACKLOG, MAX_HELD, STALL_TIMEOUT, signed};
use crate::exchange::{Answer, AnswerFault, Outcome, Routed};
use crate::http2::closing::Phase;
use crate::http2::frame::{self, Reason};
use crate::http2::idle::Expired;
use crate::http2::stream::{Waiting, Work};
use crate::http2::streams::Closed;
use crate::settings::Framing;
use crate::timing::DRIP_INTERVAL;

impl<S: AsyncRead + AsyncWrite + Unpin> Connection<S> {
    /// Acts on a route's decision for an open stream that is not in `waiting`: at once, or
    /// after its injected latency.
    pub(super) fn act(&mut self, stream: u32, send_window: i64, routed: Routed) {
        if routed.delay.is_zero() {
            return self.act_now(stream, send_window, routed.outcome);
        }
        let work = Work::Delay {
            due: Instant::now() + routed.delay,
            outcome: routed.outcome,
        };
        self.streams.insert(stream, Waiting { send_window, work });
    }

    /// Routes the requests parked while the answers that wait held too much, in stream
    /// order, as long as they hold less than [`MAX_HELD`].
    pub(super) fn unpark(&mut self) {
        while self.streams.held() <= MAX_HELD {
            let Some(stream) = self.streams.next_parked() else {
                break;
            };
            let Some(waiting) = self.streams.remove(stream) else {
                break;
            };
            match waiting.work {
                Work::Parked(upload) => self.route(stream, waiting.send_window, &upload),
                _ => self.streams.insert(stream, waiting),
            }
        }
    }

    pub(super) fn act_now(&mut self, stream: u32, mut send_window: i64, outcome: Outcome) {
        let answer = match outcome {
            Outcome::Answer(answer) => answer,
            Outcome::Reset => return self.reset(stream, Reason::InternalError),
            Outcome::Refuse => return self.reset(stream, Reason::RefusedStream),
            Outcome::Hang => {
                let work = Work::Hang;
                self.streams.insert(stream, Waiting { send_window, work });
                return;
            }
            Outcome::GoAway => {
                // The stream is left unanswered; the connection ends on GOAWAY with an error
                // code, which the client reports, and its open stream fails as it closes.
                let work = Work::Hang;
                self.streams.insert(stream, Waiting { send_window, work });
                return self.go_away(Phase::Now, Reason::InternalError);
            }
        };
        let (framing, body) = match answer.fault {
            None => (answer.framing, answer.body.clone()),
            // The head announces the whole length, as the HTTP/1.1 side does.
            Some(AnswerFault::HeadOnly) => (Framing::ContentLength, Bytes::new()),
            Some(AnswerFault::HalfBody) => (
                Framing::ContentLength,
                answer.body.slice(..answer.body.len() / 2),
            ),
            Some(AnswerFault::Drip) => (Framing::Chunked, Bytes::new()),
        };
        let ends = answer.fault.is_none();
        if ends && body.is_empty() {
            self.ended(stream, Closed::Ended);
            return frame::answer_headers(&mut self.output.queue, stream, &answer, framing, true);
        }
        frame::answer_headers(&mut self.output.queue, stream, &answer, framing, false);
        if answer.fault == Some(AnswerFault::Drip) {
            return self.drip(stream, send_window, answer.body, 0);
        }
        let len = signed(body.len());
        if framing == Framing::ContentLength
            && len <= signed(self.max_frame)
            && len <= self.windows.send.min(send_window)
            && self.backlog() + body.len() <= MAX_BACKLOG
        {
            // The usual answer: one DATA frame.
            self.windows.send -= len;
            if ends {
                self.ended(stream, Closed::Ended);
            }
            frame::data(&mut self.output.queue, stream, &body, ends);
            if !ends {
                self.reset(stream, Reason::InternalError);
            }
            return;
        }
        let mut parts: VecDeque<Bytes> = Answer::parts(&body, framing).collect();
        if self.send(stream, &mut send_window, &mut parts, ends) {
            if !ends {
                // What a truncated answer sends went out before its reset.
                self.reset(stream, Reason::InternalError);
            }
        } else {
            let due = Instant::now() + STALL_TIMEOUT;
            let work = Work::Send { parts, ends, due };
            self.streams.insert(stream, Waiting { send_window, work });
        }
    }

    /// Sends `parts` as DATA frames as far as the windows (and the backlog) let them out,
    /// ending the stream after the last if `ends`: whether all went out.
    pub(super) fn send(
        &mut self,
        stream: u32,
        window: &mut i64,
        parts: &mut VecDeque<Bytes>,
        ends: bool,
    ) -> bool {
        while let Some(part) = parts.front_mut() {
            let room = self
                .windows
                .send
                .min(*window)
                .min(signed(self.max_frame))
                .min(signed(MAX_BACKLOG.saturating_sub(self.backlog())));
            if room <= 0 {
                return false;
            }
            let piece = part.split_to(part.len().min(room as usize));
            if part.is_empty() {
                parts.pop_front();
            }
            let last = ends && parts.is_empty();
            if last {
                self.ended(stream, Closed::Ended);
            }
            frame::data(&mut self.output.queue, stream, &piece, last);
            self.windows.send -= signed(piece.len());
            *window -= signed(piece.len());
        }
        true
    }

    /// Sends the drip's next byte if the windows let it, and waits for the next.
    pub(super) fn drip(&mut self, stream: u32, mut send_window: i64, body: Bytes, mut next: usize) {
        if body.is_empty() {
            let work = Work::Hang;
            self.streams.insert(stream, Waiting { send_window, work });
            return;
        }
        if self.windows.send > 0 && send_window > 0 {
            frame::data(&mut self.output.queue, stream, &body[next..=next], false);
            self.windows.send -= 1;
            send_window -= 1;
            next = (next + 1) % body.len();
        }
        let due = Instant::now() + DRIP_INTERVAL;
        let work = Work::Drip { body, next, due };
        self.streams.insert(stream, Waiting { send_window, work });
    }

    /// A stream taken out of the table goes on if it was waiting to send, and goes back if
    /// it has more to send.
    pub(super) fn resume(&mut self, stream: u32, mut waiting: Waiting) {
        if let Work::Send { parts, ends, due } = &mut waiting.work {
            let ends = *ends;
            let before = waiting.send_window;
            if self.send(stream, &mut waiting.send_window, parts, ends) {
                if !ends {
                    self.reset(stream, Reason::InternalError);
                }
                return;
            }
            if waiting.send_window != before {
                // The client took some: it is not stalled.
                *due = Instant::now() + STALL_TIMEOUT;
            }
        }
        self.streams.insert(stream, waiting);
    }

    /// Resets an open stream that is not in the table.
    pub(super) fn reset(&mut self, stream: u32, reason: Reason) {
        self.ended(stream, Closed::ResetByServer);
        frame::rst_stream(&mut self.output.queue, stream, reason);
    }

    /// An open stream ended.
    pub(super) fn ended(&mut self, stream: u32, how: Closed) {
        self.open -= 1;
        self.active = true;
        if self.open == 0 {
            self.state.count_h2_connection_idle();
        }
        if how == Closed::Ended {
            self.calm.answered();
        }
        self.streams.closed(stream, how);
    }

    /// Looks at the waiting streams whose time has come, the drain's deadline, and the idle
    /// timer: whether any did anything.
    pub(super) fn poll_timers(&mut self, context: &mut Context<'_>) -> bool {
        let mut fired = false;
        let due = match (self.streams.next_due(), self.closing.drain_due()) {
            (Some(stream), Some(drain)) => Some(stream.min(drain)),
            (stream, drain) => stream.or(drain),
        };
        if let Some(due) = due {
            if self.timer_due != Some(due) {
                self.timer.as_mut().reset(due);
                self.timer_due = Some(due);
            }
            if self.timer.as_mut().poll(context).is_ready() {
                self.timer_due = None;
                self.due_work(Instant::now());
                fired = true;
            }
        }
        let busy = !self.streams.is_empty();
        if let Some(expired) = self.idle.poll_expired(context, &self.state, busy) {
            match expired {
                Expired::Moved => {}
                Expired::Graceful => {
                    self.state.count_idle_close();
                    self.drain();
                }
                Expired::GoAway => {
                    self.state.count_idle_close();
                    self.go_away(Phase::Now, Reason::NoError);
                }
            }
            // The timer, moved or done with, is polled again on the next turn.
            fired = true;
        }
        fired
    }

    /// Acts on what is due at `now`: the streams whose deadline has passed, one by one in
    /// time order (no other stream is looked at), and a drain whose PING went unanswered.
    pub(super) fn due_work(&mut self, now: Instant) {
        if self.closing.drain_expired(now) {
            // The client never answered the PING: the last stream is named now.
            self.go_away(Phase::Graceful, Reason::NoError);
        }
        while let Some(stream) = self.streams.next_expired(now) {
            let Some(waiting) = self.streams.remove(stream) else {
                break;
            };
            match waiting.work {
                Work::Body(_) => {
                    // The body did not come in time: answered as over HTTP/1.1, the rest
                    // unread.
                    let answer =
                        Answer::problem(408, "the request body did not arrive in time", &[]);
                    self.act(stream, waiting.send_window, answer.into());
                    if !self.streams.contains(stream) {
                        frame::rst_stream(&mut self.output.queue, stream, Reason::NoError);
                        self.streams.closed(stream, Closed::ResetByServer);
                    }
                }
                Work::Delay { outcome, .. } => self.act_now(stream, waiting.send_window, outcome),
                Work::Drip { body, next, .. } => self.drip(stream, waiting.send_window, body, next),
                // The client left its window shut for STALL_TIMEOUT.
                Work::Send { .. } => self.reset(stream, Reason::Cancel),
                Work::Hang | Work::Parked(_) => self.streams.insert(stream, waiting),
            }
        }
    }
}
