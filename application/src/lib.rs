//! The payment use case and the outbound port it needs: `RatesProvider`.

mod payment;
mod rates;
mod retry;

pub use payment::{
    PaymentError, PaymentRequest, ProcessedPayment, process_payment, process_payment_with_retry,
};
pub use rates::{Quotes, RatesError, RatesErrorKind, RatesProvider};
pub use retry::{RetryPolicy, Sleeper};
