//! HTTP/2 on a TLS connection that negotiated `h2`, served by the `h2` crate: the same routes,
//! switches and faults as HTTP/1.1, each fault becoming what HTTP/2 has for it.
//!
//! The routes' answers ([`Answer`]) are sent as HEADERS and DATA frames. A request is served
//! on the connection's own task, as it arrives: no task per stream, no hand-over between
//! threads. Only a stream that has to wait (for its body, its injected latency, send
//! capacity, or forever: a drip, a hang) is kept in a set of futures that the same task polls.
//! An answer cut short (`eof`, `truncated`) ends in RST_STREAM instead of a close.

mod idle;
mod stream;

use std::future::poll_fn;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use bytes::BytesMut;
use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use futures_util::task::AtomicWaker;
use h2::Reason;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::state::MockState;
use crate::timing::{LINGER, REQUEST_TIMEOUT};
use idle::{Expired, Idle};
use stream::{Left, Open, Stream, finish, serve_stream};

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
