//! The counters a server reports on `GET /__admin/stats`.

use serde::{Deserialize, Serialize};

/// Counters since start or the last reset.
///
/// Missing JSON fields read as zero, so a reader also understands a server without the
/// newer counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Stats {
    /// HTTP requests parsed, on every path (the admin request reading them included).
    pub requests: u64,
    /// TCP connections accepted; with `requests` it shows how well clients reuse connections.
    pub connections: u64,
    /// Requests to `/api/live`.
    pub live_requests: u64,
    /// `/api/live` requests answered with a fault.
    pub faults_injected: u64,
    /// TLS handshakes completed in full (with or without a HelloRetryRequest).
    pub tls_handshakes_full: u64,
    /// TLS handshakes that resumed an earlier session.
    pub tls_handshakes_resumed: u64,
    /// Completed TLS handshakes that negotiated TLS 1.3.
    pub tls13_handshakes: u64,
    /// Completed TLS handshakes that negotiated TLS 1.2 (the only other version offered).
    pub tls12_handshakes: u64,
    /// TLS handshakes that failed or timed out: the connection was closed without a request.
    pub tls_handshake_failures: u64,
    /// Completed TLS handshakes in which the client chose `h2` by ALPN (the others chose
    /// `http/1.1` or nothing), whether or not an HTTP/2 preface followed.
    pub tls_alpn_h2: u64,
    /// Connections that negotiated HTTP/2 by ALPN and sent its preface (also in `connections`).
    pub h2_connections: u64,
    /// HTTP/2 streams accepted: one per HTTP/2 request (also in `requests`).
    pub h2_streams: u64,
    /// Most HTTP/2 streams open at once on one connection: above the stream limit it can
    /// never go, and it shows whether a client really multiplexes. Zeroed by
    /// `POST /__admin/reset-peaks` as well as by a reset.
    pub h2_peak_streams: u64,
    /// Most HTTP/2 connections with a stream open at once: how many connections a client
    /// spread a burst of requests over (idle ones do not count). Zeroed like
    /// `h2_peak_streams`.
    pub h2_peak_connections: u64,
    /// Connections the server closed because they sat idle (no request in flight, none being
    /// read): for the idle timeout when one is set, else for the keep-alive.
    pub idle_closes: u64,
    /// Of those (over HTTP/1.1), the connections on which a request arrived just as the server
    /// closed them: read after the close and dropped, never answered. Over HTTP/2 the GOAWAY
    /// names the last stream taken, and a stream the server did not take is refused, which a
    /// client may retry by the protocol's own rule.
    #[serde(default)]
    pub idle_close_races: u64,
}
