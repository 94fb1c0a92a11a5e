//! The wire shapes of a payment, separate from the domain types, and their conversion.

use application::{PaymentRequest, ProcessedPayment};
use domain::{Amount, Currency};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use utoipa::ToSchema;

use crate::problem::FieldError;

/// Longest `reference` accepted.
pub const MAX_REFERENCE_CHARS: usize = 128;

/// A payment as sent. Every field is kept raw so that each can be checked on its own and the
/// caller hears about all bad fields at once, named; `amount` keeps its exact JSON text.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(
    as = PaymentRequest,
    example = json!({"reference": "inv-42", "amount": "100.00", "currency": "EUR", "target_currency": "USD"})
)]
pub struct PaymentBody<'a> {
    /// Your own reference, echoed back (at most 128 characters).
    #[serde(borrow, default)]
    #[schema(value_type = Option<String>, max_length = 128)]
    pub reference: Option<&'a RawValue>,
    /// Positive decimal, as a string ("12.50") or a JSON number (read from its digits, never
    /// through a float); no more decimals than the currency has; at most 10^15.
    #[serde(borrow, default)]
    #[schema(schema_with = amount_schema, required = true)]
    pub amount: Option<&'a RawValue>,
    /// ISO 4217 code of the amount.
    #[serde(borrow, default)]
    #[schema(value_type = String, required = true, pattern = "^[A-Z]{3}$", example = "EUR")]
    pub currency: Option<&'a RawValue>,
    /// ISO 4217 code to convert into.
    #[serde(borrow, default)]
    #[schema(value_type = String, required = true, pattern = "^[A-Z]{3}$", example = "USD")]
    pub target_currency: Option<&'a RawValue>,
}

/// `amount` is a decimal string or a JSON number.
fn amount_schema() -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, Type};
    Schema::OneOf(
        OneOfBuilder::new()
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .pattern(Some(r"^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$")),
            )
            .item(ObjectBuilder::new().schema_type(Type::Number))
            .build(),
    )
}

impl PaymentBody<'_> {
    /// Parses every field into the domain, naming each field that is wrong. `prefix` is
    /// prepended to field names (`payments/3/`) for batch items.
    pub fn try_into_domain(&self, prefix: &str) -> Result<PaymentRequest, Vec<FieldError>> {
        let mut errors = Vec::new();
        let mut field_error = |field: &str, message: String| {
            errors.push(FieldError::new(format!("{prefix}{field}"), message));
        };
        let currency = parse_currency(self.currency, "currency", &mut field_error);
        let target_currency =
            parse_currency(self.target_currency, "target_currency", &mut field_error);
        let amount = match self.amount.map(amount_text) {
            None => {
                field_error("amount", "is required".to_owned());
                None
            }
            Some(None) => {
                field_error(
                    "amount",
                    "must be a decimal number or a string holding one, e.g. \"12.50\"".to_owned(),
                );
                None
            }
            Some(Some(text)) => {
                // Without a valid currency the figure is still checked (all but its decimals)
                // so that the caller hears about both problems at once.
                let checked_against = currency.unwrap_or(Currency::USD);
                match Amount::parse(&text, checked_against) {
                    Ok(amount) => currency.map(|_| amount),
                    Err(domain::AmountError::TooManyDecimals { .. }) if currency.is_none() => None,
                    Err(error) => {
                        field_error("amount", error.to_string());
                        None
                    }
                }
            }
        };
        let reference = match self.reference {
            None => None,
            Some(raw) if raw.get() == "null" => None,
            Some(raw) => match serde_json::from_str::<String>(raw.get()) {
                Ok(text) if text.chars().count() > MAX_REFERENCE_CHARS => {
                    field_error(
                        "reference",
                        format!("must be at most {MAX_REFERENCE_CHARS} characters"),
                    );
                    None
                }
                Ok(text) if text.chars().any(char::is_control) => {
                    field_error(
                        "reference",
                        "must not contain control characters".to_owned(),
                    );
                    None
                }
                Ok(text) => Some(text),
                Err(_) => {
                    field_error("reference", "must be a string".to_owned());
                    None
                }
            },
        };
        match (amount, target_currency) {
            (Some(amount), Some(target_currency)) if errors.is_empty() => Ok(PaymentRequest {
                reference,
                amount,
                target_currency,
            }),
            _ => Err(errors),
        }
    }
}

fn parse_currency(
    raw: Option<&RawValue>,
    field: &str,
    field_error: &mut impl FnMut(&str, String),
) -> Option<Currency> {
    let Some(raw) = raw else {
        field_error(field, "is required".to_owned());
        return None;
    };
    let Ok(code) = serde_json::from_str::<&str>(raw.get()) else {
        field_error(
            field,
            "must be a string holding an ISO 4217 code, e.g. \"EUR\"".to_owned(),
        );
        return None;
    };
    Currency::parse(code)
        .map_err(|error| field_error(field, error.to_string()))
        .ok()
}

/// The figure of an amount given as a JSON number (its exact text) or as a JSON string.
fn amount_text(raw: &RawValue) -> Option<String> {
    let text = raw.get();
    match text.as_bytes().first() {
        Some(b'"') => serde_json::from_str::<String>(text).ok(),
        Some(b'-' | b'0'..=b'9') => Some(text.to_owned()),
        _ => None,
    }
}

/// A processed payment as returned: amounts as strings, in the currency's minor units.
#[derive(Debug, Serialize, Deserialize, Clone, PartialEq, Eq, ToSchema)]
pub struct PaymentResponse {
    pub id: String,
    pub reference: Option<String>,
    pub amount: String,
    pub currency: String,
    pub target_currency: String,
    pub rate: String,
    pub converted_amount: String,
    /// When the upstream quoted the rate (RFC 3339); null when no rate was needed.
    pub rate_timestamp: Option<String>,
    pub client: String,
    pub processed_at: String,
    /// Upstream calls made for this payment; present only when retrying is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempts: Option<u32>,
}

impl PaymentResponse {
    /// The answer for `payment`; `attempts` is stated when retrying is on (`show_attempts`).
    pub fn new(payment: ProcessedPayment, client: &str, show_attempts: bool) -> Self {
        let conversion = payment.conversion;
        let source_currency = conversion.source.currency();
        Self {
            id: uuid::Uuid::new_v4().to_string(),
            reference: payment.reference,
            amount: in_minor_units(conversion.source.value(), source_currency),
            currency: source_currency.to_string(),
            target_currency: conversion.target.to_string(),
            rate: conversion.rate.to_string(),
            converted_amount: in_minor_units(conversion.converted_amount, conversion.target),
            rate_timestamp: payment
                .rate_timestamp
                .and_then(|at| rfc3339_from_millis(at.unix_millis())),
            client: client.to_owned(),
            attempts: show_attempts.then_some(payment.attempts),
            processed_at: OffsetDateTime::now_utc()
                .format(&Rfc3339)
                .unwrap_or_default(),
        }
    }
}

/// "12.5" EUR -> "12.50"; "1000" JPY -> "1000".
fn in_minor_units(value: Decimal, currency: Currency) -> String {
    let mut value = value;
    value.rescale(currency.minor_units());
    value.to_string()
}

fn rfc3339_from_millis(unix_millis: i64) -> Option<String> {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(unix_millis) * 1_000_000)
        .ok()?
        .format(&Rfc3339)
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<PaymentRequest, Vec<FieldError>> {
        let body: PaymentBody<'_> = serde_json::from_str(json).unwrap();
        body.try_into_domain("")
    }

    fn fields(json: &str) -> Vec<String> {
        parse(json)
            .unwrap_err()
            .into_iter()
            .map(|e| e.field)
            .collect()
    }

    #[test]
    fn reads_amounts_as_numbers_or_strings_exactly() {
        let from_number =
            parse(r#"{"amount":12.10,"currency":"EUR","target_currency":"USD"}"#).unwrap();
        let from_string =
            parse(r#"{"amount":"12.1","currency":"EUR","target_currency":"USD"}"#).unwrap();
        assert_eq!(from_number.amount, from_string.amount);
        assert_eq!(from_number.amount.value().to_string(), "12.1");
    }

    #[test]
    fn names_every_bad_field() {
        assert_eq!(fields("{}"), ["currency", "target_currency", "amount"]);
        assert_eq!(
            fields(r#"{"amount":"x","currency":"eur","target_currency":"ZZZ","reference":5}"#),
            ["currency", "target_currency", "amount", "reference"]
        );
        assert_eq!(
            fields(r#"{"amount":1.5,"currency":"JPY","target_currency":"USD"}"#),
            ["amount"]
        );
        assert_eq!(
            fields(r#"{"amount":true,"currency":"EUR","target_currency":"USD"}"#),
            ["amount"]
        );
    }

    #[test]
    fn formats_amounts_in_minor_units() {
        let eur = Currency::parse("EUR").unwrap();
        let jpy = Currency::parse("JPY").unwrap();
        assert_eq!(in_minor_units(Decimal::new(125, 1), eur), "12.50");
        assert_eq!(in_minor_units(Decimal::new(1000, 0), jpy), "1000");
        assert_eq!(
            rfc3339_from_millis(0).as_deref(),
            Some("1970-01-01T00:00:00Z")
        );
    }
}
