//! A blocking client's exchange, run on the runtime's blocking pool.

use application::RatesError;

use crate::Permit;

/// Runs `exchange` on tokio's blocking pool (the pool actix itself uses for `web::block`), in
/// the caller's tracing span, holding `slot` (from [`crate::UpstreamCall::run_with_slot`])
/// until it is done. The slot is held by the thread, not by the caller: a caller that gave up
/// at its deadline leaves the slot busy until the client's own timeout frees the thread, so
/// that the slots also cap the threads busy.
///
/// # Errors
/// `exchange`'s own; `Unavailable` when the pool dropped the call (its runtime shutting
/// down). A panic of `exchange` is resumed on the caller's thread.
pub async fn on_blocking_pool<T: Send + 'static>(
    slot: Permit,
    exchange: impl FnOnce() -> Result<T, RatesError> + Send + 'static,
) -> Result<T, RatesError> {
    let span = tracing::Span::current();
    let blocking = tokio::task::spawn_blocking(move || {
        // Freed when the thread is done, not when the caller gives up.
        let _slot = slot;
        span.in_scope(exchange)
    });
    match blocking.await {
        Ok(exchanged) => exchanged,
        Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
        Err(error) => Err(RatesError::Unavailable(format!(
            "the blocking pool dropped the call: {error}"
        ))),
    }
}
