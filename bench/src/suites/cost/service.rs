//! The cost suite's second part: what one payment costs the whole service, counted, not timed.
//!
//! The payment service (the bench's own `__api` child, as the other suites run it) runs under
//! callgrind, its upstream the suite's mock-rates on the bench's threads (whose work is not
//! counted). Each client first serves a warm-up of payments (its pool filled, every lazy start
//! done); then, round after round, the clients in a new random order each round, the bench
//! zeroes callgrind's counters, sends the client's payments `in_flight` at a time through
//! `POST /payments/{client}` (every answer read whole and checked), and has callgrind dump
//! what it counted: every instruction of every thread of the service (actix's workers, the
//! client's own threads, the blocking pool) between the two, divided by the payments. The
//! figure covers what a payment costs the service in the client and around it (actix's HTTP,
//! JSON, the service's own work, the same for every client); a round's figure barely moves
//! with the machine's state, where a time per payment moves by tens of percent.
//!
//! callgrind is driven through `vgdb` (valgrind's gdbserver client, which ships with it), the
//! way `callgrind_control` does it.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tempfile::TempDir;

use crate::error::BenchError;
use crate::process::{self, Cmd, Found, Tool, scratch};
use crate::servers::child::Wrapper;
use crate::servers::{ApiEndpoint, MockEndpoint};
use crate::suites::load::http::{self as generator, LoadClient, ReadyScenario};
use crate::suites::progress::progress_bar;
use crate::suites::shuffle::Shuffle;
use bench_model::stats::quantile::median_of;
use bench_model::{
    ClientName, Protocol, Run, Scenario, ServiceCostRow, ServiceCostSettings, SuiteName,
};

/// How long the service may take to start under callgrind: every worker builds every client
/// of the catalogue, tens of times slower than natively.
const START_LIMIT: Duration = Duration::from_secs(300);

/// The service's upstream timeouts under callgrind (`rates.timeout_ms`,
/// `rates.connect_timeout_ms`): only a guard against a hang; time is not what is measured.
const UPSTREAM_LIMIT_MS: &str = "60000";

/// The generator's limit on one payment: the first payments through a service just started
/// under callgrind, its code translated as it first runs, take seconds.
const PAYMENT_LIMIT: Duration = Duration::from_secs(60);

/// How long a dump may take to appear once asked for.
const DUMP_LIMIT: Duration = Duration::from_secs(60);

/// Runs the part over http, when the settings ask for it; see the module's documentation.
///
/// # Errors
/// The service does not start under callgrind, or callgrind does not answer.
pub fn run(settings: &Run, mock: &MockEndpoint) -> Result<Vec<ServiceCostRow>, BenchError> {
    let Some(sizes) = settings.cost.service else {
        return Ok(Vec::new());
    };
    let clients = settings.plan().clients(SuiteName::Cost, Protocol::Http);
    if clients.is_empty() || sizes.payments == 0 || sizes.rounds == 0 {
        return Ok(Vec::new());
    }
    let own_mock = mock
        .is_child()
        .then(|| super::hosted_mock(Protocol::Http))
        .transpose()?;
    let mock = own_mock.as_ref().unwrap_or(mock);
    let exe = crate::error::bench_executable()?;
    let bar = progress_bar(
        SuiteName::Cost,
        u64::from(sizes.rounds) * clients.len() as u64 + 1,
    );
    bar.set_message("the service under callgrind: starting");
    let dumps = Dumps::new()?;
    let service = dumps.start_service(&exe, mock.base_url())?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| BenchError::io(Path::new("the cost suite's runtime"), source))?;
    let generator = runtime.block_on(async { generator::client() });
    let targets = clients
        .iter()
        .map(|&client| ReadyScenario::new(service.api.base_url(), Scenario::Payments(client)))
        .collect::<Result<Vec<_>, _>>()?;
    let targets: Vec<Arc<ReadyScenario>> = targets.into_iter().map(Arc::new).collect();
    let mut measured: Vec<Measured> = clients.iter().map(|_| Measured::default()).collect();
    for (target, measured) in targets.iter().zip(&mut measured) {
        bar.set_message(format!("{} warm-up", target.scenario));
        let sent = runtime.block_on(payments(&generator, target, sizes.warmup, sizes.in_flight));
        measured.warmup_failed += sent.failed;
        measured.warmup_failure = sent.first_failure;
    }
    bar.inc(1);
    let mut order: Vec<usize> = (0..clients.len()).collect();
    let mut shuffle = Shuffle::seeded();
    for round in 0..sizes.rounds {
        shuffle.shuffle(&mut order);
        for (position, &index) in order.iter().enumerate() {
            let target = &targets[index];
            bar.set_message(format!(
                "{}, round {} of {}",
                target.scenario,
                round + 1,
                sizes.rounds
            ));
            service.zero()?;
            let sent = runtime.block_on(payments(
                &generator,
                target,
                sizes.payments,
                sizes.in_flight,
            ));
            let instructions = service.dump()?;
            let measured = &mut measured[index];
            measured
                .rounds
                .push(instructions as f64 / f64::from(sizes.payments));
            measured.positions.push(position as u32);
            measured.add_failures(sent);
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    Ok(rows(&clients, measured, sizes))
}

/// One client's rounds so far.
#[derive(Debug, Default)]
struct Measured {
    rounds: Vec<f64>,
    positions: Vec<u32>,
    failed: u64,
    first_failure: Option<String>,
    warmup_failed: u64,
    warmup_failure: Option<String>,
}

impl Measured {
    fn add_failures(&mut self, sent: Sent) {
        self.failed += sent.failed;
        if self.first_failure.is_none() {
            self.first_failure = sent.first_failure;
        }
    }
}

/// The rows, each with its median and its ratio to hyper's.
fn rows(
    clients: &[ClientName],
    measured: Vec<Measured>,
    sizes: ServiceCostSettings,
) -> Vec<ServiceCostRow> {
    let mut rows: Vec<ServiceCostRow> = clients
        .iter()
        .zip(measured)
        .map(|(&client, measured)| ServiceCostRow {
            client,
            protocol: Protocol::Http,
            payments: sizes.payments,
            in_flight: sizes.in_flight,
            instructions_per_payment: median_of(&measured.rounds).unwrap_or(0.0),
            rounds: measured.rounds,
            positions: measured.positions,
            failed: measured.failed,
            warmup_failed: measured.warmup_failed,
            first_failure: measured.first_failure.or(measured.warmup_failure),
            ratio: None,
        })
        .collect();
    let baseline = rows
        .iter()
        .find(|row| row.client == ClientName::BASELINE && row.failed == 0)
        .map(|row| row.instructions_per_payment)
        .filter(|&baseline| baseline > 0.0);
    for row in &mut rows {
        row.ratio = baseline.map(|baseline| row.instructions_per_payment / baseline);
    }
    rows
}

/// What one batch of payments came back as.
#[derive(Debug, Default)]
struct Sent {
    failed: u64,
    first_failure: Option<String>,
}

/// `count` payments of `target`, `in_flight` unanswered at once (each of `in_flight` tasks
/// sends its next one when its last is answered), every answer read whole and checked.
async fn payments(
    client: &LoadClient,
    target: &Arc<ReadyScenario>,
    count: u32,
    in_flight: u32,
) -> Sent {
    let next = Arc::new(AtomicU64::new(0));
    let count = u64::from(count);
    let tasks: Vec<_> = (0..in_flight.max(1))
        .map(|_| {
            let client = client.clone();
            let target = Arc::clone(target);
            let next = Arc::clone(&next);
            tokio::spawn(async move {
                let mut sent = Sent::default();
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= count {
                        return sent;
                    }
                    let exchange =
                        generator::exchange_within(&client, &target, index, PAYMENT_LIMIT).await;
                    if let Some((kind, message)) = exchange.failure {
                        sent.failed += 1;
                        sent.first_failure.get_or_insert_with(|| {
                            format!("{kind:?} (status {:?}): {message}", exchange.status)
                        });
                    }
                }
            })
        })
        .collect();
    let mut sent = Sent::default();
    for task in tasks {
        match task.await {
            Ok(part) => {
                sent.failed += part.failed;
                if sent.first_failure.is_none() {
                    sent.first_failure = part.first_failure;
                }
            }
            Err(error) => {
                sent.failed += 1;
                sent.first_failure
                    .get_or_insert_with(|| format!("a sender task failed: {error}"));
            }
        }
    }
    sent
}

/// The directory callgrind writes its dumps into, removed with what is in it when dropped;
/// and the valgrind that writes them, with its vgdb.
#[derive(Debug)]
struct Dumps {
    dir: TempDir,
    valgrind: Found,
    vgdb: Found,
}

impl Dumps {
    fn new() -> Result<Self, BenchError> {
        let found =
            |tool| process::tool(tool).map_err(|missing| BenchError::Cost(missing.to_string()));
        let dir = scratch::temp_dir("service-callgrind")
            .map_err(|source| BenchError::io(&std::env::temp_dir(), source))?;
        Ok(Self {
            dir,
            valgrind: found(Tool::Valgrind)?,
            vgdb: found(Tool::Vgdb)?,
        })
    }

    /// The service under callgrind, its counters running from the start (the start-up is
    /// zeroed away before each round).
    fn start_service<'d>(&'d self, exe: &Path, rates_url: &str) -> Result<Service<'d>, BenchError> {
        let command =
            super::under_callgrind(&self.valgrind, &self.dir.path().join("callgrind.out"))
                // Its banner and per-dump lines would go to the bench's stderr: errors only.
                .arg("--quiet")
                .arg("--vgdb=yes")
                .arg(self.vgdb_prefix());
        let wrapper = Wrapper {
            command,
            start_timeout: START_LIMIT,
        };
        let api = ApiEndpoint::spawn_wrapped(
            Some(&wrapper),
            exe,
            rates_url,
            &[
                ("APP__RATES__TIMEOUT_MS", UPSTREAM_LIMIT_MS),
                ("APP__RATES__CONNECT_TIMEOUT_MS", UPSTREAM_LIMIT_MS),
            ],
        )
        .map_err(|error| BenchError::Cost(format!("the service under callgrind: {error}")))?;
        let pid = api
            .pid()
            .ok_or_else(|| BenchError::Cost("the service under callgrind has no pid".to_owned()))?;
        Ok(Service {
            api,
            pid,
            dumps: self,
        })
    }

    /// `--vgdb-prefix=...`, for valgrind and vgdb alike: their FIFOs in this directory, so
    /// that they go with it (a service killed at the end leaves them behind).
    fn vgdb_prefix(&self) -> OsString {
        OsString::from(format!(
            "--vgdb-prefix={}",
            self.dir.path().join("vgdb").display()
        ))
    }

    /// The dump files callgrind has written so far (not vgdb's FIFOs beside them).
    fn files(&self) -> Result<Vec<PathBuf>, BenchError> {
        let dir = self.dir.path();
        let entries = std::fs::read_dir(dir).map_err(|source| BenchError::io(dir, source))?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| {
                path.file_name()
                    .and_then(OsStr::to_str)
                    .is_some_and(|name| name.starts_with("callgrind.out"))
            })
            .collect();
        files.sort();
        Ok(files)
    }
}

/// The service running under callgrind.
#[derive(Debug)]
struct Service<'d> {
    api: ApiEndpoint,
    pid: u32,
    dumps: &'d Dumps,
}

impl Service<'_> {
    /// Sets callgrind's counters to zero.
    fn zero(&self) -> Result<(), BenchError> {
        self.monitor("zero").map(drop)
    }

    /// Has callgrind dump its counters (and zero them) and returns the instructions counted
    /// since they were last zeroed, every thread together.
    fn dump(&self) -> Result<u64, BenchError> {
        let before = self.dumps.files()?;
        self.monitor("dump")?;
        let deadline = Instant::now() + DUMP_LIMIT;
        loop {
            for file in self.dumps.files()? {
                if before.contains(&file) {
                    continue;
                }
                // The file is complete once its totals are written, its last line.
                if let Some(total) = std::fs::read_to_string(&file)
                    .ok()
                    .as_deref()
                    .and_then(super::parse_totals)
                {
                    let _ = std::fs::remove_file(&file);
                    return Ok(total);
                }
            }
            if Instant::now() > deadline {
                return Err(BenchError::Cost(format!(
                    "callgrind wrote no dump into {} within {} s of being asked",
                    self.dumps.dir.path().display(),
                    DUMP_LIMIT.as_secs()
                )));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends `command` to callgrind's gdbserver in the service through `vgdb`.
    fn monitor(&self, command: &str) -> Result<String, BenchError> {
        let output = Cmd::new(&self.dumps.vgdb.path)
            .arg(self.dumps.vgdb_prefix())
            .arg(format!("--pid={}", self.pid))
            .arg(command)
            .run()
            .map_err(|error| BenchError::Cost(format!("cannot run vgdb: {error}")))?;
        if !output.success() {
            return Err(BenchError::Cost(format!(
                "`vgdb --pid={} {command}` failed ({}): {}",
                self.pid,
                output.status,
                super::tail(&output.stderr_text(), 400)
            )));
        }
        Ok(output.stdout_text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_take_the_median_and_the_ratio_to_hyper() {
        let sizes = ServiceCostSettings {
            payments: 100,
            in_flight: 8,
            rounds: 3,
            warmup: 10,
        };
        let measured = |rounds: &[f64], failed| Measured {
            rounds: rounds.to_vec(),
            positions: vec![0, 1, 0],
            failed,
            first_failure: None,
            ..Measured::default()
        };
        let rows = rows(
            &[ClientName::Hyper, ClientName::Awc],
            vec![
                measured(&[200_000.0, 210_000.0, 190_000.0], 0),
                measured(&[260_000.0, 250_000.0, 240_000.0], 0),
            ],
            sizes,
        );
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(close(rows[0].instructions_per_payment, 200_000.0));
        assert!(close(rows[1].instructions_per_payment, 250_000.0));
        assert!(rows[1].ratio.is_some_and(|ratio| close(ratio, 1.25)));
        assert_eq!(rows[1].rounds.len(), 3, "every round, in the order run");
        assert!(close(rows[1].rounds[0], 260_000.0));
        // No ratio to a baseline whose payments failed.
        let rows = rows_of_failed_baseline(sizes);
        assert!(rows.iter().all(|row| row.ratio.is_none()));
    }

    fn rows_of_failed_baseline(sizes: ServiceCostSettings) -> Vec<ServiceCostRow> {
        rows(
            &[ClientName::Hyper],
            vec![Measured {
                rounds: vec![1.0],
                positions: vec![0],
                failed: 3,
                first_failure: Some("Timeout".to_owned()),
                ..Measured::default()
            }],
            sizes,
        )
    }
}
