//! `POST /payments/{client}`: convert one payment with the named client.

use actix_web::HttpRequest;
use actix_web::web::{self, Json};
use application::process_payment;

use crate::problem::ApiError;
use crate::registry::{CLIENT_NAMES, ClientRegistry};
use crate::routes::body::{decode_object, read_json_body};
use crate::routes::payment_dto::{PaymentBody, PaymentResponse};
use crate::startup::Limits;

#[tracing::instrument(name = "payment", skip_all, fields(client = %client))]
pub async fn create_payment(
    request: HttpRequest,
    client: web::Path<String>,
    payload: web::Payload,
    registry: web::Data<ClientRegistry>,
    limits: web::Data<Limits>,
) -> Result<Json<PaymentResponse>, ApiError> {
    let (name, provider) = registry
        .get(&client)
        .ok_or_else(|| ApiError::UnknownClient {
            requested: client.chars().take(40).collect(),
            valid: &CLIENT_NAMES,
        })?;
    let body = read_json_body(&request, payload, limits.max_body_bytes).await?;
    let payment: PaymentBody<'_> = decode_object(&body, "body")?;
    let payment = payment.try_into_domain("").map_err(ApiError::Validation)?;
    let processed = process_payment(provider.as_ref(), payment).await?;
    Ok(Json(PaymentResponse::new(processed, name)))
}
