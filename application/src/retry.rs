//! Optional retry of rate fetches: off by default, so that benchmarks measure single calls.

use std::time::Duration;

use async_trait::async_trait;

use crate::RatesError;

/// How a failed rate fetch is retried. A fetch is a GET, idempotent, so retrying it is safe;
/// only failures another attempt may cure are retried (see [`RetryPolicy::should_retry`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included; 1 turns retrying off.
    pub max_attempts: u32,
    /// The ceiling of the first backoff; it doubles for each further retry...
    pub base_backoff: Duration,
    /// ...up to this cap.
    pub max_backoff: Duration,
}

impl RetryPolicy {
    /// One attempt, no retry.
    pub const OFF: RetryPolicy = RetryPolicy {
        max_attempts: 1,
        base_backoff: Duration::ZERO,
        max_backoff: Duration::ZERO,
    };

    pub fn is_enabled(&self) -> bool {
        self.max_attempts > 1
    }

    /// Whether another attempt may cure `error`: a timeout, a connection that failed or broke,
    /// or an upstream 5xx / 429. A bad body, an unsupported pair, a failed TLS handshake (the
    /// same certificate comes back) or our own exhausted pool are not retried: the next attempt
    /// would meet the same answer, or add to the overload.
    pub fn should_retry(error: &RatesError) -> bool {
        match error {
            RatesError::Timeout(_) | RatesError::Connect(_) => true,
            RatesError::UpstreamStatus(status) => *status == 429 || *status >= 500,
            RatesError::Malformed(_)
            | RatesError::Tls(_)
            | RatesError::UnsupportedPair(_)
            | RatesError::Unavailable(_) => false,
        }
    }

    /// The most to wait before retry number `retry` (1 for the second attempt): the base
    /// backoff doubled for each earlier retry, capped.
    pub fn backoff_ceiling(&self, retry: u32) -> Duration {
        let doublings = retry.saturating_sub(1).min(31);
        self.base_backoff
            .saturating_mul(1 << doublings)
            .min(self.max_backoff)
    }

    /// The wait before retry number `retry`: between half the ceiling and the ceiling, at
    /// random, so that callers who failed together do not retry together.
    pub fn backoff(&self, retry: u32) -> Duration {
        let ceiling = self.backoff_ceiling(retry);
        ceiling / 2 + ceiling.mul_f64(fastrand::f64() / 2.0)
    }
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self::OFF
    }
}

/// Waiting, as a port: the api waits on its runtime's timer; tests record the waits instead.
#[async_trait(?Send)]
pub trait Sleeper {
    async fn sleep(&self, duration: Duration);
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLICY: RetryPolicy = RetryPolicy {
        max_attempts: 5,
        base_backoff: Duration::from_millis(20),
        max_backoff: Duration::from_millis(50),
    };

    #[test]
    fn backoff_doubles_up_to_the_cap_with_jitter_below_the_ceiling() {
        let ceilings: Vec<u128> = (1..=4)
            .map(|r| POLICY.backoff_ceiling(r).as_millis())
            .collect();
        assert_eq!(ceilings, [20, 40, 50, 50]);
        for retry in 1..=4 {
            let ceiling = POLICY.backoff_ceiling(retry);
            for _ in 0..100 {
                let wait = POLICY.backoff(retry);
                assert!(
                    wait >= ceiling / 2 && wait <= ceiling,
                    "{wait:?} vs {ceiling:?}"
                );
            }
        }
        assert_eq!(POLICY.backoff_ceiling(u32::MAX), Duration::from_millis(50));
    }

    #[test]
    fn retries_only_what_another_attempt_may_cure() {
        assert!(RetryPolicy::should_retry(&RatesError::Timeout(
            String::new()
        )));
        assert!(RetryPolicy::should_retry(&RatesError::Connect(
            String::new()
        )));
        assert!(RetryPolicy::should_retry(&RatesError::UpstreamStatus(503)));
        assert!(RetryPolicy::should_retry(&RatesError::UpstreamStatus(429)));
        assert!(!RetryPolicy::should_retry(&RatesError::UpstreamStatus(404)));
        assert!(!RetryPolicy::should_retry(&RatesError::Malformed(
            String::new()
        )));
        assert!(!RetryPolicy::should_retry(&RatesError::Tls(String::new())));
        assert!(!RetryPolicy::should_retry(&RatesError::UnsupportedPair(
            String::new()
        )));
        assert!(!RetryPolicy::should_retry(&RatesError::Unavailable(
            String::new()
        )));
        assert!(!RetryPolicy::OFF.is_enabled());
    }
}
