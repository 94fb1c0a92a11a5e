//! One TCP connection, plain or inside TLS: read HTTP/1.1 requests in turn, answer them, and
//! misbehave on demand; a TLS connection that negotiated `h2` goes to [`http2`] instead.

use std::io;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::server::TlsStream;

use crate::exchange::{Answer, AnswerFault, Outcome, Request};
use crate::http::{self, Head, HttpError};
use crate::http2;
use crate::reply::{Reply, write_chunk};
use crate::routes;
use crate::settings::{Framing, IdleClose};
use crate::state::MockState;
use crate::timing::{DRIP_INTERVAL, LINGER, REQUEST_TIMEOUT};

/// Serves one accepted connection until it closes; errors only end the connection.
pub(crate) async fn run(stream: TcpStream, state: MockState) {
    // Answers and drips are small writes that must not wait for Nagle.
    if let Err(error) = stream.set_nodelay(true) {
        tracing::debug!(%error, "could not set TCP_NODELAY");
    }
    // Unknown is not loopback: the admin endpoints then need the token.
    let peer_loopback = stream
        .peer_addr()
        .is_ok_and(|peer| peer.ip().to_canonical().is_loopback());
    let served = match state.tls() {
        None => serve(stream, state, peer_loopback).await,
        Some(tls) => match tls.accept(stream).await {
            Ok((stream, handshake)) => {
                state.count_handshake(handshake);
                if handshake.h2 {
                    http2::serve(stream, state, peer_loopback).await
                } else {
                    serve(stream, state, peer_loopback).await
                }
            }
            Err(error) => {
                // Dropping the socket closes it: nothing was said in HTTP, so nothing is owed.
                state.count_handshake_failure();
                tracing::debug!(%error, "TLS handshake failed");
                Ok(())
            }
        },
    };
    if let Err(error) = served {
        tracing::debug!(%error, "connection ended with an I/O error");
    }
}

async fn serve<S: Transport>(stream: S, state: MockState, peer_loopback: bool) -> io::Result<()> {
    Http1Connection {
        stream,
        state,
        peer_loopback,
        read: Vec::with_capacity(4096),
        out: Vec::with_capacity(1024),
        scratch: BytesMut::new(),
    }
    .serve()
    .await
}

/// The byte stream HTTP/1.1 is spoken over, and the TCP socket beneath it.
trait Transport: AsyncRead + AsyncWrite + Unpin + Send {
    /// The socket itself, so a reset can skip whatever the upper layer sends on close.
    fn tcp(&self) -> &TcpStream;
}

impl Transport for TcpStream {
    fn tcp(&self) -> &TcpStream {
        self
    }
}

impl Transport for TlsStream<TcpStream> {
    fn tcp(&self) -> &TcpStream {
        self.get_ref().0
    }
}

/// One connection speaking HTTP/1.1 (one that negotiated h2 is `http2`'s connection).
struct Http1Connection<S> {
    stream: S,
    state: MockState,
    peer_loopback: bool,
    /// Bytes read and not yet handled; requests are parsed in place.
    read: Vec<u8>,
    /// An answer's bytes on their way out: the head, and the body unless it is large.
    out: Vec<u8>,
    /// Room for answer bodies, reused once an answer is sent.
    scratch: BytesMut,
}

enum Read {
    Data,
    Closed,
    TimedOut,
}

/// A body up to this size is copied after the head so that both go out in one write; a
/// larger one is written from where it is, unless chunked.
const INLINE_BODY: usize = 16 * 1024;
/// How much of a chunked body is gathered before it is written.
const WRITE_BATCH: usize = 64 * 1024;

impl<S: Transport> Http1Connection<S> {
    async fn serve(&mut self) -> io::Result<()> {
        let keep_alive_enabled = !self.state.keep_alive().is_zero();
        loop {
            let head = match self.read_head().await? {
                Some(Ok(head)) => head,
                Some(Err(error)) => return self.refuse(error).await,
                // Closed explicitly, so a TLS client gets a close_notify rather than a bare FIN.
                None => return self.stream.shutdown().await,
            };
            let total = head.len + head.content_length;
            if head.expect_continue && self.read.len() < total {
                send(&mut self.stream, b"HTTP/1.1 100 Continue\r\n\r\n").await?;
            }
            while self.read.len() < total {
                match self.fill(self.request_limit()).await? {
                    Read::Data => {}
                    Read::Closed => return Ok(()),
                    Read::TimedOut => return self.refuse(HttpError::Timeout).await,
                }
            }
            let Some(request) = request(&self.read[..total], &head, self.peer_loopback) else {
                return self
                    .refuse(HttpError::BadRequest("malformed request target"))
                    .await;
            };
            self.state.count_request();
            let routed = routes::handle(&request, &self.state, &mut self.scratch);
            self.read.drain(..total);
            if !routed.delay.is_zero() {
                tokio::time::sleep(routed.delay).await;
            }
            let keep_alive = head.keep_alive && keep_alive_enabled;
            match routed.outcome {
                Outcome::Answer(answer) => match answer.fault {
                    None => {
                        let framing = if head.http10 {
                            // HTTP/1.0 clients cannot read chunked bodies.
                            Framing::ContentLength
                        } else {
                            answer.framing
                        };
                        let connection = connection_header(keep_alive, head.http10);
                        self.write_answer(&answer, framing, connection).await?;
                        if !keep_alive {
                            return self.stream.shutdown().await;
                        }
                    }
                    // Broken answers do not announce the close: the client should be surprised
                    // by it.
                    Some(AnswerFault::HeadOnly) => {
                        self.write_head(&answer, Framing::ContentLength, None);
                        send(&mut self.stream, &self.out).await?;
                        return self.stream.shutdown().await;
                    }
                    Some(AnswerFault::HalfBody) => {
                        self.write_head(&answer, Framing::ContentLength, None);
                        self.out
                            .extend_from_slice(&answer.body[..answer.body.len() / 2]);
                        send(&mut self.stream, &self.out).await?;
                        return self.stream.shutdown().await;
                    }
                    Some(AnswerFault::Drip) => return self.drip(&answer).await,
                },
                Outcome::Reset => return self.reset(),
                Outcome::Hang => return self.hang().await,
                // HTTP/1.1 has no GOAWAY and no refused request: both end the connection
                // unanswered, as a server going away between two requests would.
                Outcome::GoAway | Outcome::Refuse => return self.stream.shutdown().await,
            }
        }
    }

    /// Writes an answer's head into the output buffer, which it clears first.
    fn write_head(&mut self, answer: &Answer, framing: Framing, connection: Option<&'static str>) {
        self.out.clear();
        Reply {
            status: answer.status,
            content_type: answer.content_type,
            framing,
            connection,
            extra_headers: answer.headers,
        }
        .write_head(answer.body.len(), &mut self.out);
    }

    /// Writes a whole answer: head and body in one write when the body is small.
    async fn write_answer(
        &mut self,
        answer: &Answer,
        framing: Framing,
        connection: Option<&'static str>,
    ) -> io::Result<()> {
        self.write_head(answer, framing, connection);
        match framing {
            Framing::ContentLength if answer.body.len() <= INLINE_BODY => {
                self.out.extend_from_slice(&answer.body);
            }
            Framing::ContentLength => {
                self.stream.write_all(&self.out).await?;
                self.out.clear();
                self.stream.write_all(&answer.body).await?;
            }
            Framing::Chunked => {
                for part in Answer::parts(&answer.body, framing) {
                    write_chunk(&part, &mut self.out);
                    if self.out.len() >= WRITE_BATCH {
                        self.stream.write_all(&self.out).await?;
                        self.out.clear();
                    }
                }
                self.out.extend_from_slice(b"0\r\n\r\n");
            }
        }
        send(&mut self.stream, &self.out).await
    }

    /// Reads until a request head is complete: `None` when the client left or the connection
    /// sat idle too long.
    async fn read_head(&mut self) -> io::Result<Option<Result<Head, HttpError>>> {
        let idle_since = Instant::now();
        loop {
            if !self.read.is_empty() {
                match http::parse_head(&self.read) {
                    Ok(Some(head)) => return Ok(Some(Ok(head))),
                    Err(error) => return Ok(Some(Err(error))),
                    Ok(None) => {}
                }
            }
            // Idle: no request in flight, and not a byte of the next one yet.
            let idle = self.read.is_empty();
            let on_arrival = idle && self.state.idle_close() == IdleClose::OnArrival;
            let limit = match self.state.idle_timeout() {
                Some(timeout) if idle && !on_arrival => timeout,
                _ => self.request_limit(),
            };
            match self.fill(limit).await? {
                Read::Data if on_arrival => {
                    if let Some(timeout) = self.state.idle_timeout()
                        && idle_since.elapsed() >= timeout
                    {
                        // The request crossed the close: read, dropped, never answered.
                        self.state.count_idle_close();
                        self.read.clear();
                        self.close_idle(true).await;
                        return Ok(None);
                    }
                }
                Read::Data => {}
                Read::Closed => return Ok(None),
                // An idle connection is closed quietly (no answer), as actix-web, Node and
                // nginx close one at their keep-alive timeout.
                Read::TimedOut if idle => {
                    self.state.count_idle_close();
                    self.close_idle(false).await;
                    return Ok(None);
                }
                Read::TimedOut => return Ok(Some(Err(HttpError::Timeout))),
            }
        }
    }

    /// How long a request (or the next, on a kept-alive connection) may take to arrive.
    fn request_limit(&self) -> Duration {
        let keep_alive = self.state.keep_alive();
        if keep_alive.is_zero() {
            REQUEST_TIMEOUT
        } else {
            keep_alive
        }
    }

    async fn fill(&mut self, limit: Duration) -> io::Result<Read> {
        if self.read.capacity() - self.read.len() < 1024 {
            self.read.reserve(4096);
        }
        match tokio::time::timeout(limit, self.stream.read_buf(&mut self.read)).await {
            Ok(Ok(0)) => Ok(Read::Closed),
            Ok(Ok(_)) => Ok(Read::Data),
            Ok(Err(error)) => Err(error),
            Err(_elapsed) => Ok(Read::TimedOut),
        }
    }

    /// Answers a request that cannot be served, and closes.
    async fn refuse(&mut self, error: HttpError) -> io::Result<()> {
        let answer = Answer::problem(error.status(), error.detail(), &[]);
        self.write_answer(&answer, Framing::ContentLength, Some("close"))
            .await?;
        self.stream.shutdown().await?;
        // Closing with unread bytes (the rest of an oversized head, say) would send a RST
        // that can destroy the answer before the client reads it: drain first, briefly.
        let mut discard = [0u8; 4096];
        let drain = async {
            while self.stream.read(&mut discard).await? > 0 {}
            io::Result::Ok(())
        };
        match tokio::time::timeout(LINGER, drain).await {
            Ok(result) => result,
            Err(_elapsed) => Ok(()),
        }
    }

    /// Closes an idle connection: the write side first (a FIN, after TLS's close_notify), then
    /// whatever the client still sends for a short while is read and dropped, never answered:
    /// a request that was on its way as the server closed (the stale-connection race) is lost
    /// to the client exactly as with a bare close, but counted (`idle_close_races`), so that a
    /// client's failures can be held against the races it met. `raced`: a request already
    /// arrived, and was dropped ([`IdleClose::OnArrival`]).
    async fn close_idle(&mut self, raced: bool) {
        if raced {
            self.state.count_idle_race();
        }
        if self.stream.shutdown().await.is_err() {
            return;
        }
        let mut discard = [0u8; 4096];
        let mut drained = false;
        let drain = async {
            while let Ok(read) = self.stream.read(&mut discard).await {
                if read == 0 {
                    break;
                }
                drained = true;
            }
        };
        let _ = tokio::time::timeout(LINGER, drain).await;
        if drained && !raced {
            self.state.count_idle_race();
        }
    }

    fn reset(&self) -> io::Result<()> {
        // The RST itself is sent when the stream is dropped on return; a TLS stream dropped
        // without a shutdown sends no close_notify first.
        self.stream.tcp().set_zero_linger()
    }

    /// Sends the chunked head, then one byte of the body every interval until a write fails.
    async fn drip(&mut self, answer: &Answer) -> io::Result<()> {
        self.write_head(answer, Framing::Chunked, None);
        send(&mut self.stream, &self.out).await?;
        let mut ticks = tokio::time::interval(DRIP_INTERVAL);
        for &byte in answer.body.iter().cycle() {
            ticks.tick().await;
            send(&mut self.stream, &[b'1', b'\r', b'\n', byte, b'\r', b'\n']).await?;
        }
        Ok(())
    }

    /// Answers nothing and waits for the client to close (or the server to stop).
    async fn hang(&mut self) -> io::Result<()> {
        let mut discard = [0u8; 1024];
        while self.stream.read(&mut discard).await? > 0 {}
        Ok(())
    }
}

/// The `Connection` header an answer carries.
fn connection_header(keep_alive: bool, http10: bool) -> Option<&'static str> {
    match (keep_alive, http10) {
        (false, _) => Some("close"),
        // HTTP/1.0 closes by default, so keep-alive has to be confirmed.
        (true, true) => Some("keep-alive"),
        (true, false) => None,
    }
}

/// Writes `bytes` and flushes: TLS keeps what the socket did not take, and a drip or a
/// close that follows must find it sent.
async fn send(stream: &mut (impl AsyncWrite + Unpin), bytes: &[u8]) -> io::Result<()> {
    stream.write_all(bytes).await?;
    stream.flush().await
}

pub(crate) fn request<'a>(
    bytes: &'a [u8],
    head: &Head,
    peer_loopback: bool,
) -> Option<Request<'a>> {
    // The parser only accepts visible ASCII in the target, so this cannot fail in practice.
    let target = std::str::from_utf8(bytes.get(head.target.clone())?).ok()?;
    let (path, query) = match target.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (target, None),
    };
    Some(Request {
        method: head.method,
        path,
        query,
        body: bytes.get(head.len..)?,
        peer_loopback,
        authorization: match &head.authorization {
            Some(range) => Some(bytes.get(range.clone())?),
            None => None,
        },
    })
}
