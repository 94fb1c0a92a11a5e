//! `RatesProvider` over reqwest's blocking client (`reqwest::blocking`): what a program without
//! an async runtime of its own gets from reqwest. Each call blocks the thread that makes it
//! while reqwest's async client does the work on a runtime of its own, on a thread of its own
//! (one per client); the adapter makes each call on tokio's blocking pool, as ureq's does.
//!
//! The client is the async adapter's ([`crate::builder::configured`]: the same TLS, rustls with
//! aws-lc-rs trusting the system's roots and `extra_ca_pem`, verification on; the same HTTP
//! version selection, HTTP/2 by ALPN; timeouts, pool, no proxy, no redirects), wrapped in
//! reqwest's blocking builder, and its errors read the same way ([`crate::builder::rates_error`]).
//!
//! Outside a runtime: reqwest's blocking client waits for its thread to start (and every call
//! for its answer) with a wait that, in a debug build, first checks that no async runtime is
//! running on the waiting thread, and panics if one is (`enter` in `src/blocking/wait.rs`). An
//! actix worker builds its adapters on its runtime's thread, so the client is built on a
//! thread of its own ([`build_outside_the_runtime`]); calls run on the blocking pool, whose
//! threads may block. Dropping the client waits for nothing of the runtime's: it closes the
//! channel to reqwest's thread and joins it, and that thread ends its runtime itself.
//!
//! Its idle pool (`max_idle_per_host`, as the async client's) is sized above the blocking
//! pool by the defaults, as ureq's is: every thread can keep its connection.

use std::error::Error;
use std::fmt;
use std::io::{self, BufReader, Read};
use std::time::Duration;

use application::{Quotes, RatesError, RatesProvider};
use async_trait::async_trait;
use domain::CurrencyPair;
use rates_common::{
    BodyDecode, BoundedBody, BuildError, ClientSettings, ConcurrencyLimit, HttpVersion, Permit,
    Received, UpstreamCall, broken_transfer, decode_quotes_from_reader, find_in_chain, io_error,
    on_blocking_pool,
};

use crate::builder::{ReqwestOptions, ReqwestTls, build_failed, configured, rates_error};

/// Fetches rates with one reqwest blocking client, built once, on at most `blocking_threads`
/// threads of the blocking pool.
#[derive(Debug)]
pub struct ReqwestBlockingRates {
    client: reqwest::blocking::Client,
    http_version: HttpVersion,
    decode: BodyDecode,
    /// Its slots cap calls in flight at `max_connections`, and at `blocking_threads` threads.
    call: UpstreamCall,
}

impl ReqwestBlockingRates {
    pub const NAME: &'static str = "reqwest-blocking";
    /// Its TLS backend: reqwest's default, rustls with aws-lc-rs.
    pub const TLS: ReqwestTls = ReqwestTls::Rustls;
    /// The HTTP versions it speaks: HTTP/1.1, and HTTP/2 over TLS, as the async client.
    pub const HTTP_VERSIONS: &'static [HttpVersion] = &HttpVersion::ALL;
    /// Both ways of decoding: streamed, from the body as reqwest's blocking reader gives it,
    /// on the blocking thread.
    pub const DECODES: &'static [BodyDecode] = &BodyDecode::ALL;

    /// The client as this adapter configured it (TLS, pool, timeouts), for calls that skip
    /// the port and the adapter's frame: the bench's bare calls, which measure what both cost.
    pub fn client(&self) -> &reqwest::blocking::Client {
        &self.client
    }

    /// Builds the client and its pool from `settings`, on a thread of its own (see the
    /// module's documentation), whether or not the caller runs an async runtime.
    ///
    /// # Errors
    /// As [`crate::ReqwestRates::with_tls`].
    pub fn new(settings: &ClientSettings) -> Result<Self, BuildError> {
        let client = build_outside_the_runtime(settings)?;
        let in_flight = settings.max_connections.min(settings.blocking_threads);
        Ok(Self {
            client,
            http_version: settings.http_version,
            decode: settings.decode,
            call: UpstreamCall::with_slots(Self::NAME, settings, in_flight),
        })
    }

    /// The slots that cap its calls (and so its blocking threads): `waiting()` is the
    /// blocking-pool queue depth, `in_use()` the threads busy, for metrics.
    pub fn blocking_slots(&self) -> &ConcurrencyLimit {
        self.call.slots()
    }

    /// Hands the exchange, and the slot, to a blocking thread ([`on_blocking_pool`]).
    async fn on_blocking_thread(
        &self,
        pairs: &[CurrencyPair],
        slot: Permit,
    ) -> Result<(u16, Received), RatesError> {
        let call = Call {
            client: self.client.clone(),
            url: self.call.url(pairs),
            http_version: self.http_version,
            timeout: self.call.timeout,
            connect_timeout: self.call.connect_timeout,
            max_body_bytes: self.call.max_body_bytes,
            // Only a streamed decode needs the pairs on the blocking thread.
            streamed: (self.decode == BodyDecode::Streamed).then(|| pairs.to_vec()),
        };
        on_blocking_pool(slot, move || call.exchange()).await
    }
}

#[async_trait(?Send)]
impl RatesProvider for ReqwestBlockingRates {
    async fn fetch_quotes(&self, pairs: &[CurrencyPair]) -> Result<Quotes, RatesError> {
        self.call
            .run_with_slot(pairs, |slot| self.on_blocking_thread(pairs, slot))
            .await
    }
}

/// reqwest's blocking client for `settings`, built on a thread that runs no async runtime.
fn build_outside_the_runtime(
    settings: &ClientSettings,
) -> Result<reqwest::blocking::Client, BuildError> {
    let name = ReqwestBlockingRates::NAME;
    let build = || {
        let builder = configured(
            settings,
            ReqwestBlockingRates::TLS,
            ReqwestOptions::DEFAULT,
            name,
        )?;
        // The blocking client's own wait for each answer and each read of the body, beside
        // the async client's total timeout.
        reqwest::blocking::ClientBuilder::from(builder)
            .timeout(settings.timeout)
            .build()
            .map_err(|error| build_failed(name, &error))
    };
    std::thread::scope(|scope| scope.spawn(build).join())
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// What one blocking call needs, moved onto its thread.
struct Call {
    client: reqwest::blocking::Client,
    url: String,
    http_version: HttpVersion,
    timeout: Duration,
    connect_timeout: Duration,
    max_body_bytes: usize,
    /// For a streamed decode, the pairs to decode.
    streamed: Option<Vec<CurrencyPair>>,
}

impl Call {
    /// One GET, its status and its body: whole, or for a successful status with a streamed
    /// decode, the quotes decoded from the body as reqwest's reader gives it.
    fn exchange(&self) -> Result<(u16, Received), RatesError> {
        let response = self
            .client
            .get(&self.url)
            .send()
            .map_err(|error| self.error(&error))?;
        self.http_version
            .check_answer(&response.version(), &reqwest::Version::HTTP_2)?;
        let status = response.status().as_u16();
        let declared = response.content_length();
        BoundedBody::check_declared(declared, self.max_body_bytes)?;
        let mut reading = Limited {
            body: response,
            left: self.max_body_bytes,
        };
        if let Some(pairs) = &self.streamed
            && (200..300).contains(&status)
        {
            // serde_json reads a byte at a time: through a buffer, not one wait on reqwest's
            // thread per byte.
            let quotes = decode_quotes_from_reader(BufReader::new(reading), pairs, |io| {
                self.read_error(&io)
            });
            return Ok((status, Received::Decoded(quotes)));
        }
        // Sized once when the length is declared (and within the limit, checked above).
        let mut body = Vec::with_capacity(declared.map_or(0, |length| length as usize));
        reading
            .read_to_end(&mut body)
            .map_err(|io| self.read_error(&io))?;
        Ok((status, body.into()))
    }

    fn error(&self, error: &reqwest::Error) -> RatesError {
        rates_error(error, self.http_version, self.connect_timeout, self.timeout)
    }

    /// An error reading the body: past the limit, reqwest's (which its reader wraps in an io
    /// error), or the io error itself.
    fn read_error(&self, io: &io::Error) -> RatesError {
        if find_in_chain::<TooLarge>(io).is_some() {
            return BoundedBody::too_large(self.max_body_bytes);
        }
        if let Some(error) = find_in_chain::<reqwest::Error>(io) {
            return self.error(error);
        }
        match io_error(io, self.timeout) {
            RatesError::Connect(_) => broken_transfer(io),
            timeout => timeout,
        }
    }
}

/// The body, read until it outgrows `left` bytes, then refused with [`TooLarge`].
struct Limited<R> {
    body: R,
    left: usize,
}

impl<R: Read> Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // One byte past the limit is enough to know that the body is too long.
        let room = buf.len().min(self.left.saturating_add(1));
        let read = self.body.read(&mut buf[..room])?;
        if read > self.left {
            return Err(io::Error::other(TooLarge));
        }
        self.left -= read;
        Ok(read)
    }
}

/// The body went past its limit.
#[derive(Debug)]
struct TooLarge;

impl fmt::Display for TooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the body is longer than its limit")
    }
}

impl Error for TooLarge {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_past_its_limit_is_refused_and_one_at_it_is_read() {
        let mut at_the_limit = Vec::new();
        let read = Limited {
            body: &b"12345"[..],
            left: 5,
        }
        .read_to_end(&mut at_the_limit);
        assert_eq!(
            (read.ok(), at_the_limit.as_slice()),
            (Some(5), &b"12345"[..])
        );
        let error = Limited {
            body: &b"123456"[..],
            left: 5,
        }
        .read_to_end(&mut Vec::new())
        .unwrap_err();
        assert!(find_in_chain::<TooLarge>(&error).is_some(), "{error}");
    }

    /// Built and dropped on a runtime's thread, as an actix worker builds and drops its
    /// adapters: reqwest's blocking client would panic there, in a debug build, if it were
    /// built on that thread.
    #[actix_rt::test]
    async fn built_and_dropped_inside_a_runtime() {
        let plain = ClientSettings::for_base_url("http://127.0.0.1:9");
        let rates = ReqwestBlockingRates::new(&plain).expect("it builds inside a runtime");
        drop(rates);
        let h2c = ClientSettings {
            http_version: HttpVersion::Http2,
            ..plain
        };
        let error = ReqwestBlockingRates::new(&h2c).unwrap_err();
        assert_eq!(error.client, ReqwestBlockingRates::NAME);
        assert!(error.reason.contains("https://"), "{error}");
    }

    #[test]
    fn built_and_dropped_without_a_runtime() {
        let settings = ClientSettings::for_base_url("http://127.0.0.1:9");
        let rates = ReqwestBlockingRates::new(&settings).expect("it builds on a plain thread");
        drop(rates);
    }
}
