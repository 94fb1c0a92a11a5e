//! The connection's bytes: what was read and not yet taken as frames, and what is to be
//! written. Both are kept for the connection's life and reused, so that serving a request
//! allocates nothing.

use super::frame::FrameHead;

/// Room kept in the read buffer for one read.
pub(super) const READ_CHUNK: usize = 16 * 1024;

/// What was read: `bytes[read_at..filled]` is not taken as frames yet. Kept initialized, so
/// that a read needs no zeroing.
#[derive(Debug, Default)]
pub(super) struct Input {
    bytes: Vec<u8>,
    read_at: usize,
    filled: usize,
    /// The client closed its side: nothing more comes.
    pub closed: bool,
}

impl Input {
    pub(super) fn new() -> Self {
        Self {
            bytes: vec![0; 2 * READ_CHUNK],
            ..Self::default()
        }
    }

    /// What was read and not taken yet.
    pub(super) fn unread(&self) -> &[u8] {
        &self.bytes[self.read_at..self.filled]
    }

    /// The length of the whole frame at the front (its head included), once it has all come.
    pub(super) fn whole_frame(&self) -> Option<(FrameHead, usize)> {
        let head = FrameHead::parse(self.unread())?;
        let len = FrameHead::LEN + head.len;
        (len <= self.unread().len()).then_some((head, len))
    }

    /// Room for one read: what is unread moves to the front, and the buffer grows if a frame
    /// larger than the room is arriving.
    pub(super) fn room(&mut self) -> &mut [u8] {
        if self.bytes.len() - self.filled < READ_CHUNK {
            self.bytes.copy_within(self.read_at..self.filled, 0);
            self.filled -= self.read_at;
            self.read_at = 0;
            if self.bytes.len() - self.filled < READ_CHUNK {
                self.bytes.resize(self.filled + READ_CHUNK, 0);
            }
        }
        &mut self.bytes[self.filled..]
    }

    /// `read` bytes came into the room.
    pub(super) fn filled(&mut self, read: usize) {
        self.filled += read;
    }

    /// `len` bytes at the front were taken.
    pub(super) fn take(&mut self, len: usize) {
        self.read_at += len;
        if self.read_at == self.filled {
            self.read_at = 0;
            self.filled = 0;
        }
    }

    pub(super) fn capacity(&self) -> usize {
        self.bytes.capacity()
    }
}

/// What is to be written: `queue[written..]` has not been yet.
#[derive(Debug)]
pub(super) struct Output {
    pub queue: Vec<u8>,
    written: usize,
    unflushed: bool,
}

impl Output {
    pub(super) fn new() -> Self {
        Self {
            queue: Vec::with_capacity(READ_CHUNK),
            written: 0,
            unflushed: false,
        }
    }

    /// The bytes not written yet.
    pub(super) fn pending(&self) -> &[u8] {
        &self.queue[self.written..]
    }

    pub(super) fn backlog(&self) -> usize {
        self.queue.len() - self.written
    }

    /// `len` bytes went out, to be flushed.
    pub(super) fn wrote(&mut self, len: usize) {
        self.written += len;
        self.unflushed = true;
    }

    /// Everything went out: the queue starts again, its room kept.
    pub(super) fn all_written(&mut self) {
        self.queue.clear();
        self.written = 0;
    }

    /// Whether what went out needs a flush.
    pub(super) fn unflushed(&self) -> bool {
        self.unflushed
    }

    pub(super) fn flushed(&mut self) {
        self.unflushed = false;
    }

    pub(super) fn capacity(&self) -> usize {
        self.queue.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http2::frame;

    fn read(input: &mut Input, bytes: &[u8]) {
        let room = input.room();
        room[..bytes.len()].copy_from_slice(bytes);
        input.filled(bytes.len());
    }

    #[test]
    fn a_frame_is_whole_once_all_of_it_has_come() {
        let mut input = Input::new();
        let mut ping = Vec::new();
        frame::ping(&mut ping, *b"12345678");
        read(&mut input, &ping[..10]);
        assert_eq!(input.whole_frame(), None);
        read(&mut input, &ping[10..]);
        let (head, len) = input.whole_frame().unwrap();
        assert_eq!((head.kind, len), (frame::PING, 17));
        input.take(len);
        assert!(input.unread().is_empty());
        assert_eq!((input.read_at, input.filled), (0, 0), "started again");
    }

    #[test]
    fn the_room_moves_what_is_unread_to_the_front_and_grows_only_for_a_large_frame() {
        let mut input = Input::new();
        read(&mut input, &vec![7; READ_CHUNK + 100]);
        input.take(READ_CHUNK);
        assert_eq!(input.unread().len(), 100);
        // Less than a chunk of room: the 100 bytes move to the front, no growth.
        assert!(input.room().len() >= READ_CHUNK);
        assert_eq!((input.read_at, input.filled), (0, 100));
        assert_eq!(input.capacity(), 2 * READ_CHUNK);
        // A frame larger than the buffer is arriving: it grows by a chunk past what is kept.
        read(&mut input, &vec![7; 2 * READ_CHUNK - 100]);
        assert!(input.room().len() >= READ_CHUNK);
        assert_eq!(input.bytes.len(), 3 * READ_CHUNK);
    }

    #[test]
    fn the_output_counts_its_backlog_and_keeps_its_room() {
        let mut output = Output::new();
        output.queue.extend_from_slice(&[1; 100]);
        assert_eq!(output.backlog(), 100);
        output.wrote(60);
        assert_eq!(output.pending(), &[1; 40][..]);
        assert!(output.unflushed());
        output.wrote(40);
        output.all_written();
        output.flushed();
        assert_eq!((output.backlog(), output.unflushed()), (0, false));
        assert!(output.capacity() >= READ_CHUNK);
    }
}
