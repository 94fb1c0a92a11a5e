//! What the server sends: answers (HEADERS, DATA) as a route decided, as far as the windows
//! let them; resets; and the streams that wait for a time (latency, a drip, a body late).

use std::collections::VecDeque;
use std::future::Future;
use std::task::Context;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::time::Instant;

use super::{Closing, Connection, signed};
use crate::exchange::{Answer, AnswerFault, Outcome, Routed};
use crate::http2::frame::{self, Reason};
use crate::http2::idle::Expired;
use crate::http2::stream::{Waiting, Work};
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
        self.waiting.insert(stream, Waiting { send_window, work });
    }

    pub(super) fn act_now(&mut self, stream: u32, mut send_window: i64, outcome: Outcome) {
        let answer = match outcome {
            Outcome::Answer(answer) => answer,
            Outcome::Reset => return self.reset(stream, Reason::InternalError),
            Outcome::Refuse => return self.reset(stream, Reason::RefusedStream),
            Outcome::Hang => {
                let work = Work::Hang;
                self.waiting.insert(stream, Waiting { send_window, work });
                return;
            }
            Outcome::GoAway => {
                // The stream is left unanswered; the connection ends on GOAWAY with an error
                // code, which the client reports, and its open stream fails as it closes.
                let work = Work::Hang;
                self.waiting.insert(stream, Waiting { send_window, work });
                return self.go_away(Closing::Now, Reason::InternalError);
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
            self.ended();
            return frame::answer_headers(&mut self.output, stream, &answer, framing, true);
        }
        frame::answer_headers(&mut self.output, stream, &answer, framing, false);
        if answer.fault == Some(AnswerFault::Drip) {
            return self.drip(stream, send_window, answer.body, 0);
        }
        let len = signed(body.len());
        if framing == Framing::ContentLength
            && len <= signed(self.max_frame)
            && len <= self.send_window.min(send_window)
        {
            // The usual answer: one DATA frame.
            self.send_window -= len;
            if ends {
                self.ended();
            }
            frame::data(&mut self.output, stream, &body, ends);
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
            let work = Work::Send { parts, ends };
            self.waiting.insert(stream, Waiting { send_window, work });
        }
    }

    /// Sends `parts` as DATA frames as far as the windows let them out, ending the stream
    /// after the last if `ends`: whether all went out.
    pub(super) fn send(
        &mut self,
        stream: u32,
        window: &mut i64,
        parts: &mut VecDeque<Bytes>,
        ends: bool,
    ) -> bool {
        while let Some(part) = parts.front_mut() {
            let room = self.send_window.min(*window).min(signed(self.max_frame));
            if room <= 0 {
                return false;
            }
            let piece = part.split_to(part.len().min(room as usize));
            if part.is_empty() {
                parts.pop_front();
            }
            let last = ends && parts.is_empty();
            if last {
                self.ended();
            }
            frame::data(&mut self.output, stream, &piece, last);
            self.send_window -= signed(piece.len());
            *window -= signed(piece.len());
        }
        true
    }

    /// Sends the drip's next byte if the windows let it, and waits for the next.
    pub(super) fn drip(&mut self, stream: u32, mut send_window: i64, body: Bytes, mut next: usize) {
        if body.is_empty() {
            let work = Work::Hang;
            self.waiting.insert(stream, Waiting { send_window, work });
            return;
        }
        if self.send_window > 0 && send_window > 0 {
            frame::data(&mut self.output, stream, &body[next..=next], false);
            self.send_window -= 1;
            send_window -= 1;
            next = (next + 1) % body.len();
        }
        let due = Instant::now() + DRIP_INTERVAL;
        let work = Work::Drip { body, next, due };
        self.waiting.insert(stream, Waiting { send_window, work });
    }

    /// Resets an open stream that is not in `waiting`.
    pub(super) fn reset(&mut self, stream: u32, reason: Reason) {
        self.ended();
        frame::rst_stream(&mut self.output, stream, reason);
    }

    /// An open stream ended.
    pub(super) fn ended(&mut self) {
        self.open -= 1;
        self.active = true;
        if self.open == 0 {
            self.state.count_h2_connection_idle();
        }
    }

    /// Looks at the waiting streams whose time has come, and at the idle timer: whether
    /// either did anything.
    pub(super) fn poll_timers(&mut self, context: &mut Context<'_>) -> bool {
        let mut fired = false;
        let due = self
            .waiting
            .values()
            .filter_map(|waiting| waiting.work.due())
            .min();
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
        let busy = !self.waiting.is_empty();
        if let Some(expired) = self.idle.poll_expired(context, &self.state, busy) {
            match expired {
                Expired::Moved => {}
                Expired::Graceful => {
                    self.state.count_idle_close();
                    self.drain();
                }
                Expired::GoAway => {
                    self.state.count_idle_close();
                    self.go_away(Closing::Now, Reason::NoError);
                }
            }
            // The timer, moved or done with, is polled again on the next turn.
            fired = true;
        }
        fired
    }

    pub(super) fn due_work(&mut self, now: Instant) {
        let due: Vec<u32> = self
            .waiting
            .iter()
            .filter(|(_, waiting)| waiting.work.due().is_some_and(|due| due <= now))
            .map(|(&stream, _)| stream)
            .collect();
        for stream in due {
            let Some(waiting) = self.waiting.remove(&stream) else {
                continue;
            };
            match waiting.work {
                Work::Body(_) => {
                    // The body did not come in time: answered as over HTTP/1.1, the rest
                    // unread.
                    let answer =
                        Answer::problem(408, "the request body did not arrive in time", &[]);
                    self.act(stream, waiting.send_window, answer.into());
                    frame::rst_stream(&mut self.output, stream, Reason::NoError);
                }
                Work::Delay { outcome, .. } => self.act_now(stream, waiting.send_window, outcome),
                Work::Drip { body, next, .. } => self.drip(stream, waiting.send_window, body, next),
                Work::Send { .. } | Work::Hang => {
                    self.waiting.insert(stream, waiting);
                }
            }
        }
    }
}
