//! The half-closing peer of the releases suite, after hyper#4085: it reads a request's head,
//! then shuts its side of the connection for writing (a FIN) without answering, and reads and
//! drops whatever else the client sends until the client closes. A client whose request body is
//! still open meets a connection that can no longer answer: it should fail the call or wait for
//! its body, not spin.

use std::io::{self, Read as _};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

/// The most of a request's head read before giving up on finding its end.
const MAX_HEAD: usize = 64 * 1024;
/// How long a connection is read after the half-close before the peer drops it: past any
/// hold the scenario asks for.
const DRAIN_FOR: Duration = Duration::from_secs(30);

/// A listening half-closing peer on loopback, stopped when dropped.
#[derive(Debug)]
pub struct HalfClosingPeer {
    address: SocketAddr,
    stopping: Arc<AtomicBool>,
    /// Request heads it read whole and half-closed after.
    heads: Arc<AtomicU64>,
    acceptor: Option<JoinHandle<()>>,
}

impl HalfClosingPeer {
    /// Listens on a free loopback port.
    pub fn start() -> io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let address = listener.local_addr()?;
        let stopping = Arc::new(AtomicBool::new(false));
        let heads = Arc::new(AtomicU64::new(0));
        let acceptor = {
            let (stopping, heads) = (Arc::clone(&stopping), Arc::clone(&heads));
            std::thread::Builder::new()
                .name("half-closing-peer".to_owned())
                .spawn(move || {
                    for stream in listener.incoming() {
                        if stopping.load(Ordering::Acquire) {
                            break;
                        }
                        let Ok(stream) = stream else { continue };
                        let heads = Arc::clone(&heads);
                        let _ = std::thread::Builder::new()
                            .name("half-closed".to_owned())
                            .spawn(move || serve(stream, &heads));
                    }
                })?
        };
        Ok(Self {
            address,
            stopping,
            heads,
            acceptor: Some(acceptor),
        })
    }

    /// `http://127.0.0.1:PORT/upload`.
    pub fn url(&self) -> String {
        format!("http://{}/upload", self.address)
    }

    /// Request heads read whole (and half-closed after) so far.
    pub fn heads(&self) -> u64 {
        self.heads.load(Ordering::Acquire)
    }
}

/// Reads the head (counting it in `heads` before the FIN, so that a client that saw the FIN
/// sees it counted), half-closes, drains until the client closes (or [`DRAIN_FOR`] passes).
fn serve(mut stream: TcpStream, heads: &AtomicU64) -> io::Result<()> {
    let mut head = Vec::with_capacity(1024);
    let mut buffer = [0_u8; 4096];
    stream.set_read_timeout(Some(DRAIN_FOR))?;
    while !head.windows(4).any(|window| window == b"\r\n\r\n") {
        let read = stream.read(&mut buffer)?;
        if read == 0 || head.len() > MAX_HEAD {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "no whole request head",
            ));
        }
        head.extend_from_slice(&buffer[..read]);
    }
    heads.fetch_add(1, Ordering::Release);
    stream.shutdown(Shutdown::Write)?;
    while stream.read(&mut buffer)? > 0 {}
    Ok(())
}

impl Drop for HalfClosingPeer {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::Release);
        // Wakes the acceptor, which then sees the flag.
        let _ = TcpStream::connect_timeout(&self.address, Duration::from_secs(1));
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    #[test]
    fn it_reads_the_head_half_closes_and_never_answers() {
        let peer = HalfClosingPeer::start().unwrap();
        let mut client = TcpStream::connect(peer.address).unwrap();
        client
            .write_all(b"POST /upload HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n")
            .unwrap();
        client.write_all(b"10\r\n0123456789abcdef\r\n").unwrap();
        // The peer's FIN: end of stream, not an answer, after the head was counted.
        let mut answer = Vec::new();
        client.read_to_end(&mut answer).unwrap();
        assert!(answer.is_empty());
        assert_eq!(peer.heads(), 1);
        // The client's side is still open: it may go on writing.
        client.write_all(b"0\r\n\r\n").unwrap();
    }
}
