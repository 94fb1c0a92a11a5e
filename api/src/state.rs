//! What the handlers share, handed to them as app data at start-up: request limits, the rates
//! upstream in use and the rendered OpenAPI document.

use std::cell::Cell;

use actix_web::web::{Bytes, Data};

use crate::configuration::Settings;
use crate::problem::ApiError;

/// Request limits the handlers need.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_body_bytes: usize,
    /// The request line and header fields together (431 beyond).
    pub max_header_bytes: usize,
    pub max_batch: usize,
    pub max_batch_body_bytes: usize,
}

impl Limits {
    /// The limits `settings` configure.
    pub fn of(settings: &Settings) -> Self {
        Self {
            max_body_bytes: settings.server.max_body_bytes,
            max_header_bytes: settings.server.max_header_bytes,
            max_batch: settings.payments.max_batch,
            max_batch_body_bytes: settings.payments.max_batch_body_bytes,
        }
    }
}

/// The payment requests one worker is handling, against `server.max_payments_in_flight`: one
/// more is shed with a 503 at once, so that an overload costs the excess requests a fast
/// answer instead of making every request late. Per worker, as the workers share nothing.
#[derive(Debug)]
pub struct PaymentSlots {
    /// 0: no limit.
    limit: usize,
    taken: Cell<usize>,
}

/// A slot held for one request, given back when it drops.
#[derive(Debug)]
pub struct PaymentSlot(Data<PaymentSlots>);

impl PaymentSlots {
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            taken: Cell::new(0),
        }
    }

    /// A slot for one payment request.
    ///
    /// # Errors
    /// `ApiError::Overloaded` when every slot is taken.
    pub fn take(slots: &Data<PaymentSlots>) -> Result<PaymentSlot, ApiError> {
        let taken = slots.taken.get();
        if slots.limit > 0 && taken >= slots.limit {
            return Err(ApiError::Overloaded { limit: slots.limit });
        }
        slots.taken.set(taken + 1);
        Ok(PaymentSlot(Data::clone(slots)))
    }

    /// Slots taken now.
    pub fn taken(&self) -> usize {
        self.taken.get()
    }
}

impl Drop for PaymentSlot {
    fn drop(&mut self) {
        self.0.taken.set(self.0.taken.get().saturating_sub(1));
    }
}

/// The upstream base URL in use (configured or the embedded mock's).
#[derive(Clone, Debug)]
pub struct Upstream(pub String);

/// The OpenAPI document as JSON text, rendered once at start-up.
#[derive(Clone, Debug)]
pub struct OpenApiDocument(pub Bytes);
