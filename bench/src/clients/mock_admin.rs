//! mock-rates' admin endpoints: its counters, and the faults (and added latency) in force.

use std::time::Duration;

use mock_rates::{Faults, Stats};

use crate::clients::loopback;

/// Limit on one admin call.
const ADMIN_TIMEOUT: Duration = Duration::from_secs(5);

/// Each counters read opens one connection of its own, which the mock counts in the stats it
/// returns: a before/after difference subtracts it.
const CONNECTIONS_PER_STATS_READ: u64 = 1;

#[derive(Debug, thiserror::Error)]
#[error("the mock-rates admin endpoint failed: {0}")]
pub struct MockError(String);

/// The admin endpoints of the mock-rates at `base_url`, over a fresh connection per call.
#[derive(Debug)]
pub struct MockAdmin<'a> {
    base_url: &'a str,
    agent: ureq::Agent,
}

impl<'a> MockAdmin<'a> {
    /// The admin endpoints of a mock-rates in the clear, or over TLS with its CA `ca_pem`.
    pub fn new(base_url: &'a str, ca_pem: Option<&[u8]>) -> Self {
        let agent = match ca_pem {
            None => loopback::agent(Some(ADMIN_TIMEOUT), 0),
            Some(ca_pem) => loopback::tls_agent(Some(ADMIN_TIMEOUT), 0, ca_pem),
        };
        Self { base_url, agent }
    }

    /// The server's counters, from `GET /__admin/stats`.
    pub fn stats(&self) -> Result<Stats, MockError> {
        let url = format!("{}/__admin/stats", self.base_url);
        let failed = |why: String| MockError(format!("GET {url}: {why}"));
        let mut response = self
            .agent
            .get(&url)
            .header("connection", "close")
            .call()
            .map_err(|error| failed(error.to_string()))?;
        if response.status() != 200 {
            return Err(failed(format!("status {}", response.status())));
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

    /// Sets the server's faults (and added latency) with `PUT /__admin/faults`.
    pub fn set_faults(&self, faults: &Faults) -> Result<(), MockError> {
        let url = format!("{}/__admin/faults", self.base_url);
        let body = serde_json::to_string(faults).map_err(|error| MockError(error.to_string()))?;
        let response = self
            .agent
            .put(&url)
            .header("connection", "close")
            .header("content-type", "application/json")
            .send(body.as_bytes())
            .map_err(|error| MockError(format!("PUT {url}: {error}")))?;
        if response.status() == 200 {
            Ok(())
        } else {
            Err(MockError(format!(
                "PUT {url}: status {}",
                response.status()
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
    /// TLS handshakes (full or resumed: the reads' own may resume), and those of TLS 1.3 and
    /// 1.2, less the second read's own (a TLS 1.3 one when the mock speaks TLS).
    pub tls_handshakes: u64,
    pub tls13: u64,
    pub tls12: u64,
}

impl Counted {
    /// The difference between two reads; `None` if either is missing or the counters went
    /// back (the mock was reset in between).
    pub fn between(before: Option<&Stats>, after: Option<&Stats>) -> Option<Self> {
        let (before, after) = before.zip(after)?;
        // The second read's own connection is a TLS one when the mock speaks TLS: the first
        // read's shows in `before` already, so a mock that counted any TLS has one of its own.
        let own_tls = u64::from(after.tls13_handshakes + after.tls12_handshakes > 0);
        Some(Self {
            connections: after
                .connections
                .checked_sub(before.connections)?
                .checked_sub(CONNECTIONS_PER_STATS_READ)?,
            live_requests: after.live_requests.checked_sub(before.live_requests)?,
            tls_handshakes: (handshakes(after).checked_sub(handshakes(before))?)
                .checked_sub(own_tls)?,
            tls13: (after
                .tls13_handshakes
                .checked_sub(before.tls13_handshakes)?)
            .checked_sub(own_tls)?,
            tls12: after
                .tls12_handshakes
                .checked_sub(before.tls12_handshakes)?,
        })
    }

    /// Sums of two differences; `None` once either is unknown.
    pub fn add(total: Option<Self>, more: Option<Self>) -> Option<Self> {
        let (total, more) = total.zip(more)?;
        Some(Self {
            connections: total.connections + more.connections,
            live_requests: total.live_requests + more.live_requests,
            tls_handshakes: total.tls_handshakes + more.tls_handshakes,
            tls13: total.tls13 + more.tls13,
            tls12: total.tls12 + more.tls12,
        })
    }
}

fn handshakes(stats: &Stats) -> u64 {
    stats.tls_handshakes_full + stats.tls_handshakes_resumed
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
