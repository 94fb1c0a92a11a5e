//! The idle suite's rows: calls that meet connections the server closes for idleness (the
//! stale-connection race), per client, gap and client idle timeout.

use serde::{Deserialize, Serialize};

use crate::ClientName;

/// The suite's sizes, as recorded in results.json.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdleSettings {
    /// The idle timeout mock-rates closes connections after (ms).
    pub server_idle_ms: u64,
    /// The gaps between one call's answer and the next call, as per mille of the server's idle
    /// timeout: just under it, at it, just over it.
    pub gaps_permille: Vec<u32>,
    /// Calls after each gap, per client, gap and client idle timeout.
    pub calls_per_gap: u32,
    /// The client idle timeout below the server's (ms); the other is the service's own
    /// (`rates.idle_timeout_ms`), above it.
    pub client_idle_below_ms: u64,
    pub client_idle_above_ms: u64,
    /// Whether the rows with the race forced (mock-rates closing a connection idle past its
    /// timeout when the next request arrives) were run, after the gaps over the timeout.
    #[serde(default)]
    pub forced_race: bool,
}

impl Default for IdleSettings {
    fn default() -> Self {
        Self {
            server_idle_ms: 150,
            gaps_permille: vec![900, 1_000, 1_100],
            calls_per_gap: 8,
            client_idle_below_ms: 75,
            client_idle_above_ms: 4_000,
            forced_race: true,
        }
    }
}

impl IdleSettings {
    /// The gaps, in ms.
    pub fn gaps_ms(&self) -> Vec<u64> {
        self.gaps_permille
            .iter()
            .map(|&permille| self.server_idle_ms * u64::from(permille) / 1_000)
            .collect()
    }

    /// What each client is measured with, in order, with its idle timeout `client_idle_ms`:
    /// every gap with the server closing on its timer, then (with `forced_race`) the gaps over
    /// the timeout with the server closing as the next request arrives. With the client's
    /// timeout below the server's, only the latter: the client drops its connection before any
    /// gap ends, so every call opens a new one and no timer race can be met (the forced rows
    /// show it, and feed the verdict), and the timer rows would only repeat them.
    pub fn plan(&self, client_idle_ms: u64) -> Vec<(ServerClose, u64)> {
        let timer_rows = client_idle_ms > self.server_idle_ms || !self.forced_race;
        let mut plan: Vec<(ServerClose, u64)> = self
            .gaps_ms()
            .into_iter()
            .filter(|_| timer_rows)
            .map(|gap| (ServerClose::Timer, gap))
            .collect();
        if self.forced_race {
            plan.extend(
                self.gaps_ms()
                    .into_iter()
                    .filter(|&gap| gap > self.server_idle_ms)
                    .map(|gap| (ServerClose::OnArrival, gap)),
            );
        }
        plan
    }
}

/// When mock-rates closes a connection idle past its timeout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerClose {
    /// When the time passes, as servers do: a call meets the race only when its request
    /// crosses the close on the wire, by chance.
    #[default]
    Timer,
    /// When the next request arrives on it, which is dropped unanswered: every call after a
    /// gap over the timeout on a kept connection meets the race (the race forced).
    OnArrival,
}

/// The calls of one client, with one client idle timeout, after one gap.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdleRow {
    pub client: ClientName,
    /// The client's idle timeout (`ClientSettings::idle_timeout`), in ms; what the adapter made
    /// of it may be coarser (libcurl keeps whole seconds).
    pub client_idle_ms: u64,
    pub server_idle_ms: u64,
    /// When the server closed an idle connection (rows before it was a dimension: the timer).
    #[serde(default)]
    pub server_close: ServerClose,
    /// The wait between an answer and the next call, in ms.
    pub gap_ms: u64,
    /// Calls made after the gap, each awaited and checked.
    pub calls: u64,
    pub ok: u64,
    /// Failed calls by the port's error kind, with the first message of each.
    pub errors: Vec<IdleError>,
    /// What mock-rates counted meanwhile (its admin reads taken out): connections accepted,
    /// connections it closed for idleness, and of those the ones a request arrived on as it
    /// closed them (dropped, never answered); `None` when they could not be read.
    pub connections: Option<u64>,
    pub idle_closes: Option<u64>,
    pub races: Option<u64>,
}

impl IdleRow {
    pub fn failed(&self) -> u64 {
        self.errors.iter().map(|error| error.count).sum()
    }

    /// Requests the server dropped as it closed, which the call still survived: the library
    /// sent them again on a new connection (a lower bound, when some calls failed for other
    /// reasons). `None` without the server's counts.
    pub fn resent(&self) -> Option<u64> {
        self.races.map(|races| races.saturating_sub(self.failed()))
    }
}

/// Calls that failed with one error kind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdleError {
    /// The port's error kind (`Connect`, `Timeout`, ...).
    pub kind: String,
    pub count: u64,
    /// The first such error's message.
    pub first: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_sit_under_at_and_over_the_server_timeout() {
        assert_eq!(IdleSettings::default().gaps_ms(), [135, 150, 165]);
    }

    #[test]
    fn the_race_is_forced_after_the_gaps_over_the_timeout_only() {
        use ServerClose::{OnArrival, Timer};
        let settings = IdleSettings::default();
        assert_eq!(
            settings.plan(settings.client_idle_above_ms),
            [(Timer, 135), (Timer, 150), (Timer, 165), (OnArrival, 165)]
        );
        // Below the server's timeout, the forced race only.
        assert_eq!(
            settings.plan(settings.client_idle_below_ms),
            [(OnArrival, 165)]
        );
        let settings = IdleSettings {
            forced_race: false,
            ..settings
        };
        assert_eq!(settings.plan(settings.client_idle_above_ms).len(), 3);
        // Without the forced race, the timer rows stay either way: they are all there is.
        assert_eq!(settings.plan(settings.client_idle_below_ms).len(), 3);
    }

    #[test]
    fn resent_requests_are_the_races_the_calls_survived() {
        let mut row = IdleRow {
            client: ClientName::Hyper,
            client_idle_ms: 4_000,
            server_idle_ms: 250,
            server_close: ServerClose::Timer,
            gap_ms: 250,
            calls: 12,
            ok: 10,
            errors: vec![IdleError {
                kind: "Connect".to_owned(),
                count: 2,
                first: "connection closed before message completed".to_owned(),
            }],
            connections: Some(8),
            idle_closes: Some(7),
            races: Some(5),
        };
        assert_eq!((row.failed(), row.resent()), (2, Some(3)));
        row.races = None;
        assert_eq!(row.resent(), None);
    }
}
