//! The connection's flow-control windows (RFC 9113 §5.2, §6.9): what the client lets the
//! server send, and what the server lets the client send and gives back as it reads.

use super::frame::{DEFAULT_WINDOW, MAX_WINDOW, Reason};

/// The receive windows (connection and stream), as hyper's server sets them: the protocol's
/// default window (64 KiB) slows down large request bodies.
pub(super) const RECEIVE_WINDOW: u32 = 1024 * 1024;

#[derive(Debug)]
pub(super) struct Windows {
    /// What the client lets the connection send.
    pub send: i64,
    /// The window each stream starts with, from the client's SETTINGS.
    pub initial: i64,
    /// What the client may still send on the connection before the server gives more.
    receive: i64,
    /// Received and not given back yet.
    unacked: u32,
}

impl Default for Windows {
    fn default() -> Self {
        Self {
            send: DEFAULT_WINDOW,
            initial: DEFAULT_WINDOW,
            // The connection's window starts at the default; the server's first WINDOW_UPDATE
            // (with its SETTINGS) opens it to RECEIVE_WINDOW.
            receive: i64::from(RECEIVE_WINDOW),
            unacked: 0,
        }
    }
}

impl Windows {
    /// The increment the server's preface gives the connection's window.
    pub(super) fn opening_increment() -> u32 {
        RECEIVE_WINDOW - DEFAULT_WINDOW as u32
    }

    /// `len` bytes of DATA (padding included) came: the increment to give back now, if it is
    /// time, or FLOW_CONTROL_ERROR if the client sent more than its window.
    pub(super) fn received(&mut self, len: u32) -> Result<Option<u32>, Reason> {
        self.receive -= i64::from(len);
        if self.receive < 0 {
            return Err(Reason::FlowControlError);
        }
        self.unacked += len;
        Ok(self.give_back())
    }

    fn give_back(&mut self) -> Option<u32> {
        if self.unacked < RECEIVE_WINDOW / 2 {
            return None;
        }
        let increment = std::mem::take(&mut self.unacked);
        self.receive += i64::from(increment);
        Some(increment)
    }

    /// A WINDOW_UPDATE for the connection (§6.9.1): an increment of 0 is a PROTOCOL_ERROR, a
    /// window past 2^31-1 a FLOW_CONTROL_ERROR.
    pub(super) fn send_update(&mut self, increment: u32) -> Result<(), Reason> {
        if increment == 0 {
            return Err(Reason::ProtocolError);
        }
        self.send += i64::from(increment);
        if self.send > MAX_WINDOW {
            return Err(Reason::FlowControlError);
        }
        Ok(())
    }

    /// A new SETTINGS_INITIAL_WINDOW_SIZE (§6.9.2): the change every stream's window takes,
    /// or FLOW_CONTROL_ERROR for a value past 2^31-1.
    pub(super) fn initial_change(&mut self, value: u32) -> Result<i64, Reason> {
        let value = i64::from(value);
        if value > MAX_WINDOW {
            return Err(Reason::FlowControlError);
        }
        let change = value - self.initial;
        self.initial = value;
        Ok(change)
    }
}

/// What a stream receives: `len` bytes against `window`, and the increment to give back from
/// `unacked`, or FLOW_CONTROL_ERROR (a stream error) past the window.
pub(super) fn stream_received(
    window: &mut i64,
    unacked: &mut u32,
    len: u32,
) -> Result<Option<u32>, Reason> {
    *window -= i64::from(len);
    if *window < 0 {
        return Err(Reason::FlowControlError);
    }
    *unacked += len;
    if *unacked < RECEIVE_WINDOW / 2 {
        return Ok(None);
    }
    let increment = std::mem::take(unacked);
    *window += i64::from(increment);
    Ok(Some(increment))
}

/// A WINDOW_UPDATE for a stream (§6.9.1): an increment of 0 is a PROTOCOL_ERROR, a window
/// past 2^31-1 a FLOW_CONTROL_ERROR, both stream errors.
pub(super) fn stream_update(window: &mut i64, increment: u32) -> Result<(), Reason> {
    if increment == 0 {
        return Err(Reason::ProtocolError);
    }
    *window += i64::from(increment);
    if *window > MAX_WINDOW {
        return Err(Reason::FlowControlError);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_received_is_given_back_by_halves_and_never_past_the_window() {
        let mut windows = Windows::default();
        assert_eq!(windows.received(RECEIVE_WINDOW / 2 - 1), Ok(None));
        assert_eq!(windows.received(1), Ok(Some(RECEIVE_WINDOW / 2)));
        assert_eq!(windows.received(RECEIVE_WINDOW / 2 - 1), Ok(None));
        // The window has RECEIVE_WINDOW / 2 + 1 left.
        assert_eq!(
            windows.received(RECEIVE_WINDOW / 2 + 2),
            Err(Reason::FlowControlError)
        );
    }

    #[test]
    fn updates_of_zero_or_past_the_largest_window_are_errors() {
        let mut windows = Windows::default();
        assert_eq!(windows.send_update(0), Err(Reason::ProtocolError));
        assert_eq!(windows.send_update(1000), Ok(()));
        assert_eq!(
            windows.send_update(0x7fff_ffff),
            Err(Reason::FlowControlError)
        );
        let mut window = 0;
        assert_eq!(stream_update(&mut window, 0), Err(Reason::ProtocolError));
        assert_eq!(stream_update(&mut window, 0x7fff_ffff), Ok(()));
        assert_eq!(stream_update(&mut window, 1), Err(Reason::FlowControlError));
    }

    #[test]
    fn a_new_initial_window_changes_by_the_difference() {
        let mut windows = Windows::default();
        assert_eq!(windows.initial_change(0), Ok(-DEFAULT_WINDOW));
        assert_eq!(windows.initial_change(100), Ok(100));
        assert_eq!(
            windows.initial_change(0x8000_0000),
            Err(Reason::FlowControlError)
        );
    }

    #[test]
    fn a_stream_receives_within_its_window() {
        let (mut window, mut unacked) = (i64::from(RECEIVE_WINDOW), 0);
        assert_eq!(stream_received(&mut window, &mut unacked, 10), Ok(None));
        assert_eq!(
            stream_received(&mut window, &mut unacked, RECEIVE_WINDOW / 2),
            Ok(Some(RECEIVE_WINDOW / 2 + 10))
        );
        assert_eq!(
            stream_received(&mut window, &mut unacked, RECEIVE_WINDOW + 1),
            Err(Reason::FlowControlError)
        );
    }
}
