//! One HTTP/2 connection: the frames read and acted on, the answers written, the streams that
//! wait kept until they can go on.

use std::collections::{BTreeMap, VecDeque};
use std::future::{Future, poll_fn};
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::time::{Instant, Sleep};

use super::frame::{self, FrameHead, Reason};
use super::hpack;
use super::idle::{Expired, Idle};
use super::stream::{Head, Upload, Waiting, Work};
use crate::exchange::{Answer, AnswerFault, Outcome, Routed};
use crate::routes;
use crate::settings::Framing;
use crate::state::MockState;
use crate::timing::{DRIP_INTERVAL, LINGER, REQUEST_TIMEOUT};

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

    fn headers(&mut self, head: FrameHead, payload: &[u8]) {
        if head.stream == 0 {
            return self.fail(Reason::ProtocolError);
        }
        let Some(block) = frame::unpadded(head, payload) else {
            return self.fail(Reason::ProtocolError);
        };
        if head.has(frame::END_HEADERS) {
            self.header_block(head.stream, head.has(frame::END_STREAM), block);
        } else {
            self.block.clear();
            self.block.extend_from_slice(block);
            self.continuing = Some((head.stream, head.has(frame::END_STREAM)));
        }
    }

    fn continuation(&mut self, head: FrameHead, payload: &[u8]) {
        let Some((stream, ends)) = self.continuing else {
            return self.fail(Reason::ProtocolError);
        };
        self.block.extend_from_slice(payload);
        if self.block.len() > MAX_HEADER_BLOCK {
            return self.fail(Reason::EnhanceYourCalm);
        }
        if head.has(frame::END_HEADERS) {
            self.continuing = None;
            let block = std::mem::take(&mut self.block);
            self.header_block(stream, ends, &block);
            self.block = block;
        }
    }

    /// A whole header block: a new request, or the trailers of one whose body is arriving.
    fn header_block(&mut self, stream: u32, ends: bool, block: &[u8]) {
        self.head.clear();
        let head = &mut self.head;
        let decoded = self
            .decoder
            .decode(block, |name, value| head.field(name, value));
        if decoded.is_err() {
            return self.fail(Reason::CompressionError);
        }
        if let Some(waiting) = self.waiting.get(&stream) {
            if matches!(waiting.work, Work::Body(_)) {
                if ends {
                    self.body_complete(stream);
                } else {
                    // Trailers that do not end the stream.
                    self.waiting.remove(&stream);
                    self.reset(stream, Reason::ProtocolError);
                }
            }
            return;
        }
        if stream.is_multiple_of(2) || stream <= self.last_stream {
            return self.fail(Reason::ProtocolError);
        }
        if matches!(self.closing, Closing::Graceful | Closing::Now) {
            // Past the GOAWAY's last stream: not processed, so the client may send it again.
            return frame::rst_stream(&mut self.output, stream, Reason::RefusedStream);
        }
        self.last_stream = stream;
        if self
            .limit
            .is_some_and(|limit| self.open >= u64::from(limit))
        {
            return frame::rst_stream(&mut self.output, stream, Reason::RefusedStream);
        }
        if !self.head.is_valid() {
            return frame::rst_stream(&mut self.output, stream, Reason::ProtocolError);
        }
        self.state.count_request();
        self.open += 1;
        self.state.count_h2_stream(self.open);
        self.active = true;
        if self.head.is_too_large() {
            self.act(stream, self.initial_window, head_too_large());
            if !ends {
                // Answered before its body came: the client need not send the rest.
                frame::rst_stream(&mut self.output, stream, Reason::NoError);
            }
        } else if ends {
            let request = self.head.request(&[], self.peer_loopback);
            let routed = routes::handle(&request, &self.state, &mut self.scratch);
            self.act(stream, self.initial_window, routed);
        } else {
            let upload = Upload::new(std::mem::take(&mut self.head), REQUEST_TIMEOUT);
            self.waiting.insert(
                stream,
                Waiting {
                    send_window: self.initial_window,
                    work: Work::Body(Box::new(upload)),
                },
            );
        }
    }

    fn data(&mut self, head: FrameHead, payload: &[u8]) {
        if head.stream == 0 {
            return self.fail(Reason::ProtocolError);
        }
        // The whole payload counts against the window, padding included.
        self.unacked += head.len as u32;
        if self.unacked >= RECEIVE_WINDOW / 2 {
            frame::window_update(&mut self.output, 0, std::mem::take(&mut self.unacked));
        }
        let Some(data) = frame::unpadded(head, payload) else {
            return self.fail(Reason::ProtocolError);
        };
        // Data of a stream answered or reset is dropped.
        let Some(Waiting {
            work: Work::Body(upload),
            ..
        }) = self.waiting.get_mut(&head.stream)
        else {
            return;
        };
        if !upload.take(data) {
            // Larger than a route accepts: answered now, as over HTTP/1.1, the rest unread.
            let waiting = self.waiting.remove(&head.stream);
            let send_window = waiting.map_or(self.initial_window, |waiting| waiting.send_window);
            let answer = Answer::problem(413, "the request body is too large", &[]);
            self.act(head.stream, send_window, answer.into());
            if !head.has(frame::END_STREAM) {
                frame::rst_stream(&mut self.output, head.stream, Reason::NoError);
            }
            return;
        }
        if head.has(frame::END_STREAM) {
            self.body_complete(head.stream);
        } else {
            upload.unacked += head.len as u32;
            if upload.unacked >= RECEIVE_WINDOW / 2 {
                let increment = std::mem::take(&mut upload.unacked);
                frame::window_update(&mut self.output, head.stream, increment);
            }
        }
    }

    /// A request's body has come whole: it is routed.
    fn body_complete(&mut self, stream: u32) {
        let Some(waiting) = self.waiting.remove(&stream) else {
            return;
        };
        let Work::Body(upload) = waiting.work else {
            self.waiting.insert(stream, waiting);
            return;
        };
        let request = upload.head.request(&upload.body, self.peer_loopback);
        let routed = routes::handle(&request, &self.state, &mut self.scratch);
        self.act(stream, waiting.send_window, routed);
    }

    fn settings(&mut self, head: FrameHead, payload: &[u8]) {
        if head.stream != 0 {
            return self.fail(Reason::ProtocolError);
        }
        if head.has(frame::ACK) {
            return;
        }
        if !payload.len().is_multiple_of(6) {
            return self.fail(Reason::FrameSizeError);
        }
        for setting in payload.chunks_exact(6) {
            let id = u16::from_be_bytes([setting[0], setting[1]]);
            let value = u32::from_be_bytes([setting[2], setting[3], setting[4], setting[5]]);
            match id {
                frame::SETTINGS_INITIAL_WINDOW_SIZE => {
                    let value = i64::from(value);
                    if value > frame::MAX_WINDOW {
                        return self.fail(Reason::FlowControlError);
                    }
                    let change = value - self.initial_window;
                    self.initial_window = value;
                    for waiting in self.waiting.values_mut() {
                        waiting.send_window += change;
                    }
                }
                frame::SETTINGS_MAX_FRAME_SIZE => {
                    if !(16_384..=16_777_215).contains(&value) {
                        return self.fail(Reason::ProtocolError);
                    }
                    self.max_frame = value as usize;
                }
                // SETTINGS_HEADER_TABLE_SIZE among them: the answers' fields are never
                // indexed, so the size of the client's table does not matter.
                _ => {}
            }
        }
        frame::settings_ack(&mut self.output);
        self.resume_sending();
    }

    fn window_update(&mut self, head: FrameHead, payload: &[u8]) {
        let Ok(increment) = <[u8; 4]>::try_from(payload) else {
            return self.fail(Reason::FrameSizeError);
        };
        let increment = i64::from(u32::from_be_bytes(increment) & 0x7fff_ffff);
        if head.stream == 0 {
            self.send_window += increment;
            if increment == 0 || self.send_window > frame::MAX_WINDOW {
                return self.fail(Reason::FlowControlError);
            }
            self.resume_sending();
        } else if let Some(mut waiting) = self.waiting.remove(&head.stream) {
            waiting.send_window += increment;
            if increment == 0 || waiting.send_window > frame::MAX_WINDOW {
                return self.reset(head.stream, Reason::FlowControlError);
            }
            self.resume(head.stream, waiting);
        }
    }

    /// Room in the windows: the streams waiting for it send what they can, in stream order.
    fn resume_sending(&mut self) {
        if self.waiting.is_empty() {
            return;
        }
        let sending: Vec<u32> = self
            .waiting
            .iter()
            .filter(|(_, waiting)| matches!(waiting.work, Work::Send { .. }))
            .map(|(&stream, _)| stream)
            .collect();
        for stream in sending {
            if self.send_window <= 0 {
                break;
            }
            if let Some(waiting) = self.waiting.remove(&stream) {
                self.resume(stream, waiting);
            }
        }
    }

    /// A stream taken out of `waiting` goes on if it was waiting to send, and goes back.
    fn resume(&mut self, stream: u32, mut waiting: Waiting) {
        if let Work::Send { parts, ends } = &mut waiting.work {
            let ends = *ends;
            if self.send(stream, &mut waiting.send_window, parts, ends) {
                if !ends {
                    self.reset(stream, Reason::InternalError);
                }
                return;
            }
        }
        self.waiting.insert(stream, waiting);
    }

    /// Acts on a route's decision for an open stream that is not in `waiting`: at once, or
    /// after its injected latency.
    fn act(&mut self, stream: u32, send_window: i64, routed: Routed) {
        if routed.delay.is_zero() {
            return self.act_now(stream, send_window, routed.outcome);
        }
        let work = Work::Delay {
            due: Instant::now() + routed.delay,
            outcome: routed.outcome,
        };
        self.waiting.insert(stream, Waiting { send_window, work });
    }

    fn act_now(&mut self, stream: u32, mut send_window: i64, outcome: Outcome) {
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
    fn send(
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
    fn drip(&mut self, stream: u32, mut send_window: i64, body: Bytes, mut next: usize) {
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
    fn reset(&mut self, stream: u32, reason: Reason) {
        self.ended();
        frame::rst_stream(&mut self.output, stream, reason);
    }

    /// An open stream ended.
    fn ended(&mut self) {
        self.open -= 1;
        self.active = true;
        if self.open == 0 {
            self.state.count_h2_connection_idle();
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

    /// Looks at the waiting streams whose time has come, and at the idle timer: whether
    /// either did anything.
    fn poll_timers(&mut self, context: &mut Context<'_>) -> bool {
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

    fn due_work(&mut self, now: Instant) {
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

/// A length as flow control counts it.
fn signed(len: usize) -> i64 {
    i64::try_from(len).unwrap_or(i64::MAX)
}

/// The answer to a request head larger than the HTTP/1.1 side accepts.
fn head_too_large() -> Routed {
    Answer::problem(431, "the request head is too large", &[]).into()
}
