//! The resolution suite's rows: calls that each open a new connection to the upstream, reached
//! by address and by a host name that a DNS server of the bench's own answers after a delay.

use serde::{Deserialize, Serialize};

use crate::ClientName;

/// The suite's sizes, as recorded in results.json.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResolutionSettings {
    /// The delays the DNS server answers after (ms), one set of rows each.
    pub delays_ms: Vec<u64>,
    /// Calls per row, each on a new connection, after one call that is not counted.
    pub calls: u32,
    /// The time to live of the DNS answers (s): how long a caching resolver may keep them.
    pub ttl_s: u32,
}

impl Default for ResolutionSettings {
    fn default() -> Self {
        Self {
            delays_ms: vec![0, 20],
            calls: 50,
            ttl_s: 60,
        }
    }
}

impl ResolutionSettings {
    /// The slowest resolver's delay: the one whose rows show what resolving adds.
    pub fn slowest_ms(&self) -> Option<u64> {
        self.delays_ms.iter().copied().max()
    }
}

/// The calls of one client to the upstream, by address or by name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResolutionRow {
    pub client: ClientName,
    /// `None`: the upstream by its address (`127.0.0.1`), nothing to resolve; `Some(ms)`: by a
    /// host name that the DNS server answers after `ms`.
    pub dns_delay_ms: Option<u64>,
    /// Calls made, each awaited and checked.
    pub calls: u64,
    pub ok: u64,
    /// The first failed call's error, when one failed.
    /// Evidence, quoted as the library gave it, not a reason the bench wrote (those are
    /// values: [`crate::reasons`]).
    pub first_error: Option<String>,
    /// Of the calls that succeeded: the median and the mean wall time per call (us).
    pub median_us: Option<f64>,
    pub mean_us: Option<f64>,
    /// Connections mock-rates accepted meanwhile (its admin reads taken out); `None` when they
    /// could not be read.
    pub connections: Option<u64>,
    /// The `A` and `AAAA` questions the DNS server was asked meanwhile; `None` for a row by
    /// address (no DNS server ran).
    pub a_questions: Option<u64>,
    pub aaaa_questions: Option<u64>,
}

impl ResolutionRow {
    /// The DNS questions (`A` and `AAAA`) of the row's calls.
    pub fn questions(&self) -> Option<u64> {
        Some(self.a_questions? + self.aaaa_questions?)
    }

    /// DNS questions per new connection: 2 for a client that asks for both address families
    /// every time (glibc's `getaddrinfo`), 0 for one that keeps the answers. `None` for a row
    /// by address or without the counts.
    pub fn questions_per_connection(&self) -> Option<f64> {
        let connections = self.connections.filter(|&connections| connections > 0)?;
        Some(self.questions()? as f64 / connections as f64)
    }

    /// Whether the client kept the answers: fewer questions than new connections.
    pub fn cached(&self) -> Option<bool> {
        Some(self.questions()? < self.connections?)
    }
}

/// The time resolving added to a call of `client` on a new connection, with the DNS server
/// answering after `delay_ms`: its median by name less its median by address (us). `None`
/// when either row is missing or has no successful call.
pub fn resolution_cost_us(
    rows: &[ResolutionRow],
    client: ClientName,
    delay_ms: u64,
) -> Option<f64> {
    let median = |delay: Option<u64>| {
        rows.iter()
            .find(|row| row.client == client && row.dns_delay_ms == delay)
            .and_then(|row| row.median_us)
    };
    Some(median(Some(delay_ms))? - median(None)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(dns_delay_ms: Option<u64>, median_us: f64, a_questions: Option<u64>) -> ResolutionRow {
        ResolutionRow {
            client: ClientName::Hyper,
            dns_delay_ms,
            calls: 30,
            ok: 30,
            first_error: None,
            median_us: Some(median_us),
            mean_us: Some(median_us),
            connections: Some(30),
            a_questions,
            aaaa_questions: a_questions,
        }
    }

    #[test]
    fn questions_and_caching_read_from_the_counts() {
        let every_time = row(Some(20), 20_500.0, Some(30));
        assert_eq!(every_time.questions_per_connection(), Some(2.0));
        assert_eq!(every_time.cached(), Some(false));
        let kept = row(Some(20), 300.0, Some(0));
        assert_eq!(kept.questions_per_connection(), Some(0.0));
        assert_eq!(kept.cached(), Some(true));
        let by_address = row(None, 250.0, None);
        assert_eq!(by_address.questions_per_connection(), None);
        assert_eq!(by_address.cached(), None);
    }

    #[test]
    fn the_cost_is_the_name_less_the_address() {
        let rows = [row(None, 250.0, None), row(Some(20), 20_500.0, Some(30))];
        assert_eq!(
            resolution_cost_us(&rows, ClientName::Hyper, 20),
            Some(20_250.0)
        );
        assert_eq!(resolution_cost_us(&rows, ClientName::Hyper, 0), None);
        assert_eq!(resolution_cost_us(&rows, ClientName::Awc, 20), None);
    }
}
