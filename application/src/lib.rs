//! The payment use case and the outbound port it needs: `RatesProvider`.

mod payment;
mod rates;

pub use payment::{PaymentError, PaymentRequest, ProcessedPayment, process_payment};
pub use rates::{Quotes, RatesError, RatesErrorKind, RatesProvider};
