//! The WAN suite's settings and figures: per link profile, the link measured against what it
//! was configured to do, and per client and protocol the payments sent across it.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};

use crate::{ClientName, Protocol};

/// What the WAN suite sends, and across which profiles.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WanSettings {
    /// The link profiles, by name (zone, region, continent, lossy, partition, forgetful), in
    /// the order they are measured.
    pub profiles: Vec<String>,
    /// Payments per second of each client's stretch, sent on a timetable (open model).
    pub rate_rps: u32,
    /// Each stretch's length (ms): of a profile without an event, the steady payments; of the
    /// partition and forgetful profiles, the payments after the event begins.
    pub stretch_ms: u64,
    /// Payments in the concurrent batch each client sends once per profile.
    pub batch: u32,
    /// Round trips (TCP connects, and as many UDP echoes) the link's calibration times.
    pub round_trips: u32,
    /// Datagrams sent each way to measure the link's loss.
    pub datagrams: u32,
}

impl Default for WanSettings {
    fn default() -> Self {
        Self {
            // The runner names them (every profile of the `wan-link` crate unless told).
            profiles: Vec::new(),
            rate_rps: 20,
            stretch_ms: 3_000,
            batch: 70,
            round_trips: 30,
            datagrams: 10_000,
        }
    }
}

/// The WAN suite's figures.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WanResults {
    /// Each profile's link, measured before its payments.
    #[serde(default)]
    pub links: Vec<WanLink>,
    /// Per profile, client and protocol: the payments across the link.
    #[serde(default)]
    pub rows: Vec<WanRow>,
}

impl WanResults {
    pub fn is_empty(&self) -> bool {
        self.links.is_empty() && self.rows.is_empty()
    }
}

/// A profile's link measured against its configuration: the round trip by TCP connects and by
/// UDP echoes, the loss over numbered datagrams each way, and what the relay between the two
/// namespaces costs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WanLink {
    pub profile: String,
    /// The round trip the profile names (ms).
    pub configured_rtt_ms: f64,
    /// How far a measured round trip may be from it (ms): 5% of it or 0.1 ms, the larger.
    pub bound_ms: f64,
    /// What the relay and the two network stacks add on their own, measured through a 1 ms
    /// link just before and taken off this profile's delays (ms).
    pub excess_ms: f64,
    /// Medians of the TCP connects and of the UDP echoes through the link (ms).
    pub connect_rtt_ms: f64,
    pub echo_rtt_ms: f64,
    /// The loss configured each way (a share), and measured over `datagrams` each way.
    pub loss_configured: f64,
    pub loss_up: f64,
    pub loss_down: f64,
    pub datagrams: u32,
    /// The relay's CPU per packet it carried during the loss measurement (us).
    pub relay_cpu_us_per_packet: Option<f64>,
    /// The checks whose round trip (`connect_rtt_ms`, `echo_rtt_ms`) was off the configured one
    /// by more than `bound_ms`: the profile was refused and its payments not measured. Empty
    /// when it was honoured.
    #[serde(default, deserialize_with = "refusals")]
    pub refused: Vec<WanCheck>,
    /// Calibrations it took: a profile refused is measured once more (the machine's own noise,
    /// a hypervisor's steal, can move a 1 ms round trip past its 0.1 ms bound for a moment),
    /// and refused if it misses again; the figures are the last attempt's.
    #[serde(default = "one")]
    pub attempts: u32,
    /// The share of the machine's CPU time a hypervisor stole while the last attempt ran
    /// (/proc/stat), in percent: a refusal with much of it is the machine's, not the link's.
    /// `None` where not read (the suite's first runs, no /proc).
    #[serde(default)]
    pub steal_percent: Option<f64>,
}

fn one() -> u32 {
    1
}

impl WanLink {
    /// Whether the profile was refused, its payments not measured.
    pub fn is_refused(&self) -> bool {
        !self.refused.is_empty()
    }

    /// The median round trip `check` measured (ms).
    pub fn measured_ms(&self, check: WanCheck) -> f64 {
        match check {
            WanCheck::TcpConnect => self.connect_rtt_ms,
            WanCheck::UdpEcho => self.echo_rtt_ms,
        }
    }
}

/// A round trip the calibration measures through the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WanCheck {
    /// TCP connects: SYN to SYN-ACK.
    TcpConnect,
    /// UDP datagrams echoed from the upstream's namespace.
    UdpEcho,
}

impl WanCheck {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::TcpConnect => "TCP connect",
            Self::UdpEcho => "UDP echo",
        }
    }
}

/// `refused` as results.json holds it: the checks, or (the suite's first runs, still schema 3)
/// `null` or the sentence naming them, `"TCP connect: median 1.141 ms against 1.000 ms
/// configured, ..."`, two joined by `"; "`.
fn refusals<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<WanCheck>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Stored {
        Checks(Vec<WanCheck>),
        Sentence(String),
    }
    match Option::<Stored>::deserialize(deserializer)? {
        None => Ok(Vec::new()),
        Some(Stored::Checks(checks)) => Ok(checks),
        Some(Stored::Sentence(sentence)) => sentence
            .split("; ")
            .map(|part| {
                [WanCheck::TcpConnect, WanCheck::UdpEcho]
                    .into_iter()
                    .find(|check| part.starts_with(&format!("{}: ", check.as_str())))
                    .ok_or_else(|| {
                        serde::de::Error::custom(format!(
                            "a refusal no version of the bench wrote: {part:?}"
                        ))
                    })
            })
            .collect(),
    }
}

/// One client's payments across one profile's link, over one protocol, through
/// `POST /payments/{client}` of a service of their own in the service's namespace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WanRow {
    pub profile: String,
    pub client: ClientName,
    pub protocol: Protocol,
    /// The link's round trip as measured (TCP connect median, ms): what the times are divided
    /// by.
    pub rtt_ms: f64,
    /// The client's first payment, its pool empty (ms), and the median of the next five, on
    /// its pooled connection (ms); `None` when it failed.
    pub cold_ms: Option<f64>,
    pub warm_ms: Option<f64>,
    /// The stretch: payments sent on the timetable, answered 200 with the right body, and the
    /// others by why (`502`, `504`, `503`, or the generator's `timeout` / `reset` / `connect`
    /// / `body`).
    pub payments: u64,
    pub ok: u64,
    pub failures: BTreeMap<String, u64>,
    /// The first failure's message, as the service or the generator gave it.
    pub first_error: Option<String>,
    /// Of the stretch's answered payments, latency from each one's due time (ms).
    pub p50_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    pub max_ms: Option<f64>,
    /// The 99th percentile of every payment sent, a failed one at the time its failure came
    /// back (a 504 after the service's 2 s timeout): the figure that ranks a client whose
    /// payments failed too. The same as `p99_ms` when none failed; `None` in the suite's first
    /// runs, which did not record it.
    #[serde(default)]
    pub p99_every_ms: Option<f64>,
    /// The 99th percentile of each round of the stretch, on a profile without an event (its
    /// stretch is sent in rounds, the clients in turn), as `p99_every_ms` (the suite's first
    /// runs: of the answered payments): what the figure moves by between rounds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub round_p99_ms: Vec<f64>,
    /// New connections and TLS handshakes the upstream accepted during the stretch, per 1 000
    /// payments sent; `None` when not counted.
    pub connections_per_1000: Option<f64>,
    /// The same connections, round by round (as `round_p99_ms`): a count of a few per round,
    /// what it moves by between rounds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub round_connections_per_1000: Vec<f64>,
    pub handshakes_per_1000: Option<f64>,
    /// The concurrent batch: its wall time as the service measured it (ms), the payments in it
    /// that succeeded, and the connections the upstream accepted meanwhile.
    pub batch: Option<WanBatch>,
    /// After the profile's event (a partition, or flows a middlebox forgot), when it has one.
    pub recovery: Option<WanRecovery>,
}

impl WanRow {
    /// The cold payment less a warm one, in round trips of the link: what setting up a
    /// connection cost (TCP, TLS, HTTP/2's preface).
    pub fn set_up_round_trips(&self) -> Option<f64> {
        let extra = self.cold_ms? - self.warm_ms?;
        (self.rtt_ms > 0.0).then(|| extra / self.rtt_ms)
    }

    /// Payments of the stretch that failed.
    pub fn failed(&self) -> u64 {
        self.failures.values().sum()
    }
}

/// A batch of concurrent payments across the link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WanBatch {
    pub size: u32,
    pub succeeded: u32,
    /// The batch's wall time as the service measured it (ms); `None` when a payment of it
    /// failed.
    pub wall_ms: Option<f64>,
    /// Connections the upstream accepted while the batch ran; `None` when not counted.
    pub connections: Option<u64>,
    pub first_error: Option<String>,
}

/// What became of payments after the link's event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WanRecovery {
    pub event: WanEvent,
    pub event_ms: f64,
    /// Payments due from the event's start that failed.
    pub lost: u64,
    /// From the event's end (the partition healed; the stretch's start after a forgotten flow)
    /// to the first payment answered 200 that was sent after it (ms); `None` when none was.
    pub first_success_ms: Option<f64>,
    /// From the event's end to the last failed payment's answer (ms): how long the client kept
    /// failing; `None` when none failed after it.
    pub last_failure_ms: Option<f64>,
    /// Packets the link dropped as the middlebox's (sent on a forgotten flow) during the
    /// stretch: the client writing into a connection that is gone.
    pub packets_on_dead_flows: u64,
}

/// A profile's event, which the payments after it recover from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WanEvent {
    /// Every packet dropped for `event_ms` while the stretch runs.
    Partition,
    /// The client's pooled connections left idle until the middlebox forgot them (`event_ms`
    /// idle), then the stretch.
    Forgotten,
}

impl WanEvent {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Partition => "partition",
            Self::Forgotten => "forgotten",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(refused: &str) -> Result<WanLink, serde_json::Error> {
        serde_json::from_str(&format!(
            r#"{{"profile": "zone", "configured_rtt_ms": 1.0, "bound_ms": 0.1, "excess_ms": 0.4,
                "connect_rtt_ms": 1.141, "echo_rtt_ms": 2.03, "loss_configured": 0.0,
                "loss_up": 0.0, "loss_down": 0.0, "datagrams": 10000,
                "relay_cpu_us_per_packet": 38.0, "refused": {refused}, "attempts": 2}}"#
        ))
    }

    #[test]
    fn a_refusal_reads_as_its_checks_and_as_the_sentence_the_first_runs_wrote() {
        let both = "\"TCP connect: median 1.141 ms against 1.000 ms configured, 0.141 ms off \
                    (bound 0.100 ms); UDP echo: median 2.030 ms against 1.000 ms configured, \
                    1.030 ms off (bound 0.100 ms)\"";
        let checks = vec![WanCheck::TcpConnect, WanCheck::UdpEcho];
        assert_eq!(link(both).unwrap().refused, checks);
        assert_eq!(
            link(r#"["tcp_connect", "udp_echo"]"#).unwrap().refused,
            checks
        );
        assert!(!link("null").unwrap().is_refused());
        assert!(!link("[]").unwrap().is_refused());
        assert!(link("\"the link was down\"").is_err());
        let written = serde_json::to_string(&link(both).unwrap()).unwrap();
        assert!(
            written.contains(r#""refused":["tcp_connect","udp_echo"]"#),
            "{written}"
        );
        assert!((link(both).unwrap().measured_ms(WanCheck::UdpEcho) - 2.03).abs() < 1e-9);
    }

    #[test]
    fn an_event_is_written_as_the_first_runs_wrote_it() {
        assert_eq!(
            serde_json::to_string(&WanEvent::Forgotten).unwrap(),
            "\"forgotten\""
        );
        let read: WanEvent = serde_json::from_str("\"partition\"").unwrap();
        assert_eq!(read, WanEvent::Partition);
    }
}
