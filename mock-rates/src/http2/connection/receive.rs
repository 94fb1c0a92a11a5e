//! What the client sends: request heads (HEADERS, CONTINUATION), their bodies (DATA), its
//! SETTINGS, WINDOW_UPDATEs, PINGs, resets, priorities and GOAWAY, each checked against RFC
//! 9113 as the stream's state has it.

use tokio::io::{AsyncRead, AsyncWrite};

use super::{
    Connection, Continuing, DRAIN_PING, MAX_BACKLOG, MAX_HEADER_BLOCK, MAX_HEADER_LIST, MAX_HELD,
    State, head_too_large,
};
use crate::exchange::Answer;
use crate::http2::closing::Phase;
use crate::http2::flow::{self, RECEIVE_WINDOW};
use crate::http2::frame::{self, FrameHead, Reason};
use crate::http2::hpack::Block;
use crate::http2::stream::{Upload, Waiting, Work};
use crate::http2::streams::Closed;
use crate::routes;
use crate::timing::REQUEST_TIMEOUT;

impl<S: AsyncRead + AsyncWrite + Unpin> Connection<S> {
    pub(super) fn headers(&mut self, head: FrameHead, payload: &[u8]) {
        if head.stream == 0 {
            return self.fail(Reason::ProtocolError);
        }
        let Some(block) = frame::unpadded(head, payload) else {
            return self.fail(Reason::ProtocolError);
        };
        let self_dependent = head.has(frame::PRIORITY_FLAG)
            && dependency(&payload[usize::from(head.has(frame::PADDED))..]) == Some(head.stream);
        self.calm.block();
        let continuing = Continuing {
            stream: head.stream,
            ends: head.has(frame::END_STREAM),
            self_dependent,
        };
        if head.has(frame::END_HEADERS) {
            self.header_block(continuing, block);
        } else {
            self.block.clear();
            self.block.extend_from_slice(block);
            self.continuing = Some(continuing);
        }
    }

    pub(super) fn continuation(&mut self, head: FrameHead, payload: &[u8]) {
        let Some(continuing) = self.continuing else {
            return self.fail(Reason::ProtocolError);
        };
        self.block.extend_from_slice(payload);
        if self.block.len() > MAX_HEADER_BLOCK || !self.calm.continuation() {
            return self.fail(Reason::EnhanceYourCalm);
        }
        if head.has(frame::END_HEADERS) {
            self.continuing = None;
            let mut block = std::mem::take(&mut self.block);
            self.header_block(continuing, &block);
            // A large block's room is not kept for the next.
            if block.capacity() > frame::DEFAULT_MAX_FRAME {
                block = Vec::new();
            }
            self.block = block;
        }
    }

    /// A whole header block: a new request, or the trailers of one whose body is arriving.
    fn header_block(&mut self, headers: Continuing, block: &[u8]) {
        let Continuing {
            stream,
            ends,
            self_dependent,
        } = headers;
        self.head.clear();
        let head = &mut self.head;
        let decoded = self
            .decoder
            .decode(block, MAX_HEADER_LIST as usize, |name, value| {
                head.field(name, value);
            });
        match decoded {
            Err(_) => return self.fail(Reason::CompressionError),
            Ok(Block::Oversized) => self.head.set_oversized(),
            Ok(Block::Whole) => {}
        }
        match self.stream_state(stream) {
            State::Idle if stream.is_multiple_of(2) => self.fail(Reason::ProtocolError),
            State::Idle => self.open_stream(stream, ends, self_dependent),
            State::Open if !ends => {
                // Trailers that do not end the stream.
                self.stream_error(stream, Reason::ProtocolError);
            }
            State::Open if !self.head.is_valid_trailers() => {
                self.stream_error(stream, Reason::ProtocolError);
            }
            State::Open => self.body_complete(stream),
            State::HalfClosedRemote | State::Closed(Some(Closed::ResetByClient)) => {
                self.stream_error(stream, Reason::StreamClosed);
            }
            State::Closed(Some(Closed::Ended)) => self.fail(Reason::StreamClosed),
            // Sent before the client saw the reset: decoded (for the table), dropped.
            State::Closed(Some(Closed::ResetByServer)) => {}
            // A stream id not above every one opened before (§5.1.1).
            State::Closed(None) => self.fail(Reason::ProtocolError),
        }
    }

    /// A new stream's request head has come.
    fn open_stream(&mut self, stream: u32, ends: bool, self_dependent: bool) {
        if !self.closing.takes_streams() {
            // Past the GOAWAY's last stream: not processed, so the client may send it again.
            frame::rst_stream(&mut self.output.queue, stream, Reason::RefusedStream);
            return self.streams.closed(stream, Closed::ResetByServer);
        }
        self.last_stream = stream;
        if self_dependent {
            return self.stream_error(stream, Reason::ProtocolError);
        }
        if self.open >= u64::from(self.limit) {
            return self.stream_error(stream, Reason::RefusedStream);
        }
        // A body announced but the stream ended (§8.1.1).
        let empty_but_announced = ends && self.head.content_length().is_some_and(|len| len > 0);
        if self.head.is_connect() && !empty_but_announced {
            // Well formed, but no route tunnels: 501, as a server without CONNECT answers.
            self.state.count_request();
            self.open += 1;
            self.state.count_h2_stream(self.open);
            self.active = true;
            let answer = Answer::problem(501, "CONNECT is not served", &[]);
            self.act(stream, self.windows.initial, answer.into());
            if !ends && !self.streams.contains(stream) {
                frame::rst_stream(&mut self.output.queue, stream, Reason::NoError);
                self.streams.closed(stream, Closed::ResetByServer);
            }
            return;
        }
        if !self.head.is_valid() || empty_but_announced {
            return self.stream_error(stream, Reason::ProtocolError);
        }
        self.state.count_request();
        self.open += 1;
        self.state.count_h2_stream(self.open);
        self.active = true;
        if self.head.is_too_large() {
            self.act(stream, self.windows.initial, head_too_large());
            if !ends && !self.streams.contains(stream) {
                // Answered before its body came: the client need not send the rest.
                frame::rst_stream(&mut self.output.queue, stream, Reason::NoError);
                self.streams.closed(stream, Closed::ResetByServer);
            }
        } else if ends && self.streams.held() <= MAX_HELD {
            let request = self.head.request(&[], self.peer_loopback);
            let routed = routes::handle(&request, &self.state, &mut self.scratch);
            self.act(stream, self.windows.initial, routed);
        } else if ends {
            let upload = Upload::new(std::mem::take(&mut self.head), REQUEST_TIMEOUT, 0);
            let waiting = Waiting {
                send_window: self.windows.initial,
                work: Work::Parked(Box::new(upload)),
            };
            self.streams.insert(stream, waiting);
        } else {
            let upload = Upload::new(
                std::mem::take(&mut self.head),
                REQUEST_TIMEOUT,
                i64::from(RECEIVE_WINDOW),
            );
            let waiting = Waiting {
                send_window: self.windows.initial,
                work: Work::Body(Box::new(upload)),
            };
            self.streams.insert(stream, waiting);
        }
    }

    pub(super) fn data(&mut self, head: FrameHead, payload: &[u8]) {
        if head.stream == 0 {
            return self.fail(Reason::ProtocolError);
        }
        // The whole payload counts against the windows, padding included, whatever the
        // stream's state.
        let len = head.len as u32;
        match self.windows.received(len) {
            Err(reason) => return self.fail(reason),
            Ok(Some(increment)) => frame::window_update(&mut self.output.queue, 0, increment),
            Ok(None) => {}
        }
        let Some(data) = frame::unpadded(head, payload) else {
            return self.fail(Reason::ProtocolError);
        };
        let ends = head.has(frame::END_STREAM);
        if head.len == 0 && !ends && !self.calm.empty_data() {
            return self.fail(Reason::EnhanceYourCalm);
        }
        match self.stream_state(head.stream) {
            State::Idle => return self.fail(Reason::ProtocolError),
            State::HalfClosedRemote | State::Closed(Some(Closed::ResetByClient)) => {
                return self.stream_error(head.stream, Reason::StreamClosed);
            }
            State::Closed(Some(Closed::Ended)) => return self.fail(Reason::StreamClosed),
            // Sent before the client saw the server's reset, or long closed: dropped.
            State::Closed(_) => return,
            State::Open => {}
        }
        let Some(upload) = self.streams.upload_mut(head.stream) else {
            return;
        };
        let update = flow::stream_received(&mut upload.receive_window, &mut upload.unacked, len);
        let took = upload.take(data);
        let length_differs = upload.length_differs(ends);
        let increment = match update {
            Err(reason) => return self.stream_error(head.stream, reason),
            Ok(increment) => increment,
        };
        if length_differs {
            return self.stream_error(head.stream, Reason::ProtocolError);
        }
        if !took {
            // Larger than a route accepts: answered now, as over HTTP/1.1, the rest unread.
            let send_window = self
                .streams
                .remove(head.stream)
                .map_or(self.windows.initial, |waiting| waiting.send_window);
            let answer = Answer::problem(413, "the request body is too large", &[]);
            self.act(head.stream, send_window, answer.into());
            if !ends && !self.streams.contains(head.stream) {
                frame::rst_stream(&mut self.output.queue, head.stream, Reason::NoError);
                self.streams.closed(head.stream, Closed::ResetByServer);
            }
            return;
        }
        if ends {
            self.body_complete(head.stream);
        } else if let Some(increment) = increment {
            frame::window_update(&mut self.output.queue, head.stream, increment);
        }
    }

    /// A request's body has come whole: it is routed, or parked while the answers that wait
    /// hold too much.
    fn body_complete(&mut self, stream: u32) {
        let Some(waiting) = self.streams.remove(stream) else {
            return;
        };
        let Work::Body(upload) = waiting.work else {
            self.streams.insert(stream, waiting);
            return;
        };
        if self.streams.held() > MAX_HELD {
            let work = Work::Parked(upload);
            let send_window = waiting.send_window;
            return self.streams.insert(stream, Waiting { send_window, work });
        }
        self.route(stream, waiting.send_window, &upload);
    }

    /// Routes a whole request, and acts on what the route decided.
    pub(super) fn route(&mut self, stream: u32, send_window: i64, upload: &Upload) {
        let request = upload.head.request(&upload.body, self.peer_loopback);
        let routed = routes::handle(&request, &self.state, &mut self.scratch);
        self.act(stream, send_window, routed);
    }

    pub(super) fn priority(&mut self, head: FrameHead, payload: &[u8]) {
        if head.stream == 0 {
            return self.fail(Reason::ProtocolError);
        }
        let reason = if payload.len() != 5 {
            Reason::FrameSizeError
        } else if dependency(payload) == Some(head.stream) {
            Reason::ProtocolError
        } else {
            // Otherwise ignored: the server does not prioritize.
            return;
        };
        match self.stream_state(head.stream) {
            // A stream error, but no RST_STREAM may name an idle stream (§6.4): the
            // connection's instead, as nginx answers a PRIORITY of the wrong length (§5.4.1
            // lets any stream error be one).
            State::Idle => self.fail(reason),
            State::Open | State::HalfClosedRemote => self.stream_error(head.stream, reason),
            // Nothing more is sent on a closed stream.
            State::Closed(_) => {}
        }
    }

    pub(super) fn rst_stream(&mut self, head: FrameHead, payload: &[u8]) {
        if head.stream == 0 {
            return self.fail(Reason::ProtocolError);
        }
        if payload.len() != 4 {
            return self.fail(Reason::FrameSizeError);
        }
        match self.stream_state(head.stream) {
            State::Idle => self.fail(Reason::ProtocolError),
            // The client gave up on a stream that waits (a hang, a drip, an answer it stopped
            // reading, a body it stopped sending): it ends here.
            State::Open | State::HalfClosedRemote => {
                let waiting = self.streams.remove(head.stream);
                self.ended(head.stream, Closed::ResetByClient);
                // Only a stream reset before its request was routed counts, as h2 counts the
                // streams reset before the server accepted them (the rapid-reset shape): a
                // client that stops waiting for an answer (a hang, a drip) is not flooding.
                let routed = waiting.is_some_and(|waiting| !waiting.is_unrouted());
                if !routed && !self.calm.reset() {
                    self.fail(Reason::EnhanceYourCalm);
                }
            }
            State::Closed(_) => {}
        }
    }

    pub(super) fn settings(&mut self, head: FrameHead, payload: &[u8]) {
        if head.stream != 0 {
            return self.fail(Reason::ProtocolError);
        }
        if head.has(frame::ACK) {
            if !payload.is_empty() {
                self.fail(Reason::FrameSizeError);
            }
            return;
        }
        if !payload.len().is_multiple_of(6) {
            return self.fail(Reason::FrameSizeError);
        }
        for setting in payload.chunks_exact(6) {
            let id = u16::from_be_bytes([setting[0], setting[1]]);
            let value = u32::from_be_bytes([setting[2], setting[3], setting[4], setting[5]]);
            match id {
                frame::SETTINGS_ENABLE_PUSH if value > 1 => {
                    return self.fail(Reason::ProtocolError);
                }
                frame::SETTINGS_INITIAL_WINDOW_SIZE => {
                    let change = match self.windows.initial_change(value) {
                        Ok(change) => change,
                        Err(reason) => return self.fail(reason),
                    };
                    if change != 0 && !self.streams.change_windows(change, frame::MAX_WINDOW) {
                        return self.fail(Reason::FlowControlError);
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
        frame::settings_ack(&mut self.output.queue);
        self.queued_control();
        self.resume_sending();
    }

    pub(super) fn ping(&mut self, head: FrameHead, payload: &[u8]) {
        if head.stream != 0 {
            return self.fail(Reason::ProtocolError);
        }
        if payload.len() != 8 {
            return self.fail(Reason::FrameSizeError);
        }
        if !head.has(frame::ACK) {
            frame::ping_ack(&mut self.output.queue, payload);
            self.queued_control();
        } else if self.closing.phase() == Phase::Draining && payload == DRAIN_PING {
            self.go_away(Phase::Graceful, Reason::NoError);
        }
    }

    pub(super) fn goaway(&mut self, head: FrameHead, payload: &[u8]) {
        if head.stream != 0 {
            return self.fail(Reason::ProtocolError);
        }
        if payload.len() < 8 {
            return self.fail(Reason::FrameSizeError);
        }
        // The client leaves: the streams it opened are finished, no new one is taken.
        self.go_away(Phase::Graceful, Reason::NoError);
    }

    pub(super) fn window_update(&mut self, head: FrameHead, payload: &[u8]) {
        let Ok(increment) = <[u8; 4]>::try_from(payload) else {
            return self.fail(Reason::FrameSizeError);
        };
        let increment = u32::from_be_bytes(increment) & 0x7fff_ffff;
        if head.stream == 0 {
            if let Err(reason) = self.windows.send_update(increment) {
                return self.fail(reason);
            }
            return self.resume_sending();
        }
        match self.stream_state(head.stream) {
            State::Idle => return self.fail(Reason::ProtocolError),
            // WINDOW_UPDATE may cross an END_STREAM or a reset (§5.1, closed).
            State::Closed(_) => return,
            State::Open | State::HalfClosedRemote => {}
        }
        let Some(waiting) = self.streams.get(head.stream) else {
            return;
        };
        let mut window = waiting.send_window;
        if let Err(reason) = flow::stream_update(&mut window, increment) {
            return self.stream_error(head.stream, reason);
        }
        if let Some(mut waiting) = self.streams.remove(head.stream) {
            waiting.send_window = window;
            self.resume(head.stream, waiting);
        }
    }

    /// Room in the connection's window: the streams waiting for it send what they can, in
    /// stream order. Only the streams that have something to send and room of their own are
    /// looked at, and only while the connection's window lasts.
    pub(super) fn resume_sending(&mut self) {
        while self.windows.send > 0 && self.backlog() < MAX_BACKLOG {
            let Some(stream) = self.streams.next_ready() else {
                break;
            };
            let Some(waiting) = self.streams.remove(stream) else {
                break;
            };
            self.resume(stream, waiting);
        }
    }

    /// A stream error (§5.4.2) the client caused: RST_STREAM with its code, the stream
    /// closed. Past the budget of resets, the client is told to calm down.
    pub(super) fn stream_error(&mut self, stream: u32, reason: Reason) {
        if self.streams.remove(stream).is_some() {
            self.ended(stream, Closed::ResetByServer);
        } else {
            self.streams.closed(stream, Closed::ResetByServer);
        }
        frame::rst_stream(&mut self.output.queue, stream, reason);
        if !self.calm.reset() {
            return self.fail(Reason::EnhanceYourCalm);
        }
        self.queued_control();
    }
}

/// The stream a PRIORITY frame's fields (or a HEADERS frame's, after its padding length)
/// depend on.
fn dependency(fields: &[u8]) -> Option<u32> {
    let bytes: [u8; 4] = fields.get(..4)?.try_into().ok()?;
    Some(u32::from_be_bytes(bytes) & 0x7fff_ffff)
}
