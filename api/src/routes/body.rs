//! Reading a JSON request body: content type, size limit, then the bytes.

use actix_web::HttpRequest;
use actix_web::http::header;
use actix_web::web::{self, Bytes, BytesMut};
use futures_util::StreamExt;

use crate::problem::{ApiError, FieldError};

/// The body of a JSON request, at most `limit` bytes.
///
/// # Errors
/// 415 unless the content type is `application/json` (or `+json`), 413 beyond `limit`
/// (checked on `Content-Length` first, then while reading), 400 if the body breaks off.
pub async fn read_json_body(
    request: &HttpRequest,
    mut payload: web::Payload,
    limit: usize,
) -> Result<Bytes, ApiError> {
    check_content_type(request)?;
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<usize>().ok());
    if declared.is_some_and(|length| length > limit) {
        return Err(ApiError::PayloadTooLarge { limit });
    }
    let mut body = BytesMut::with_capacity(declared.unwrap_or(1024).min(limit));
    while let Some(chunk) = payload.next().await {
        let chunk = chunk
            .map_err(|error| ApiError::MalformedJson(format!("the body broke off: {error}")))?;
        if body.len() + chunk.len() > limit {
            return Err(ApiError::PayloadTooLarge { limit });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

fn check_content_type(request: &HttpRequest) -> Result<(), ApiError> {
    let found = request
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
        .unwrap_or_default();
    let essence = found
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let is_json = essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"));
    if is_json {
        Ok(())
    } else {
        Err(ApiError::UnsupportedMediaType {
            found: found.chars().take(100).collect(),
        })
    }
}

/// Decodes a JSON object `body` as `T`, telling bad JSON (400) from JSON of the wrong shape
/// (422, reported against `field`).
///
/// # Errors
/// `MalformedJson` for a syntax error or truncated JSON, `Validation` for valid JSON that is
/// not an object of the expected shape (unknown or duplicate field, wrong type).
pub fn decode_object<'a, T: serde::Deserialize<'a>>(
    body: &'a [u8],
    field: &str,
) -> Result<T, ApiError> {
    let shape_error = |message: String| ApiError::Validation(vec![FieldError::new(field, message)]);
    match serde_json::from_slice(body) {
        // serde also reads structs from arrays; a request body must be an object.
        Ok(_) if body.trim_ascii_start().first() != Some(&b'{') => {
            Err(shape_error("must be a JSON object".to_owned()))
        }
        Ok(value) => Ok(value),
        Err(error) if error.classify() == serde_json::error::Category::Data => {
            Err(shape_error(error.to_string()))
        }
        Err(error) => Err(ApiError::MalformedJson(error.to_string())),
    }
}
