//! The settings every adapter takes, so that the comparison is like for like.

use std::time::Duration;

/// How an adapter's client is built. Every adapter applies every field the same way; where a
/// library has no knob for one (hyper and reqwest cannot cap open connections), the adapter
/// enforces it with a [`crate::ConcurrencyLimit`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientSettings {
    /// The upstream's base URL, e.g. `http://127.0.0.1:8081` (no trailing slash needed).
    pub base_url: String,
    /// Limit on establishing a TCP connection.
    pub connect_timeout: Duration,
    /// Limit on one whole upstream call: connect, request, status line and the complete body.
    pub timeout: Duration,
    /// Most calls in flight at once per client (and so most open connections).
    pub max_connections: usize,
    /// Most idle connections kept for reuse per host.
    pub max_idle_per_host: usize,
    /// Idle pooled connections older than this are dropped. Below the upstream's keep-alive
    /// (5 s for actix-web and mock-rates) so that a reused connection is not already closed.
    pub idle_timeout: Duration,
    /// How long a call may wait for a free slot (connection or blocking thread) before it
    /// fails as `Unavailable`.
    pub pool_wait: Duration,
    /// Threads of the blocking pool that blocking clients (ureq) run on.
    pub blocking_threads: usize,
    /// Largest upstream body read; a longer one is `Malformed`.
    pub max_body_bytes: usize,
}

impl ClientSettings {
    /// The defaults of `config/default.toml`, pointed at `base_url`.
    pub fn for_base_url(base_url: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            connect_timeout: Duration::from_secs(1),
            timeout: Duration::from_secs(2),
            max_connections: 100,
            max_idle_per_host: 100,
            idle_timeout: Duration::from_secs(4),
            pool_wait: Duration::from_secs(1),
            blocking_threads: 64,
            max_body_bytes: 64 * 1024,
        }
    }
}
