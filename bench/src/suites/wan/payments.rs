//! One client's payments across the link, through `POST /payments/{client}` of a payment
//! service in the service's namespace: the cold payment and warm ones, a stretch on a
//! timetable (open model, latency from each payment's due time, every answer checked), a
//! concurrent batch, and what a partition or a forgotten flow did to the stretch. Runs on a
//! thread inside the service's namespace (the generator's sockets are there).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::runtime::Runtime;
use wan_link::Relay;

use crate::clients::ApiClient;
use crate::error::BenchError;
use crate::suites::fanout::batches::Batches;
use crate::suites::load::http::{LoadClient, PAYMENT_MIX, ReadyScenario};
use crate::suites::load::open::{self, Collector};
use crate::suites::load::schedule::Schedule;
use crate::suites::load::tally::RequestRecord;
use crate::suites::wan::calibrate::millis;
use bench_model::stats::quantile::percentile_nearest_rank_of;
use bench_model::{ClientName, FailureKind, FanoutMode, Scenario, WanBatch, WanEvent, WanRecovery};

/// Warm payments after the cold one, on its pooled connection; their median is the warm time.
const WARM_PAYMENTS: usize = 5;
/// Each of the generator's connections has this long for an answer before its next payment
/// is due: beyond the generator's own bound on a request (`load::http::REQUEST_TIMEOUT`), so
/// that a payment that waits out the service's upstream timeout, or its retries, delays no
/// later one and none is left unsent.
const ROOM_PER_ANSWER: Duration = Duration::from_secs(6);
/// The stretch runs this long before a partition starts.
const BEFORE_PARTITION: Duration = Duration::from_secs(1);

/// The payment service's address and the generator that drives it, inside the namespace.
pub struct Driver<'a> {
    pub api_url: &'a str,
    pub runtime: &'a Runtime,
    pub client: &'a Arc<LoadClient>,
}

/// Requests that reach the service's workers before any payment: actix hands connections to
/// its workers in turn, and a worker answers its first request only once it has built its
/// clients (after the service says it listens), which would land in the first client's cold
/// payment.
const SERVICE_WARM_UP: usize = 4;

/// Asks the service for its clients on [`SERVICE_WARM_UP`] connections of their own, so that
/// every worker has started, then pays once through each of `spares` (clients not measured
/// here): what a process pays once, on its first TLS connection whichever client makes it
/// (aws-lc seeding its random generator from CPU jitter: about 70 ms on a 2-vCPU VM), is then
/// paid, and no measured client's cold payment carries it.
///
/// # Errors
/// The service did not answer, or a spare's payment failed.
pub fn warm_service(api_url: &str, spares: &[ClientName]) -> Result<(), BenchError> {
    let failed = |error: String| BenchError::Wan(format!("warming the service: {error}"));
    for _ in 0..SERVICE_WARM_UP {
        ApiClient::fresh(api_url, Duration::from_secs(30))
            .clients()
            .map_err(failed)?;
    }
    let api = ApiClient::kept_alive(api_url);
    for &spare in spares {
        match api.pay(spare, payment_body().as_bytes()) {
            Ok(answer) if answer.status == 200 => {}
            Ok(answer) => {
                return Err(failed(format!(
                    "a payment through {spare}: status {}: {}",
                    answer.status,
                    answer.body_excerpt()
                )));
            }
            Err(failure) => {
                return Err(failed(format!(
                    "a payment through {spare}: {}",
                    failure.describe()
                )));
            }
        }
    }
    Ok(())
}

/// The body of the payments sent one at a time: the mix's first.
fn payment_body() -> String {
    let payment = &PAYMENT_MIX[0];
    format!(
        r#"{{"amount":"{}","currency":"{}","target_currency":"{}"}}"#,
        payment.amount, payment.currency, payment.target_currency
    )
}

/// The first payment of `client` (its pool empty) and the median of the next few (ms); the
/// first failure's message.
pub fn cold_and_warm(
    driver: &Driver<'_>,
    client: ClientName,
) -> (Option<f64>, Option<f64>, Option<String>) {
    let api = ApiClient::kept_alive(driver.api_url);
    let body = payment_body();
    let mut error = None;
    let mut pay = || match api.pay(client, body.as_bytes()) {
        Ok(answer) if answer.status == 200 => match answer.payment() {
            Some(paid) if paid.client == client.as_str() => Some(millis(answer.elapsed)),
            _ => {
                error.get_or_insert_with(|| format!("unexpected body: {}", answer.body_excerpt()));
                None
            }
        },
        Ok(answer) => {
            error.get_or_insert_with(|| {
                format!("status {}: {}", answer.status, answer.body_excerpt())
            });
            None
        }
        Err(failure) => {
            error.get_or_insert_with(|| failure.describe());
            None
        }
    };
    let cold = pay();
    let mut warm: Vec<f64> = (0..WARM_PAYMENTS).filter_map(|_| pay()).collect();
    let warm = (warm.len() == WARM_PAYMENTS)
        .then(|| percentile_nearest_rank_of(&mut warm, 50.0))
        .flatten();
    (cold, warm, error)
}

/// One payment of the stretch: when it was due, sent and done after the stretch's start, and
/// how it ended.
#[derive(Clone, Debug, PartialEq)]
pub struct Payment {
    pub due: Duration,
    pub done: Duration,
    /// `None` when answered 200 with the right body; else why (`504`, `timeout`, ...).
    pub failure: Option<String>,
    pub message: Option<String>,
}

/// Every payment of a stretch, kept (a stretch has a few hundred).
struct Flight {
    start: Instant,
    payments: Vec<Payment>,
}

impl Collector for Flight {
    fn add(&mut self, record: RequestRecord) {
        let failure = record.exchange.failure.map(|(kind, message)| {
            let why = match (kind, record.exchange.status) {
                (FailureKind::Status, Some(status)) => status.to_string(),
                (FailureKind::Status, None) => "status".to_owned(),
                (FailureKind::Connect, _) => "connect".to_owned(),
                (FailureKind::Timeout, _) => "timeout".to_owned(),
                (FailureKind::Reset, _) => "reset".to_owned(),
                (FailureKind::Body, _) => "body".to_owned(),
            };
            (why, message)
        });
        let (failure, message) = failure.unzip();
        self.payments.push(Payment {
            due: record.due.saturating_duration_since(self.start),
            done: record.done.saturating_duration_since(self.start),
            failure,
            message,
        });
    }
}

/// What a stretch gave.
#[derive(Debug)]
pub struct Stretch {
    pub payments: Vec<Payment>,
    /// Payments on the timetable never sent (their connection reached them too late).
    pub unsent: u64,
    /// When the event began and ended, after the stretch's start; `None` without one.
    pub event: Option<(Duration, Duration)>,
}

/// What happens to the link during a stretch.
#[derive(Clone, Copy, Debug)]
pub enum During<'a> {
    Nothing,
    /// The link partitioned for `lasting`, from [`BEFORE_PARTITION`] into the stretch.
    Partition {
        relay: &'a Relay,
        lasting: Duration,
    },
}

/// `rate` payments per second of `client` for `length` (longer by the partition and the time
/// before it, with one), on a timetable.
///
/// # Errors
/// The generator cannot be set up.
pub fn stretch(
    driver: &Driver<'_>,
    client: ClientName,
    rate: u32,
    length: Duration,
    during: During<'_>,
) -> Result<Stretch, BenchError> {
    let target = Arc::new(ReadyScenario::new(
        driver.api_url,
        Scenario::Payments(client),
    )?);
    let length = match during {
        During::Nothing => length,
        During::Partition { lasting, .. } => BEFORE_PARTITION + lasting + length,
    };
    let schedule = Schedule::new(rate, length);
    let started = std::thread::scope(|scope| {
        let partitioned = scope.spawn(move || match during {
            During::Nothing => None,
            During::Partition { relay, lasting } => {
                std::thread::sleep(BEFORE_PARTITION);
                let at = Instant::now();
                relay.partition(lasting);
                Some((at, lasting))
            }
        });
        let sent = open::run_into_each(
            driver.runtime,
            driver.client,
            [&target],
            schedule,
            ROOM_PER_ANSWER,
            |start| Flight {
                start,
                payments: Vec::new(),
            },
        )
        .map(|[sent]| sent);
        let partitioned = partitioned
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        sent.map(|sent| (sent, partitioned))
    });
    let ((flight, unsent), partitioned) = started?;
    let event = partitioned.map(|(at, lasting)| {
        let from = at.saturating_duration_since(flight.start);
        (from, from + lasting)
    });
    let mut payments = flight.payments;
    payments.sort_by_key(|payment| payment.due);
    Ok(Stretch {
        payments,
        unsent,
        event,
    })
}

/// The stretch's figures: failures by why, the first failure's message, and the answered
/// payments' latency from their due time at the 50th and 99th percentile and at most (ms).
pub struct Figures {
    pub ok: u64,
    pub failures: BTreeMap<String, u64>,
    pub first_error: Option<String>,
    pub p50_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    pub max_ms: Option<f64>,
    /// The 99th percentile of every payment, a failed one at the time its failure came back.
    pub p99_every_ms: Option<f64>,
}

pub fn figures(payments: &[Payment]) -> Figures {
    let mut failures = BTreeMap::new();
    let mut latencies = Vec::new();
    let mut every: Vec<f64> = payments
        .iter()
        .map(|payment| millis(payment.done.saturating_sub(payment.due)))
        .collect();
    let mut first_error = None;
    for payment in payments {
        match &payment.failure {
            None => latencies.push(millis(payment.done.saturating_sub(payment.due))),
            Some(why) => {
                *failures.entry(why.clone()).or_insert(0) += 1;
                if first_error.is_none() {
                    first_error.clone_from(&payment.message);
                }
            }
        }
    }
    latencies.sort_by(f64::total_cmp);
    Figures {
        ok: latencies.len() as u64,
        failures,
        first_error,
        p50_ms: percentile_nearest_rank_of(&mut latencies, 50.0),
        p99_ms: percentile_nearest_rank_of(&mut latencies, 99.0),
        max_ms: latencies.last().copied(),
        p99_every_ms: percentile_nearest_rank_of(&mut every, 99.0),
    }
}

/// What became of the payments after an event that began at `from` and ended at `to` (after
/// the stretch's start): those due from its start that failed, and from its end the first
/// answer 200 and the last failure.
pub fn recovery(
    payments: &[Payment],
    event: WanEvent,
    (from, to): (Duration, Duration),
    packets_on_dead_flows: u64,
) -> WanRecovery {
    let after = |payment: &&Payment| payment.done >= to;
    WanRecovery {
        event,
        event_ms: millis(to.saturating_sub(from)),
        lost: payments
            .iter()
            .filter(|payment| payment.due >= from && payment.failure.is_some())
            .count() as u64,
        first_success_ms: payments
            .iter()
            .filter(after)
            .filter(|payment| payment.failure.is_none())
            .map(|payment| millis(payment.done.saturating_sub(to)))
            .min_by(f64::total_cmp),
        last_failure_ms: payments
            .iter()
            .filter(after)
            .filter(|payment| payment.failure.is_some())
            .map(|payment| millis(payment.done.saturating_sub(to)))
            .max_by(f64::total_cmp),
        packets_on_dead_flows,
    }
}

/// A concurrent batch of `size` payments; `connections` reads what the upstream accepted so
/// far.
pub fn batch(
    driver: &Driver<'_>,
    client: ClientName,
    size: u32,
    upstream_timeout_ms: u64,
    connections: impl Fn() -> u64,
) -> WanBatch {
    let batches = Batches {
        api: ApiClient::kept_alive(driver.api_url),
        per_item_limit_ms: upstream_timeout_ms,
    };
    let before = connections();
    let outcome = batches.send(client, FanoutMode::Concurrent, size);
    WanBatch {
        size,
        succeeded: size.saturating_sub(u32::try_from(outcome.failed).unwrap_or(u32::MAX)),
        wall_ms: outcome.timing.map(|(wall, _)| wall),
        connections: Some(connections() - before),
        first_error: outcome.error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payment(due_ms: u64, done_ms: u64, failure: Option<&str>) -> Payment {
        Payment {
            due: Duration::from_millis(due_ms),
            done: Duration::from_millis(done_ms),
            failure: failure.map(str::to_owned),
            message: failure.map(|why| format!("failed: {why}")),
        }
    }

    #[test]
    fn the_figures_count_failures_by_why_and_time_the_answered_from_their_due_time() {
        let payments = [
            payment(0, 40, None),
            payment(50, 80, None),
            payment(100, 2_100, Some("504")),
            payment(150, 2_150, Some("504")),
            payment(200, 210, Some("timeout")),
            payment(250, 350, None),
        ];
        let figures = figures(&payments);
        assert_eq!(figures.ok, 3);
        assert_eq!(
            figures.failures,
            BTreeMap::from([("504".to_owned(), 2), ("timeout".to_owned(), 1)])
        );
        assert_eq!(figures.first_error.as_deref(), Some("failed: 504"));
        assert_eq!(figures.p50_ms, Some(40.0));
        assert_eq!(figures.p99_ms, Some(100.0));
        assert_eq!(figures.max_ms, Some(100.0));
        // Every payment, a failed one at the time its failure came back: 2 000 ms the slowest.
        assert_eq!(figures.p99_every_ms, Some(2_000.0));
    }

    #[test]
    fn a_recovery_counts_what_failed_from_the_event_and_times_from_its_end() {
        // A partition from 1 000 to 4 000 ms: one payment before it, one that waited through
        // it and was answered after, two lost, then the first success and a late failure.
        let payments = [
            payment(500, 530, None),
            payment(900, 4_300, Some("504")),
            payment(1_500, 4_200, None),
            payment(2_000, 4_000, Some("504")),
            payment(4_500, 4_530, None),
            payment(4_600, 6_600, Some("504")),
        ];
        let recovered = recovery(
            &payments,
            WanEvent::Partition,
            (Duration::from_secs(1), Duration::from_secs(4)),
            0,
        );
        assert_eq!(recovered.lost, 2, "due from the event's start and failed");
        assert!((recovered.event_ms - 3_000.0).abs() < 1e-9);
        assert_eq!(recovered.first_success_ms, Some(200.0));
        assert_eq!(recovered.last_failure_ms, Some(2_600.0));
        let none_failed = recovery(
            &payments[..1],
            WanEvent::Forgotten,
            (Duration::ZERO, Duration::ZERO),
            3,
        );
        assert_eq!((none_failed.lost, none_failed.last_failure_ms), (0, None));
        assert_eq!(none_failed.packets_on_dead_flows, 3);
    }
}
