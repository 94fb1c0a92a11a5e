//! mock-rates' admin endpoints: its counters, and the faults (and added latency) in force.

use std::time::Duration;

use mock_rates::{Faults, IdleClose, IdleTimeout, Stats};

use crate::clients::loopback;

/// Limit on one admin call.
const ADMIN_TIMEOUT: Duration = Duration::from_secs(5);

/// Each counters read opens one connection of its own, which the mock counts in the stats it
/// returns: a before/after difference subtracts it.
const CONNECTIONS_PER_STATS_READ: u64 = 1;

/// Over TLS, each read's connection makes one full handshake (never a resumed one: see
/// [`Transport::Tls`]), a TLS 1.3 one (the admin agent and mock-rates are both rustls, which
/// prefers it); a before/after difference subtracts it as well.
const FULL_HANDSHAKES_PER_STATS_READ: u64 = 1;

#[derive(Debug, thiserror::Error)]
#[error("the mock-rates admin endpoint failed: {0}")]
pub struct MockError(String);

/// The admin endpoints of the mock-rates at `base_url`, over a fresh connection per call.
#[derive(Debug)]
pub struct MockAdmin<'a> {
    base_url: &'a str,
    transport: Transport,
    /// `Authorization` for a mock started with an admin token: `Bearer` and the token in
    /// `MOCK_RATES_ADMIN_TOKEN`, the variable mock-rates itself reads (so that the bench's
    /// own children, which inherit it, want what it sends).
    authorization: Option<String>,
}

/// The variable that holds the admin token, for mock-rates and for the bench alike.
pub const ADMIN_TOKEN_VARIABLE: &str = "MOCK_RATES_ADMIN_TOKEN";

/// How the admin calls reach the mock, so that each one costs the mock exactly one connection
/// and, over TLS, one full handshake: what [`Counted::between`] subtracts.
#[derive(Debug)]
enum Transport {
    /// One agent, keeping no idle connection: every call opens its own.
    Plain(ureq::Agent),
    /// A fresh agent per call: an agent keeps the TLS sessions of its earlier connections and
    /// would resume them (see [`loopback::tls_agent`]), which would mix the reads' own
    /// handshakes into the resumed ones a suite counts for its clients.
    Tls(ureq::tls::TlsConfig),
    /// Not mock-rates (a server given with `--upstream-url`): no admin endpoint to call, so
    /// no call is made, and every read says so.
    Unavailable,
}

impl<'a> MockAdmin<'a> {
    /// The admin endpoints of a mock-rates in the clear, or over TLS with its CA `ca_pem`.
    pub fn new(base_url: &'a str, ca_pem: Option<&[u8]>) -> Self {
        let transport = match ca_pem {
            None => Transport::Plain(loopback::agent(Some(ADMIN_TIMEOUT), 0)),
            Some(ca_pem) => Transport::Tls(loopback::tls_config(ca_pem)),
        };
        let authorization = std::env::var(ADMIN_TOKEN_VARIABLE)
            .ok()
            .filter(|token| !token.is_empty())
            .map(|token| format!("Bearer {token}"));
        Self {
            base_url,
            transport,
            authorization,
        }
    }

    /// A server that is not mock-rates: every call fails at once, without a request (it
    /// would cost the server a connection, and a 404 tells nothing).
    pub fn unavailable(base_url: &'a str) -> Self {
        Self {
            base_url,
            transport: Transport::Unavailable,
            authorization: None,
        }
    }

    /// `request`, with the token when there is one.
    fn authorized<B>(&self, request: ureq::RequestBuilder<B>) -> ureq::RequestBuilder<B> {
        match &self.authorization {
            Some(value) => request.header("authorization", value),
            None => request,
        }
    }

    /// What a refused call says: the status, and for 401 and 403 what to set.
    fn refused(status: u16) -> String {
        match status {
            401 => format!(
                "status 401: the mock wants its admin token; set {ADMIN_TOKEN_VARIABLE} to its --admin-token"
            ),
            403 => format!(
                "status 403: the mock answers admin calls from loopback only; start it with --admin-token and set {ADMIN_TOKEN_VARIABLE}"
            ),
            status => format!("status {status}"),
        }
    }

    /// The agent for one call.
    fn agent(&self) -> Result<ureq::Agent, MockError> {
        match &self.transport {
            Transport::Plain(agent) => Ok(agent.clone()),
            Transport::Tls(tls) => Ok(loopback::tls_agent(Some(ADMIN_TIMEOUT), 0, tls)),
            Transport::Unavailable => Err(MockError(format!(
                "{} is not mock-rates (--upstream-url): it has no admin endpoint",
                self.base_url
            ))),
        }
    }

    /// The server's counters, from `GET /__admin/stats`.
    pub fn stats(&self) -> Result<Stats, MockError> {
        let url = format!("{}/__admin/stats", self.base_url);
        let failed = |why: String| MockError(format!("GET {url}: {why}"));
        let request = self.agent()?.get(&url);
        let mut response = self
            .authorized(request)
            .header("connection", "close")
            .call()
            .map_err(|error| failed(error.to_string()))?;
        if response.status() != 200 {
            return Err(failed(Self::refused(response.status().as_u16())));
        }
        let body = response
            .body_mut()
            .read_to_vec()
            .map_err(|error| failed(error.to_string()))?;
        serde_json::from_slice(&body).map_err(|error| failed(format!("unexpected body: {error}")))
    }

    /// The counters now, or `None` when they cannot be read (a mock without admin endpoints).
    pub fn counters(&self) -> Option<Stats> {
        self.stats().ok()
    }

    /// Zeroes the server's HTTP/2 peaks (`POST /__admin/reset-peaks`), so that the next read
    /// gives the peaks of what happened in between. Like every call, it costs the mock one
    /// connection: make it before the read that a difference starts from.
    pub fn reset_peaks(&self) -> Result<(), MockError> {
        let url = format!("{}/__admin/reset-peaks", self.base_url);
        let request = self.agent()?.post(&url);
        let response = self
            .authorized(request)
            .header("connection", "close")
            .send_empty()
            .map_err(|error| MockError(format!("POST {url}: {error}")))?;
        if response.status() == 200 {
            Ok(())
        } else {
            Err(MockError(format!(
                "POST {url}: {}",
                Self::refused(response.status().as_u16())
            )))
        }
    }

    /// Sets the time after which the server closes an idle connection, and whether it closes
    /// on the timer or when the next request arrives (`PUT /__admin/idle-timeout`); `None`
    /// leaves it to the keep-alive.
    pub fn set_idle_timeout(&self, ms: Option<u64>, close: IdleClose) -> Result<(), MockError> {
        let timeout = IdleTimeout {
            idle_timeout_ms: ms,
            close,
        };
        let body = serde_json::to_string(&timeout).map_err(|error| MockError(error.to_string()))?;
        self.put_json("/__admin/idle-timeout", &body)
    }

    /// Sets the server's faults (and added latency) with `PUT /__admin/faults`.
    pub fn set_faults(&self, faults: &Faults) -> Result<(), MockError> {
        let body = serde_json::to_string(faults).map_err(|error| MockError(error.to_string()))?;
        self.put_json("/__admin/faults", &body)
    }

    /// `PUT path` with a JSON `body`; anything but 200 is an error saying why.
    fn put_json(&self, path: &str, body: &str) -> Result<(), MockError> {
        let url = format!("{}{path}", self.base_url);
        let request = self.agent()?.put(&url);
        let response = self
            .authorized(request)
            .header("connection", "close")
            .header("content-type", "application/json")
            .send(body.as_bytes())
            .map_err(|error| MockError(format!("PUT {url}: {error}")))?;
        if response.status() == 200 {
            Ok(())
        } else {
            Err(MockError(format!(
                "PUT {url}: {}",
                Self::refused(response.status().as_u16())
            )))
        }
    }
}

/// What mock-rates counted between two reads of its counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counted {
    /// TCP connections accepted, less the second read's own.
    pub connections: u64,
    /// `/api/live` requests.
    pub live_requests: u64,
    /// TLS handshakes, full or resumed, less the second read's own (a full TLS 1.3 one when
    /// the mock speaks TLS).
    pub tls_handshakes: u64,
    /// Of those, the full ones and the resumed ones.
    pub tls_full: u64,
    pub tls_resumed: u64,
    /// Of those, the TLS 1.3 ones and the TLS 1.2 ones.
    pub tls13: u64,
    pub tls12: u64,
    /// Of the handshakes, those that chose `h2` by ALPN (the reads' own never do: they are
    /// HTTP/1.1); of the connections, those that spoke HTTP/2, and the HTTP/2 streams
    /// (requests) on them.
    pub alpn_h2: u64,
    pub h2_connections: u64,
    pub h2_streams: u64,
}

impl Counted {
    /// The difference between two reads; `None` if either is missing or the counters went
    /// back (the mock was reset in between).
    pub fn between(before: Option<&Stats>, after: Option<&Stats>) -> Option<Self> {
        let (before, after) = before.zip(after)?;
        // The second read's own connection is a TLS one when the mock speaks TLS: the first
        // read's shows in `before` already, so a mock that counted any TLS has one of its own.
        let own_full = if after.tls13_handshakes + after.tls12_handshakes > 0 {
            FULL_HANDSHAKES_PER_STATS_READ
        } else {
            0
        };
        let tls_full = after
            .tls_handshakes_full
            .checked_sub(before.tls_handshakes_full)?
            .checked_sub(own_full)?;
        let tls_resumed = after
            .tls_handshakes_resumed
            .checked_sub(before.tls_handshakes_resumed)?;
        Some(Self {
            connections: after
                .connections
                .checked_sub(before.connections)?
                .checked_sub(CONNECTIONS_PER_STATS_READ)?,
            live_requests: after.live_requests.checked_sub(before.live_requests)?,
            tls_handshakes: tls_full + tls_resumed,
            tls_full,
            tls_resumed,
            tls13: (after
                .tls13_handshakes
                .checked_sub(before.tls13_handshakes)?)
            .checked_sub(own_full)?,
            tls12: after
                .tls12_handshakes
                .checked_sub(before.tls12_handshakes)?,
            alpn_h2: after.tls_alpn_h2.checked_sub(before.tls_alpn_h2)?,
            h2_connections: after.h2_connections.checked_sub(before.h2_connections)?,
            h2_streams: after.h2_streams.checked_sub(before.h2_streams)?,
        })
    }

    /// Sums of two differences; `None` once either is unknown.
    pub fn add(total: Option<Self>, more: Option<Self>) -> Option<Self> {
        let (total, more) = total.zip(more)?;
        Some(Self {
            connections: total.connections + more.connections,
            live_requests: total.live_requests + more.live_requests,
            tls_handshakes: total.tls_handshakes + more.tls_handshakes,
            tls_full: total.tls_full + more.tls_full,
            tls_resumed: total.tls_resumed + more.tls_resumed,
            tls13: total.tls13 + more.tls13,
            tls12: total.tls12 + more.tls12,
            alpn_h2: total.alpn_h2 + more.alpn_h2,
            h2_connections: total.h2_connections + more.h2_connections,
            h2_streams: total.h2_streams + more.h2_streams,
        })
    }
}

/// Faults in force on mock-rates for as long as this lives: removed by [`FaultsGuard::clear`],
/// or on drop (an early return, a panic), so that later suites find a healthy upstream.
#[derive(Debug)]
pub struct FaultsGuard<'a> {
    admin: &'a MockAdmin<'a>,
    cleared: bool,
}

impl<'a> FaultsGuard<'a> {
    /// Sets `faults` now.
    pub fn set(admin: &'a MockAdmin<'a>, faults: &Faults) -> Result<Self, MockError> {
        admin.set_faults(faults)?;
        Ok(Self {
            admin,
            cleared: false,
        })
    }

    /// Replaces the faults in force.
    pub fn change(&self, faults: &Faults) -> Result<(), MockError> {
        self.admin.set_faults(faults)
    }

    /// Removes every fault, reporting a failure to do so.
    pub fn clear(mut self) -> Result<(), MockError> {
        self.cleared = true;
        self.admin.set_faults(&Faults::default())
    }
}

impl Drop for FaultsGuard<'_> {
    fn drop(&mut self) {
        if !self.cleared
            && let Err(error) = self.admin.set_faults(&Faults::default())
        {
            eprintln!("bench: could not remove the faults set on mock-rates: {error}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(connections: u64, live_requests: u64) -> Stats {
        Stats {
            connections,
            live_requests,
            ..Stats::default()
        }
    }

    #[test]
    fn differences_less_the_stats_read() {
        // 3 connections more, one of them the second read; 480 more upstream calls.
        let counted = Counted::between(Some(&stats(10, 100)), Some(&stats(13, 580)));
        assert_eq!(
            counted,
            Some(Counted {
                connections: 2,
                live_requests: 480,
                ..Counted::default()
            })
        );
        assert_eq!(Counted::between(Some(&stats(10, 100)), None), None);
        assert_eq!(
            Counted::between(Some(&stats(10, 100)), Some(&stats(10, 100))),
            None
        );
        assert_eq!(Counted::add(counted, None), None);
        assert_eq!(
            Counted::add(counted, counted).map(|sum| sum.connections),
            Some(4)
        );
    }

    #[test]
    fn over_tls_the_read_s_own_full_handshake_is_subtracted() {
        let over_tls = |connections, full, resumed| Stats {
            connections,
            tls_handshakes_full: full,
            tls_handshakes_resumed: resumed,
            tls13_handshakes: full + resumed,
            ..Stats::default()
        };
        // Between the reads: 3 client connections (1 full, 2 resumed) and the second read.
        let counted = Counted::between(Some(&over_tls(4, 4, 0)), Some(&over_tls(8, 6, 2)));
        assert_eq!(
            counted,
            Some(Counted {
                connections: 3,
                tls_handshakes: 3,
                tls_full: 1,
                tls_resumed: 2,
                tls13: 3,
                ..Counted::default()
            })
        );
        assert_eq!(
            Counted::add(counted, counted).map(|sum| (sum.tls_full, sum.tls_resumed)),
            Some((2, 4))
        );
    }

    #[test]
    fn each_read_over_tls_is_one_connection_and_one_full_handshake() {
        let server = mock_rates::MockServer::start(mock_rates::Settings {
            tls: Some(mock_rates::TlsSettings::default()),
            ..mock_rates::Settings::default()
        })
        .unwrap();
        let url = server.base_url();
        let admin = MockAdmin::new(&url, server.state().ca_pem().map(str::as_bytes));
        let mut previous = admin.stats().unwrap();
        for _ in 0..3 {
            // A resumed read would show as a resumed handshake that no client made.
            let next = admin.stats().unwrap();
            assert_eq!(
                Counted::between(Some(&previous), Some(&next)),
                Some(Counted::default())
            );
            previous = next;
        }
        assert_eq!(previous.tls_handshakes_resumed, 0);
        assert_eq!(previous.tls_handshakes_full, 4);
        assert_eq!(previous.connections, 4);
    }

    #[test]
    fn the_faults_are_removed_on_every_way_out() {
        let server = mock_rates::MockServer::start(mock_rates::Settings::default()).unwrap();
        let url = server.base_url();
        let admin = MockAdmin::new(&url, None);
        let latency = Faults {
            latency_ms: 360,
            jitter_ms: 20,
            ..Faults::default()
        };
        let guard = FaultsGuard::set(&admin, &latency).unwrap();
        assert_eq!(server.state().faults(), latency);
        guard.clear().unwrap();
        assert_eq!(server.state().faults(), Faults::default());
        // Dropped without `clear`, as on an early return or a panic.
        drop(FaultsGuard::set(&admin, &latency).unwrap());
        assert_eq!(server.state().faults(), Faults::default());
        assert_eq!(admin.stats().unwrap().live_requests, 0);
    }
}
