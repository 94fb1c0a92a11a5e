//! The adapter contract: one suite, written once, that every `RatesProvider` adapter must pass
//! against `mock-rates` started in-process on `127.0.0.1:0`.
//!
//! An adapter crate runs it from `tests/contract.rs`:
//!
//! ```ignore
//! rates_contract::contract_tests!(make = |settings: &rates_common::ClientSettings| {
//!     Box::new(rates_hyper::HyperRates::new(settings).unwrap()) as Box<dyn application::RatesProvider>
//! });
//! ```
//!
//! which expands to one `#[actix_rt::test]` per case (the adapter crate needs `actix-rt` as a
//! dev-dependency). Each case builds its own client through `make`, inside the test's actix
//! runtime, as an actix worker would.

pub mod cases;

use application::RatesProvider;
use rates_common::ClientSettings;

/// Builds the adapter under test from the settings a case chooses.
pub type MakeProvider = dyn Fn(&ClientSettings) -> Box<dyn RatesProvider>;

/// Expands to one `#[actix_rt::test]` per contract case, each calling
/// `rates_contract::cases::<case>(&make)`.
#[macro_export]
macro_rules! contract_tests {
    (make = $make:expr $(,)?) => {
        $crate::contract_tests!(@cases $make;
            direct_pair_keeps_the_exact_rate,
            inverse_pair_is_fetched_and_inverted,
            cross_rate_is_fetched_in_one_call,
            same_currency_makes_no_call,
            unknown_pair_is_unsupported,
            status_500_is_upstream_status,
            status_503_is_upstream_status,
            malformed_body_is_malformed,
            body_over_the_limit_is_malformed,
            html_content_type_is_accepted,
            chunked_body_is_accepted,
            millisecond_timestamps_mean_the_same_instant,
            connection_refused_is_connect,
            connect_timeout_is_timeout,
            hanging_upstream_times_out,
            endless_body_times_out,
            reset_is_connect,
            close_before_body_is_connect,
            truncated_body_is_connect,
            latency_under_the_timeout_succeeds,
            latency_over_the_timeout_times_out,
            percent_of_calls_with_status_503,
            percent_of_calls_reset,
            connections_are_reused,
            no_idle_connections_means_no_reuse,
            a_fault_does_not_break_the_next_call,
            stale_keep_alive_connection_is_not_used,
            idle_connections_are_dropped_after_idle_timeout,
            calls_beyond_max_connections_wait_for_a_slot,
            busy_slots_make_the_call_unavailable,
        );
    };
    (@cases $make:expr; $($case:ident),+ $(,)?) => {
        $(
            #[::actix_rt::test]
            async fn $case() {
                let make = $make;
                $crate::cases::$case(&make).await;
            }
        )+
    };
}
