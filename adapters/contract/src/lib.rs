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
//! over TLS, plus the cases only TLS has; `contract_tests!(make = ..., tls, h2)` also runs
//! them over HTTP/2 (the client built with `http_version` "2"), with the cases only HTTP/2
//! has; `tls, h2, cold_burst_on_one_connection` adds the case of a cold pool's burst sharing
//! one connection, for the clients that promise it; `h2_goaway_costs_the_next_call` in place
//! of `h2` for a client that lends again an h2
//! connection a GOAWAY ended (awc), which is checked for that instead of for recovering at
//! once. Each case builds its own client through `make`, inside the test's actix
//! runtime, as an actix worker would, and checks the adapter through the port (and the payment
//! use case where it says more).
//!
//! The cases are private: the only way to one is an entry point generated from the list in
//! [`for_each_case!`], so a case left out of the list is dead code and fails the lint.

mod answers;
mod faults;
mod h2;
mod pool;
mod support;
mod tls;

pub use rates_common::BodyDecode;
pub use support::{MakeProvider, Protocol, decode_with, run_over};

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
            answers::a_large_answer_is_read_whole,
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
            pool::idle_connections_are_dropped_after_idle_timeout,
            pool::calls_beyond_max_connections_wait_for_a_slot,
            pool::busy_slots_make_the_call_unavailable,
        }
    };
}

/// The cases about HTTP/1.1's keep-alive that do not carry over to HTTP/2, in the form of
/// [`for_each_case!`]; run over HTTP/1.1 only.
/// - `max_idle_per_host = 0` retires an HTTP/1.1 connection after each response; an h2
///   connection is shared by the calls in flight, and whether a client keeps it between calls
///   is its own pool's policy for h2, not this setting's.
/// - A stale keep-alive connection is one the server closed while idle. An h2 server ends an
///   idle connection gracefully instead (GOAWAY, a PING, then the final GOAWAY), and serves a
///   stream sent before the final GOAWAY: libcurl, which reads an idle connection only when a
///   transfer runs, reuses it and is served, so no second connection need open. A call after
///   a GOAWAY that ended the connection is `h2::h2_faults_do_not_break_the_next_call`.
#[doc(hidden)]
#[macro_export]
macro_rules! for_each_http1_case {
    ($callback:ident { $($before:tt)* }) => {
        $crate::$callback! { { $($before)* }
            pool::no_idle_connections_means_no_reuse,
            pool::stale_keep_alive_connection_is_not_used,
        }
    };
}

/// The cases only HTTP/2 has, for every client that speaks it, in the form of
/// [`for_each_case!`].
#[doc(hidden)]
#[macro_export]
macro_rules! for_each_h2_case {
    ($callback:ident { $($before:tt)* }) => {
        $crate::$callback! { { $($before)* }
            h2::goaway_is_connect,
            h2::refused_stream_is_connect,
            h2::a_reset_stream_does_not_cost_the_connection,
            h2::concurrent_calls_share_one_connection,
            h2::the_servers_stream_limit_is_kept,
            h2::http2_against_an_http1_only_upstream_fails_clearly,
            h2::http11_over_tls_stays_http11_against_an_h2_upstream,
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
    crate::for_each_http1_case!(entry_points {});
    crate::for_each_tls_case!(entry_points {});
    crate::for_each_h2_case!(entry_points {});
    crate::entry_points! { {}
        h2::h2_faults_do_not_break_the_next_call,
        h2::after_a_goaway_the_next_call_fails_on_the_ended_connection,
        h2::a_cold_burst_opens_one_connection,
    }
}

/// Expands to one `#[actix_rt::test]` per contract case, each calling its case with `make`,
/// over plain HTTP; with `tls`, to a module `http` of those and a module `https` running every
/// case over TLS, and the cases only TLS has; with `tls, h2` (or `tls,
/// h2_goaway_costs_the_next_call`), also to a module `h2` running the cases that apply to
/// HTTP/2 over it, and the cases only HTTP/2 has.
#[macro_export]
macro_rules! contract_tests {
    (make = $make:expr $(,)?) => {
        $crate::for_each_case!(test_functions { $make, $crate::Protocol::Http });
        $crate::for_each_http1_case!(test_functions { $make, $crate::Protocol::Http });
    };
    (make = $make:expr, tls $(,)?) => {
        mod http {
            $crate::for_each_case!(test_functions { $make, $crate::Protocol::Http });
            $crate::for_each_http1_case!(test_functions { $make, $crate::Protocol::Http });
        }
        mod https {
            $crate::for_each_case!(test_functions { $make, $crate::Protocol::Https });
            $crate::for_each_http1_case!(test_functions { $make, $crate::Protocol::Https });
            $crate::for_each_tls_case!(test_functions { $make, $crate::Protocol::Https });
        }
    };
    (make = $make:expr, tls, h2 $(,)?) => {
        $crate::contract_tests!(@h2 $make, h2_faults_do_not_break_the_next_call);
    };
    // As `tls, h2`, for a client that knows before its first handshake that the upstream
    // speaks h2, and so shares one connection from a cold pool: also that case.
    (make = $make:expr, tls, h2, cold_burst_on_one_connection $(,)?) => {
        $crate::contract_tests!(@h2 $make, h2_faults_do_not_break_the_next_call);
        mod h2_cold_pool {
            $crate::test_functions! { { $make, $crate::Protocol::H2 }
                h2::a_cold_burst_opens_one_connection,
            }
        }
    };
    (make = $make:expr, tls, h2_goaway_costs_the_next_call $(,)?) => {
        $crate::contract_tests!(
            @h2 $make, after_a_goaway_the_next_call_fails_on_the_ended_connection
        );
    };
    // Over h2: the cases that apply, the TLS and h2 ones, and `$after_faults`, the case of
    // what the next call does after each h2 fault.
    (@h2 $make:expr, $after_faults:ident) => {
        $crate::contract_tests!(make = $make, tls);
        mod h2 {
            $crate::for_each_case!(test_functions { $make, $crate::Protocol::H2 });
            $crate::for_each_tls_case!(test_functions { $make, $crate::Protocol::H2 });
            $crate::for_each_h2_case!(test_functions { $make, $crate::Protocol::H2 });
            $crate::test_functions! { { $make, $crate::Protocol::H2 }
                h2::$after_faults,
            }
        }
    };
}

/// The cases of [`for_each_case!`] again over HTTP/1.1 in the clear, the client decoding each
/// answer as it receives it (`BodyDecode::Streamed`), in a module `http_streamed`: for an
/// adapter that offers that decode, beside its `contract_tests!`.
#[macro_export]
macro_rules! streamed_contract_tests {
    (make = $make:expr $(,)?) => {
        mod http_streamed {
            $crate::for_each_case!(test_functions {
                $make, $crate::Protocol::Http, $crate::BodyDecode::Streamed
            });
        }
    };
}

/// One `#[actix_rt::test]` per case in the list, named for the case; the clients decode the
/// answer whole unless a decode is given.
#[doc(hidden)]
#[macro_export]
macro_rules! test_functions {
    ({ $make:expr, $protocol:expr } $($module:ident :: $case:ident),+ $(,)?) => {
        $crate::test_functions! {
            { $make, $protocol, $crate::BodyDecode::Whole } $($module :: $case),+
        }
    };
    ({ $make:expr, $protocol:expr, $decode:expr } $($module:ident :: $case:ident),+ $(,)?) => {
        $(
            #[::actix_rt::test]
            async fn $case() {
                $crate::run_over($protocol);
                $crate::decode_with($decode);
                let make = $make;
                $crate::cases::$case(&make).await;
            }
        )+
    };
}
