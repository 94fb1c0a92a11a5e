//! The cost suite's rows: CPU instructions per call, counted, not timed.

use serde::{Deserialize, Serialize};

use crate::{ClientName, NegotiatedTls, Protocol, Unchecked};

/// One client over one protocol: two runs of its calls under callgrind, the difference
/// divided by the difference in calls, so that everything but the calls (start-up, building
/// the client, the first connection) cancels.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostRow {
    pub client: ClientName,
    pub protocol: Protocol,
    /// For `https`: what mock-rates counted of the TLS the runs negotiated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<NegotiatedTls>,
    /// The calls of the shorter and of the longer run.
    pub calls: (u32, u32),
    /// The instructions callgrind counted in each run, every thread of the process.
    pub instructions: (u64, u64),
    /// (longer - shorter) / (calls difference).
    pub instructions_per_call: f64,
    /// The same per-call figure from each pair of consecutive runs (the suite runs the client
    /// at `CostSettings::counts` calls): what it moved between them is its noise.
    #[serde(default)]
    pub round_instructions_per_call: Vec<f64>,
    /// Why the row could not be checked (TLS mock-rates did not count); not ranked then.
    #[serde(
        default,
        deserialize_with = "crate::reasons::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub unchecked: Option<Unchecked>,
    /// Rust heap allocations and bytes per call, from the same runs.
    pub allocs_per_call: f64,
    pub bytes_per_call: f64,
    /// `instructions_per_call` over hyper's over the same protocol.
    pub ratio: Option<f64>,
}

/// The cost suite's sizes, as recorded in results.json.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CostSettings {
    /// Calls in the shorter and in the longer run of each client.
    pub calls: (u32, u32),
    /// The service's instructions per payment (see [`ServiceCostRow`]); absent in runs made
    /// before it was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<ServiceCostSettings>,
}

/// How the cost suite counts the service's instructions per payment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServiceCostSettings {
    /// Payments each client serves per round, after the warm-up.
    pub payments: u32,
    /// Payments unanswered at once (a closed loop of this many connections).
    pub in_flight: u32,
    /// Rounds per client, the clients in a new random order each round.
    pub rounds: u32,
    /// Payments per client before its first round (its pool filled, every lazy start done).
    pub warmup: u32,
}

/// One client through the whole payment service: the service's process (`api`) run under
/// callgrind, its CPU instructions per payment counted across every thread of it (actix's
/// workers, the client's own threads, the blocking pool), payments arriving `in_flight` at a
/// time. Round by round, the clients in a random order each round, so that a change of the
/// machine's state during the suite falls on every client alike (instructions barely move with
/// it anyway).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServiceCostRow {
    pub client: ClientName,
    pub protocol: Protocol,
    /// Payments per round.
    pub payments: u32,
    pub in_flight: u32,
    /// The median of the rounds.
    pub instructions_per_payment: f64,
    /// Each round's figure, in the order the rounds ran.
    pub rounds: Vec<f64>,
    /// The client's place in each round's order (0 first), beside `rounds`.
    #[serde(default)]
    pub positions: Vec<u32>,
    /// Payments that did not answer 200 with the expected body, in every round together; a
    /// row with any is no figure.
    pub failed: u64,
    /// The same in the client's warm-up, which is not counted.
    #[serde(default)]
    pub warmup_failed: u64,
    /// The first failure's message (of the rounds, else of the warm-up), when there was one.
    /// Evidence, quoted as the library gave it, not a reason the bench wrote (those are
    /// values: [`crate::reasons`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_failure: Option<String>,
    /// `instructions_per_payment` over hyper's.
    pub ratio: Option<f64>,
}
