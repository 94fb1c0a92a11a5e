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

mod driver;
pub mod settings;
mod storm;

use std::time::{Duration, Instant};

use mock_rates::Faults as MockFaults;

use crate::clients::{ApiClient, FaultsGuard};
use crate::error::BenchError;
use crate::measure::process::read_fds;
use crate::servers::{ApiEndpoint, MockEndpoint};
use crate::suites::faults::driver::Driver;
use crate::suites::faults::settings::mock_faults;
use crate::suites::faults::storm::{at_once, reuse, storm, wait_for_idle};
use crate::suites::progress::progress_bar;
use crate::suites::shape::{Outcome, Suite, SuiteContext};
use bench_model::{ClientName, FaultRow, FdCheck, PaymentOutcome, Protocol, Run, SuiteName};
use bench_model::{NotRunWhy, Results, SuitePart};

/// How long past the service's timeout a request may take before the bench calls it hung.
const HANG_BOUND: Duration = Duration::from_secs(5);
/// Waited beyond the service's idle timeout for pooled connections to be gone.
const IDLE_MARGIN: Duration = Duration::from_millis(1500);

/// What the suite produced.
#[derive(Debug)]
pub struct FaultsOutcome {
    pub rows: Vec<FaultRow>,
    pub fd_check: FdCheck,
}
/// The faults suite (see the module's documentation).
#[derive(Debug)]
pub struct Faults;

impl Suite for Faults {
    const NAME: SuiteName = SuiteName::Faults;
    type Rows = FaultsOutcome;

    fn run(context: &SuiteContext<'_>) -> Result<Outcome<FaultsOutcome>, BenchError> {
        self::run(
            context.settings,
            context.mock(Self::NAME)?,
            context.api(Self::NAME)?,
        )
        .map(Outcome::Ran)
    }

    fn store(rows: FaultsOutcome, results: &mut Results) -> Vec<(SuitePart, NotRunWhy)> {
        results.faults = rows.rows;
        results.fd_check = Some(rows.fd_check);
        Vec::new()
    }
}

/// Runs the suite: against its own api child when `api` is the bench's child, else against
/// `api` itself (then without descriptor counts).
pub fn run(
    settings: &Run,
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
    let service = ServiceSettings::read(&ApiClient::fresh(api.base_url(), HANG_BOUND))?;
    // Faults are HTTP/1.1 byte-level faults of a mock in the clear: every client over http.
    let clients: Vec<(ClientName, u64)> = settings
        .plan()
        .clients(SuiteName::Faults, Protocol::Http)
        .into_iter()
        .map(|name| service.timeout_ms(name).map(|timeout| (name, timeout)))
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
    let admin = mock.admin();
    // Whatever happens below, later suites must find the mock without faults.
    let faults = FaultsGuard::set(&admin, &MockFaults::default())?;

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
        faults.change(&mock_faults(case, timeout_ms))?;
        let answers = at_once(&clients, |name| driver.pay(name), &bar);
        faults.change(&MockFaults::default())?;
        let next = at_once(&clients, |name| driver.pay(name), &bar);
        for ((&(name, timeout), answer), next) in clients.iter().zip(answers).zip(next) {
            let (expected_kind, expected_status) = driver::expected(case);
            rows.push(FaultRow {
                client: name,
                fault: case,
                expected_kind,
                kind: answer.outcome,
                expected_status,
                status: answer.status,
                elapsed_ms: answer.elapsed.as_secs_f64() * 1_000.0,
                timeout_ms: timeout,
                next_ok: next.outcome == PaymentOutcome::Ok,
                hung: answer.hung,
            });
        }
    }

    bar.set_message("storm");
    let storm = storm(
        &driver,
        &faults,
        &clients,
        cases,
        settings.faults.storm_requests,
        timeout_ms,
        &bar,
    )?;
    let after_storm = pid.and_then(read_fds).map(|reading| reading.open);
    faults.clear()?;
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
fn start_service(settings: &Run, mock: &MockEndpoint) -> Result<ApiEndpoint, BenchError> {
    let exe = crate::error::bench_executable()?;
    let timeout = settings.faults.timeout_ms.map(|ms| ms.to_string());
    let env: Vec<(&str, &str)> = timeout
        .iter()
        .map(|ms| ("APP__RATES__TIMEOUT_MS", ms.as_str()))
        .collect();
    Ok(ApiEndpoint::spawn_with_env(&exe, mock.base_url(), &env)?)
}

/// The service's settings the suite needs, from `GET /clients`.
struct ServiceSettings {
    timeouts: Vec<(String, u64)>,
    idle_timeout: Duration,
}

impl ServiceSettings {
    fn read(api: &ApiClient) -> Result<Self, BenchError> {
        let list = api.clients().map_err(BenchError::Faults)?;
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
                .map(|client| (client.name.into_owned(), client.settings.timeout_ms))
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
