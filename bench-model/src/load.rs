//! The load suite's scenarios, settings and rows: the open-model runs, in rounds.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::{ClientName, NegotiatedTls, NotCounted, Protocol, Unchecked, size_name};

/// What a scenario sends. In results.json it is two fields: `scenario` ("POST /payments/hyper")
/// and `client` (null for health).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "ScenarioFields", try_from = "ScenarioFields")]
pub enum Scenario {
    /// `GET /health/live`: the framework alone, the baseline.
    Health,
    /// `POST /payments/{client}`: a payment converted with a rate fetched by that client.
    Payments(ClientName),
}

impl Scenario {
    pub fn path(self) -> String {
        match self {
            Scenario::Health => "/health/live".to_owned(),
            Scenario::Payments(client) => format!("/payments/{client}"),
        }
    }

    pub fn client(self) -> Option<ClientName> {
        match self {
            Scenario::Health => None,
            Scenario::Payments(client) => Some(client),
        }
    }

    /// The HTTP method, "GET" or "POST".
    pub fn method(self) -> &'static str {
        match self {
            Scenario::Health => "GET",
            Scenario::Payments(_) => "POST",
        }
    }
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.method(), self.path())
    }
}

/// A scenario as results.json writes it.
#[derive(Serialize, Deserialize)]
struct ScenarioFields {
    scenario: String,
    client: Option<ClientName>,
}

impl From<Scenario> for ScenarioFields {
    fn from(scenario: Scenario) -> Self {
        Self {
            scenario: scenario.to_string(),
            client: scenario.client(),
        }
    }
}

impl TryFrom<ScenarioFields> for Scenario {
    type Error = String;

    fn try_from(fields: ScenarioFields) -> Result<Self, String> {
        let scenario = fields.client.map_or(Scenario::Health, Scenario::Payments);
        if scenario.to_string() == fields.scenario {
            Ok(scenario)
        } else {
            Err(format!("unknown scenario {:?}", fields.scenario))
        }
    }
}

/// How the load suite runs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadSettings {
    /// Target requests per second of the open model.
    pub rps: u32,
    /// Measured time per scenario.
    pub duration_ms: u64,
    /// Unrecorded warm-up per scenario, at the same rate.
    pub warmup_ms: u64,
    /// Limit on each request.
    pub timeout_ms: u64,
    /// The payments scenarios again over http with a larger answer from the upstream, at a
    /// rate of their own; `None` when not run (`--load-body none`, and runs from before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub large_body: Option<LargeBody>,
}

/// The larger answer of the load suite's second set of payments, and the rate it is sent at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LargeBody {
    /// The upstream answer's size in bytes: mock-rates' `/size/N`, the same pairs with a
    /// history of points.
    pub bytes: u64,
    /// Payments per second: lower than the ordinary rate, as each answer costs far more.
    pub rps: u32,
}

impl LoadRow {
    /// `POST /payments/hyper`, `POST /payments/hyper over https`, and with a larger answer
    /// `POST /payments/hyper, 1 MiB answer`.
    pub fn label(&self) -> String {
        let label = self.protocol.qualify(self.scenario);
        match self.body_bytes {
            Some(bytes) => format!("{label}, {} answer", size_name(bytes)),
            None => label,
        }
    }

    /// How much the api's resident memory grew during the run, above where it started: the
    /// scenario's own memory, where the peak also holds what earlier scenarios left.
    pub fn api_rss_growth_kib(&self) -> Option<u64> {
        self.api_peak_rss_kib
            .zip(self.api_rss_start_kib)
            .map(|(peak, start)| peak.saturating_sub(start))
    }
}

impl LoadSettings {
    pub fn duration(&self) -> Duration {
        Duration::from_millis(self.duration_ms)
    }

    pub fn warmup(&self) -> Duration {
        Duration::from_millis(self.warmup_ms)
    }
}

/// One scenario's open-model run. Times in microseconds; `None` (JSON null) where a figure
/// cannot be computed (no successful request, or a reading unavailable).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadRow {
    /// `GET /health/live` or `POST /payments/<client>`, and the client of a payments scenario.
    #[serde(flatten)]
    pub scenario: Scenario,
    /// What the service's client spoke to mock-rates.
    #[serde(default)]
    pub protocol: Protocol,
    /// The upstream answer's size in bytes, when it was not the ordinary one (about 120 bytes
    /// for the pairs of a payment): see [`LoadSettings::large_body`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_bytes: Option<u64>,
    /// Over `https`, for payments: the TLS mock-rates counted from the warm-up on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<NegotiatedTls>,
    pub target_rps: u32,
    pub duration_s: f64,
    /// Requests on the timetable.
    pub scheduled: u64,
    /// Requests never sent because too many were in flight.
    pub skipped: u64,
    /// Requests sent more than 1 ms after they were due.
    pub sent_late: u64,
    /// The latest any request was sent after it was due.
    pub max_send_delay_us: f64,
    pub ok: u64,
    pub fail: u64,
    /// Successful responses per second over the run: its timetable, or until the last
    /// response if that came later.
    pub achieved_rps: f64,
    /// Latency figures, flattened into the row in results.json.
    #[serde(flatten)]
    pub latency: LatencySummary,
    /// Bytes of every response: status line, headers, body.
    pub bytes_received: u64,
    /// Responses by status code (failed ones included).
    pub status_codes: Vec<StatusCount>,
    pub failures: FailureCounts,
    /// CPU time (user + system) of the api process during the run; null for an external api.
    pub api_cpu_s: Option<f64>,
    /// Peak resident memory of the api process during the run, in KiB.
    pub api_peak_rss_kib: Option<u64>,
    /// Its resident memory when the run started (what the process's earlier scenarios left
    /// allocated is in the peak too), in KiB.
    #[serde(default)]
    pub api_rss_start_kib: Option<u64>,
    /// How long the api process stayed busy (over 10% of a CPU) after the run, in ms, before
    /// the next scenario started: work the run left behind (10 000: still busy at the limit);
    /// null for an external api.
    #[serde(default)]
    pub api_busy_after_ms: Option<u64>,
    /// Connections mock-rates accepted during the run (from the api's clients).
    pub mock_connections: Option<u64>,
    /// Over `https`: the TLS handshakes mock-rates counted during the run (one per connection
    /// expected: each handshake more is a connection the pool did not keep).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mock_tls_handshakes: Option<u64>,
    /// Over `https`, for payments: the most connections the service's pool may open
    /// (`rates.max_connections` per worker, times the workers); the handshakes from the
    /// warm-up on should stay within it, not grow with the requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool_bound: Option<u64>,
    /// Upstream calls mock-rates served during the run.
    pub upstream_calls: Option<u64>,
    /// Upstream calls per new connection; null without calls or without new connections.
    pub reuse_ratio: Option<f64>,
    /// The first failed call's error as the library (or the server) gave it: evidence, quoted
    /// as it came, not a reason the bench wrote (those are values: [`crate::reasons`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
    /// The run second by second, by due time (absent from results.json before it was kept);
    /// the rounds one after another.
    #[serde(default)]
    pub per_second: Vec<SecondPoint>,
    /// The run's rounds: the scenario's time is split into rounds, taken in turn with the
    /// other scenarios' (every scenario's round 1, then every scenario's round 2, ...), so
    /// that what a figure moves between rounds is its noise.
    #[serde(default)]
    pub rounds: Vec<LoadRound>,
    /// Why the row could not be checked (over TLS: what mock-rates counted did not show the
    /// TLS or HTTP version the row claims); not ranked then.
    #[serde(
        default,
        deserialize_with = "crate::reasons::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub unchecked: Option<Unchecked>,
    /// What of the row was not measured, and why: against a server the bench did not start
    /// (`--upstream-url`), what only mock-rates counts (the TLS and HTTP versions it
    /// negotiated, handshakes, connections, its CPU), and what was checked on the client's
    /// side instead. Those figures are absent, not replaced; the row's own are figures.
    #[serde(
        default,
        deserialize_with = "crate::reasons::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub not_measured: Option<NotCounted>,
}

/// One round of a scenario's open-model run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadRound {
    pub duration_s: f64,
    pub ok: u64,
    pub fail: u64,
    /// CPU time of the api process during the round; null for an external api.
    pub api_cpu_s: Option<f64>,
    /// 99th percentile from the due time, of the round's successful requests.
    pub p99_us: Option<f64>,
}

/// One second of an open-model run: the requests due in it (their intended send time, counted
/// from the first request's), however long they then took.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SecondPoint {
    /// Seconds from the run's start: this point covers `[second, second + 1)`.
    pub second: u32,
    /// How much of the second the run lasted: 1 but for a partial last second.
    pub span_s: f64,
    /// Requests due in the second and sent (skipped ones are not).
    pub sent: u64,
    pub ok: u64,
    pub fail: u64,
    /// The 99th percentile latency of its successful requests, from their due times.
    pub p99_us: Option<f64>,
}
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusCount {
    pub status: u16,
    pub count: u64,
}

/// Why a request failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// No connection could be made.
    Connect,
    /// No complete response within the request timeout.
    Timeout,
    /// The connection broke: reset, closed, or an incomplete response.
    Reset,
    /// A status other than 200.
    Status,
    /// A 200 whose body is not the expected one.
    Body,
}

/// Failed requests, by why.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureCounts {
    pub connect: u64,
    pub timeout: u64,
    pub reset: u64,
    pub status: u64,
    pub body: u64,
}

impl FailureCounts {
    pub fn add(&mut self, kind: FailureKind) {
        let count = match kind {
            FailureKind::Connect => &mut self.connect,
            FailureKind::Timeout => &mut self.timeout,
            FailureKind::Reset => &mut self.reset,
            FailureKind::Status => &mut self.status,
            FailureKind::Body => &mut self.body,
        };
        *count += 1;
    }

    pub fn merge(&mut self, other: FailureCounts) {
        self.connect += other.connect;
        self.timeout += other.timeout;
        self.reset += other.reset;
        self.status += other.status;
        self.body += other.body;
    }

    pub fn total(&self) -> u64 {
        self.connect + self.timeout + self.reset + self.status + self.body
    }
}

/// One point of a percentile curve.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    pub percentile: f64,
    pub corrected_us: f64,
    pub uncorrected_us: f64,
}

/// A run's latencies; `None` everywhere without a recorded request. Latency from the intended
/// send time (corrected for coordinated omission), successful requests only, in microseconds;
/// the `uncorrected_` figures run from the actual send time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatencySummary {
    pub min_us: Option<f64>,
    pub mean_us: Option<f64>,
    pub max_us: Option<f64>,
    pub stddev_us: Option<f64>,
    pub p50_us: Option<f64>,
    pub p75_us: Option<f64>,
    pub p95_us: Option<f64>,
    pub p99_us: Option<f64>,
    pub p999_us: Option<f64>,
    pub uncorrected_p50_us: Option<f64>,
    pub uncorrected_p99_us: Option<f64>,
    pub uncorrected_p999_us: Option<f64>,
    /// The percentile curve (50 to 100), corrected and uncorrected.
    #[serde(rename = "percentiles")]
    pub curve: Vec<CurvePoint>,
}
