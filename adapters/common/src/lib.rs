//! What every rates adapter shares: settings, the Free Forex wire format, and the frame of one
//! call ([`UpstreamCall`]: the in-flight limit, the deadline, the answer's interpretation and
//! the log line). An adapter adds only its client: build the request, send it, map errors.

mod blocking;
mod body;
mod call;
mod errors;
mod limit;
mod outcome;
mod settings;
#[cfg(feature = "rustls")]
pub mod tls;
mod tls_stack;
mod version;
mod wire;

pub use blocking::on_blocking_pool;
pub use body::{BodyPieces, BoundedBody, Received};
pub use call::UpstreamCall;
pub use errors::{
    BuildError, broken_transfer, connect_timeout_error, describe, find_in_chain, find_io_error,
    io_error, timeout_error,
};
pub use limit::{ConcurrencyLimit, Permit};
pub use settings::{BodyDecode, ClientSettings};
pub use tls_stack::TlsStack;
pub use version::{HttpVersion, UnknownHttpVersion, not_http2, tls_error};
pub use wire::{decode_quotes, decode_quotes_from_reader, live_url};
