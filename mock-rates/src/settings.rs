//! How a server answers when nothing is going wrong: content type, framing, timestamps, TLS
//! and HTTP/2.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::faults::Faults;
use crate::identity::TlsIdentity;

/// Everything a server is started with. Only `faults` can change while it runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Content type of `/api/live` answers.
    pub content_type: ContentType,
    /// Framing of `/api/live` answers.
    pub framing: Framing,
    /// Unit of the `timestamp` field of each rate.
    pub timestamp_unit: TimestampUnit,
    /// Faults in force at start.
    pub faults: Faults,
    /// Seed of the random generator behind fault percentages and jitter.
    pub seed: u64,
    /// How long an idle keep-alive connection is kept open; zero closes after every answer.
    pub keep_alive: Duration,
    /// Closes a connection that has sat idle this long (no request in flight, none being read),
    /// in place of the keep-alive: HTTP/1.1 with a bare close (no answer, a FIN after TLS's
    /// close_notify), HTTP/2 with GOAWAY(NO_ERROR) naming the last stream it took, then the
    /// close. No grace for a request that arrives as it closes: that race is what it is for.
    /// `None`: the keep-alive alone decides. Can also be changed at run time (see
    /// [`IdleTimeout`]).
    pub idle_timeout: Option<Duration>,
    /// HTTPS on the listener, or plain HTTP when `None`.
    pub tls: Option<TlsSettings>,
    /// The token `/__admin/*` requires of every peer (`Authorization: Bearer TOKEN`). Without
    /// one, the admin endpoints answer loopback peers only: a mock listening beyond loopback
    /// cannot be reconfigured from elsewhere unless it was given a token.
    pub admin_token: Option<AdminToken>,
}

/// The admin endpoints' token. Its `Debug` form hides it, so logging the settings (as the
/// binary does at start) does not print it.
#[derive(Clone, PartialEq, Eq)]
pub struct AdminToken(String);

impl AdminToken {
    /// A token; `None` for an empty one, which would let a bare `Bearer ` through.
    pub fn new(token: impl Into<String>) -> Option<Self> {
        let token = token.into();
        (!token.is_empty()).then_some(Self(token))
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for AdminToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AdminToken(hidden)")
    }
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            content_type: ContentType::default(),
            framing: Framing::default(),
            timestamp_unit: TimestampUnit::default(),
            faults: Faults::default(),
            seed: 42,
            // actix-web's default, so clients meet the same stale-connection window as in production.
            keep_alive: Duration::from_secs(5),
            idle_timeout: None,
            tls: None,
            admin_token: None,
        }
    }
}

/// HTTPS on the listener, with a CA and a certificate for `localhost` and `127.0.0.1` made at
/// start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsSettings {
    /// Whether clients may resume sessions (TLS 1.3 tickets, TLS 1.2 session ids). Off, every
    /// connection pays a full handshake, so its cost can be measured on purpose.
    pub resumption: bool,
    /// How long a client may take to finish its handshake before the connection is dropped
    /// (a silent one would hold a task forever). 5 s; a client run under valgrind needs more.
    pub handshake_timeout: Duration,
    /// Whether `h2` is offered by ALPN (before `http/1.1`): a client that picks it is served
    /// HTTP/2. Off, only `http/1.1` is offered, so a client that insists on HTTP/2 fails.
    pub http2: bool,
    /// The `SETTINGS_MAX_CONCURRENT_STREAMS` sent on each HTTP/2 connection: most streams a
    /// client may have open on it at once; past it a stream is refused. `None` is the
    /// default, 128 (nginx's).
    pub max_concurrent_streams: Option<u32>,
    /// The CA and certificate to serve; `None` makes fresh ones at start. Given, a server
    /// started again serves what its clients already trust.
    pub identity: Option<TlsIdentity>,
}

impl Default for TlsSettings {
    fn default() -> Self {
        Self {
            // Resumption is what production servers offer, so it is what clients meet by default.
            resumption: true,
            handshake_timeout: Duration::from_secs(5),
            http2: true,
            max_concurrent_streams: None,
            identity: None,
        }
    }
}

/// Content type of `/api/live` answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContentType {
    /// `application/json`.
    #[default]
    Json,
    /// `text/html; charset=UTF-8`, what the real Free Forex API sends.
    Html,
}

impl ContentType {
    /// The header value.
    pub fn header_value(self) -> &'static str {
        match self {
            Self::Json => "application/json",
            Self::Html => "text/html; charset=UTF-8",
        }
    }
}

/// How the length of `/api/live` bodies is told to the client.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Framing {
    /// A `Content-Length` header.
    #[default]
    ContentLength,
    /// `Transfer-Encoding: chunked`, the body in two chunks.
    Chunked,
}

/// Unit of rate timestamps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimestampUnit {
    /// Unix time in seconds, as the real API sends.
    #[default]
    Seconds,
    /// Unix time in milliseconds.
    Millis,
}

/// The idle timeout as `/__admin/idle-timeout` reads and writes it:
/// `{"idle_timeout_ms":250}`, or `{"idle_timeout_ms":null}` for none, with
/// `"close":"on_arrival"` for the deterministic race (see [`IdleClose`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdleTimeout {
    /// Milliseconds, 1 to [`IdleTimeout::MAX_MS`]; `None` (null or absent): no idle timeout,
    /// the keep-alive alone decides.
    #[serde(default)]
    pub idle_timeout_ms: Option<u64>,
    /// When an HTTP/1.1 connection idle past the timeout is closed.
    #[serde(default)]
    pub close: IdleClose,
}

/// When an HTTP/1.1 connection that sat idle past the idle timeout is closed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IdleClose {
    /// When the timeout passes, as servers do: a request that crosses the close on the wire
    /// is lost, which happens only when it is sent within a few hundred microseconds of it.
    #[default]
    Timer,
    /// When the next request arrives: the connection stays open past the timeout, and the
    /// first request read on it after that is dropped unanswered and the connection closed, as
    /// if the server's close had crossed it. Every call made after a gap longer than the
    /// timeout on a kept connection meets the race, so each client's answer to it shows every
    /// time, not by chance. HTTP/2 connections keep the timer.
    OnArrival,
}

impl IdleTimeout {
    /// The longest idle timeout accepted: a day.
    pub const MAX_MS: u64 = 24 * 60 * 60 * 1000;

    /// Rejects 0 (which would close every connection before its first request) and anything
    /// over [`IdleTimeout::MAX_MS`].
    pub fn validate(self) -> Result<(), String> {
        match self.idle_timeout_ms {
            Some(ms) if !(1..=Self::MAX_MS).contains(&ms) => Err(format!(
                "idle_timeout_ms must be 1..={} or null, got {ms}",
                Self::MAX_MS
            )),
            _ => Ok(()),
        }
    }

    /// As a duration; `None` for none.
    pub fn duration(self) -> Option<Duration> {
        self.idle_timeout_ms.map(Duration::from_millis)
    }
}

impl IdleTimeout {
    /// The timeout in force and how it closes, as the admin endpoint shows them.
    pub fn of(timeout: Option<Duration>, close: IdleClose) -> Self {
        Self {
            idle_timeout_ms: timeout
                .map(|timeout| u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX)),
            close,
        }
    }
}
