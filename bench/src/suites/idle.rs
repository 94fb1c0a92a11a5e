//! Suite `idle`: the stale-connection race. Upstreams close connections that sat idle (actix
//! and Node after 5 s, nginx after 75 s, load balancers after 60 s) sooner than many clients'
//! pools forget them; a request written on a connection the server is closing is lost, and the
//! call fails unless the library sends it again.
//!
//! Against a mock-rates of the suite's own that closes connections idle for
//! `server_idle_ms`, each client makes calls through the port, each after a gap (from the
//! previous answer) just under, at and just over that time, twice: with the client's idle
//! timeout above the server's (the service's own setting, 4 s, as most libraries' defaults are
//! above common servers') and below it. mock-rates counts the connections it accepted, the
//! ones it closed for idleness and, of those, the ones a request arrived on as it closed them
//! (read and dropped, never answered): the races the calls met.
//!
//! With the client's timeout below the server's only the forced race below is run: the client
//! drops its connection before any gap ends, so no timer race can be met.
//!
//! Met on the timer, the race is a matter of chance (a request must cross the close on the
//! wire). So each client then makes the calls after the gaps over the timeout again with
//! mock-rates closing a connection idle past its timeout only when the next request arrives,
//! dropping that request: every such call meets the race, and what the library does about it
//! shows every run.

use std::time::{Duration, Instant};

use application::{RatesError, RatesProvider};
use mock_rates::IdleClose;
use rates_common::ClientSettings;

use crate::clients::mock_admin::Counted;
use crate::error::BenchError;
use crate::servers::MockEndpoint;
use crate::suites::shape::{Outcome, Suite, SuiteContext};
use crate::suites::{adapters, latency, progress::progress_bar};
use bench_model::{
    ClientName, IdleError, IdleRow, IdleSettings, Protocol, Run, ServerClose, SuiteName,
};
use bench_model::{NotRunWhy, Results, SuitePart};
/// The idle suite (see the module's documentation).
#[derive(Debug)]
pub struct Idle;

impl Suite for Idle {
    const NAME: SuiteName = SuiteName::Idle;
    type Rows = Vec<IdleRow>;

    fn run(context: &SuiteContext<'_>) -> Result<Outcome<Vec<IdleRow>>, BenchError> {
        self::run(context.settings).map(Outcome::Ran)
    }

    fn store(rows: Vec<IdleRow>, results: &mut Results) -> Vec<(SuitePart, NotRunWhy)> {
        results.idle = rows;
        Vec::new()
    }
}

/// Runs the suite over plain HTTP, against a mock-rates of its own (the plan skips it when
/// the run's servers were given by URL).
pub fn run(settings: &Run) -> Result<Vec<IdleRow>, BenchError> {
    let sizes = &settings.idle;
    let exe = crate::error::bench_executable()?;
    let server = MockEndpoint::spawn(&exe)?;
    let clients = settings.plan().clients(SuiteName::Idle, Protocol::Http);
    let idle_timeouts = [sizes.client_idle_above_ms, sizes.client_idle_below_ms];
    let per_client: usize = idle_timeouts.iter().map(|&ms| sizes.plan(ms).len()).sum();
    let bar = progress_bar(SuiteName::Idle, (clients.len() * per_client) as u64);
    let mut rows = Vec::new();
    for &client in &clients {
        for &client_idle_ms in &idle_timeouts {
            bar.set_message(format!("{client}, client idle timeout {client_idle_ms} ms"));
            let client_settings = ClientSettings {
                idle_timeout: Duration::from_millis(client_idle_ms),
                ..ClientSettings::for_base_url(server.base_url())
            };
            let plan = sizes.plan(client_idle_ms);
            let system = actix_rt::System::new();
            let measured: Result<Vec<IdleRow>, BenchError> = system.block_on(async {
                let provider = adapters::build(client, &client_settings)
                    .map_err(|error| BenchError::Idle(format!("{client}: {error}")))?;
                let mut measured = Vec::with_capacity(plan.len());
                for &(server_close, gap_ms) in &plan {
                    server
                        .admin()
                        .set_idle_timeout(Some(sizes.server_idle_ms), mock_close(server_close))
                        .map_err(|error| BenchError::Idle(error.to_string()))?;
                    let calls = Calls {
                        client,
                        client_idle_ms,
                        server_close,
                        gap_ms,
                    };
                    measured.push(calls.make(&*provider, &server, sizes).await);
                    bar.inc(1);
                }
                Ok(measured)
            });
            rows.extend(measured?);
        }
    }
    bar.finish_and_clear();
    Ok(rows)
}

/// What one row of the suite measures.
struct Calls {
    client: ClientName,
    client_idle_ms: u64,
    server_close: ServerClose,
    gap_ms: u64,
}

impl Calls {
    /// `sizes.calls_per_gap` calls by `provider`, each `gap_ms` after the previous answer,
    /// the first after one call that opens a connection; what `server` counted meanwhile.
    async fn make(
        &self,
        provider: &dyn RatesProvider,
        server: &MockEndpoint,
        sizes: &IdleSettings,
    ) -> IdleRow {
        let pairs = latency::cross_rate_pairs();
        let mut row = IdleRow {
            client: self.client,
            client_idle_ms: self.client_idle_ms,
            server_idle_ms: sizes.server_idle_ms,
            server_close: self.server_close,
            gap_ms: self.gap_ms,
            calls: 0,
            ok: 0,
            errors: Vec::new(),
            connections: None,
            idle_closes: None,
            races: None,
        };
        // A connection to go stale (its own failure, if any, is not counted).
        let _ = provider.fetch_quotes(&pairs).await;
        let mut answered = Instant::now();
        let admin = server.admin();
        let before = admin.counters();
        let gap = Duration::from_millis(self.gap_ms);
        for _ in 0..sizes.calls_per_gap {
            // The gap runs from the answer, whatever the reads in between took.
            tokio::time::sleep_until((answered + gap).into()).await;
            let outcome = provider.fetch_quotes(&pairs).await;
            answered = Instant::now();
            row.calls += 1;
            match outcome {
                Ok(quotes) if pairs.iter().all(|pair| quotes.get(pair).is_some()) => row.ok += 1,
                Ok(_) => count(
                    &mut row.errors,
                    "Malformed",
                    "the answer lacks a requested pair",
                ),
                Err(error) => count(&mut row.errors, kind(&error), &error.to_string()),
            }
        }
        let after = admin.counters();
        if let Some(counted) = Counted::between(before.as_ref(), after.as_ref()) {
            row.connections = Some(counted.connections);
        }
        if let (Some(before), Some(after)) = (&before, &after) {
            row.idle_closes = after.idle_closes.checked_sub(before.idle_closes);
            row.races = after.idle_close_races.checked_sub(before.idle_close_races);
        }
        row
    }
}

/// The mock's name for `close`.
fn mock_close(close: ServerClose) -> IdleClose {
    match close {
        ServerClose::Timer => IdleClose::Timer,
        ServerClose::OnArrival => IdleClose::OnArrival,
    }
}

/// The port's error kind, as the tables name it.
fn kind(error: &RatesError) -> &'static str {
    match error {
        RatesError::Timeout(_) => "Timeout",
        RatesError::Connect(_) => "Connect",
        RatesError::Tls(_) => "Tls",
        RatesError::UpstreamStatus(_) => "UpstreamStatus",
        RatesError::Malformed(_) => "Malformed",
        RatesError::UnsupportedPair(_) => "UnsupportedPair",
        RatesError::Unavailable(_) => "Unavailable",
    }
}

fn count(errors: &mut Vec<IdleError>, kind: &str, message: &str) {
    match errors.iter_mut().find(|error| error.kind == kind) {
        Some(error) => error.count += 1,
        None => errors.push(IdleError {
            kind: kind.to_owned(),
            count: 1,
            first: message.chars().take(300).collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_counted_by_kind_keeping_the_first_message() {
        let mut errors = Vec::new();
        count(
            &mut errors,
            "Connect",
            "connection closed before message completed",
        );
        count(&mut errors, "Timeout", "2 s");
        count(&mut errors, "Connect", "connection reset");
        assert_eq!(errors.len(), 2);
        assert_eq!(errors[0].count, 2);
        assert_eq!(
            errors[0].first,
            "connection closed before message completed"
        );
        assert_eq!(
            kind(&RatesError::Connect("x".to_owned())),
            "Connect",
            "the kind the tables use"
        );
    }
}
