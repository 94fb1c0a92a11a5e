//! What every rates adapter shares: settings, the Free Forex wire format, and the frame of one
//! call ([`UpstreamCall`]: the in-flight limit, the deadline, the answer's interpretation and
//! the log line). An adapter adds only its client: build the request, send it, map errors.

mod body;
mod call;
mod errors;
mod limit;
mod outcome;
mod settings;
mod wire;

pub use body::BoundedBody;
pub use call::UpstreamCall;
pub use errors::{broken_transfer, describe, find_io_error};
pub use limit::{ConcurrencyLimit, Permit};
pub use settings::ClientSettings;
pub use wire::{decode_quotes, live_url};

use std::future::Future;
use std::time::Duration;

use application::RatesError;

/// An adapter's client could not be built from its settings (bad base URL, bad limits).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot build the {client} rates client: {reason}")]
pub struct BuildError {
    pub client: &'static str,
    pub reason: String,
}

/// Runs one whole upstream call (connect, send, status, body) under the total timeout.
/// The same outer deadline wraps every adapter, so "timeout" means the same everywhere.
///
/// # Errors
/// `RatesError::Timeout` when `timeout` expires first; otherwise the call's own result.
async fn with_deadline<T>(
    timeout: Duration,
    call: impl Future<Output = Result<T, RatesError>>,
) -> Result<T, RatesError> {
    tokio::time::timeout(timeout, call)
        .await
        .unwrap_or_else(|_| Err(timeout_error(timeout)))
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
