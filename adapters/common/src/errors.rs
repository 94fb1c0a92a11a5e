//! Reading client errors: their source chains, and the io errors wrapped inside them.

use std::error::Error;
use std::fmt::{Display, Write as _};
use std::io;
use std::time::Duration;

use application::RatesError;

/// The messages of an error and its sources, outermost first, joined by ": ". A source whose
/// message its wrapper already repeats is left out, so nothing is said twice.
pub fn describe(error: &(dyn Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let message = cause.to_string();
        if !text.contains(&message) {
            let _ = write!(text, ": {message}");
        }
        source = cause.source();
    }
    text
}

/// The first `io::Error` in an error's source chain (the error itself included).
pub fn find_io_error<'a>(error: &'a (dyn Error + 'static)) -> Option<&'a io::Error> {
    let mut current = Some(error);
    while let Some(error) = current {
        if let Some(io) = error.downcast_ref::<io::Error>() {
            return Some(io);
        }
        current = error.source();
    }
    None
}

/// The first `T` in an error's chain, the error itself included. Connectors wrap a stream's
/// io error (which wraps, say, a TLS library's error) in io errors of their own, and an io
/// error's `source()` skips the error it wraps: so each io error met on the way is opened too.
pub fn find_in_chain<'a, T: Error + 'static>(error: &'a (dyn Error + 'static)) -> Option<&'a T> {
    let mut current = Some(error);
    while let Some(error) = current {
        if let Some(found) = error.downcast_ref::<T>() {
            return Some(found);
        }
        if let Some(wrapped) = error
            .downcast_ref::<io::Error>()
            .and_then(io::Error::get_ref)
            && let Some(found) = find_in_chain::<T>(wrapped)
        {
            return Some(found);
        }
        current = error.source();
    }
    None
}

/// The connection broke before the complete answer arrived: reset, closed early, or a body
/// cut short of its declared length. `Connect` for every adapter: the transfer failed, not the
/// upstream's content.
pub fn broken_transfer(detail: impl Display) -> RatesError {
    RatesError::Connect(format!(
        "the connection broke before the complete answer: {detail}"
    ))
}

/// An adapter's client could not be built from its settings (bad base URL, bad limits).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot build the {client} rates client: {reason}")]
pub struct BuildError {
    pub client: &'static str,
    pub reason: String,
}

/// The error for a call that did not complete within `timeout`.
pub fn timeout_error(timeout: Duration) -> RatesError {
    RatesError::Timeout(format!(
        "no complete answer within {} ms",
        timeout.as_millis()
    ))
}

/// The error for a connection that could not be established within `connect_timeout`.
pub fn connect_timeout_error(connect_timeout: Duration) -> RatesError {
    RatesError::Timeout(format!(
        "no connection within {} ms",
        connect_timeout.as_millis()
    ))
}

/// Maps an I/O error from a socket into the port's taxonomy.
pub fn io_error(error: &std::io::Error, timeout: Duration) -> RatesError {
    match error.kind() {
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => timeout_error(timeout),
        _ => RatesError::Connect(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Wrapper(&'static str, io::Error);

    impl std::fmt::Display for Wrapper {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl Error for Wrapper {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(&self.1)
        }
    }

    #[test]
    fn walks_the_chain_once() {
        let error = Wrapper(
            "error sending request",
            io::Error::new(io::ErrorKind::ConnectionReset, "connection reset by peer"),
        );
        assert_eq!(
            describe(&error),
            "error sending request: connection reset by peer"
        );
        assert_eq!(
            find_io_error(&error).map(io::Error::kind),
            Some(io::ErrorKind::ConnectionReset)
        );
        let repeated = Wrapper("tcp connect error: refused", io::Error::other("refused"));
        assert_eq!(describe(&repeated), "tcp connect error: refused");
    }

    #[test]
    fn finds_no_io_error_where_there_is_none() {
        let error = std::fmt::Error;
        assert!(find_io_error(&error).is_none());
    }
}
