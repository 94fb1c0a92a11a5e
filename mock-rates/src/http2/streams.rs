//! The stream table: the streams that wait, and the indexes that let a frame or a timer reach
//! the few streams it concerns without looking at the others (RFC 9113 §5.1's states, as far
//! as a server that answers at once needs them).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use tokio::time::Instant;

use super::stream::{Waiting, Work};

/// How many of the last streams closed are remembered with how they closed, so that a frame
/// the client sent before it saw the server's reset is ignored, and one sent after its own
/// END_STREAM or reset is an error (§5.1, closed), as h2 remembers the streams it reset (50
/// for 1 s by default). An older stream's frames are ignored.
const REMEMBERED_CLOSED: usize = 32;

/// How a stream closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Closed {
    /// Both sides ended it.
    Ended,
    /// The server reset it.
    ResetByServer,
    /// The client reset it.
    ResetByClient,
}

#[derive(Debug, Default)]
pub(super) struct Streams {
    /// The streams that wait, by id.
    waiting: BTreeMap<u32, Waiting>,
    /// The streams with an answer to send and room in their own window, that wait for the
    /// connection's: in stream order, the order they are served in.
    ready: BTreeSet<u32>,
    /// When each stream with a deadline must be looked at again.
    timers: BTreeSet<(Instant, u32)>,
    /// The streams whose request waits to be routed, in stream order.
    parked: BTreeSet<u32>,
    /// The bytes of answers the waiting streams hold.
    held: usize,
    /// The streams closed last, newest last.
    closed: VecDeque<(u32, Closed)>,
    /// Streams taken out of the table or put in: the work frames and timers have cost.
    touched: u64,
}

impl Streams {
    pub(super) fn insert(&mut self, stream: u32, waiting: Waiting) {
        self.touched += 1;
        if let Some(due) = waiting.work.due() {
            self.timers.insert((due, stream));
        }
        if wants_window(&waiting) {
            self.ready.insert(stream);
        }
        if matches!(waiting.work, Work::Parked(_)) {
            self.parked.insert(stream);
        }
        self.held += waiting.work.held();
        if let Some(before) = self.waiting.insert(stream, waiting) {
            // Not done by the connection: a stream is taken out before it is put back.
            debug_assert!(false, "stream {stream} inserted twice");
            self.unindex(stream, &before);
        }
    }

    pub(super) fn remove(&mut self, stream: u32) -> Option<Waiting> {
        let waiting = self.waiting.remove(&stream)?;
        self.touched += 1;
        self.unindex(stream, &waiting);
        Some(waiting)
    }

    fn unindex(&mut self, stream: u32, waiting: &Waiting) {
        if let Some(due) = waiting.work.due() {
            self.timers.remove(&(due, stream));
        }
        self.ready.remove(&stream);
        self.parked.remove(&stream);
        self.held -= waiting.work.held();
    }

    pub(super) fn contains(&self, stream: u32) -> bool {
        self.waiting.contains_key(&stream)
    }

    pub(super) fn get(&self, stream: u32) -> Option<&Waiting> {
        self.waiting.get(&stream)
    }

    /// The upload of a stream whose body is arriving. (Only an upload is lent out: its
    /// deadline and what it holds do not change while its body comes.)
    pub(super) fn upload_mut(&mut self, stream: u32) -> Option<&mut super::stream::Upload> {
        match self.waiting.get_mut(&stream) {
            Some(Waiting {
                work: Work::Body(upload),
                ..
            }) => Some(upload),
            _ => None,
        }
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.waiting.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// The first stream that waits for room in the connection's window.
    pub(super) fn next_ready(&self) -> Option<u32> {
        self.ready.first().copied()
    }

    /// The first stream whose request waits to be routed.
    pub(super) fn next_parked(&self) -> Option<u32> {
        self.parked.first().copied()
    }

    /// When the earliest deadline falls.
    pub(super) fn next_due(&self) -> Option<Instant> {
        self.timers.first().map(|&(due, _)| due)
    }

    /// A stream whose deadline has passed at `now`.
    pub(super) fn next_expired(&self, now: Instant) -> Option<u32> {
        self.timers
            .first()
            .filter(|&&(due, _)| due <= now)
            .map(|&(_, stream)| stream)
    }

    /// Changes every waiting stream's send window by `change`, as a new
    /// SETTINGS_INITIAL_WINDOW_SIZE does (§6.9.2): `false` if one would pass the largest
    /// window. The one change that must look at every stream, as in h2; the stream limit
    /// bounds it.
    pub(super) fn change_windows(&mut self, change: i64, max: i64) -> bool {
        let mut within = true;
        for (&stream, waiting) in &mut self.waiting {
            self.touched += 1;
            waiting.send_window += change;
            within &= waiting.send_window <= max;
            if wants_window(waiting) {
                self.ready.insert(stream);
            } else {
                self.ready.remove(&stream);
            }
        }
        within
    }

    /// The bytes of answers the waiting streams hold.
    pub(super) fn held(&self) -> usize {
        self.held
    }

    /// The bytes of requests the waiting streams keep (bodies and heads).
    pub(super) fn retained(&self) -> usize {
        self.waiting
            .values()
            .map(|waiting| waiting.work.retained())
            .sum::<usize>()
            + self.held
    }

    /// `stream` closed, as `how`.
    pub(super) fn closed(&mut self, stream: u32, how: Closed) {
        if self.closed.len() == REMEMBERED_CLOSED {
            self.closed.pop_front();
        }
        self.closed.push_back((stream, how));
    }

    /// How `stream` closed, if it is one of the last.
    pub(super) fn closed_as(&self, stream: u32) -> Option<Closed> {
        self.closed
            .iter()
            .rev()
            .find(|(closed, _)| *closed == stream)
            .map(|&(_, how)| how)
    }

    /// Streams put in or taken out so far.
    #[cfg(test)]
    pub(super) fn touched(&self) -> u64 {
        self.touched
    }

    pub(super) fn clear(&mut self) {
        self.waiting.clear();
        self.ready.clear();
        self.timers.clear();
        self.parked.clear();
        self.held = 0;
    }
}

/// Whether a stream waits for the connection's window only: it has an answer to send and
/// room in its own window.
fn wants_window(waiting: &Waiting) -> bool {
    matches!(waiting.work, Work::Send { .. }) && waiting.send_window > 0
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::time::Duration;

    use bytes::Bytes;

    use super::*;

    fn sending(send_window: i64, due: Instant) -> Waiting {
        Waiting {
            send_window,
            work: Work::Send {
                parts: VecDeque::from([Bytes::from_static(b"0123456789")]),
                ends: true,
                due,
            },
        }
    }

    #[test]
    fn streams_that_wait_for_the_connection_window_are_found_in_order() {
        let now = Instant::now();
        let mut streams = Streams::default();
        streams.insert(5, sending(10, now));
        streams.insert(3, sending(0, now));
        streams.insert(1, sending(10, now));
        streams.insert(
            7,
            Waiting {
                send_window: 10,
                work: Work::Hang,
            },
        );
        assert_eq!(streams.next_ready(), Some(1));
        streams.remove(1);
        assert_eq!(streams.next_ready(), Some(5), "3 has no window of its own");
        assert_eq!(streams.held(), 20);
        assert!(streams.change_windows(5, i64::from(i32::MAX)));
        assert_eq!(streams.next_ready(), Some(3));
        assert!(!streams.change_windows(i64::from(i32::MAX), i64::from(i32::MAX)));
    }

    #[test]
    fn deadlines_come_in_time_order_and_leave_with_their_stream() {
        let now = Instant::now();
        let mut streams = Streams::default();
        streams.insert(1, sending(0, now + Duration::from_secs(2)));
        streams.insert(3, sending(0, now + Duration::from_secs(1)));
        assert_eq!(streams.next_due(), Some(now + Duration::from_secs(1)));
        assert_eq!(streams.next_expired(now), None);
        assert_eq!(streams.next_expired(now + Duration::from_secs(1)), Some(3));
        streams.remove(3);
        assert_eq!(streams.next_expired(now + Duration::from_secs(5)), Some(1));
        streams.remove(1);
        assert_eq!((streams.next_due(), streams.held()), (None, 0));
    }

    /// The cost of a frame that concerns one stream does not grow with the streams that
    /// wait: counted, not timed.
    #[test]
    fn finding_a_stream_touches_no_other() {
        let now = Instant::now();
        let mut streams = Streams::default();
        for stream in (1..20_000).step_by(2) {
            streams.insert(stream, sending(0, now + Duration::from_secs(5)));
        }
        let before = streams.touched();
        assert_eq!(streams.next_ready(), None);
        assert_eq!(streams.next_expired(now), None);
        let waiting = streams.remove(9_999).unwrap();
        streams.insert(9_999, waiting);
        assert_eq!(streams.touched() - before, 2);
    }

    #[test]
    fn the_last_closed_are_remembered_newest_first() {
        let mut streams = Streams::default();
        for stream in 0..100 {
            streams.closed(stream * 2 + 1, Closed::Ended);
        }
        streams.closed(199, Closed::ResetByServer);
        assert_eq!(streams.closed_as(199), Some(Closed::ResetByServer));
        assert_eq!(streams.closed_as(197), Some(Closed::Ended));
        assert_eq!(streams.closed_as(1), None, "forgotten");
        assert_eq!(streams.closed.len(), REMEMBERED_CLOSED);
    }
}
