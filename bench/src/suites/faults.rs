//! Suite `faults`: every mock-rates fault x every client, driven through the payment service.
//!
//! Each cell is one `POST /payments/{client}` of a EUR -> JPY payment (one upstream call for
//! EURUSD and USDJPY) while the fault is in force on mock-rates: the error kind the service
//! reports (read from its problem `type`), its status, the time to fail against the service's
//! upstream timeout, and whether the next payment with the fault removed succeeds. Then a fault
//! storm: payments from every client at once under rotating faults, with the service's open
//! file descriptors counted before the matrix, after the storm, after an idle spell long
//! enough for pooled connections to expire, and after a few clean payments per client (some
//! pools only drop the dead connections they hold when next used: the sockets in CLOSE_WAIT
//! that those payments clear are counted per client).
//!
//! The suite runs its own api child (unless the service is external), so that its descriptor
//! count starts clean and its timeout can be lowered (`--fault-timeout-ms`, and --quick).
//! Within one fault the clients run at the same time, one payment each, so a hang costs one
//! timeout per fault rather than one per client. Every request is bounded (timeout + 5 s); one
//! that reaches the bound is reported as hung, never waited for.

use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use api::problem::ApiError;
use application::{PaymentError, RatesError, RatesErrorKind};
use indicatif::ProgressBar;
use mock_rates::{FaultMode, Faults};
use serde::{Deserialize, Serialize};

use crate::BenchError;
use crate::api_process::ApiEndpoint;
use crate::cli::{Cli, RunSettings};
use crate::clients::ClientName;
use crate::mock_process::MockEndpoint;
use crate::suites::{SuiteName, progress_bar};

/// How long past the service's timeout a request may take before the bench calls it hung.
const HANG_BOUND: Duration = Duration::from_secs(5);
/// Storm payments in flight at once per client; more are queued behind them.
const STORM_CONCURRENCY: u32 = 25;
/// Waited beyond the service's idle timeout for pooled connections to be gone.
const IDLE_MARGIN: Duration = Duration::from_millis(1500);
/// How often the descriptor count is read while idle.
const IDLE_POLL: Duration = Duration::from_millis(250);
/// Clean payments per client after the idle spell: enough to reach every api worker (one per
/// core) in turn, since each payment comes on a new connection.
pub const REUSE_PAYMENTS: u32 = 4;
/// The payment every cell makes: a cross rate, so one upstream call for two pairs.
const PAYMENT: &str =
    r#"{"reference":"faults","amount":"100.00","currency":"EUR","target_currency":"JPY"}"#;

/// Storm payments per client. [default; --quick]
const STORM_REQUESTS: (u32, u32) = (200, 40);
/// The service's upstream timeout under --quick; a full run keeps the service's own (2000 ms).
const QUICK_TIMEOUT_MS: u32 = 500;

/// The suite's flags (flattened into [`Cli`]).
#[derive(Clone, Debug, Default, clap::Args)]
#[command(next_help_heading = "Faults suite")]
pub struct FaultsArgs {
    /// faults: the faults to inject, comma-separated, in table order. [default: all]
    #[arg(
        long = "faults",
        value_enum,
        value_delimiter = ',',
        value_name = "NAMES"
    )]
    pub faults: Vec<FaultCase>,

    /// faults: the payment service's upstream timeout (`rates.timeout_ms`) for the suite, in ms;
    /// the suite starts its own api child with it. Not applied to a service given by --api-url.
    /// [default: the service's own, 2000; --quick: 500]
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u32).range(1..=600_000))]
    pub fault_timeout_ms: Option<u32>,

    /// faults: payments per client in the fault storm around the file-descriptor check.
    /// [default: 200; --quick: 40]
    #[arg(long, value_name = "N")]
    pub storm_requests: Option<u32>,
}

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

impl FaultsSettings {
    pub fn from_cli(cli: &Cli) -> Self {
        let args = &cli.faults;
        let mut faults = Vec::with_capacity(FaultCase::ALL.len());
        for &case in &args.faults {
            if !faults.contains(&case) {
                faults.push(case);
            }
        }
        if faults.is_empty() {
            faults = FaultCase::ALL.to_vec();
        }
        let (storm, quick_storm) = STORM_REQUESTS;
        Self {
            faults,
            timeout_ms: args
                .fault_timeout_ms
                .or(cli.quick.then_some(QUICK_TIMEOUT_MS)),
            storm_requests: args.storm_requests.unwrap_or(if cli.quick {
                quick_storm
            } else {
                storm
            }),
        }
    }

    /// The header line.
    pub fn describe(&self) -> String {
        let faults: Vec<&str> = self.faults.iter().map(|case| case.as_str()).collect();
        let timeout = self.timeout_ms.map_or_else(
            || "the service's own (rates.timeout_ms)".to_owned(),
            |ms| format!("{ms} ms (its own api child)"),
        );
        format!(
            "faults: {} through POST /payments/{{client}}; upstream timeout {timeout}; storm of \
             {} payments per client under rotating faults, then the fd check",
            faults.join(", "),
            self.storm_requests
        )
    }
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

    /// The fault named `name` in results.json.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|case| case.as_str() == name)
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

    /// What mock-rates is set to, for a service whose upstream timeout is `timeout_ms`.
    pub fn faults(self, timeout_ms: u64) -> Faults {
        let mode = |mode| Faults {
            mode,
            ..Faults::default()
        };
        let status = |status| Faults {
            status,
            ..mode(FaultMode::Status)
        };
        match self {
            FaultCase::None => Faults::default(),
            FaultCase::Status500 => status(500),
            FaultCase::Status503 => status(503),
            FaultCase::Reset => mode(FaultMode::Reset),
            FaultCase::Eof => mode(FaultMode::Eof),
            FaultCase::Truncated => mode(FaultMode::Truncated),
            FaultCase::Malformed => mode(FaultMode::Malformed),
            FaultCase::Drip => mode(FaultMode::Drip),
            FaultCase::Hang => mode(FaultMode::Hang),
            FaultCase::Latency => Faults {
                latency_ms: timeout_ms.saturating_mul(2),
                ..Faults::default()
            },
        }
    }

    /// The error the port must report; `None` for success.
    pub fn expected_kind(self) -> Option<RatesErrorKind> {
        match self {
            FaultCase::None => None,
            FaultCase::Status500 | FaultCase::Status503 => Some(RatesErrorKind::UpstreamStatus),
            FaultCase::Reset | FaultCase::Eof | FaultCase::Truncated => {
                Some(RatesErrorKind::Connect)
            }
            FaultCase::Malformed => Some(RatesErrorKind::Malformed),
            FaultCase::Drip | FaultCase::Hang | FaultCase::Latency => Some(RatesErrorKind::Timeout),
        }
    }
}

/// `kind` of a payment that succeeded.
pub const KIND_OK: &str = "ok";
/// `kind` of a request that got no answer within the service's timeout + 5 s.
pub const KIND_HUNG: &str = "hung";
/// `kind` of a request whose connection to the service failed.
pub const KIND_NO_ANSWER: &str = "no_answer";
/// `kind` of a 200 whose body is not a converted payment.
pub const KIND_BAD_PAYMENT: &str = "bad_payment";

/// One cell of the matrix: one client under one fault.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FaultRow {
    pub client: String,
    /// The fault in force (`none`, `status_500`, `reset`, ...).
    pub fault: String,
    /// `ok` for the control, else the error kind the fault must map to (`timeout`, ...).
    pub expected_kind: String,
    /// What the service reported: `ok`; the error kind its problem `type` stands for; `hung`
    /// (no answer within the timeout + 5 s); `no_answer` (the connection to it failed);
    /// `bad_payment` (a 200 without a converted amount); or an unknown problem `type` as is.
    pub kind: String,
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
    pub client: String,
    pub dropped: u64,
}

/// What the suite produced.
#[derive(Debug)]
pub struct FaultsOutcome {
    pub rows: Vec<FaultRow>,
    pub fd_check: FdCheck,
}

/// Runs the suite: against its own api child when `api` is the bench's child, else against
/// `api` itself (then without descriptor counts).
pub fn run(
    settings: &RunSettings,
    mock: &MockEndpoint,
    api: &ApiEndpoint,
) -> Result<FaultsOutcome, BenchError> {
    let own_api = if api.pid().is_some() {
        Some(start_service(settings, mock)?)
    } else {
        None
    };
    let api = own_api.as_ref().unwrap_or(api);
    let cases = &settings.faults.faults;
    let service = ServiceSettings::read(api.base_url())?;
    let clients: Vec<(ClientName, u64)> = settings
        .clients
        .iter()
        .map(|&name| service.timeout_ms(name).map(|timeout| (name, timeout)))
        .collect::<Result<_, _>>()?;
    let timeout_ms = clients
        .iter()
        .map(|&(_, timeout)| timeout)
        .max()
        .unwrap_or(0);
    let driver = Driver::new(
        api.base_url(),
        Duration::from_millis(timeout_ms) + HANG_BOUND,
    );
    // Whatever happens below, later suites must find the mock without faults.
    let _clear = ClearFaultsOnDrop(mock);

    let clients_count = clients.len() as u64;
    let bar = progress_bar(
        SuiteName::Faults,
        clients_count * (2 * cases.len() as u64 + u64::from(settings.faults.storm_requests)),
    );
    let pid = api.pid();
    let before = pid.and_then(read_fds).map(|reading| reading.open);

    let mut rows = Vec::with_capacity(cases.len() * clients.len());
    for &case in cases {
        bar.set_message(case.description());
        mock.set_faults(&case.faults(timeout_ms))?;
        let answers = at_once(&clients, |name| driver.pay(name), &bar);
        mock.set_faults(&Faults::default())?;
        let next = at_once(&clients, |name| driver.pay(name), &bar);
        for ((&(name, timeout), answer), next) in clients.iter().zip(answers).zip(next) {
            let (expected_kind, expected_status) = driver.answers.expected(case);
            rows.push(FaultRow {
                client: name.as_str().to_owned(),
                fault: case.as_str().to_owned(),
                expected_kind: expected_kind.to_owned(),
                kind: answer.kind,
                expected_status,
                status: answer.status,
                elapsed_ms: answer.elapsed.as_secs_f64() * 1_000.0,
                timeout_ms: timeout,
                next_ok: next.kind == KIND_OK,
                hung: answer.hung,
            });
        }
    }

    bar.set_message("storm");
    let storm = storm(
        &driver,
        mock,
        &clients,
        cases,
        settings.faults.storm_requests,
        timeout_ms,
        &bar,
    )?;
    let after_storm = pid.and_then(read_fds).map(|reading| reading.open);
    mock.set_faults(&Faults::default())?;
    bar.set_message("idle");
    let idle_started = Instant::now();
    let after_idle = match (pid, before) {
        (Some(pid), Some(before)) => wait_for_idle(pid, before, service.idle_timeout + IDLE_MARGIN),
        _ => None,
    };
    let idle_ms = u64::try_from(idle_started.elapsed().as_millis()).unwrap_or(u64::MAX);
    bar.set_message("reuse");
    let reuse = reuse(&driver, &clients, pid);
    bar.finish_and_clear();

    Ok(FaultsOutcome {
        rows,
        fd_check: FdCheck {
            pid,
            before,
            after_storm,
            after_idle: after_idle.map(|reading| reading.open),
            difference: before
                .zip(after_idle)
                .map(|(before, after)| after.open.cast_signed() - before.cast_signed()),
            storm_requests: storm.requests,
            storm_unexpected: storm.unexpected,
            storm_hung: storm.hung,
            idle_ms,
            close_wait_after_idle: after_idle.map(|reading| reading.close_wait),
            after_reuse: reuse.after.map(|reading| reading.open),
            close_wait_after_reuse: reuse.after.map(|reading| reading.close_wait),
            reuse_failures: reuse.failures,
            stale_by_client: reuse.stale_by_client,
        },
    })
}

/// An api child of the suite's own, with `--fault-timeout-ms` as its upstream timeout.
fn start_service(settings: &RunSettings, mock: &MockEndpoint) -> Result<ApiEndpoint, BenchError> {
    let exe = std::env::current_exe()
        .map_err(|source| BenchError::io(Path::new("the bench executable"), source))?;
    let timeout = settings.faults.timeout_ms.map(|ms| ms.to_string());
    let env: Vec<(&str, &str)> = timeout
        .iter()
        .map(|ms| ("APP__RATES__TIMEOUT_MS", ms.as_str()))
        .collect();
    Ok(ApiEndpoint::spawn_with_env(&exe, mock.base_url(), &env)?)
}

/// Runs `pay` for every client at the same time, one thread each; answers in client order.
fn at_once(
    clients: &[(ClientName, u64)],
    pay: impl Fn(ClientName) -> Answer + Sync,
    bar: &ProgressBar,
) -> Vec<Answer> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = clients
            .iter()
            .map(|&(name, _)| {
                let pay = &pay;
                scope.spawn(move || {
                    let answer = pay(name);
                    bar.inc(1);
                    answer
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// The storm's tally.
#[derive(Debug, Default)]
struct StormTally {
    requests: u64,
    unexpected: u64,
    hung: u64,
}

/// `per_client` payments from every client, spread over the faults in turn (one round per
/// fault, a round's payments all in flight at once, up to [`STORM_CONCURRENCY`] per client).
/// The clean round, if any, comes last: it leaves the api's pools full of idle connections,
/// which the idle spell after the storm must see closed.
fn storm(
    driver: &Driver,
    mock: &MockEndpoint,
    clients: &[(ClientName, u64)],
    cases: &[FaultCase],
    per_client: u32,
    timeout_ms: u64,
    bar: &ProgressBar,
) -> Result<StormTally, BenchError> {
    let rounds = u32::try_from(cases.len()).unwrap_or(u32::MAX).max(1);
    let requests = AtomicU64::new(0);
    let unexpected = AtomicU64::new(0);
    let hung = AtomicU64::new(0);
    let order = cases
        .iter()
        .filter(|&&case| case != FaultCase::None)
        .chain(cases.iter().filter(|&&case| case == FaultCase::None));
    for (round, &case) in (0..rounds).zip(order) {
        let in_round = per_client / rounds + u32::from(round < per_client % rounds);
        if in_round == 0 {
            continue;
        }
        mock.set_faults(&case.faults(timeout_ms))?;
        let (expected, _) = driver.answers.expected(case);
        // Payments each client has yet to start in this round.
        let left: Vec<AtomicU32> = clients.iter().map(|_| AtomicU32::new(in_round)).collect();
        std::thread::scope(|scope| {
            for (&(name, _), left) in clients.iter().zip(&left) {
                for _ in 0..in_round.min(STORM_CONCURRENCY) {
                    let (requests, unexpected, hung) = (&requests, &unexpected, &hung);
                    scope.spawn(move || {
                        while left
                            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                                n.checked_sub(1)
                            })
                            .is_ok()
                        {
                            let answer = driver.pay(name);
                            requests.fetch_add(1, Ordering::Relaxed);
                            if answer.kind != expected {
                                unexpected.fetch_add(1, Ordering::Relaxed);
                            }
                            if answer.hung {
                                hung.fetch_add(1, Ordering::Relaxed);
                            }
                            bar.inc(1);
                        }
                    });
                }
            }
        });
    }
    Ok(StormTally {
        requests: requests.into_inner(),
        unexpected: unexpected.into_inner(),
        hung: hung.into_inner(),
    })
}

/// Reads the descriptors until their count is back to `before` or `limit` has passed; the
/// last reading.
fn wait_for_idle(pid: u32, before: u64, limit: Duration) -> Option<FdReading> {
    let deadline = Instant::now() + limit;
    loop {
        let reading = read_fds(pid)?;
        if reading.open <= before || Instant::now() >= deadline {
            return Some(reading);
        }
        std::thread::sleep(IDLE_POLL);
    }
}

/// What the clean payments after the idle spell showed.
#[derive(Debug, Default)]
struct Reuse {
    after: Option<FdReading>,
    failures: u64,
    stale_by_client: Vec<StaleConnections>,
}

/// [`REUSE_PAYMENTS`] clean payments per client, one client after another, with the CLOSE_WAIT
/// sockets counted around each client's: those its payments cleared were its pools' stale.
fn reuse(driver: &Driver, clients: &[(ClientName, u64)], pid: Option<u32>) -> Reuse {
    let mut reuse = Reuse::default();
    let mut last = pid.and_then(read_fds);
    for &(name, _) in clients {
        for _ in 0..REUSE_PAYMENTS {
            if driver.pay(name).kind != KIND_OK {
                reuse.failures += 1;
            }
        }
        let now = pid.and_then(read_fds);
        if let (Some(last), Some(now)) = (last, now) {
            reuse.stale_by_client.push(StaleConnections {
                client: name.as_str().to_owned(),
                dropped: last.close_wait.saturating_sub(now.close_wait),
            });
        }
        last = now;
    }
    reuse.after = last;
    reuse
}

/// A process's open descriptors, and how many of them are TCP sockets in CLOSE_WAIT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FdReading {
    pub open: u64,
    pub close_wait: u64,
}

/// TCP state CLOSE_WAIT as `/proc/net/tcp` writes it.
const TCP_CLOSE_WAIT: &str = "08";

/// Reads `/proc/<pid>/fd` and the process's TCP tables (Linux); `None` where there is no
/// `/proc` or the process is gone.
pub fn read_fds(pid: u32) -> Option<FdReading> {
    let mut open = 0;
    let mut sockets = HashSet::new();
    for entry in std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.flatten() {
        open += 1;
        // A descriptor closed since the listing has no link any more: counted, not a socket.
        if let Ok(target) = std::fs::read_link(entry.path())
            && let Some(inode) = target
                .to_str()
                .and_then(|target| target.strip_prefix("socket:["))
                .and_then(|target| target.strip_suffix(']'))
        {
            sockets.insert(inode.to_owned());
        }
    }
    let mut close_wait = 0;
    for table in ["tcp", "tcp6"] {
        let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/net/{table}")) else {
            continue;
        };
        // Columns: sl local rem st tx:rx tr:when retrnsmt uid timeout inode ...
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.get(3) == Some(&TCP_CLOSE_WAIT)
                && fields.get(9).is_some_and(|inode| sockets.contains(*inode))
            {
                close_wait += 1;
            }
        }
    }
    Some(FdReading { open, close_wait })
}

/// Sets mock-rates back to no fault when dropped (errors ignored: the run is ending anyway).
struct ClearFaultsOnDrop<'a>(&'a MockEndpoint);

impl Drop for ClearFaultsOnDrop<'_> {
    fn drop(&mut self) {
        let _ = self.0.set_faults(&Faults::default());
    }
}

/// The service's settings the suite needs, from `GET /clients`.
struct ServiceSettings {
    timeouts: Vec<(String, u64)>,
    idle_timeout: Duration,
}

#[derive(Deserialize)]
struct ClientList {
    clients: Vec<ClientEntry>,
}

#[derive(Deserialize)]
struct ClientEntry {
    name: String,
    settings: ClientEntrySettings,
}

#[derive(Deserialize)]
struct ClientEntrySettings {
    timeout_ms: u64,
    idle_timeout_ms: u64,
}

impl ServiceSettings {
    fn read(base_url: &str) -> Result<Self, BenchError> {
        let url = format!("{base_url}/clients");
        let failed = |why: String| BenchError::Faults(format!("GET {url}: {why}"));
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(HANG_BOUND))
            .max_idle_connections(0)
            .proxy(None)
            .build()
            .into();
        let body = agent
            .get(&url)
            .header("connection", "close")
            .call()
            .map_err(|error| failed(error.to_string()))?
            .body_mut()
            .read_to_vec()
            .map_err(|error| failed(error.to_string()))?;
        let list: ClientList = serde_json::from_slice(&body)
            .map_err(|error| failed(format!("unexpected body: {error}")))?;
        let idle_timeout_ms = list
            .clients
            .iter()
            .map(|client| client.settings.idle_timeout_ms)
            .max()
            .unwrap_or(0);
        Ok(Self {
            timeouts: list
                .clients
                .into_iter()
                .map(|client| (client.name, client.settings.timeout_ms))
                .collect(),
            idle_timeout: Duration::from_millis(idle_timeout_ms),
        })
    }

    fn timeout_ms(&self, client: ClientName) -> Result<u64, BenchError> {
        self.timeouts
            .iter()
            .find(|(name, _)| name == client.as_str())
            .map(|&(_, timeout)| timeout)
            .ok_or_else(|| BenchError::Faults(format!("the service has no client named {client}")))
    }
}

/// The service's answer to one payment, as the matrix reads it.
#[derive(Debug)]
struct Answer {
    kind: String,
    status: Option<u16>,
    elapsed: Duration,
    hung: bool,
}

/// The problem `type` and status the service gives each error kind, taken from the service's
/// own error type so that the two cannot drift apart.
#[derive(Debug)]
struct ServiceAnswers {
    by_kind: Vec<(RatesErrorKind, String, u16)>,
}

impl ServiceAnswers {
    fn new() -> Self {
        let by_kind = RatesErrorKind::ALL
            .into_iter()
            .map(|kind| {
                let error = match kind {
                    RatesErrorKind::Timeout => RatesError::Timeout(String::new()),
                    RatesErrorKind::Connect => RatesError::Connect(String::new()),
                    RatesErrorKind::UpstreamStatus => RatesError::UpstreamStatus(500),
                    RatesErrorKind::Malformed => RatesError::Malformed(String::new()),
                    RatesErrorKind::UnsupportedPair => RatesError::UnsupportedPair(String::new()),
                    RatesErrorKind::Unavailable => RatesError::Unavailable(String::new()),
                };
                let problem = ApiError::from(PaymentError::Rates(error)).problem();
                (kind, problem.problem_type, problem.status)
            })
            .collect();
        Self { by_kind }
    }

    /// The kind and status `case` must come back with.
    fn expected(&self, case: FaultCase) -> (&'static str, u16) {
        match case.expected_kind() {
            None => (KIND_OK, 200),
            Some(kind) => (
                kind.as_str(),
                self.by_kind
                    .iter()
                    .find(|(known, _, _)| *known == kind)
                    .map_or(0, |&(_, _, status)| status),
            ),
        }
    }

    /// The kind an answer stands for.
    fn classify(&self, status: u16, body: &[u8]) -> String {
        let json: Option<serde_json::Value> = serde_json::from_slice(body).ok();
        if status == 200 {
            let converted = json
                .as_ref()
                .and_then(|json| json.get("converted_amount"))
                .is_some_and(serde_json::Value::is_string);
            return if converted { KIND_OK } else { KIND_BAD_PAYMENT }.to_owned();
        }
        let problem_type = json
            .as_ref()
            .and_then(|json| json.get("type"))
            .and_then(serde_json::Value::as_str)
            .unwrap_or("");
        self.by_kind
            .iter()
            .find(|(_, known, _)| known == problem_type)
            .map_or_else(
                || format!("status {status}, type {problem_type:?}"),
                |(kind, _, _)| kind.as_str().to_owned(),
            )
    }
}

/// Makes payments through the service, each bounded in time, on fresh connections (so that
/// the service's descriptor count holds no connection of the bench's).
#[derive(Debug)]
struct Driver {
    base_url: String,
    agent: ureq::Agent,
    bound: Duration,
    answers: ServiceAnswers,
}

impl Driver {
    fn new(base_url: &str, bound: Duration) -> Self {
        Self {
            base_url: base_url.to_owned(),
            agent: ureq::Agent::config_builder()
                .timeout_global(Some(bound))
                .max_idle_connections(0)
                .proxy(None)
                .http_status_as_error(false)
                .build()
                .into(),
            bound,
            answers: ServiceAnswers::new(),
        }
    }

    fn pay(&self, client: ClientName) -> Answer {
        let url = format!("{}/payments/{client}", self.base_url);
        let started = Instant::now();
        let result = self
            .agent
            .post(&url)
            .header("content-type", "application/json")
            .header("connection", "close")
            .send(PAYMENT.as_bytes())
            .and_then(|mut response| {
                let status = response.status().as_u16();
                response.body_mut().read_to_vec().map(|body| (status, body))
            });
        let elapsed = started.elapsed();
        match result {
            Ok((status, body)) => Answer {
                kind: self.answers.classify(status, &body),
                status: Some(status),
                elapsed,
                hung: false,
            },
            Err(ureq::Error::Timeout(_)) => Answer {
                kind: KIND_HUNG.to_owned(),
                status: None,
                elapsed: elapsed.max(self.bound),
                hung: true,
            },
            Err(_) => Answer {
                kind: KIND_NO_ANSWER.to_owned(),
                status: None,
                elapsed,
                hung: false,
            },
        }
    }
}
