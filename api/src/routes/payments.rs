//! `POST /payments/{client}`: convert one payment with the named client.

use actix_web::HttpRequest;
use actix_web::web::{self, Json};
use std::rc::Rc;
use std::time::Duration;

use application::{
    PaymentRequest, RatesProvider, RetryPolicy, Sleeper, process_payment_with_retry,
};
use async_trait::async_trait;

use crate::problem::{ApiError, Problem, RequestProblems};
use crate::registry::{ClientRegistry, VALID_CLIENTS};
use crate::routes::body::{decode_object, read_json_body};
use crate::routes::payment_dto::{PaymentBody, PaymentResponse};
use crate::state::{Limits, PaymentSlots};

/// Converts one payment into its target currency with a rate fetched through `client`.
#[utoipa::path(post, path = "/payments/{client}", tag = "payments",
    params(("client" = String, Path, description = "The client that fetches the rate: a library by its name for its default TLS backend (hyper), followed by the backend for another (reqwest-native-tls); the enum lists those this service serves, GET /clients describes them")),
    request_body(content = PaymentBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The converted payment", body = PaymentResponse),
        RequestProblems,
        (status = 502, description = "The rates upstream is unreachable, failed, or sent an unusable answer", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The service is at its limit of payment requests in flight (`server.max_payments_in_flight` per worker), or the client's connections or blocking threads are all busy; retry after `Retry-After`", body = Problem, content_type = "application/problem+json"),
        (status = 504, description = "The rates upstream did not answer in time", body = Problem, content_type = "application/problem+json"),
    ))]
#[tracing::instrument(name = "payment", skip_all, fields(client = %client))]
pub async fn create_payment(
    request: HttpRequest,
    client: web::Path<String>,
    payload: web::Payload,
    registry: web::Data<ClientRegistry>,
    limits: web::Data<Limits>,
    retry: web::Data<RetryPolicy>,
    slots: web::Data<PaymentSlots>,
) -> Result<Json<PaymentResponse>, ApiError> {
    // Before the body is read: a shed request costs next to nothing.
    let _slot = PaymentSlots::take(&slots)?;
    let (name, provider) = find_client(&registry, &client)?;
    let body = read_json_body(&request, payload, limits.max_body_bytes).await?;
    let payment: PaymentBody<'_> = decode_object(&body, "body")?;
    let payment = payment.try_into_domain("").map_err(ApiError::Validation)?;
    Ok(Json(
        convert(provider.as_ref(), payment, name, &retry).await?,
    ))
}

/// The named client of this worker, or 404 listing the valid names.
pub fn find_client(
    registry: &ClientRegistry,
    client: &str,
) -> Result<(&'static str, Rc<dyn RatesProvider>), ApiError> {
    registry.get(client).ok_or_else(|| ApiError::UnknownClient {
        requested: client.chars().take(40).collect(),
        valid: VALID_CLIENTS.as_slice(),
    })
}

/// Processes one payment with the configured retry policy (single and batch routes alike).
pub async fn convert(
    provider: &dyn RatesProvider,
    payment: PaymentRequest,
    client: &'static str,
    retry: &RetryPolicy,
) -> Result<PaymentResponse, ApiError> {
    let processed = process_payment_with_retry(provider, payment, retry, &RuntimeSleeper).await?;
    Ok(PaymentResponse::new(processed, client, retry.is_enabled()))
}

/// Backoff waits on the worker's own timer.
struct RuntimeSleeper;

#[async_trait(?Send)]
impl Sleeper for RuntimeSleeper {
    async fn sleep(&self, duration: Duration) {
        actix_web::rt::time::sleep(duration).await;
    }
}
