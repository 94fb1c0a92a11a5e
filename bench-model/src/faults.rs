//! The faults suite's cases, outcomes, settings and rows.

use std::fmt;

use application::RatesErrorKind;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::ClientName;

/// Clean payments per client after the fault storm's idle spell: enough to reach every api
/// worker (one per core) in turn, since each payment comes on a new connection.
pub const REUSE_PAYMENTS: u32 = 4;

/// The faults choices of one run, as recorded in results.json (`settings.faults`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultsSettings {
    /// The faults injected, in table order.
    pub faults: Vec<FaultCase>,
    /// The upstream timeout the suite's api child runs with; null: the service's own.
    pub timeout_ms: Option<u32>,
    /// Storm payments per client.
    pub storm_requests: u32,
}

/// The faults a run injects, as named on the command line.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    clap::ValueEnum,
    Serialize,
    Deserialize,
)]
pub enum FaultCase {
    /// No fault: the control.
    #[value(name = "none")]
    #[serde(rename = "none")]
    None,
    /// HTTP 500 with a small JSON body.
    #[value(name = "status-500")]
    #[serde(rename = "status_500")]
    Status500,
    /// HTTP 503 with `Retry-After: 1`.
    #[value(name = "status-503")]
    #[serde(rename = "status_503")]
    Status503,
    /// A TCP RST instead of an answer.
    #[value(name = "reset")]
    #[serde(rename = "reset")]
    Reset,
    /// Status line and headers, then close before the body.
    #[value(name = "eof")]
    #[serde(rename = "eof")]
    Eof,
    /// Half the declared body, then close.
    #[value(name = "truncated")]
    #[serde(rename = "truncated")]
    Truncated,
    /// 200 with a body that is not JSON.
    #[value(name = "malformed")]
    #[serde(rename = "malformed")]
    Malformed,
    /// 200 chunked, then one byte every 100 ms, forever.
    #[value(name = "drip")]
    #[serde(rename = "drip")]
    Drip,
    /// Reads the request and never answers.
    #[value(name = "hang")]
    #[serde(rename = "hang")]
    Hang,
    /// Answers correctly, after twice the service's timeout.
    #[value(name = "latency")]
    #[serde(rename = "latency")]
    Latency,
}

impl FaultCase {
    /// Every fault, in table order: the control first.
    pub const ALL: [FaultCase; 10] = [
        FaultCase::None,
        FaultCase::Status500,
        FaultCase::Status503,
        FaultCase::Reset,
        FaultCase::Eof,
        FaultCase::Truncated,
        FaultCase::Malformed,
        FaultCase::Drip,
        FaultCase::Hang,
        FaultCase::Latency,
    ];

    /// The name in results.json.
    pub fn as_str(self) -> &'static str {
        match self {
            FaultCase::None => "none",
            FaultCase::Status500 => "status_500",
            FaultCase::Status503 => "status_503",
            FaultCase::Reset => "reset",
            FaultCase::Eof => "eof",
            FaultCase::Truncated => "truncated",
            FaultCase::Malformed => "malformed",
            FaultCase::Drip => "drip",
            FaultCase::Hang => "hang",
            FaultCase::Latency => "latency",
        }
    }

    /// A short description for tables.
    pub fn description(self) -> &'static str {
        match self {
            FaultCase::None => "none (control)",
            FaultCase::Status500 => "status 500",
            FaultCase::Status503 => "status 503",
            FaultCase::Reset => "reset (RST)",
            FaultCase::Eof => "eof before body",
            FaultCase::Truncated => "truncated body",
            FaultCase::Malformed => "malformed JSON",
            FaultCase::Drip => "drip 1 B/100 ms",
            FaultCase::Hang => "hang",
            FaultCase::Latency => "latency 2x timeout",
        }
    }

    /// What the port must report: a converted payment for the control, else the error kind.
    pub fn expected(self) -> PaymentOutcome {
        match self {
            FaultCase::None => PaymentOutcome::Ok,
            FaultCase::Status500 | FaultCase::Status503 => {
                PaymentOutcome::Failed(RatesErrorKind::UpstreamStatus)
            }
            FaultCase::Reset | FaultCase::Eof | FaultCase::Truncated => {
                PaymentOutcome::Failed(RatesErrorKind::Connect)
            }
            FaultCase::Malformed => PaymentOutcome::Failed(RatesErrorKind::Malformed),
            FaultCase::Drip | FaultCase::Hang | FaultCase::Latency => {
                PaymentOutcome::Failed(RatesErrorKind::Timeout)
            }
        }
    }
}

impl fmt::Display for FaultCase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What one payment through the service came back as. Written in results.json as one word:
/// `ok`, the error kind (`timeout`, `connect`, ...), `hung`, `no_answer`, `bad_payment`, or the
/// unknown answer described.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PaymentOutcome {
    /// A converted payment.
    Ok,
    /// A problem whose `type` stands for this error kind of the port.
    Failed(RatesErrorKind),
    /// No answer within the service's timeout plus the bench's bound.
    Hung,
    /// The connection to the service failed.
    NoAnswer,
    /// A 200 whose body is not a converted payment.
    BadPayment,
    /// An answer the bench cannot classify, described (`status 500, type "..."`).
    Unknown(String),
}

impl PaymentOutcome {
    pub fn as_str(&self) -> &str {
        match self {
            PaymentOutcome::Ok => "ok",
            PaymentOutcome::Failed(kind) => kind.as_str(),
            PaymentOutcome::Hung => "hung",
            PaymentOutcome::NoAnswer => "no_answer",
            PaymentOutcome::BadPayment => "bad_payment",
            PaymentOutcome::Unknown(description) => description,
        }
    }

    fn parse(text: &str) -> Self {
        match text {
            "ok" => PaymentOutcome::Ok,
            "hung" => PaymentOutcome::Hung,
            "no_answer" => PaymentOutcome::NoAnswer,
            "bad_payment" => PaymentOutcome::BadPayment,
            other => RatesErrorKind::ALL
                .into_iter()
                .find(|kind| kind.as_str() == other)
                .map_or_else(
                    || PaymentOutcome::Unknown(other.to_owned()),
                    PaymentOutcome::Failed,
                ),
        }
    }
}

impl fmt::Display for PaymentOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for PaymentOutcome {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for PaymentOutcome {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Ok(PaymentOutcome::parse(&text))
    }
}

/// One cell of the matrix: one client under one fault.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FaultRow {
    pub client: ClientName,
    /// The fault in force.
    pub fault: FaultCase,
    /// `ok` for the control, else the error kind the fault must map to.
    pub expected_kind: PaymentOutcome,
    /// What the service reported.
    pub kind: PaymentOutcome,
    /// The status the service gives `expected_kind`.
    pub expected_status: u16,
    /// The service's status; null when it did not answer.
    pub status: Option<u16>,
    /// From sending the payment to the end of the answer (to the bound, when hung).
    pub elapsed_ms: f64,
    /// The service's upstream timeout (`settings.timeout_ms` from `GET /clients`).
    pub timeout_ms: u64,
    /// Whether this client's next payment, the fault removed, succeeded.
    pub next_ok: bool,
    pub hung: bool,
}

impl FaultRow {
    /// Whether the client came through the fault as it should: the expected kind and status,
    /// an answer, and its next payment, the fault removed, succeeded.
    pub fn as_expected(&self) -> bool {
        !self.hung
            && self.next_ok
            && self.kind == self.expected_kind
            && self.status == Some(self.expected_status)
    }
}

/// The service's open file descriptors around the fault storm (`/proc/<pid>/fd`); every count
/// is null for a service the bench did not start.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FdCheck {
    pub pid: Option<u32>,
    /// Before the matrix, on the freshly started service.
    pub before: Option<u64>,
    /// Right after the storm's last answer.
    pub after_storm: Option<u64>,
    /// After the idle spell (`idle_ms`).
    pub after_idle: Option<u64>,
    /// `after_idle - before`.
    pub difference: Option<i64>,
    /// Storm payments, all clients together.
    pub storm_requests: u64,
    /// Storm payments whose kind was not their fault's expected kind (hung ones included).
    pub storm_unexpected: u64,
    pub storm_hung: u64,
    /// The idle spell: until the count is back to `before`, at most the service's idle
    /// timeout + 1.5 s.
    pub idle_ms: u64,
    /// Of `after_idle`, the TCP sockets in CLOSE_WAIT: pooled connections the upstream has
    /// closed (its keep-alive ran out) and the client has not closed yet.
    pub close_wait_after_idle: Option<u64>,
    /// After a few clean payments per client, one client after another, which make the
    /// clients' pools look at the connections they hold.
    pub after_reuse: Option<u64>,
    pub close_wait_after_reuse: Option<u64>,
    /// Those clean payments that failed.
    pub reuse_failures: u64,
    /// Per client, the CLOSE_WAIT sockets its clean payments cleared: stale idle connections
    /// its pools kept after the idle spell and only dropped when used again.
    pub stale_by_client: Vec<StaleConnections>,
}

/// Stale idle connections one client's pools kept until its next payments.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StaleConnections {
    pub client: ClientName,
    pub dropped: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_are_one_word_in_results_json() {
        for outcome in [
            PaymentOutcome::Ok,
            PaymentOutcome::Failed(RatesErrorKind::UpstreamStatus),
            PaymentOutcome::Hung,
            PaymentOutcome::NoAnswer,
            PaymentOutcome::BadPayment,
            PaymentOutcome::Unknown("status 500, type \"x\"".to_owned()),
        ] {
            let json = serde_json::to_string(&outcome).unwrap();
            assert_eq!(json, serde_json::to_string(outcome.as_str()).unwrap());
            assert_eq!(
                serde_json::from_str::<PaymentOutcome>(&json).unwrap(),
                outcome
            );
        }
        assert_eq!(
            serde_json::to_string(&PaymentOutcome::Failed(RatesErrorKind::Timeout)).unwrap(),
            "\"timeout\""
        );
    }
}
