//! One HTTP/2 connection: the frames read and acted on, the answers written, the streams that
//! wait kept until they can go on. This module reads and writes and dispatches the frames;
//! [`receive`] acts on what the client sends, [`answer`] on what the routes decided. The
//! state is held by the parts that own it, each beside this module with its own tests: the
//! bytes read and to write ([`Input`], [`Output`]), the flow-control windows ([`Windows`]),
//! the stream table ([`Streams`]), the flood budgets ([`Calm`]), how the connection ends
//! ([`Closing`]) and the idle timer ([`Idle`]); the request heads' decoding is
//! [`hpack::Decoder`]'s.

mod answer;
mod receive;
#[cfg(test)]
mod tests;

use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, Waker, ready};
use std::time::Duration;

use bytes::BytesMut;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::time::{Instant, Sleep};

use super::buffers::{Input, Output, READ_CHUNK};
use super::calm::Calm;
use super::closing::{Closing, Phase};
use super::flow::Windows;
use super::frame::{self, FrameHead, Reason};
use super::hpack;
use super::idle::Idle;
use super::memory::Memory;
use super::stream::Head;
use super::streams::{Closed, Streams};
use crate::exchange::{Answer, Routed};
use crate::history;
use crate::http::MAX_BODY;
use crate::state::MockState;
use crate::timing::LINGER;

/// The largest header list a request may have (SETTINGS_MAX_HEADER_LIST_SIZE), hyper's
/// server default for h2's `max_header_list_size`: past it the request is answered 431, and
/// the decoder stops handing fields over, so that no header block makes the connection keep
/// more.
pub(super) const MAX_HEADER_LIST: u32 = 16 * 1024;
/// The streams a client may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS) unless
/// `--max-concurrent-streams` says otherwise: nginx's `http2_max_concurrent_streams` (hyper's
/// server announces 200).
pub(super) const DEFAULT_MAX_STREAMS: u32 = 128;
/// The most a header block may take across its CONTINUATION frames.
const MAX_HEADER_BLOCK: usize = 64 * 1024;
/// Frames are not taken, nor answers sent, while this much output waits for the client.
const MAX_BACKLOG: usize = 4 * 1024 * 1024;
/// The bytes of answers that streams waiting for window (or for their latency) may hold
/// together: past it, new requests are parked (kept whole, not routed) until the answers
/// that wait hold less, so that a client that does not read is not answered further.
const MAX_HELD: usize = 8 * 1024 * 1024;
/// How long a stream may wait for the client to open its window before it is reset
/// (CANCEL): nginx's `send_timeout` does the same for a connection, with 60 s.
pub(super) const STALL_TIMEOUT: Duration = Duration::from_secs(10);

/// The PING that a graceful close sends after its first GOAWAY: its ACK says that the client
/// has seen the GOAWAY, so every stream it opened before is here.
const DRAIN_PING: [u8; 8] = *b"draining";

/// The most one connection keeps, with at most `limit` streams open: the read buffer, the
/// output backlog (and one frame past it), the header block and the decoder, the answers
/// held (and the room of the largest answer made), and each open stream's upload.
pub(super) fn memory_bound(limit: u32) -> usize {
    let input = 2 * READ_CHUNK + frame::DEFAULT_MAX_FRAME + FrameHead::LEN;
    let output = MAX_BACKLOG + 64 * 1024;
    let heads = MAX_HEADER_BLOCK + frame::DEFAULT_MAX_FRAME + 64 * 1024;
    // The answers held, the one routed last (which may take them past the limit), and the
    // room of the largest answer made.
    let answers = MAX_HELD + 2 * history::MAX_SIZE;
    let uploads = limit as usize * (MAX_BODY + MAX_HEADER_LIST as usize);
    input + output + heads + answers + uploads
}

/// The state of a stream as the frames that name it find it (RFC 9113 §5.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Not opened yet (or, even, never by the client).
    Idle,
    /// Its request body is arriving.
    Open,
    /// Its request has come whole; its answer waits.
    HalfClosedRemote,
    /// Done with, and how, if it is one of the last closed.
    Closed(Option<Closed>),
}

pub(super) struct Connection<S> {
    io: S,
    state: MockState,
    peer_loopback: bool,
    input: Input,
    output: Output,
    decoder: hpack::Decoder,
    /// The request head being decoded, reused.
    head: Head,
    /// A header block that continues in CONTINUATION frames: its bytes so far, and what its
    /// HEADERS said.
    block: Vec<u8>,
    continuing: Option<Continuing>,
    /// The client's SETTINGS, the first frame it must send (§3.4), have come.
    settings_seen: bool,
    streams: Streams,
    /// Streams open: taken and not yet ended (answered whole, reset, or dropped with the
    /// connection). Those not answered at once are in `streams`.
    open: u64,
    /// The newest stream taken.
    last_stream: u32,
    limit: u32,
    windows: Windows,
    /// The client's largest frame.
    max_frame: usize,
    calm: Calm,
    closing: Closing,
    /// A stream was taken or ended since the idle timer last heard of it.
    active: bool,
    idle: Idle,
    /// The earliest time a waiting stream (or the drain) must be looked at again, and its
    /// timer.
    timer: Pin<Box<Sleep>>,
    timer_due: Option<Instant>,
    scratch: BytesMut,
}

/// What the HEADERS of a block that continues said.
#[derive(Clone, Copy, Debug)]
struct Continuing {
    stream: u32,
    ends: bool,
    /// It named its own stream as its dependency (§5.3.1).
    self_dependent: bool,
}

impl<S: AsyncRead + AsyncWrite + Unpin> Connection<S> {
    /// A connection whose SETTINGS (the server's preface) are ready to go.
    pub(super) fn new(io: S, state: MockState, peer_loopback: bool) -> Self {
        let limit = state
            .max_concurrent_streams()
            .unwrap_or(DEFAULT_MAX_STREAMS);
        let mut output = Output::new();
        frame::settings(
            &mut output.queue,
            &[
                (frame::SETTINGS_MAX_CONCURRENT_STREAMS, limit),
                (
                    frame::SETTINGS_INITIAL_WINDOW_SIZE,
                    super::flow::RECEIVE_WINDOW,
                ),
                (frame::SETTINGS_MAX_HEADER_LIST_SIZE, MAX_HEADER_LIST),
            ],
        );
        frame::window_update(&mut output.queue, 0, Windows::opening_increment());
        let idle = Idle::new(&state);
        Self {
            io,
            state,
            peer_loopback,
            input: Input::new(),
            output,
            decoder: hpack::Decoder::default(),
            head: Head::default(),
            block: Vec::new(),
            continuing: None,
            settings_seen: false,
            streams: Streams::default(),
            open: 0,
            last_stream: 0,
            limit,
            windows: Windows::default(),
            max_frame: frame::DEFAULT_MAX_FRAME,
            calm: Calm::default(),
            closing: Closing::default(),
            active: false,
            idle,
            timer: Box::pin(tokio::time::sleep(Duration::ZERO)),
            timer_due: None,
            scratch: BytesMut::new(),
        }
    }

    /// Reads the client's preface; the connection is counted once it has come.
    pub(super) async fn read_preface(&mut self) -> io::Result<()> {
        poll_fn(|context| self.poll_preface(context)).await
    }

    fn poll_preface(&mut self, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.input.unread().len() < frame::PREFACE.len() {
            if ready!(self.poll_read(context))? == 0 {
                return Poll::Ready(Err(io::ErrorKind::UnexpectedEof.into()));
            }
            // Not the preface: a connection error (§3.4), closed without GOAWAY as the RFC
            // lets a server do.
            let read = self.input.unread();
            let seen = read.len().min(frame::PREFACE.len());
            if read[..seen] != frame::PREFACE[..seen] {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "not the HTTP/2 preface",
                )));
            }
        }
        self.input.take(frame::PREFACE.len());
        self.state.count_h2_connection();
        Poll::Ready(Ok(()))
    }

    /// Serves the connection until it ends: the client closed it or left, or it was closed
    /// (a GOAWAY sent and what had to go out written).
    pub(super) fn poll_serve(&mut self, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            let mut again = false;
            self.take_frames();
            if !self.input.closed && self.backlog() < MAX_BACKLOG {
                match self.poll_read(context) {
                    Poll::Ready(Ok(0)) => {
                        self.input.closed = true;
                        again = true;
                    }
                    Poll::Ready(Ok(_)) => {
                        self.take_frames();
                        again = true;
                    }
                    Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                    Poll::Pending => {}
                }
            }
            again |= self.poll_timers(context);
            if std::mem::take(&mut self.active) {
                self.idle.active(&self.state, !self.streams.is_empty());
            }
            match self.poll_write(context) {
                Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                Poll::Ready(Ok(())) if self.is_done() => return Poll::Ready(Ok(())),
                Poll::Ready(Ok(())) => {
                    if self.streams.next_parked().is_some() && self.streams.held() <= MAX_HELD {
                        self.unpark();
                        again = true;
                    }
                    // What waited for the backlog to go out can go on.
                    if self.streams.next_ready().is_some() && self.windows.send > 0 {
                        self.resume_sending();
                        again |= self.backlog() > 0;
                    }
                    again |= self.has_frame();
                }
                Poll::Pending => {}
            }
            if !again {
                return Poll::Pending;
            }
        }
    }

    /// After [`Self::poll_serve`]: the streams still open (a hang, a drip, a stream a `goaway`
    /// fault left unanswered) end with the connection, what is left is written, and the TLS
    /// session closed.
    pub(super) async fn close(&mut self) {
        self.streams.clear();
        if self.open > 0 {
            self.open = 0;
            self.state.count_h2_connection_idle();
        }
        let _ = tokio::time::timeout(LINGER, async {
            if poll_fn(|context| self.poll_write(context)).await.is_ok() {
                let _ = self.io.shutdown().await;
            }
        })
        .await;
        // Closing a socket with unread bytes sends a RST, which can destroy the GOAWAY before
        // the client reads it: hold the socket (unread, so no RST yet) while the client takes
        // it in.
        tokio::time::sleep(LINGER).await;
    }

    /// The bytes this connection keeps: its buffers, its decoder, its streams' uploads and
    /// the answers they hold. At most [`memory_bound`].
    pub(super) fn retained(&self) -> usize {
        self.input.capacity()
            + self.output.capacity()
            + self.block.capacity()
            + self.decoder.retained()
            + self.head.retained()
            + self.scratch.capacity()
            + self.streams.retained()
    }

    fn is_done(&self) -> bool {
        self.input.closed
            || self.closing.phase() == Phase::Now
            || (self.closing.phase() == Phase::Graceful && self.streams.is_empty())
    }

    /// The output not written yet.
    fn backlog(&self) -> usize {
        self.output.backlog()
    }

    /// Whether a whole frame waits to be taken, with room to answer it.
    fn has_frame(&self) -> bool {
        self.closing.phase() != Phase::Now
            && self.backlog() < MAX_BACKLOG
            && self.input.whole_frame().is_some()
    }

    fn poll_read(&mut self, context: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let mut buf = ReadBuf::new(self.input.room());
        ready!(Pin::new(&mut self.io).poll_read(context, &mut buf))?;
        let read = buf.filled().len();
        self.input.filled(read);
        Poll::Ready(Ok(read))
    }

    /// Writes what is queued, then flushes it.
    fn poll_write(&mut self, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.output.backlog() > 0 {
            let pending = self.output.pending();
            let wrote = ready!(Pin::new(&mut self.io).poll_write(context, pending))?;
            if wrote == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.output.wrote(wrote);
        }
        self.output.all_written();
        self.calm.written();
        if self.output.unflushed() {
            ready!(Pin::new(&mut self.io).poll_flush(context))?;
            self.output.flushed();
        }
        Poll::Ready(Ok(()))
    }

    /// Acts on every whole frame read, while the output backlog has room.
    fn take_frames(&mut self) {
        while self.closing.phase() != Phase::Now && self.backlog() < MAX_BACKLOG {
            let Some(head) = FrameHead::parse(self.input.unread()) else {
                break;
            };
            // Nothing in its SETTINGS let the client send larger frames.
            if head.len > frame::DEFAULT_MAX_FRAME {
                self.fail(Reason::FrameSizeError);
                break;
            }
            let Some((head, len)) = self.input.whole_frame() else {
                break;
            };
            let input = std::mem::take(&mut self.input);
            self.frame(head, &input.unread()[FrameHead::LEN..len]);
            self.input = input;
            self.input.take(len);
        }
    }

    fn frame(&mut self, head: FrameHead, payload: &[u8]) {
        if !self.settings_seen {
            // The client's preface ends with its SETTINGS (§3.4).
            if head.kind != frame::SETTINGS || head.has(frame::ACK) {
                return self.fail(Reason::ProtocolError);
            }
            self.settings_seen = true;
        }
        if let Some(continuing) = self.continuing
            && (head.kind != frame::CONTINUATION || head.stream != continuing.stream)
        {
            return self.fail(Reason::ProtocolError);
        }
        match head.kind {
            frame::DATA => self.data(head, payload),
            frame::HEADERS => self.headers(head, payload),
            frame::PRIORITY => self.priority(head, payload),
            frame::RST_STREAM => self.rst_stream(head, payload),
            frame::SETTINGS => self.settings(head, payload),
            frame::PUSH_PROMISE => self.fail(Reason::ProtocolError),
            frame::PING => self.ping(head, payload),
            frame::GOAWAY => self.goaway(head, payload),
            frame::WINDOW_UPDATE => self.window_update(head, payload),
            frame::CONTINUATION => self.continuation(head, payload),
            // Frame types this server does not know are ignored (§4.1).
            _ => {}
        }
    }

    /// Where `stream` stands, for a frame the client sent on it.
    fn stream_state(&self, stream: u32) -> State {
        // The server opens no stream: an even one is idle for ever.
        if stream > self.last_stream || stream.is_multiple_of(2) {
            return State::Idle;
        }
        match self.streams.get(stream) {
            Some(waiting) if waiting.is_receiving() => State::Open,
            Some(_) => State::HalfClosedRemote,
            None => State::Closed(self.streams.closed_as(stream)),
        }
    }

    /// Sends GOAWAY naming the last stream taken, once.
    fn go_away(&mut self, phase: Phase, reason: Reason) {
        if self.closing.go_away(phase, reason) {
            frame::goaway(&mut self.output.queue, self.last_stream, reason);
        }
    }

    /// Begins a graceful close, as h2 servers do: a request the client sent before it saw
    /// the GOAWAY is still served, not refused.
    fn drain(&mut self) {
        if self.closing.drain(Instant::now()) {
            frame::goaway(&mut self.output.queue, frame::MAX_STREAM, Reason::NoError);
            frame::ping(&mut self.output.queue, DRAIN_PING);
        }
    }

    /// A connection error: GOAWAY with its code, then the close.
    fn fail(&mut self, reason: Reason) {
        self.go_away(Phase::Now, reason);
    }

    /// A control frame was queued: past the budget, the client is told to calm down.
    fn queued_control(&mut self) {
        if !self.calm.control() {
            self.fail(Reason::EnhanceYourCalm);
        }
    }
}

impl Connection<Memory> {
    /// Serves what the client sent so far with a waker that does nothing, the preface first:
    /// how the connection ended if it did, and the most it kept between two reads.
    pub(super) fn pump(&mut self, preface: bool) -> (Option<io::Result<()>>, usize) {
        let mut context = Context::from_waker(Waker::noop());
        let mut peak = self.retained();
        if preface {
            loop {
                match self.poll_preface(&mut context) {
                    Poll::Ready(Ok(())) => break,
                    Poll::Ready(Err(error)) => return (Some(Err(error)), peak),
                    Poll::Pending if self.io.unread() => {}
                    Poll::Pending => return (None, peak),
                }
            }
        }
        loop {
            let served = self.poll_serve(&mut context);
            peak = peak.max(self.retained());
            match served {
                Poll::Ready(result) => return (Some(result), peak),
                Poll::Pending if self.io.unread() => {}
                Poll::Pending => return (None, peak),
            }
        }
    }

    /// What the server wrote so far, taken.
    pub(super) fn written(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.io.output)
    }

    /// The client sends `bytes`.
    #[cfg(test)]
    pub(super) fn client_sends(&mut self, bytes: &[u8]) {
        self.io.send(bytes);
    }

    /// The streams open, waiting, and touched so far.
    #[cfg(test)]
    pub(super) fn streams_seen(&self) -> (u64, usize, u64) {
        (self.open, self.streams.len(), self.streams.touched())
    }

    /// The stream limit.
    pub(super) fn limit(&self) -> u32 {
        self.limit
    }
}

/// A length as flow control counts it.
fn signed(len: usize) -> i64 {
    i64::try_from(len).unwrap_or(i64::MAX)
}

/// The answer to a request head larger than the header-list limit, as h2 answers it.
fn head_too_large() -> Routed {
    Answer::problem(431, "the request head is too large", &[]).into()
}
