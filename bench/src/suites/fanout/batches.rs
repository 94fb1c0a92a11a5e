//! The batches the suite sends to the api, and the check of every answer.

use std::time::Duration;

use api::routes::batch::{BatchMode, BatchResponse};

use crate::clients::ApiClient;
use crate::clients::api::Answer;
use bench_model::{ClientName, FanoutMode};

/// Added to the longest a batch could legitimately take before the bench gives up on it.
const BATCH_TIMEOUT_MARGIN: Duration = Duration::from_secs(30);

/// What one batch gave: its times when every payment succeeded, else the failures.
#[derive(Debug, PartialEq)]
pub struct BatchOutcome {
    /// Server wall time and request time, in ms, when every payment succeeded.
    pub timing: Option<(f64, f64)>,
    /// Payments that failed (all of them when the batch failed as a whole).
    pub failed: u64,
    pub error: Option<String>,
}

impl BatchOutcome {
    fn failed(size: u32, error: String) -> Self {
        Self {
            timing: None,
            failed: u64::from(size),
            error: Some(error),
        }
    }
}

/// Sends batches to the api over one kept-alive connection, so that they land on one worker.
#[derive(Debug)]
pub struct Batches {
    pub api: ApiClient,
    /// The longest one payment of a batch can take (its upstream timeout, or the latency).
    pub per_item_limit_ms: u64,
}

impl Batches {
    /// Sends one group of `size` EUR -> JPY payments and checks the answer.
    pub fn send(&self, client: ClientName, mode: FanoutMode, size: u32) -> BatchOutcome {
        let body = batch_body(mode, size);
        let limit = Duration::from_millis(self.per_item_limit_ms.saturating_mul(u64::from(size)))
            + BATCH_TIMEOUT_MARGIN;
        match self.api.batch(client, body.as_bytes(), limit) {
            Ok(answer) => check_answer(client, mode, size, &answer),
            Err(failure) => BatchOutcome::failed(
                size,
                format!(
                    "POST {}/payments/{client}/batch: {}",
                    self.api.base_url(),
                    failure.describe()
                ),
            ),
        }
    }
}

/// The api's name for a mode.
fn batch_mode(mode: FanoutMode) -> BatchMode {
    match mode {
        FanoutMode::Sequential => BatchMode::Sequential,
        FanoutMode::Concurrent => BatchMode::Concurrent,
    }
}

/// `{"mode": ..., "payments": [size x 1 EUR -> JPY]}`.
fn batch_body(mode: FanoutMode, size: u32) -> String {
    let payment = serde_json::json!({"amount": "1", "currency": "EUR", "target_currency": "JPY"});
    serde_json::json!({
        "mode": batch_mode(mode),
        "payments": vec![payment; size as usize],
    })
    .to_string()
}

/// Checks a batch answer: 200, the right client and mode, every payment converted.
fn check_answer(client: ClientName, mode: FanoutMode, size: u32, answer: &Answer) -> BatchOutcome {
    if answer.status != 200 {
        return BatchOutcome::failed(
            size,
            format!("status {}: {}", answer.status, answer.body_excerpt()),
        );
    }
    let batch: BatchResponse = match answer.batch() {
        Ok(batch) => batch,
        Err(error) => return BatchOutcome::failed(size, error),
    };
    let expected = u64::from(size);
    if batch.client != client.as_str()
        || batch.mode != batch_mode(mode)
        || batch.count as u64 != expected
    {
        return BatchOutcome::failed(
            size,
            format!(
                "asked {client} {} x{size}, the api answered {} {:?} x{}",
                mode.as_str(),
                batch.client,
                batch.mode,
                batch.count
            ),
        );
    }
    let failed_items = batch.items.iter().filter(|item| item.status != 200);
    let failed = expected
        .saturating_sub(batch.succeeded as u64)
        .max(batch.failed as u64)
        .max(failed_items.clone().count() as u64);
    if failed == 0 && batch.items.len() as u64 == expected {
        return BatchOutcome {
            timing: Some((batch.wall_time_ms, answer.elapsed.as_secs_f64() * 1_000.0)),
            failed: 0,
            error: None,
        };
    }
    let first = failed_items.min_by_key(|item| item.index).map_or_else(
        || format!("{} items answered for {size} payments", batch.items.len()),
        |item| {
            format!(
                "payment {}: status {}{}",
                item.index,
                item.status,
                item.problem
                    .as_ref()
                    .map(|problem| format!(" ({}: {})", problem.title, problem.detail))
                    .unwrap_or_default()
            )
        },
    );
    BatchOutcome {
        timing: None,
        failed: failed.max(1),
        error: Some(first),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(
        client: ClientName,
        mode: FanoutMode,
        size: u32,
        status: u16,
        body: &[u8],
        request_ms: f64,
    ) -> BatchOutcome {
        let answer = Answer {
            status,
            body: body.to_vec(),
            elapsed: Duration::from_secs_f64(request_ms / 1_000.0),
        };
        check_answer(client, mode, size, &answer)
    }

    fn answer(succeeded: u64, statuses: &[u16]) -> Vec<u8> {
        let items: Vec<serde_json::Value> = statuses
            .iter()
            .enumerate()
            .map(|(index, status)| {
                if *status == 200 {
                    serde_json::json!({"index": index, "status": 200, "elapsed_ms": 1.0})
                } else {
                    serde_json::json!({"index": index, "status": status, "elapsed_ms": 1.0,
                        "problem": {"type": "/problems/upstream-timeout", "status": status,
                            "title": "Upstream timed out", "detail": "no answer in 2 s"}})
                }
            })
            .collect();
        serde_json::json!({
            "client": "hyper", "mode": "concurrent", "concurrency": statuses.len(),
            "count": statuses.len(), "succeeded": succeeded,
            "failed": statuses.len() as u64 - succeeded, "wall_time_ms": 51.5, "items": items,
        })
        .to_string()
        .into_bytes()
    }

    #[test]
    fn a_complete_batch_is_timed() {
        let outcome = check(
            ClientName::Hyper,
            FanoutMode::Concurrent,
            2,
            200,
            &answer(2, &[200, 200]),
            53.0,
        );
        assert_eq!(outcome.timing, Some((51.5, 53.0)));
        assert_eq!((outcome.failed, outcome.error), (0, None));
    }

    #[test]
    fn a_failed_item_or_batch_is_counted_and_never_timed() {
        let outcome = check(
            ClientName::Hyper,
            FanoutMode::Concurrent,
            3,
            200,
            &answer(2, &[200, 504, 200]),
            53.0,
        );
        assert_eq!((outcome.timing, outcome.failed), (None, 1));
        assert_eq!(
            outcome.error.as_deref(),
            Some("payment 1: status 504 (Upstream timed out: no answer in 2 s)")
        );
        // The wrong mode, a short answer, a problem status: the whole batch failed.
        let wrong_mode = check(
            ClientName::Hyper,
            FanoutMode::Sequential,
            2,
            200,
            &answer(2, &[200, 200]),
            53.0,
        );
        assert_eq!((wrong_mode.timing, wrong_mode.failed), (None, 2));
        let short = check(
            ClientName::Hyper,
            FanoutMode::Concurrent,
            3,
            200,
            &answer(2, &[200, 200]),
            53.0,
        );
        assert_eq!(short.failed, 3);
        let rejected = check(
            ClientName::Hyper,
            FanoutMode::Concurrent,
            5,
            422,
            br#"{"title":"too many"}"#,
            1.0,
        );
        assert_eq!(rejected.failed, 5);
        assert!(rejected.error.unwrap().starts_with("status 422"));
    }

    #[test]
    fn the_batch_body_holds_size_payments() {
        let body: serde_json::Value =
            serde_json::from_str(&batch_body(FanoutMode::Sequential, 3)).unwrap();
        assert_eq!(body["mode"], "sequential");
        assert_eq!(body["payments"].as_array().unwrap().len(), 3);
        assert_eq!(body["payments"][2]["target_currency"], "JPY");
        assert!(body.get("concurrency").is_none());
    }
}
