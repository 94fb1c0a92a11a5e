//! One HTTP/2 connection: the frames read and acted on, the answers written, the streams that
//! wait kept until they can go on. This module reads and writes; [`receive`] acts on what the
//! client sends, [`answer`] on what the routes decided.

mod answer;
mod receive;

use std::collections::BTreeMap;
use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::BytesMut;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::time::{Instant, Sleep};

use super::frame::{self, FrameHead, Reason};
use super::hpack;
use super::idle::Idle;
use super::stream::{Head, Waiting};
use crate::exchange::{Answer, Routed};
use crate::state::MockState;
use crate::timing::LINGER;

/// The receive windows (connection and stream) and the largest request head, as hyper's
/// server sets them: the protocol's default window (64 KiB) slows down large request bodies.
const RECEIVE_WINDOW: u32 = 1024 * 1024;
const MAX_HEADER_LIST: u32 = 16 * 1024;
/// The most a header block may take across its CONTINUATION frames.
const MAX_HEADER_BLOCK: usize = 64 * 1024;
/// Room kept in the read buffer for one read.
const READ_CHUNK: usize = 16 * 1024;
/// Reading stops while this much output waits for the client to take it in.
const MAX_BACKLOG: usize = 4 * 1024 * 1024;

/// The PING that a graceful close sends after its first GOAWAY: its ACK says that the client
/// has seen the GOAWAY, so every stream it opened before is here.
const DRAIN_PING: [u8; 8] = *b"draining";

/// Whether the connection is ending, after the GOAWAY it sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Closing {
    Open,
    /// A graceful close has begun (RFC 9113 §6.8): GOAWAY naming the highest stream id, and a
    /// PING; streams still arrive until its ACK, which is when the last is named.
    Draining,
    /// No new stream; the connection closes once the open ones are done.
    Graceful,
    /// The connection closes once what was written has gone out.
    Now,
}

#[allow(clippy::struct_excessive_bools)] // four independent facts of the connection
pub(super) struct Connection<S> {
    io: S,
    state: MockState,
    peer_loopback: bool,
    /// What was read: `input[read_at..filled]` is not taken as frames yet. Kept initialized,
    /// so that a read needs no zeroing.
    input: Vec<u8>,
    read_at: usize,
    filled: usize,
    read_closed: bool,
    /// What is to be written: `output[written..]` has not been yet.
    output: Vec<u8>,
    written: usize,
    unflushed: bool,
    decoder: hpack::Decoder,
    /// The request head being decoded, reused.
    head: Head,
    /// A header block that continues in CONTINUATION frames, for `continuing`: its stream,
    /// and whether its HEADERS ended the stream.
    block: Vec<u8>,
    continuing: Option<(u32, bool)>,
    /// The streams that wait, by id.
    waiting: BTreeMap<u32, Waiting>,
    /// Streams open: taken and not yet ended (answered whole, reset, or dropped with the
    /// connection). Those not answered at once are in `waiting`.
    open: u64,
    /// The newest stream taken.
    last_stream: u32,
    /// What the client lets the connection send, and each new stream.
    send_window: i64,
    initial_window: i64,
    /// The client's largest frame.
    max_frame: usize,
    /// Data received that has not been given back to the client's window yet.
    unacked: u32,
    limit: Option<u32>,
    closing: Closing,
    /// A stream was taken or ended since the idle timer last heard of it.
    active: bool,
    idle: Idle,
    /// The earliest time a waiting stream must be looked at again, and its timer.
    timer: Pin<Box<Sleep>>,
    timer_due: Option<Instant>,
    scratch: BytesMut,
}

impl<S: AsyncRead + AsyncWrite + Unpin> Connection<S> {
    /// A connection whose SETTINGS (the server's preface) are ready to go.
    pub(super) fn new(io: S, state: MockState, peer_loopback: bool) -> Self {
        let limit = state.max_concurrent_streams();
        let mut output = Vec::with_capacity(READ_CHUNK);
        let mut settings = Vec::with_capacity(3);
        if let Some(limit) = limit {
            settings.push((frame::SETTINGS_MAX_CONCURRENT_STREAMS, limit));
        }
        settings.push((frame::SETTINGS_INITIAL_WINDOW_SIZE, RECEIVE_WINDOW));
        settings.push((frame::SETTINGS_MAX_HEADER_LIST_SIZE, MAX_HEADER_LIST));
        frame::settings(&mut output, &settings);
        frame::window_update(
            &mut output,
            0,
            RECEIVE_WINDOW - frame::DEFAULT_WINDOW as u32,
        );
        let idle = Idle::new(&state);
        Self {
            io,
            state,
            peer_loopback,
            input: vec![0; 2 * READ_CHUNK],
            read_at: 0,
            filled: 0,
            read_closed: false,
            output,
            written: 0,
            unflushed: false,
            decoder: hpack::Decoder::default(),
            head: Head::default(),
            block: Vec::new(),
            continuing: None,
            waiting: BTreeMap::new(),
            open: 0,
            last_stream: 0,
            send_window: frame::DEFAULT_WINDOW,
            initial_window: frame::DEFAULT_WINDOW,
            max_frame: frame::DEFAULT_MAX_FRAME,
            unacked: 0,
            limit,
            closing: Closing::Open,
            active: false,
            idle,
            timer: Box::pin(tokio::time::sleep(Duration::ZERO)),
            timer_due: None,
            scratch: BytesMut::new(),
        }
    }

    /// Reads the client's preface; the connection is counted once it has come.
    pub(super) async fn read_preface(&mut self) -> io::Result<()> {
        while self.filled < frame::PREFACE.len() {
            let read = self.io.read(&mut self.input[self.filled..]).await?;
            if read == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            self.filled += read;
        }
        if &self.input[..frame::PREFACE.len()] != frame::PREFACE {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "not the HTTP/2 preface",
            ));
        }
        self.read_at = frame::PREFACE.len();
        self.state.count_h2_connection();
        Ok(())
    }

    /// Serves the connection until it ends: the client closed it or left, or it was closed
    /// (a GOAWAY sent and what had to go out written).
    pub(super) fn poll_serve(&mut self, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            let mut again = false;
            self.take_frames();
            if !self.read_closed && self.output.len() - self.written < MAX_BACKLOG {
                match self.poll_read(context) {
                    Poll::Ready(Ok(0)) => {
                        self.read_closed = true;
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
                self.idle.active(&self.state, !self.waiting.is_empty());
            }
            match self.poll_write(context) {
                Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                Poll::Ready(Ok(())) if self.is_done() => return Poll::Ready(Ok(())),
                Poll::Ready(Ok(())) | Poll::Pending => {}
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
        self.waiting.clear();
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

    fn is_done(&self) -> bool {
        self.read_closed
            || self.closing == Closing::Now
            || (self.closing == Closing::Graceful && self.waiting.is_empty())
    }

    fn poll_read(&mut self, context: &mut Context<'_>) -> Poll<io::Result<usize>> {
        if self.input.len() - self.filled < READ_CHUNK {
            // Room for a read: what is unread moves to the front, and the buffer grows if a
            // frame larger than the room is arriving.
            self.input.copy_within(self.read_at..self.filled, 0);
            self.filled -= self.read_at;
            self.read_at = 0;
            if self.input.len() - self.filled < READ_CHUNK {
                self.input.resize(self.filled + READ_CHUNK, 0);
            }
        }
        let mut buf = ReadBuf::new(&mut self.input[self.filled..]);
        ready!(Pin::new(&mut self.io).poll_read(context, &mut buf))?;
        let read = buf.filled().len();
        self.filled += read;
        Poll::Ready(Ok(read))
    }

    /// Writes what is queued, then flushes it.
    fn poll_write(&mut self, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.written < self.output.len() {
            let wrote =
                ready!(Pin::new(&mut self.io).poll_write(context, &self.output[self.written..]))?;
            if wrote == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.written += wrote;
            self.unflushed = true;
        }
        self.output.clear();
        self.written = 0;
        if self.unflushed {
            ready!(Pin::new(&mut self.io).poll_flush(context))?;
            self.unflushed = false;
        }
        Poll::Ready(Ok(()))
    }

    /// Acts on every whole frame read.
    fn take_frames(&mut self) {
        while self.closing != Closing::Now {
            let Some(head) = FrameHead::parse(&self.input[self.read_at..self.filled]) else {
                break;
            };
            // Nothing in its SETTINGS let the client send larger frames.
            if head.len > frame::DEFAULT_MAX_FRAME {
                self.fail(Reason::FrameSizeError);
                break;
            }
            let end = self.read_at + FrameHead::LEN + head.len;
            if end > self.filled {
                break;
            }
            let input = std::mem::take(&mut self.input);
            self.frame(head, &input[self.read_at + FrameHead::LEN..end]);
            self.input = input;
            self.read_at = end;
        }
        if self.read_at == self.filled {
            self.read_at = 0;
            self.filled = 0;
        }
    }

    fn frame(&mut self, head: FrameHead, payload: &[u8]) {
        if let Some((stream, _)) = self.continuing
            && (head.kind != frame::CONTINUATION || head.stream != stream)
        {
            return self.fail(Reason::ProtocolError);
        }
        match head.kind {
            frame::DATA => self.data(head, payload),
            frame::HEADERS => self.headers(head, payload),
            frame::CONTINUATION => self.continuation(head, payload),
            frame::SETTINGS => self.settings(head, payload),
            frame::WINDOW_UPDATE => self.window_update(head, payload),
            frame::PING if head.stream != 0 => self.fail(Reason::ProtocolError),
            frame::PING if payload.len() != 8 => self.fail(Reason::FrameSizeError),
            frame::PING if !head.has(frame::ACK) => frame::ping_ack(&mut self.output, payload),
            frame::PING if self.closing == Closing::Draining && payload == DRAIN_PING => {
                self.go_away(Closing::Graceful, Reason::NoError);
            }
            frame::RST_STREAM if head.stream == 0 => self.fail(Reason::ProtocolError),
            frame::RST_STREAM if payload.len() != 4 => self.fail(Reason::FrameSizeError),
            // The client gave up on a stream that waits (a hang, a drip, an answer it stopped
            // reading): it ends here.
            frame::RST_STREAM if self.waiting.remove(&head.stream).is_some() => self.ended(),
            // The client leaves: the streams it opened are finished, no new one is taken.
            frame::GOAWAY => self.go_away(Closing::Graceful, Reason::NoError),
            frame::PUSH_PROMISE => self.fail(Reason::ProtocolError),
            // PRIORITY, a PING's ACK, and frame types this server does not know.
            _ => {}
        }
    }

    /// Sends GOAWAY naming the last stream taken, once.
    fn go_away(&mut self, closing: Closing, reason: Reason) {
        if self.closing == Closing::Now || (self.closing == closing && reason == Reason::NoError) {
            return;
        }
        frame::goaway(&mut self.output, self.last_stream, reason);
        self.closing = closing;
    }

    /// Begins a graceful close, as h2 servers do: a request the client sent before it saw
    /// the GOAWAY is still served, not refused.
    fn drain(&mut self) {
        if self.closing == Closing::Open {
            frame::goaway(&mut self.output, frame::MAX_STREAM, Reason::NoError);
            frame::ping(&mut self.output, DRAIN_PING);
            self.closing = Closing::Draining;
        }
    }

    /// A connection error: GOAWAY with its code, then the close.
    fn fail(&mut self, reason: Reason) {
        self.go_away(Closing::Now, reason);
    }
}

/// A length as flow control counts it.
fn signed(len: usize) -> i64 {
    i64::try_from(len).unwrap_or(i64::MAX)
}

/// The answer to a request head larger than the HTTP/1.1 side accepts.
fn head_too_large() -> Routed {
    Answer::problem(431, "the request head is too large", &[]).into()
}
