//! `RatesProvider` over reqwest: its async client ([`ReqwestRates`]), and its blocking client
//! on the blocking pool ([`ReqwestBlockingRates`], module `blocking`), built from the same
//! settings and reading errors the same way. The async client takes either of the TLS
//! backends reqwest offers ([`ReqwestTls`]):
//! - rustls with aws-lc-rs (reqwest's own default provider), given explicitly: reqwest is built
//!   with `rustls-no-provider` and takes our rustls config (`tls_backend_preconfigured`),
//!   trusting the system's roots (rustls-native-certs) and `extra_ca_pem`;
//! - native-tls, the system's OpenSSL on Linux, trusting OpenSSL's own system roots (found by
//!   openssl-probe) and `extra_ca_pem`.
//!
//! HTTP/2 (`http_version = "2"`): `http2_prior_knowledge`, which over TLS means ALPN offers
//! `h2` alone (reqwest sets native-tls's ALPN so; the rustls config is ours and offers only
//! `h2` already) and hyper-util speaks nothing else; with "1.1", `http1_only`, ALPN `http/1.1`
//! alone. Either way the answer's version is checked. Calls multiplex on one connection per
//! host (hyper-util's pool); `UpstreamCall`'s slots still cap them at `max_connections`.
//!
//! Both verify certificates and host names. For an `http://` upstream no TLS ever runs, so
//! either backend builds the same client, on a rustls config that loads no roots: native-tls
//! would read the system's CA file as soon as its connector is built.
//!
//! Stale connections: reqwest pools through hyper-util's legacy client, so it behaves as the
//! hyper adapter does: each idle connection's task notices the server's FIN and leaves the pool,
//! and a request that meets a closed reused connection before it is written is retried on
//! another (`retry_canceled_requests`, on by default and left on by reqwest). reqwest's own
//! retry policy (0.13 `retry`, default "protocol NACKs") only covers HTTP/2 and HTTP/3
//! refusals, never HTTP/1.1. One written just as the server closes is not retried:
//! `idle_timeout` below the server's keep-alive is what keeps that window shut.
//!
//! The setting that resends it instead, the row `reqwest-retry`
//! ([`ReqwestRetry::UnansweredIdempotent`] in [`ReqwestOptions`]): reqwest's documented retry
//! policy, scoped to the upstream's host, resending a GET or HEAD that failed on a connection
//! before any answer came, within reqwest's default budget. The policy is
//! [`resend_unanswered`], to copy:
//! `reqwest::Client::builder().retry(resend_unanswered(host))`
//! (docs/findings/idle-close-race.md has what it changes).

mod async_client;
mod blocking;
mod builder;

pub use async_client::ReqwestRates;
pub use blocking::ReqwestBlockingRates;
pub use builder::{ReqwestOptions, ReqwestResolver, ReqwestRetry, ReqwestTls, resend_unanswered};
