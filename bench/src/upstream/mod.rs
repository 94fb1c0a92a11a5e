//! A server of the user's own as the upstream (`--upstream-url`, `--ca-file`): which suites
//! and protocols a run against it takes, and what it cannot measure there. The server is not
//! mock-rates: it has no admin endpoint (no counters, no faults, no added latency) and no
//! process of the bench's, so every figure that needs one of those is recorded as not
//! measured, with why, and the suites that need them are left out.

mod probe;
mod servers;
/// The upstream a run is pointed at; `crate::error` names its error from here.
pub mod target;

pub use probe::probe;
pub use servers::{Prepared, prepare, start_tls_servers};
pub use target::{GivenUpstream, UpstreamArgs, UpstreamError};
