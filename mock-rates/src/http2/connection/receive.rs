//! What the client sends: request heads (HEADERS, CONTINUATION), their bodies (DATA), its
//! SETTINGS and WINDOW_UPDATEs.

use tokio::io::{AsyncRead, AsyncWrite};

use super::{Closing, Connection, MAX_HEADER_BLOCK, RECEIVE_WINDOW, head_too_large};
use crate::exchange::Answer;
use crate::http2::frame::{self, FrameHead, Reason};
use crate::http2::stream::{Upload, Waiting, Work};
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
        if head.has(frame::END_HEADERS) {
            self.header_block(head.stream, head.has(frame::END_STREAM), block);
        } else {
            self.block.clear();
            self.block.extend_from_slice(block);
            self.continuing = Some((head.stream, head.has(frame::END_STREAM)));
        }
    }

    pub(super) fn continuation(&mut self, head: FrameHead, payload: &[u8]) {
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
    pub(super) fn header_block(&mut self, stream: u32, ends: bool, block: &[u8]) {
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

    pub(super) fn data(&mut self, head: FrameHead, payload: &[u8]) {
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
    pub(super) fn body_complete(&mut self, stream: u32) {
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

    pub(super) fn settings(&mut self, head: FrameHead, payload: &[u8]) {
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

    pub(super) fn window_update(&mut self, head: FrameHead, payload: &[u8]) {
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
    pub(super) fn resume_sending(&mut self) {
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
    pub(super) fn resume(&mut self, stream: u32, mut waiting: Waiting) {
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
}
