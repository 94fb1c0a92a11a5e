//! HTTP/2 on a TLS connection that negotiated `h2`, served by the `h2` crate: the same routes,
//! switches and faults as HTTP/1.1, each fault becoming what HTTP/2 has for it.
//!
//! The routes write HTTP/1.1 answers; each is read back here ([`Answer::read`]) and sent as
//! HEADERS and DATA frames, so both protocols give exactly the same status, headers and body.
//! An answer the routes cut short (`eof`, `truncated`) ends in RST_STREAM instead of a close.

use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use h2::server::SendResponse;
use h2::{Reason, RecvStream, SendStream};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::Notify;
use tokio::task::JoinSet;
use tokio::time::Sleep;

use crate::exchange::{Buffers, Outcome, Request, Responder};
use crate::http::{MAX_BODY, MAX_HEADERS, Method};
use crate::routes;
use crate::state::MockState;
use crate::timing::{DRIP_INTERVAL, LINGER, REQUEST_TIMEOUT};

/// Headers that only mean something to an HTTP/1.1 connection; HTTP/2 forbids them.
const CONNECTION_HEADERS: [&str; 4] = ["connection", "keep-alive", "transfer-encoding", "upgrade"];

/// Serves one connection that negotiated `h2` until it closes.
pub(crate) async fn serve<S>(stream: S, state: MockState, peer_loopback: bool) -> io::Result<()>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let mut builder = h2::server::Builder::new();
    if let Some(limit) = state.max_concurrent_streams() {
        builder.max_concurrent_streams(limit);
    }
    let mut connection = tokio::time::timeout(REQUEST_TIMEOUT, builder.handshake(stream))
        .await
        .map_err(|_elapsed| io::Error::new(io::ErrorKind::TimedOut, "no HTTP/2 preface"))?
        .map_err(io::Error::other)?;
    state.count_h2_connection();
    let shared = Arc::new(Shared {
        peer_loopback,
        ..Shared::default()
    });
    // Owning the streams' tasks ends them with the connection (a hang, a drip).
    let mut streams = JoinSet::new();
    // Closed gracefully (GOAWAY, then the open streams finish) once idle for the keep-alive,
    // as the HTTP/1.1 side closes an idle connection; the first request may take longer.
    let keep_alive = state.keep_alive();
    let mut idle: Option<Pin<Box<Sleep>>> = Some(Box::pin(tokio::time::sleep(
        keep_alive.max(REQUEST_TIMEOUT),
    )));
    loop {
        tokio::select! {
            accepted = connection.accept() => match accepted {
                // The connection is closed: nothing can be sent on the streams any more.
                None => break,
                Some(Err(error)) => {
                    tracing::debug!(%error, "HTTP/2 connection ended with an error");
                    break;
                }
                Some(Ok((request, respond))) => {
                    idle = None;
                    let open = Open::new(&shared, &state);
                    streams.spawn(answer(request, respond, state.clone(), open));
                }
            },
            // With an error code: the client's connection ends on GOAWAY(INTERNAL_ERROR), which
            // it reports, not as a clean shutdown; its open stream fails as the connection closes.
            () = shared.go_away.notified() => connection.abrupt_shutdown(Reason::INTERNAL_ERROR),
            () = shared.idle.notified() => {
                if shared.open.load(Ordering::Relaxed) == 0 {
                    idle = Some(Box::pin(tokio::time::sleep(keep_alive)));
                }
            }
            () = async { idle.as_mut().expect("guarded by is_some").await }, if idle.is_some() => {
                idle = None;
                connection.graceful_shutdown();
            }
            Some(_finished) = streams.join_next(), if !streams.is_empty() => {}
        }
    }
    // Closing a socket with unread bytes sends a RST, which can destroy the GOAWAY before the
    // client reads it: hold the socket (unread, so no RST yet) while the client takes it in.
    tokio::time::sleep(LINGER).await;
    drop(connection);
    Ok(())
}

/// What a connection's streams tell it.
#[derive(Debug, Default)]
struct Shared {
    /// Streams being answered now.
    open: AtomicU64,
    /// The last open stream finished.
    idle: Notify,
    /// A `goaway` fault fired: GOAWAY now.
    go_away: Notify,
    /// Whether the peer's address is a loopback one.
    peer_loopback: bool,
}

/// One open stream, counted until its last frame is handed to h2 (or it is dropped: reset or
/// aborted). The count drops before the frame that ends the stream is queued, not after the
/// stream's task ends: the client may open its next stream as soon as that frame arrives, and
/// the peak must count only the streams open at once, as h2's own limit does.
struct Open {
    shared: Arc<Shared>,
    state: MockState,
    closed: bool,
}

impl Open {
    /// Counts the stream (and its connection as busy if it was idle).
    fn new(shared: &Arc<Shared>, state: &MockState) -> Self {
        let now = shared.open.fetch_add(1, Ordering::Relaxed) + 1;
        state.count_h2_stream(now);
        Self {
            shared: Arc::clone(shared),
            state: state.clone(),
            closed: false,
        }
    }

    /// No longer counted (once, however often it is called).
    fn close(&mut self) {
        if std::mem::replace(&mut self.closed, true) {
            return;
        }
        if self.shared.open.fetch_sub(1, Ordering::Relaxed) == 1 {
            self.state.count_h2_connection_idle();
            self.shared.idle.notify_one();
        }
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.close();
    }
}

async fn answer(
    request: http::Request<RecvStream>,
    mut respond: SendResponse<Bytes>,
    state: MockState,
    mut open: Open,
) {
    if let Err(error) = exchange(request, &mut respond, &state, &mut open).await {
        tracing::debug!(%error, "HTTP/2 stream ended with an error");
    }
}

async fn exchange(
    request: http::Request<RecvStream>,
    respond: &mut SendResponse<Bytes>,
    state: &MockState,
    open: &mut Open,
) -> Result<(), h2::Error> {
    let shared = Arc::clone(&open.shared);
    let (parts, body) = request.into_parts();
    state.count_request();
    let mut buffers = Buffers::default();
    let body = match tokio::time::timeout(REQUEST_TIMEOUT, read_body(body)).await {
        Ok(Ok(Some(body))) => body,
        Ok(Ok(None)) => return refuse(respond, open, 413, "the request body is too large"),
        Ok(Err(error)) => return Err(error),
        Err(_elapsed) => {
            return refuse(
                respond,
                open,
                408,
                "the request body did not arrive in time",
            );
        }
    };
    let request = Request {
        method: Method::from_token(parts.method.as_str()),
        path: parts.uri.path(),
        query: parts.uri.query(),
        body: &body,
        keep_alive: true,
        http10: false,
        peer_loopback: shared.peer_loopback,
        authorization: parts
            .headers
            .get(http::header::AUTHORIZATION)
            .map(http::HeaderValue::as_bytes),
    };
    let outcome = routes::handle(&request, state, &mut buffers).await;
    match outcome {
        Outcome::Reply { .. } => send(respond, open, &buffers.out).await,
        Outcome::Reset => {
            respond.send_reset(Reason::INTERNAL_ERROR);
            Ok(())
        }
        Outcome::Refuse => {
            respond.send_reset(Reason::REFUSED_STREAM);
            Ok(())
        }
        Outcome::Drip => drip(respond, open, &buffers).await,
        Outcome::Hang => {
            // Until the client resets the stream, or the connection ends.
            let _ = poll_fn(|context| respond.poll_reset(context)).await;
            Ok(())
        }
        Outcome::GoAway => {
            shared.go_away.notify_one();
            let _ = poll_fn(|context| respond.poll_reset(context)).await;
            Ok(())
        }
    }
}

/// The whole request body, or `None` past [`MAX_BODY`].
async fn read_body(mut body: RecvStream) -> Result<Option<Vec<u8>>, h2::Error> {
    let mut read = Vec::new();
    while let Some(chunk) = body.data().await {
        let chunk = chunk?;
        // Reading a frame frees its room in the window, so the client can send the next one.
        body.flow_control().release_capacity(chunk.len())?;
        if read.len() + chunk.len() > MAX_BODY {
            return Ok(None);
        }
        read.extend_from_slice(&chunk);
    }
    Ok(Some(read))
}

/// Answers a request that cannot be served, as the HTTP/1.1 side does.
fn refuse(
    respond: &mut SendResponse<Bytes>,
    open: &mut Open,
    status: u16,
    detail: &str,
) -> Result<(), h2::Error> {
    let mut out = Vec::new();
    Responder::closing().problem(status, detail, &[], &mut out);
    let answer = Answer::read(&out).ok_or(Reason::INTERNAL_ERROR)?;
    let mut stream = respond.send_response(answer.head()?, false)?;
    open.close();
    stream.send_data(Bytes::from(answer.body.concat()), true)
}

/// Sends an answer; one the routes cut short is reset after what they wrote of it.
async fn send(
    respond: &mut SendResponse<Bytes>,
    open: &mut Open,
    out: &[u8],
) -> Result<(), h2::Error> {
    let answer = Answer::read(out).ok_or(Reason::INTERNAL_ERROR)?;
    let empty = answer.complete && answer.body.iter().all(|part| part.is_empty());
    if empty {
        open.close();
    }
    let mut stream = respond.send_response(answer.head()?, empty)?;
    if empty {
        return Ok(());
    }
    let last = answer.body.len().saturating_sub(1);
    for (index, part) in answer.body.iter().enumerate() {
        send_data(
            &mut stream,
            open,
            Bytes::copy_from_slice(part),
            answer.complete && index == last,
        )
        .await?;
    }
    if !answer.complete {
        stream.send_reset(Reason::INTERNAL_ERROR);
    }
    Ok(())
}

/// Sends the head, then one byte of the body per DATA frame every interval until the client
/// goes away.
async fn drip(
    respond: &mut SendResponse<Bytes>,
    open: &mut Open,
    buffers: &Buffers,
) -> Result<(), h2::Error> {
    let answer = Answer::read(&buffers.out).ok_or(Reason::INTERNAL_ERROR)?;
    let mut stream = respond.send_response(answer.head()?, false)?;
    let mut ticks = tokio::time::interval(DRIP_INTERVAL);
    for &byte in buffers.body.iter().cycle() {
        ticks.tick().await;
        send_data(&mut stream, open, Bytes::copy_from_slice(&[byte]), false).await?;
    }
    Ok(())
}

/// Sends `data` as the flow-control window lets it, ending the stream after it if `end` (and
/// `open` no longer counted just before the frame that ends it is queued).
async fn send_data(
    stream: &mut SendStream<Bytes>,
    open: &mut Open,
    mut data: Bytes,
    end: bool,
) -> Result<(), h2::Error> {
    if data.is_empty() {
        if end {
            open.close();
        }
        return stream.send_data(data, end);
    }
    while !data.is_empty() {
        stream.reserve_capacity(data.len());
        let granted = match poll_fn(|context| stream.poll_capacity(context)).await {
            Some(granted) => granted?,
            // The stream was reset or the connection closed.
            None => return Err(Reason::STREAM_CLOSED.into()),
        };
        if granted == 0 {
            continue;
        }
        let part = data.split_to(granted.min(data.len()));
        if end && data.is_empty() {
            open.close();
        }
        stream.send_data(part, end && data.is_empty())?;
    }
    Ok(())
}

/// An HTTP/1.1 answer the routes wrote, read back: its head, and its body as written (one
/// part, or one per chunk), complete or cut short.
#[derive(Debug, PartialEq, Eq)]
struct Answer<'a> {
    status: u16,
    headers: Vec<(&'a str, &'a [u8])>,
    body: Vec<&'a [u8]>,
    /// The body is all there: every byte of its Content-Length, or the last chunk.
    complete: bool,
}

impl<'a> Answer<'a> {
    /// `None` if `out` is not an answer the routes could have written.
    fn read(out: &'a [u8]) -> Option<Self> {
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut response = httparse::Response::new(&mut headers);
        let httparse::Status::Complete(head_len) = response.parse(out).ok()? else {
            return None;
        };
        let status = response.code?;
        let mut chunked = false;
        let mut content_length = None;
        let mut kept = Vec::new();
        for header in response.headers.iter() {
            if header.name.eq_ignore_ascii_case("transfer-encoding") {
                chunked = true;
            } else if header.name.eq_ignore_ascii_case("content-length") {
                content_length = std::str::from_utf8(header.value)
                    .ok()?
                    .parse::<usize>()
                    .ok();
            }
            if !CONNECTION_HEADERS
                .iter()
                .any(|name| header.name.eq_ignore_ascii_case(name))
            {
                kept.push((header.name, header.value));
            }
        }
        let rest = &out[head_len..];
        let (body, complete) = if chunked {
            dechunk(rest)?
        } else {
            let length = content_length?;
            (vec![&rest[..rest.len().min(length)]], rest.len() >= length)
        };
        Some(Self {
            status,
            headers: kept,
            body,
            complete,
        })
    }

    fn head(&self) -> Result<http::Response<()>, h2::Error> {
        let mut builder = http::Response::builder().status(self.status);
        for (name, value) in &self.headers {
            builder = builder.header(name.to_ascii_lowercase(), *value);
        }
        builder.body(()).map_err(|_| Reason::INTERNAL_ERROR.into())
    }
}

/// The chunks of a chunked body, and whether its last (empty) chunk was there.
fn dechunk(mut rest: &[u8]) -> Option<(Vec<&[u8]>, bool)> {
    let mut parts = Vec::new();
    while !rest.is_empty() {
        let line_end = rest.windows(2).position(|pair| pair == b"\r\n")?;
        let size = usize::from_str_radix(std::str::from_utf8(&rest[..line_end]).ok()?, 16).ok()?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Some((parts, true));
        }
        parts.push(rest.get(..size)?);
        rest = rest.get(size + 2..)?;
    }
    Some((parts, false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reply::Reply;
    use crate::settings::Framing;

    fn written(framing: Framing, body: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        Reply {
            status: 200,
            content_type: "application/json",
            framing,
            connection: Some("close"),
            extra_headers: &[("Retry-After", "1")],
        }
        .write(body, &mut out);
        out
    }

    #[test]
    fn reads_back_a_content_length_answer_without_connection_headers() {
        let out = written(Framing::ContentLength, b"{\"a\":1}");
        let answer = Answer::read(&out).unwrap();
        assert_eq!(answer.status, 200);
        assert_eq!(
            answer.headers,
            vec![
                ("Content-Type", &b"application/json"[..]),
                ("Content-Length", b"7"),
                ("Retry-After", b"1"),
            ]
        );
        assert_eq!(answer.body, vec![&b"{\"a\":1}"[..]]);
        assert!(answer.complete);
        let head = answer.head().unwrap();
        assert_eq!(head.headers()["content-length"], "7");
        assert!(head.headers().get("connection").is_none());
    }

    #[test]
    fn a_chunked_answer_becomes_one_part_per_chunk() {
        let out = written(Framing::Chunked, b"0123456789");
        let answer = Answer::read(&out).unwrap();
        assert_eq!(answer.body, vec![&b"01234"[..], b"56789"]);
        assert!(answer.complete);
        assert!(
            answer
                .headers
                .iter()
                .all(|(name, _)| !name.eq_ignore_ascii_case("transfer-encoding"))
        );
    }

    #[test]
    fn an_answer_cut_short_is_incomplete() {
        let full = written(Framing::ContentLength, b"0123456789");
        let head_only = &full[..full.len() - 10];
        assert_eq!(Answer::read(head_only).unwrap().body, vec![&b""[..]]);
        assert!(!Answer::read(head_only).unwrap().complete);
        let half = &full[..full.len() - 5];
        let answer = Answer::read(half).unwrap();
        assert_eq!(answer.body, vec![&b"01234"[..]]);
        assert!(!answer.complete);
        // A drip's head: chunked, no chunk yet.
        let chunked = written(Framing::Chunked, b"");
        let head_len = chunked.len() - b"0\r\n\r\n".len();
        let answer = Answer::read(&chunked[..head_len]).unwrap();
        assert!(answer.body.is_empty() && !answer.complete);
    }

    #[test]
    fn garbage_is_not_an_answer() {
        assert_eq!(Answer::read(b"not http"), None);
        assert_eq!(Answer::read(b"HTTP/1.1 200 OK\r\n"), None);
    }
}
