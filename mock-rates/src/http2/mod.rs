//! HTTP/2 on a TLS connection that negotiated `h2`, served by mock-rates itself: the same
//! routes, switches and faults as HTTP/1.1, each fault becoming what HTTP/2 has for it.
//!
//! mock-rates is an instrument: its own cost per call is inside every figure of the bench. The
//! `h2` crate's server cost more than twice the instructions of an HTTP/1.1-over-TLS call per
//! request (docs/mock-rates-calibration.md), most of it per-stream machinery a mock does not
//! need. Here one task reads the frames, answers each complete request as its HEADERS arrive
//! (HPACK decoded by [`hpack`], the answer's fields written as literals that are not
//! indexed), and writes everything a turn produced in one write: one TLS record for a small
//! answer's HEADERS and DATA, as over HTTP/1.1. Only a stream that has to wait (for its body,
//! its injected latency, room in a flow-control window, a drip, a hang) is kept, in a map that
//! the same task looks at when a frame or its timer calls for it.
//!
//! What it implements of RFC 9113: the preface and SETTINGS (its own: the stream limit, 1 MiB
//! receive windows, the header-list limit; the client's: initial window, frame size), flow
//! control both ways, HEADERS with CONTINUATION, padding and priority, trailers, PING,
//! RST_STREAM both ways, GOAWAY both ways, and the connection errors a malformed peer earns.
//! It does not push, and it ignores priorities.

mod buffers;
mod calm;
mod closing;
mod connection;
mod flow;
mod frame;
mod hpack;
mod huffman;
mod idle;
mod memory;
mod stream;
mod streams;

use std::future::poll_fn;
use std::io;

use tokio::io::{AsyncRead, AsyncWrite};

use crate::state::MockState;
use crate::timing::REQUEST_TIMEOUT;
use connection::Connection;

/// The fields of one header block: names and values.
type Fields = Vec<(Vec<u8>, Vec<u8>)>;

/// Decodes header blocks one after the other on one connection's HPACK decoder, as the server
/// does: each block's fields, or why it is not valid (the first error ends the connection, so
/// nothing after it is decoded).
pub(crate) fn decode_header_blocks(blocks: &[&[u8]]) -> Vec<Result<Fields, &'static str>> {
    let mut decoder = hpack::Decoder::default();
    let mut read = Vec::new();
    for block in blocks {
        let mut fields = Vec::new();
        let result = decoder.decode(block, usize::MAX, |name, value| {
            fields.push((name.to_vec(), value.to_vec()));
        });
        let failed = result.is_err();
        read.push(result.map(|_| fields).map_err(|error| error.0));
        if failed {
            break;
        }
    }
    read
}

/// A header block of literals that are not indexed, their strings raw.
pub(crate) fn literal_block(fields: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut block = Vec::new();
    for (name, value) in fields {
        hpack::literal(&mut block, name, value);
    }
    block
}

/// `coded` decoded as a Huffman-coded string, as the server decodes one.
pub(crate) fn huffman_decode(coded: &[u8]) -> Option<Vec<u8>> {
    let mut decoded = Vec::new();
    huffman::decode(coded, &mut decoded).ok().map(|()| decoded)
}

/// What one connection served from memory did: see [`serve_from_memory`].
#[derive(Debug)]
pub(crate) struct MemoryRun {
    /// What the server wrote.
    pub output: Vec<u8>,
    /// The connection ended (rather than waiting for more).
    pub ended: bool,
    /// The most the connection kept between two reads, and the most it may.
    pub peak_retained: usize,
    pub memory_bound: usize,
}

/// Serves `input` (after the preface) as one connection's client bytes, read `chunk` bytes
/// at a time, with the default settings and no time passing.
///
/// # Panics
///
/// If a runtime cannot be made (no input causes that).
pub(crate) fn serve_from_memory(input: &[u8], chunk: usize) -> MemoryRun {
    static STATE: std::sync::OnceLock<MockState> = std::sync::OnceLock::new();
    let state = STATE
        .get_or_init(|| MockState::new(crate::Settings::default()))
        .clone();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let _entered = runtime.enter();
    let mut memory = memory::Memory::new(chunk);
    memory.send(frame::PREFACE);
    memory.send(input);
    memory.eof = true;
    let mut connection = Connection::new(memory, state, true);
    let (ended, peak_retained) = connection.pump(true);
    MemoryRun {
        output: connection.written(),
        ended: ended.is_some(),
        peak_retained,
        memory_bound: connection::memory_bound(connection.limit()),
    }
}

/// Serves one connection that negotiated `h2` until it closes.
pub(crate) async fn serve<S>(stream: S, state: MockState, peer_loopback: bool) -> io::Result<()>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let mut connection = Connection::new(stream, state, peer_loopback);
    tokio::time::timeout(REQUEST_TIMEOUT, connection.read_preface())
        .await
        .map_err(|_elapsed| io::Error::new(io::ErrorKind::TimedOut, "no HTTP/2 preface"))??;
    let served = poll_fn(|context| connection.poll_serve(context)).await;
    connection.close().await;
    served
}
