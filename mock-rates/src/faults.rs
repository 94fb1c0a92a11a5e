//! Faults injected into `/api/live` answers, and the seeded draw that decides when.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Faults applied to `/api/live` (never to `/health` or `/__admin/*`).
///
/// Missing JSON fields take their defaults, so `{"mode":"hang"}` is a complete value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Faults {
    /// What goes wrong when a fault fires.
    pub mode: FaultMode,
    /// Chance in percent (0..=100) that a request gets the fault.
    pub percent: u8,
    /// Status sent by [`FaultMode::Status`].
    pub status: u16,
    /// Delay added before answering every `/api/live` request, whatever the mode.
    pub latency_ms: u64,
    /// Extra delay drawn uniformly from `0..=jitter_ms` per request.
    pub jitter_ms: u64,
}

impl Default for Faults {
    fn default() -> Self {
        Self {
            mode: FaultMode::None,
            percent: 100,
            status: 500,
            latency_ms: 0,
            jitter_ms: 0,
        }
    }
}

impl Faults {
    /// Rejects values the server could not act on sensibly: a percent over 100, or a status
    /// outside 200..=599 or one that cannot carry a body (204, 205, 304).
    pub fn validate(&self) -> Result<(), String> {
        if self.percent > 100 {
            return Err(format!("percent must be 0..=100, got {}", self.percent));
        }
        // 1xx are not final answers and 204/205/304 cannot carry the error body.
        if !(200..=599).contains(&self.status) || matches!(self.status, 204 | 205 | 304) {
            return Err(format!(
                "status must be 200..=599 and allow a body, got {}",
                self.status
            ));
        }
        Ok(())
    }
}

/// What goes wrong when a fault fires.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum FaultMode {
    /// No fault: latency and jitter still apply.
    #[default]
    None,
    /// Answer with `Faults::status` and a small JSON error body (`Retry-After: 1` for 503).
    Status,
    /// Close the socket with `SO_LINGER` 0 so the client sees a TCP RST, writing nothing.
    /// HTTP/2: reset the stream with RST_STREAM(INTERNAL_ERROR) instead.
    Reset,
    /// Send the status line and headers, then close before the body (HTTP/2: reset the
    /// stream after the headers).
    Eof,
    /// Send the headers with the full `Content-Length`, then half the body, then close
    /// (HTTP/2: reset the stream after half the body).
    Truncated,
    /// Answer 200 with correct framing but a body that is not JSON.
    Malformed,
    /// Answer 200 chunked, then one 1-byte chunk every 100 ms until the client leaves
    /// (HTTP/2: one 1-byte DATA frame every 100 ms).
    Drip,
    /// Read the request and never answer.
    Hang,
    /// HTTP/2: send GOAWAY on the connection and close it without answering the stream.
    /// HTTP/1.1, which has no such frame: close the connection without answering.
    Goaway,
    /// HTTP/2: refuse the stream with RST_STREAM(REFUSED_STREAM), which says it was not
    /// processed. HTTP/1.1: close the connection without answering.
    Refused,
}

/// What one `/api/live` request gets: a delay, and a fault or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Decision {
    pub delay: Duration,
    /// The fault to inject instead of the normal answer, if it fired.
    pub fault: Option<FaultMode>,
    pub status: u16,
}

impl Decision {
    /// Draws the delay and whether the fault fires, from `rng`.
    pub(crate) fn draw(faults: &Faults, rng: &mut fastrand::Rng) -> Self {
        let jitter = if faults.jitter_ms == 0 {
            0
        } else {
            rng.u64(0..=faults.jitter_ms)
        };
        let fires = faults.mode != FaultMode::None
            && faults.percent > 0
            // Only draw when it matters, so percent 100 does not consume randomness.
            && (faults.percent >= 100 || rng.u8(0..100) < faults.percent);
        Self {
            delay: Duration::from_millis(faults.latency_ms.saturating_add(jitter)),
            fault: fires.then_some(faults.mode),
            status: faults.status,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_fields_take_defaults() {
        let faults: Faults = serde_json::from_str(r#"{"mode":"hang"}"#).unwrap();
        assert_eq!(
            faults,
            Faults {
                mode: FaultMode::Hang,
                ..Faults::default()
            }
        );
    }

    #[test]
    fn serializes_in_snake_case() {
        let json = serde_json::to_string(&Faults {
            mode: FaultMode::Truncated,
            percent: 50,
            status: 503,
            latency_ms: 10,
            jitter_ms: 5,
        })
        .unwrap();
        assert_eq!(
            json,
            r#"{"mode":"truncated","percent":50,"status":503,"latency_ms":10,"jitter_ms":5}"#
        );
    }

    #[test]
    fn unknown_fields_and_modes_are_rejected() {
        assert!(serde_json::from_str::<Faults>(r#"{"latency":5}"#).is_err());
        assert!(serde_json::from_str::<Faults>(r#"{"mode":"explode"}"#).is_err());
    }

    #[test]
    fn validation_bounds_percent_and_status() {
        let ok = Faults::default();
        assert!(ok.validate().is_ok());
        for bad in [
            Faults {
                percent: 101,
                ..ok.clone()
            },
            Faults {
                status: 99,
                ..ok.clone()
            },
            Faults {
                status: 600,
                ..ok.clone()
            },
            Faults {
                status: 304,
                ..ok.clone()
            },
        ] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn percent_bounds_are_exact() {
        let mut rng = fastrand::Rng::with_seed(7);
        let never = Faults {
            mode: FaultMode::Reset,
            percent: 0,
            ..Faults::default()
        };
        let always = Faults {
            percent: 100,
            ..never.clone()
        };
        for _ in 0..1000 {
            assert_eq!(Decision::draw(&never, &mut rng).fault, None);
            assert_eq!(
                Decision::draw(&always, &mut rng).fault,
                Some(FaultMode::Reset)
            );
        }
    }

    #[test]
    fn mode_none_never_fires_and_jitter_stays_in_range() {
        let mut rng = fastrand::Rng::with_seed(7);
        let faults = Faults {
            latency_ms: 10,
            jitter_ms: 5,
            ..Faults::default()
        };
        for _ in 0..1000 {
            let decision = Decision::draw(&faults, &mut rng);
            assert_eq!(decision.fault, None);
            assert!((10..=15).contains(&decision.delay.as_millis()));
        }
    }

    #[test]
    fn same_seed_same_draws() {
        let faults = Faults {
            mode: FaultMode::Eof,
            percent: 30,
            jitter_ms: 100,
            ..Faults::default()
        };
        let draws = |seed| {
            let mut rng = fastrand::Rng::with_seed(seed);
            (0..50)
                .map(|_| Decision::draw(&faults, &mut rng))
                .collect::<Vec<_>>()
        };
        assert_eq!(draws(42), draws(42));
        assert_ne!(draws(42), draws(43));
    }
}
