//! One stream: routed, answered at once where it can be, or kept waiting (for its body, its
//! injected latency, send capacity, a drip or a hang) until its answer is sent.

use std::future::poll_fn;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use h2::server::SendResponse;
use h2::{Reason, RecvStream, SendStream};
use http::header::{CONTENT_LENGTH, CONTENT_TYPE, HeaderName, HeaderValue};

use crate::exchange::{Answer, AnswerFault, Outcome, Request, Routed};
use crate::http::{MAX_BODY, Method};
use crate::routes;
use crate::settings::Framing;
use crate::state::MockState;
use crate::timing::{DRIP_INTERVAL, REQUEST_TIMEOUT};

/// The response side of one stream, and its place in the count of open streams.
pub(super) struct Stream {
    pub(super) respond: SendResponse<Bytes>,
    pub(super) open: Open,
}

/// One open stream, counted until its last frame is handed to h2 (or it is dropped: reset or
/// aborted). The count drops before the frame that ends the stream is queued, not after the
/// stream is done with: the client may open its next stream as soon as that frame arrives,
/// and the peak must count only the streams open at once, as h2's own limit does.
pub(super) struct Open {
    /// The connection's count of open streams.
    count: Arc<AtomicU64>,
    state: MockState,
    closed: bool,
}

impl Open {
    /// Counts the stream (and its connection as busy if it was idle).
    pub(super) fn new(open: &Arc<AtomicU64>, state: &MockState) -> Self {
        let now = open.fetch_add(1, Ordering::Relaxed) + 1;
        state.count_h2_stream(now);
        Self {
            count: Arc::clone(open),
            state: state.clone(),
            closed: false,
        }
    }

    /// No longer counted (once, however often it is called).
    pub(super) fn close(&mut self) {
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
pub(super) enum Left {
    /// A `goaway` fault: the connection ends, and the stream is left unanswered.
    GoAway(Stream),
    Wait(Work, Stream),
}

/// What is left to do on a stream once what could be done at once was done.
pub(super) enum Next {
    Done,
    /// A `goaway` fault: the connection ends, and the stream is left unanswered.
    GoAway,
    Wait(Work),
}

/// A stream that has to wait before it can go on.
pub(super) enum Work {
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
pub(super) fn serve_stream(
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
pub(super) fn route(
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
pub(super) fn answer_now(routed: Routed, stream: &mut Stream) -> Result<Next, h2::Error> {
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
pub(super) fn response_head(
    answer: &Answer,
    framing: Framing,
) -> Result<http::Response<()>, h2::Error> {
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
pub(super) async fn finish(
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
pub(super) async fn read_and_route(
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
pub(super) async fn read_body(mut body: RecvStream) -> Result<Option<Vec<u8>>, h2::Error> {
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
pub(super) async fn send_body(
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
pub(super) async fn drip(
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
pub(super) async fn send_data(
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
