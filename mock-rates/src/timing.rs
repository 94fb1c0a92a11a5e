//! How long a connection waits, whichever HTTP version it speaks.

use std::time::Duration;

/// How long a request may take to arrive when keep-alive is off (zero keep-alive), and an
/// HTTP/2 client its preface or a request body.
pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a closing connection is held or drained before its socket is closed, so that a
/// RST does not destroy the last answer (or GOAWAY) before the client reads it.
pub(crate) const LINGER: Duration = Duration::from_secs(1);
/// The gap between two bytes of a drip.
pub(crate) const DRIP_INTERVAL: Duration = Duration::from_millis(100);
