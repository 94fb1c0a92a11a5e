//! A connection served from bytes in memory, with no socket and no time passing: what the
//! fuzz target and the connection's unit tests drive.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The client's side, as bytes: what it sends, given out `chunk` bytes at a time (each read
/// followed by a `Pending`, so that the connection is looked at between reads), and what the
/// server wrote.
#[derive(Debug, Default)]
#[allow(clippy::struct_excessive_bools)] // independent facts of the client's side
pub(crate) struct Memory {
    input: Vec<u8>,
    at: usize,
    chunk: usize,
    /// The client has sent all it will: reads end once `input` is taken.
    pub eof: bool,
    paused: bool,
    eof_read: bool,
    /// The client does not read: writes wait.
    pub write_blocked: bool,
    pub output: Vec<u8>,
}

impl Memory {
    pub(crate) fn new(chunk: usize) -> Self {
        Self {
            chunk: chunk.max(1),
            ..Self::default()
        }
    }

    /// Bytes the client sends next.
    pub(crate) fn send(&mut self, bytes: &[u8]) {
        self.input.extend_from_slice(bytes);
    }

    /// Whether a read would give something: bytes, the pause after them, or the end.
    pub(crate) fn unread(&self) -> bool {
        self.paused || self.at < self.input.len() || (self.eof && !self.eof_read)
    }
}

impl AsyncRead for Memory {
    fn poll_read(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.paused {
            this.paused = false;
            context.waker().wake_by_ref();
            return Poll::Pending;
        }
        let rest = &this.input[this.at..];
        if rest.is_empty() {
            return if this.eof {
                this.eof_read = true;
                Poll::Ready(Ok(()))
            } else {
                Poll::Pending
            };
        }
        let len = rest.len().min(this.chunk).min(buf.remaining());
        buf.put_slice(&rest[..len]);
        this.at += len;
        this.paused = true;
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for Memory {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        bytes: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.write_blocked {
            return Poll::Pending;
        }
        self.get_mut().output.extend_from_slice(bytes);
        Poll::Ready(Ok(bytes.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
