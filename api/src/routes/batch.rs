//! `POST /payments/{client}/batch`: a group of payments, one upstream call each (no
//! deduplication: the point is to measure fan-out), sequentially or concurrently.

use std::borrow::Cow;
use std::time::Instant;

use actix_web::web::{self, Json};
use actix_web::{HttpRequest, ResponseError};
use application::{PaymentRequest, RatesProvider, RetryPolicy};
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use utoipa::ToSchema;

use crate::problem::{ApiError, FieldError, Problem, RequestProblems};
use crate::registry::ClientRegistry;
use crate::routes::body::{decode_object, read_json_body};
use crate::routes::payment_dto::{PaymentBody, PaymentResponse};
use crate::routes::payments::{convert, find_client};
use crate::state::{Limits, PaymentSlots};

#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum BatchMode {
    /// One payment after another: the wall time is the sum of the upstream calls.
    Sequential,
    /// Up to `concurrency` payments at once on this worker.
    Concurrent,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = BatchRequest)]
pub struct BatchBody<'a> {
    /// The payments, each checked on its own (at most `payments.max_batch`).
    #[serde(borrow)]
    #[schema(value_type = Vec<PaymentBody<'static>>, required = true)]
    payments: Option<Vec<&'a RawValue>>,
    #[schema(required = true)]
    mode: Option<BatchMode>,
    /// Most payments in flight at once in concurrent mode, from 1 to `payments.max_batch`
    /// (default: all). Kept as its JSON text, so that every value, however large, is judged
    /// against that bound and refused with a 422 naming `concurrency`.
    #[serde(default, borrow)]
    #[schema(value_type = Option<u64>, minimum = 1)]
    concurrency: Option<&'a RawValue>,
}

/// `concurrency` as JSON Schema's `integer` reads it, `4` and `4.0` alike (a number whose
/// fraction is zero), if it is from 1 to `max`. Read as an `f64`, which is exact for every
/// count a batch can hold and takes any JSON number (`1e400` is infinite: out of range).
fn concurrency_in_range(text: &RawValue, max: usize) -> Option<usize> {
    let value: f64 = text.get().parse().ok()?;
    (value.fract() == 0.0 && (1.0..=max as f64).contains(&value)).then_some(value as usize)
}

/// One item's outcome: the payment, or the problem that stopped it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct BatchItem {
    pub index: usize,
    pub status: u16,
    pub elapsed_ms: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment: Option<PaymentResponse>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<Problem>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct BatchResponse {
    #[schema(value_type = String)]
    pub client: Cow<'static, str>,
    pub mode: BatchMode,
    /// Most payments in flight at once (1 for sequential).
    pub concurrency: usize,
    pub count: usize,
    pub succeeded: usize,
    pub failed: usize,
    /// From the first upstream call started to the last one finished.
    pub wall_time_ms: f64,
    pub items: Vec<BatchItem>,
}

/// Processes a group of payments, one upstream call each, one after another or overlapped.
/// Each item carries its payment or its problem; one bad item does not fail the others.
#[utoipa::path(post, path = "/payments/{client}/batch", tag = "payments",
    params(("client" = String, Path, description = "The client that fetches the rate: a library by its name for its default TLS backend (hyper), followed by the backend for another (reqwest-native-tls); the enum lists those this service serves, GET /clients describes them")),
    request_body(content = BatchBody, content_type = "application/json"),
    responses(
        (status = 200, description = "Every item's outcome and the group's wall time", body = BatchResponse),
        RequestProblems,
        (status = 503, description = "The service is at its limit of payment requests in flight (`server.max_payments_in_flight` per worker); retry after `Retry-After`", body = Problem, content_type = "application/problem+json"),
    ))]
#[tracing::instrument(name = "payment_batch", skip_all, fields(client = %client))]
pub async fn create_batch(
    request: HttpRequest,
    client: web::Path<String>,
    payload: web::Payload,
    registry: web::Data<ClientRegistry>,
    limits: web::Data<Limits>,
    retry: web::Data<RetryPolicy>,
    slots: web::Data<PaymentSlots>,
) -> Result<Json<BatchResponse>, ApiError> {
    // Before the body is read: a shed request costs next to nothing.
    let _slot = PaymentSlots::take(&slots)?;
    let (name, provider) = find_client(&registry, &client)?;
    let body = read_json_body(&request, payload, limits.max_batch_body_bytes).await?;
    let batch: BatchBody<'_> = decode_object(&body, "body")?;
    let (items, mode, concurrency) = validate(&batch, limits.max_batch)?;

    let started = Instant::now();
    let run = |(index, item): (usize, Result<PaymentRequest, Vec<FieldError>>)| {
        let provider = provider.clone();
        let retry = retry.clone();
        async move { run_item(index, item, provider.as_ref(), name, &retry).await }
    };
    let items: Vec<BatchItem> = match mode {
        BatchMode::Sequential => {
            let mut done = Vec::with_capacity(items.len());
            for item in items.into_iter().enumerate() {
                done.push(run(item).await);
            }
            done
        }
        BatchMode::Concurrent => {
            futures_util::stream::iter(items.into_iter().enumerate())
                .map(run)
                .buffered(concurrency)
                .collect()
                .await
        }
    };
    let wall_time_ms = started.elapsed().as_secs_f64() * 1000.0;
    let succeeded = items.iter().filter(|item| item.payment.is_some()).count();
    Ok(Json(BatchResponse {
        client: Cow::Borrowed(name),
        mode,
        concurrency,
        count: items.len(),
        succeeded,
        failed: items.len() - succeeded,
        wall_time_ms,
        items,
    }))
}

type ValidatedBatch = (
    Vec<Result<PaymentRequest, Vec<FieldError>>>,
    BatchMode,
    usize,
);

/// Checks the envelope (the batch as a whole); items are checked one by one, and a bad item
/// becomes that item's problem, not the batch's.
fn validate(batch: &BatchBody<'_>, max_batch: usize) -> Result<ValidatedBatch, ApiError> {
    let mut errors = Vec::new();
    let payments = batch.payments.as_deref().unwrap_or_default();
    if batch.payments.is_none() {
        errors.push(FieldError::new(
            "payments",
            "is required: a list of payments",
        ));
    } else if payments.is_empty() {
        errors.push(FieldError::new(
            "payments",
            "must hold at least one payment",
        ));
    } else if payments.len() > max_batch {
        errors.push(FieldError::new(
            "payments",
            format!(
                "holds {} payments; at most {max_batch} are allowed per batch",
                payments.len()
            ),
        ));
    }
    if batch.mode.is_none() {
        errors.push(FieldError::new(
            "mode",
            "is required: \"sequential\" or \"concurrent\"",
        ));
    }
    // Checked in either mode: the document's bounds do not depend on `mode`. No batch holds
    // more than `max_batch` payments, so a larger figure could never mean more overlap; the
    // document states the same bound, and a figure above it is refused, not clamped.
    let requested = batch.concurrency.and_then(|text| {
        let count = concurrency_in_range(text, max_batch);
        if count.is_none() {
            let sent: String = text.get().chars().take(40).collect();
            errors.push(FieldError::new(
                "concurrency",
                format!(
                    "must be a whole number from 1 to {max_batch} (the most payments a batch \
                     holds), got {sent}"
                ),
            ));
        }
        count
    });
    let concurrency = match (batch.mode, requested) {
        (Some(BatchMode::Sequential), _) => 1,
        (_, Some(limit)) => limit.min(payments.len().max(1)),
        (_, None) => payments.len().max(1),
    };
    if !errors.is_empty() {
        return Err(ApiError::Validation(errors));
    }
    let items = payments
        .iter()
        .enumerate()
        .map(|(index, raw)| {
            let field = format!("payments/{index}");
            match decode_object::<PaymentBody<'_>>(raw.get().as_bytes(), &field) {
                Ok(item) => item.try_into_domain(&format!("{field}/")),
                Err(ApiError::Validation(errors)) => Err(errors),
                // The envelope parsed, so an item cannot be malformed JSON; keep it an item error.
                Err(error) => Err(vec![FieldError::new(field, error.to_string())]),
            }
        })
        .collect();
    Ok((
        items,
        batch.mode.unwrap_or(BatchMode::Sequential),
        concurrency,
    ))
}

async fn run_item(
    index: usize,
    item: Result<PaymentRequest, Vec<FieldError>>,
    provider: &dyn RatesProvider,
    client: &'static str,
    retry: &RetryPolicy,
) -> BatchItem {
    let started = Instant::now();
    let outcome = match item {
        Ok(payment) => convert(provider, payment, client, retry).await,
        Err(errors) => Err(ApiError::Validation(errors)),
    };
    let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    match outcome {
        Ok(payment) => BatchItem {
            index,
            status: 200,
            elapsed_ms,
            payment: Some(payment),
            problem: None,
        },
        Err(error) => {
            if let ApiError::Upstream(cause) = &error {
                tracing::warn!(index, error.kind = %cause.kind(), error.cause = %cause, "batch item failed upstream");
            }
            BatchItem {
                index,
                status: error.status_code().as_u16(),
                elapsed_ms,
                payment: None,
                problem: Some(error.problem()),
            }
        }
    }
}
