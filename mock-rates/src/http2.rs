//! HTTP/2 on a TLS connection that negotiated `h2`, served by the `h2` crate: the same routes,
//! switches and faults as HTTP/1.1, each fault becoming what HTTP/2 has for it.
//!
//! The routes' answers ([`Answer`]) are sent as HEADERS and DATA frames. A request is served
//! on the connection's own task, as it arrives: no task per stream, no hand-over between
//! threads. Only a stream that has to wait (for its body, its injected latency, send
//! capacity, or forever: a drip, a hang) is kept in a set of futures that the same task polls.
//! An answer cut short (`eof`, `truncated`) ends in RST_STREAM instead of a close.

use std::future::{Future, poll_fn};
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use futures_util::task::AtomicWaker;
use h2::server::SendResponse;
use h2::{Reason, RecvStream, SendStream};
use http::header::{CONTENT_LENGTH, CONTENT_TYPE, HeaderName, HeaderValue};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::time::{Instant, Sleep};

use crate::exchange::{Answer, AnswerFault, Outcome, Request, Routed};
use crate::http::{MAX_BODY, Method};
use crate::routes;
use crate::settings::Framing;
use crate::state::MockState;
use crate::timing::{DRIP_INTERVAL, LINGER, REQUEST_TIMEOUT};

/// The receive windows (connection and stream) and the largest request head, as hyper's
/// server sets them: the protocol's default window (64 KiB) slows down large request bodies.
const RECEIVE_WINDOW: u32 = 1024 * 1024;
const MAX_HEADER_LIST: u32 = 16 * 1024;

/// Serves one connection that negotiated `h2` until it closes.
pub(crate) async fn serve<S>(stream: S, state: MockState, peer_loopback: bool) -> io::Result<()>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let mut builder = h2::server::Builder::new();
    builder
        .initial_window_size(RECEIVE_WINDOW)
        .initial_connection_window_size(RECEIVE_WINDOW)
        .max_header_list_size(MAX_HEADER_LIST);
    if let Some(limit) = state.max_concurrent_streams() {
        builder.max_concurrent_streams(limit);
    }
    let mut connection = tokio::time::timeout(REQUEST_TIMEOUT, builder.handshake(stream))
        .await
        .map_err(|_elapsed| io::Error::new(io::ErrorKind::TimedOut, "no HTTP/2 preface"))?
        .map_err(io::Error::other)?;
    state.count_h2_connection();
    let open = Arc::new(AtomicU64::new(0));
    let mut scratch = BytesMut::new();
    // Streams that wait, polled by this task; dropped with the connection (a hang, a drip).
    let mut waiting = FuturesUnordered::new();
    // Streams a `goaway` fault left unanswered: held, not dropped (which would reset them),
    // until the connection ends.
    let mut unanswered = Vec::new();
    let mut idle = Idle::new(&state);
    let turns = Arc::new(Turns::default());
    let own_waker = Waker::from(Arc::clone(&turns));
    poll_fn(|task| {
        turns.task.register(task.waker());
        let context = &mut Context::from_waker(&own_waker);
        loop {
            turns.polling.store(true, Ordering::SeqCst);
            let mut active = false;
            // The connection first: it reads the requests, and writes what the streams
            // queued before a stream that waited a turn for that (a reset after a head)
            // goes on.
            loop {
                // Whatever woke the connection (a request, a stream that queued a frame) is
                // taken care of by this poll: only what wakes it after calls for another turn.
                turns.woken.store(false, Ordering::SeqCst);
                match connection.poll_accept(context) {
                    // The connection is closed: nothing can be sent on the streams any more.
                    Poll::Ready(None) => return Poll::Ready(()),
                    Poll::Ready(Some(Err(error))) => {
                        tracing::debug!(%error, "HTTP/2 connection ended with an error");
                        return Poll::Ready(());
                    }
                    Poll::Ready(Some(Ok((request, respond)))) => {
                        active = true;
                        let stream = Stream {
                            respond,
                            open: Open::new(&open, &state),
                        };
                        match serve_stream(request, stream, &state, peer_loopback, &mut scratch) {
                            None => {}
                            Some(Left::GoAway(stream)) => {
                                unanswered.push(stream);
                                go_away(&mut connection);
                            }
                            Some(Left::Wait(work, stream)) => {
                                waiting.push(finish(work, stream, state.clone(), peer_loopback));
                            }
                        }
                    }
                    Poll::Pending => break,
                }
            }
            while !waiting.is_empty() {
                let Poll::Ready(Some(finished)) = waiting.poll_next_unpin(context) else {
                    break;
                };
                active = true;
                if let Some(stream) = finished {
                    unanswered.push(stream);
                    go_away(&mut connection);
                }
            }
            if active {
                idle.active(&state, !waiting.is_empty());
            }
            if let Some(expired) = idle.poll_expired(context, &state, !waiting.is_empty()) {
                match expired {
                    Expired::Moved => {}
                    Expired::Graceful => {
                        state.count_idle_close();
                        connection.graceful_shutdown();
                    }
                    Expired::GoAway => {
                        state.count_idle_close();
                        connection.abrupt_shutdown(Reason::NO_ERROR);
                    }
                }
                // The timer, moved or done with, is polled again on the next turn.
                turns.woken.store(true, Ordering::SeqCst);
            }
            turns.polling.store(false, Ordering::SeqCst);
            if !turns.woken.swap(false, Ordering::SeqCst) {
                return Poll::Pending;
            }
            // Out of tokio's budget (many requests in one poll), I/O answers nothing more
            // until the task has yielded: yield, woken for real, rather than turn for nothing.
            if !tokio::task::coop::has_budget_remaining() {
                task.waker().wake_by_ref();
                return Poll::Pending;
            }
        }
    })
    .await;
    drop(waiting);
    // Closing a socket with unread bytes sends a RST, which can destroy the GOAWAY before the
    // client reads it: hold the socket (unread, so no RST yet) while the client takes it in.
    tokio::time::sleep(LINGER).await;
    drop(unanswered);
    drop(connection);
    Ok(())
}

/// When an idle connection (no stream open, none waiting) is closed, and how. With an idle
/// timeout: once idle that long, with GOAWAY(NO_ERROR) naming the last stream taken, then the
/// close, as h2 servers close idle connections (a request the client sends meanwhile is past
/// that stream: refused, not processed). Without one: gracefully (GOAWAY, then the open streams
/// finish) once idle for the keep-alive, as the HTTP/1.1 side closes an idle connection; the
/// first request may take longer. The timer is moved when it fires (or must fire sooner), not
/// at every request, and the limit is read from the state each time, so that a change at run
/// time applies.
struct Idle {
    keep_alive: Duration,
    /// A stream was served: the first request's allowance is spent.
    served: bool,
    last_active: Instant,
    timer: Pin<Box<Sleep>>,
    closing: bool,
}

/// What the idle timer asks of the connection.
enum Expired {
    /// It fired early and was moved.
    Moved,
    /// Idle for the keep-alive: GOAWAY, and let the open streams finish.
    Graceful,
    /// Idle for the idle timeout: GOAWAY(NO_ERROR), then close.
    GoAway,
}

impl Idle {
    fn new(state: &MockState) -> Self {
        let mut idle = Self {
            keep_alive: state.keep_alive(),
            served: false,
            last_active: Instant::now(),
            timer: Box::pin(tokio::time::sleep(Duration::ZERO)),
            closing: false,
        };
        let (limit, _) = idle.limit(state);
        let deadline = idle.last_active + limit;
        idle.timer.as_mut().reset(deadline);
        idle
    }

    /// The time an idle connection is kept, and what follows it.
    fn limit(&self, state: &MockState) -> (Duration, Expired) {
        match state.idle_timeout() {
            Some(timeout) => (timeout, Expired::GoAway),
            None if self.served => (self.keep_alive, Expired::Graceful),
            None => (self.keep_alive.max(REQUEST_TIMEOUT), Expired::Graceful),
        }
    }

    /// A stream arrived or finished; `busy` if streams are still waiting.
    fn active(&mut self, state: &MockState, busy: bool) {
        let now = Instant::now();
        self.last_active = now;
        if !busy {
            self.served = true;
            let (limit, _) = self.limit(state);
            // Due sooner than the timer is set for (a zero keep-alive, a shorter idle
            // timeout): move it.
            if now + limit < self.timer.deadline() {
                self.timer.as_mut().reset(now + limit);
            }
        }
    }

    /// `None` while the timer has not fired; what the connection must do once it has.
    fn poll_expired(
        &mut self,
        context: &mut Context<'_>,
        state: &MockState,
        busy: bool,
    ) -> Option<Expired> {
        if self.closing || self.timer.as_mut().poll(context).is_pending() {
            return None;
        }
        let now = Instant::now();
        let (limit, close) = self.limit(state);
        if busy {
            self.timer.as_mut().reset(now + limit);
            Some(Expired::Moved)
        } else if now < self.last_active + limit {
            self.timer.as_mut().reset(self.last_active + limit);
            Some(Expired::Moved)
        } else {
            self.closing = true;
            Some(close)
        }
    }
}

/// The waker the connection and its waiting streams are polled with. h2 wakes the
/// connection's task whenever a stream queues a frame, and a stream answered on that task
/// queues its frames while the task runs: a task woken while it runs is rescheduled as if it
/// yielded, and tokio's multi-threaded scheduler then wakes an idle worker thread to steal it
/// (a futex call and, on one CPU, two context switches per request). A wake that arrives
/// while the connection is being polled only asks for one more turn of its loop instead.
#[derive(Debug, Default)]
struct Turns {
    /// The connection's task, woken for what arrives between two polls.
    task: AtomicWaker,
    /// A turn is under way.
    polling: AtomicBool,
    /// Something was woken since the turn began: take another.
    woken: AtomicBool,
}

impl Wake for Turns {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // Set before `polling` is read: a turn ending now sees it, or this wakes the task.
        self.woken.store(true, Ordering::SeqCst);
        if !self.polling.load(Ordering::SeqCst) {
            self.task.wake();
        }
    }
}

/// Ends the connection for a `goaway` fault: with an error code, so the client's connection
/// ends on GOAWAY(INTERNAL_ERROR), which it reports, not as a clean shutdown; its open stream
/// fails as the connection closes.
fn go_away<T, B>(connection: &mut h2::server::Connection<T, B>)
where
    T: AsyncRead + AsyncWrite + Unpin,
    B: bytes::Buf,
{
    connection.abrupt_shutdown(Reason::INTERNAL_ERROR);
}

/// The response side of one stream, and its place in the count of open streams.
struct Stream {
    respond: SendResponse<Bytes>,
    open: Open,
}

/// One open stream, counted until its last frame is handed to h2 (or it is dropped: reset or
/// aborted). The count drops before the frame that ends the stream is queued, not after the
/// stream is done with: the client may open its next stream as soon as that frame arrives,
/// and the peak must count only the streams open at once, as h2's own limit does.
struct Open {
    /// The connection's count of open streams.
    count: Arc<AtomicU64>,
    state: MockState,
    closed: bool,
}

impl Open {
    /// Counts the stream (and its connection as busy if it was idle).
    fn new(open: &Arc<AtomicU64>, state: &MockState) -> Self {
        let now = open.fetch_add(1, Ordering::Relaxed) + 1;
        state.count_h2_stream(now);
        Self {
            count: Arc::clone(open),
            state: state.clone(),
            closed: false,
        }
    }

    /// No longer counted (once, however often it is called).
    fn close(&mut self) {
        if std::mem::replace(&mut self.closed, true) {
            return;
        }
        if self.count.fetch_sub(1, Ordering::Relaxed) == 1 {
            self.state.count_h2_connection_idle();
        }
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.close();
    }
}

/// A stream that could not be served at once, and why.
enum Left {
    /// A `goaway` fault: the connection ends, and the stream is left unanswered.
    GoAway(Stream),
    Wait(Work, Stream),
}

/// What is left to do on a stream once what could be done at once was done.
enum Next {
    Done,
    /// A `goaway` fault: the connection ends, and the stream is left unanswered.
    GoAway,
    Wait(Work),
}

/// A stream that has to wait before it can go on.
enum Work {
    /// Its request body is still arriving: read it, then route the request.
    ReadBody {
        /// Boxed: the other kinds of work are smaller, and requests with a body are rare.
        parts: Box<http::request::Parts>,
        body: RecvStream,
    },
    /// Its outcome is due after the injected latency.
    Delay { delay: Duration, outcome: Outcome },
    /// A body larger than the send window lets out now.
    SendBody {
        sending: SendStream<Bytes>,
        body: Bytes,
        framing: Framing,
        /// Reset the stream after the body instead of ending it (a truncated answer).
        then_reset: bool,
    },
    /// Reset the stream once the connection has written what was queued on it: h2 drops the
    /// frames of a stream still queued when it is reset, and the head (and part of the body)
    /// must reach the client first.
    ResetAfterWrite { sending: SendStream<Bytes> },
    /// Send the body one byte per DATA frame every interval until the client goes away.
    Drip {
        sending: SendStream<Bytes>,
        body: Bytes,
    },
    /// Until the client resets the stream, or the connection ends.
    Hang,
}

/// Serves a request as it arrives, as far as it can be served at once: the stream and what is
/// left to do on it, if anything.
fn serve_stream(
    request: http::Request<RecvStream>,
    mut stream: Stream,
    state: &MockState,
    peer_loopback: bool,
    scratch: &mut BytesMut,
) -> Option<Left> {
    state.count_request();
    let (parts, body) = request.into_parts();
    let next = if body.is_end_stream() {
        let routed = route(&parts, &[], state, peer_loopback, scratch);
        answer_now(routed, &mut stream)
    } else {
        Ok(Next::Wait(Work::ReadBody {
            parts: Box::new(parts),
            body,
        }))
    };
    match next {
        Ok(Next::Done) => None,
        Ok(Next::GoAway) => Some(Left::GoAway(stream)),
        Ok(Next::Wait(work)) => Some(Left::Wait(work, stream)),
        Err(error) => {
            tracing::debug!(%error, "HTTP/2 stream ended with an error");
            None
        }
    }
}

/// Routes a request from its head and its whole body.
fn route(
    parts: &http::request::Parts,
    body: &[u8],
    state: &MockState,
    peer_loopback: bool,
    scratch: &mut BytesMut,
) -> Routed {
    let request = Request {
        method: Method::from_token(parts.method.as_str()),
        path: parts.uri.path(),
        query: parts.uri.query(),
        body,
        peer_loopback,
        authorization: parts
            .headers
            .get(http::header::AUTHORIZATION)
            .map(HeaderValue::as_bytes),
    };
    routes::handle(&request, state, scratch)
}

/// Does what can be done now: everything, for an answer without latency whose body fits in
/// the send window.
fn answer_now(routed: Routed, stream: &mut Stream) -> Result<Next, h2::Error> {
    if !routed.delay.is_zero() {
        return Ok(Next::Wait(Work::Delay {
            delay: routed.delay,
            outcome: routed.outcome,
        }));
    }
    let answer = match routed.outcome {
        Outcome::Answer(answer) => answer,
        Outcome::Reset => {
            stream.respond.send_reset(Reason::INTERNAL_ERROR);
            return Ok(Next::Done);
        }
        Outcome::Refuse => {
            stream.respond.send_reset(Reason::REFUSED_STREAM);
            return Ok(Next::Done);
        }
        Outcome::Hang => return Ok(Next::Wait(Work::Hang)),
        Outcome::GoAway => return Ok(Next::GoAway),
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
    let head = response_head(&answer, framing)?;
    if ends && body.is_empty() {
        stream.open.close();
        stream.respond.send_response(head, true)?;
        return Ok(Next::Done);
    }
    let mut sending = stream.respond.send_response(head, false)?;
    if answer.fault == Some(AnswerFault::Drip) {
        return Ok(Next::Wait(Work::Drip {
            sending,
            body: answer.body,
        }));
    }
    sending.reserve_capacity(body.len());
    if sending.capacity() < body.len() {
        return Ok(Next::Wait(Work::SendBody {
            sending,
            body,
            framing,
            then_reset: !ends,
        }));
    }
    let mut parts = Answer::parts(&body, framing).peekable();
    while let Some(part) = parts.next() {
        let last = ends && parts.peek().is_none();
        if last {
            stream.open.close();
        }
        sending.send_data(part, last)?;
    }
    if ends {
        Ok(Next::Done)
    } else {
        Ok(Next::Wait(Work::ResetAfterWrite { sending }))
    }
}

/// The HEADERS of an answer: status, content type, the length with Content-Length framing
/// (as an HTTP/2 server may send it), and the answer's own headers.
fn response_head(answer: &Answer, framing: Framing) -> Result<http::Response<()>, h2::Error> {
    let mut head = http::Response::new(());
    *head.status_mut() =
        http::StatusCode::from_u16(answer.status).map_err(|_| Reason::INTERNAL_ERROR)?;
    let headers = head.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(answer.content_type));
    if framing == Framing::ContentLength {
        headers.insert(CONTENT_LENGTH, HeaderValue::from(answer.body.len()));
    }
    for (name, value) in answer.headers {
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| Reason::INTERNAL_ERROR)?;
        headers.insert(name, HeaderValue::from_static(value));
    }
    Ok(head)
}

/// Carries a stream's work through its waits; the stream back if a `goaway` fault left it
/// unanswered.
async fn finish(
    mut work: Work,
    mut stream: Stream,
    state: MockState,
    peer_loopback: bool,
) -> Option<Stream> {
    loop {
        let next = match work {
            Work::ReadBody { parts, body } => read_and_route(parts, body, &state, peer_loopback)
                .await
                .and_then(|routed| answer_now(routed, &mut stream)),
            Work::Delay { delay, outcome } => {
                tokio::time::sleep(delay).await;
                answer_now(outcome.into(), &mut stream)
            }
            Work::SendBody {
                mut sending,
                body,
                framing,
                then_reset,
            } => send_body(&mut sending, &mut stream.open, &body, framing, !then_reset)
                .await
                .map(|()| {
                    if then_reset {
                        Next::Wait(Work::ResetAfterWrite { sending })
                    } else {
                        Next::Done
                    }
                }),
            Work::ResetAfterWrite { mut sending } => {
                tokio::task::yield_now().await;
                sending.send_reset(Reason::INTERNAL_ERROR);
                Ok(Next::Done)
            }
            Work::Drip { mut sending, body } => drip(&mut sending, &mut stream.open, &body)
                .await
                .map(|()| Next::Done),
            Work::Hang => {
                let _ = poll_fn(|context| stream.respond.poll_reset(context)).await;
                Ok(Next::Done)
            }
        };
        match next {
            Ok(Next::Done) => return None,
            Ok(Next::GoAway) => return Some(stream),
            Ok(Next::Wait(next)) => work = next,
            Err(error) => {
                tracing::debug!(%error, "HTTP/2 stream ended with an error");
                return None;
            }
        }
    }
}

/// Reads a request's body (within [`REQUEST_TIMEOUT`] and [`MAX_BODY`]) and routes the
/// request; a body too large or too slow gets the problem answer the HTTP/1.1 side gives.
async fn read_and_route(
    parts: Box<http::request::Parts>,
    body: RecvStream,
    state: &MockState,
    peer_loopback: bool,
) -> Result<Routed, h2::Error> {
    match tokio::time::timeout(REQUEST_TIMEOUT, read_body(body)).await {
        Ok(Ok(Some(body))) => Ok(route(
            &parts,
            &body,
            state,
            peer_loopback,
            &mut BytesMut::new(),
        )),
        Ok(Ok(None)) => Ok(Answer::problem(413, "the request body is too large", &[]).into()),
        Ok(Err(error)) => Err(error),
        Err(_elapsed) => {
            Ok(Answer::problem(408, "the request body did not arrive in time", &[]).into())
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

/// Sends a body in its parts as the flow-control window lets them out, ending the stream
/// after the last if `ends` (and `open` no longer counted just before that frame is queued).
async fn send_body(
    sending: &mut SendStream<Bytes>,
    open: &mut Open,
    body: &Bytes,
    framing: Framing,
    ends: bool,
) -> Result<(), h2::Error> {
    let mut parts = Answer::parts(body, framing).peekable();
    while let Some(part) = parts.next() {
        let last = ends && parts.peek().is_none();
        send_data(sending, open, part, last).await?;
    }
    Ok(())
}

/// Sends the head's body one byte per DATA frame every interval until the client goes away.
async fn drip(
    sending: &mut SendStream<Bytes>,
    open: &mut Open,
    body: &Bytes,
) -> Result<(), h2::Error> {
    let mut ticks = tokio::time::interval(DRIP_INTERVAL);
    for index in (0..body.len()).cycle() {
        ticks.tick().await;
        send_data(sending, open, body.slice(index..=index), false).await?;
    }
    Ok(())
}

/// Sends `data` as the flow-control window lets it, ending the stream after it if `end` (and
/// `open` no longer counted just before the frame that ends it is queued).
async fn send_data(
    sending: &mut SendStream<Bytes>,
    open: &mut Open,
    mut data: Bytes,
    end: bool,
) -> Result<(), h2::Error> {
    while !data.is_empty() {
        sending.reserve_capacity(data.len());
        let granted = match poll_fn(|context| sending.poll_capacity(context)).await {
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
        sending.send_data(part, end && data.is_empty())?;
    }
    Ok(())
}
