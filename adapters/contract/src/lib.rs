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
//! dev-dependency); `contract_tests!(make = ..., tls)` runs every case over plain HTTP and
//! over TLS, plus the cases only TLS has. Each case builds its own client through `make`, inside the test's actix
//! runtime, as an actix worker would, and checks the adapter through the port (and the payment
//! use case where it says more).
//!
//! The cases are private: the only way to one is an entry point generated from the list in
//! [`for_each_case!`], so a case left out of the list is dead code and fails the lint.

mod answers;
mod faults;
mod pool;
mod support;
mod tls;

pub use support::{MakeProvider, Protocol, run_over};

/// The one list of contract cases, as `module::case`. Hands it to the macro `$callback`
/// (a macro at this crate's root), after the tokens in braces.
#[doc(hidden)]
#[macro_export]
macro_rules! for_each_case {
    ($callback:ident { $($before:tt)* }) => {
        $crate::$callback! { { $($before)* }
            answers::direct_pair_keeps_the_exact_rate,
            answers::inverse_pair_is_fetched_and_inverted,
            answers::cross_rate_is_fetched_in_one_call,
            answers::same_currency_makes_no_call,
            answers::unknown_pair_is_unsupported,
            answers::status_500_is_upstream_status,
            answers::status_503_is_upstream_status,
            answers::malformed_body_is_malformed,
            answers::body_over_the_limit_is_malformed,
            answers::html_content_type_is_accepted,
            answers::chunked_body_is_accepted,
            answers::millisecond_timestamps_mean_the_same_instant,
            faults::connection_refused_is_connect,
            faults::connect_timeout_is_timeout,
            faults::hanging_upstream_times_out,
            faults::endless_body_times_out,
            faults::reset_is_connect,
            faults::close_before_body_is_connect,
            faults::truncated_body_is_connect,
            faults::latency_under_the_timeout_succeeds,
            faults::latency_over_the_timeout_times_out,
            faults::percent_of_calls_with_status_503,
            faults::percent_of_calls_reset,
            faults::a_fault_does_not_break_the_next_call,
            pool::connections_are_reused,
            pool::no_idle_connections_means_no_reuse,
            pool::stale_keep_alive_connection_is_not_used,
            pool::idle_connections_are_dropped_after_idle_timeout,
            pool::calls_beyond_max_connections_wait_for_a_slot,
            pool::busy_slots_make_the_call_unavailable,
        }
    };
}

/// The cases only an upstream over TLS has, in the form of [`for_each_case!`].
#[doc(hidden)]
#[macro_export]
macro_rules! for_each_tls_case {
    ($callback:ident { $($before:tt)* }) => {
        $crate::$callback! { { $($before)* }
            tls::one_handshake_per_kept_alive_connection,
            tls::an_untrusted_certificate_is_tls,
            tls::a_certificate_for_another_host_is_tls,
            tls::a_server_answering_in_plain_http_is_tls,
        }
    };
}

/// One public entry point per case in the list, the only way to reach a case from outside.
#[doc(hidden)]
#[macro_export]
macro_rules! entry_points {
    ({} $($module:ident :: $case:ident),+ $(,)?) => {
        $(
            pub async fn $case(make: &$crate::MakeProvider) {
                $crate::$module::$case(make).await;
            }
        )+
    };
}

/// The cases' entry points, for `contract_tests!`.
#[doc(hidden)]
pub mod cases {
    crate::for_each_case!(entry_points {});
    crate::for_each_tls_case!(entry_points {});
}

/// Expands to one `#[actix_rt::test]` per contract case, each calling its case with `make`,
/// over plain HTTP; with `tls`, to a module `http` of those and a module `https` running every
/// case over TLS, and the cases only TLS has.
#[macro_export]
macro_rules! contract_tests {
    (make = $make:expr $(,)?) => {
        $crate::for_each_case!(test_functions { $make, $crate::Protocol::Http });
    };
    (make = $make:expr, tls $(,)?) => {
        mod http {
            $crate::for_each_case!(test_functions { $make, $crate::Protocol::Http });
        }
        mod https {
            $crate::for_each_case!(test_functions { $make, $crate::Protocol::Https });
            $crate::for_each_tls_case!(test_functions { $make, $crate::Protocol::Https });
        }
    };
}

/// One `#[actix_rt::test]` per case in the list, named for the case.
#[doc(hidden)]
#[macro_export]
macro_rules! test_functions {
    ({ $make:expr, $protocol:expr } $($module:ident :: $case:ident),+ $(,)?) => {
        $(
            #[::actix_rt::test]
            async fn $case() {
                $crate::run_over($protocol);
                let make = $make;
                $crate::cases::$case(&make).await;
            }
        )+
    };
}
