//! When a soak refutes a capacity: the rate the service does sustain with that client. The
//! suite steps down a quarter step (2^¼) at a time, at most [`STEP_DOWNS`] times: at each
//! rate a confirmation stretch, then a soak at the same share of it as the one that refuted
//! the capacity; the first rate that holds both is the capacity sustained. A stall of the
//! machine during one soak costs a client a quarter step (within the rounds' usual spread),
//! not its figure; a client that cannot hold its rate keeps failing down the steps.

use std::sync::Arc;

use crate::error::BenchError;
use crate::suites::load::http::{LoadClient, ReadyScenario};
use crate::suites::resilience::servers::ClientOverProtocol;
use crate::suites::resilience::{capacity, soak};
use bench_model::{PhaseCounts, RampStep, Refuted, ResilienceSettings, StepDown, millis};

/// The most quarter steps the suite goes down after a refutation: two reach 71% of it.
pub const STEP_DOWNS: i32 = 2;

/// What the suite works with when it steps a client down.
pub struct Sustain<'a> {
    pub runtime: &'a tokio::runtime::Runtime,
    pub client: &'a Arc<LoadClient>,
    pub sizes: &'a ResilienceSettings,
    /// The service's process, whose memory the soak reads.
    pub pid: u32,
}

impl Sustain<'_> {
    /// The rates tried below `capacity_rps` for `who`, in order, up to the first that held;
    /// the service let go idle (`settle`) before each stretch.
    pub fn step_down(
        &self,
        who: ClientOverProtocol,
        target: &Arc<ReadyScenario>,
        capacity_rps: u32,
        settle: &dyn Fn(),
    ) -> Result<Vec<StepDown>, BenchError> {
        let mut tried = Vec::new();
        for quarters in 1..=STEP_DOWNS {
            let rps = capacity::quarter_steps(capacity_rps, -quarters);
            settle();
            let (confirmation, held) = capacity::confirm(
                self.runtime,
                self.client,
                target,
                rps,
                millis(self.sizes.confirm_ms),
            )?;
            if !held {
                let why = missed(rps, &confirmation.requests);
                tried.push(StepDown {
                    rps,
                    confirmation,
                    soak: None,
                    refuted: Some(why),
                });
                continue;
            }
            settle();
            let soak = soak::run(
                self.runtime,
                self.client,
                who,
                target,
                self.sizes,
                f64::from(rps),
                self.pid,
            )?;
            let refuted = soak::refuted_by(&soak, self.sizes.soak_percent);
            let held = refuted.is_none();
            tried.push(StepDown {
                rps,
                confirmation,
                soak: Some(RampStep {
                    rps: soak.rps,
                    requests: soak.requests,
                    cpu: None,
                }),
                refuted,
            });
            if held {
                break;
            }
        }
        Ok(tried)
    }
}

/// What a confirmation stretch at `rps` missed: its failures and its p99.
fn missed(rps: u32, requests: &PhaseCounts) -> Refuted {
    Refuted::Confirmation {
        rps,
        ok: requests.ok,
        sent: requests.sent,
        p99_ms: requests.ok_p99_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_down_says_what_the_stretch_missed() {
        let requests = PhaseCounts {
            sent: 100,
            ok: 97,
            ok_p99_ms: Some(31.25),
            ..PhaseCounts::default()
        };
        assert_eq!(
            missed(16_000, &requests),
            Refuted::Confirmation {
                rps: 16_000,
                ok: 97,
                sent: 100,
                p99_ms: Some(31.25)
            }
        );
        assert_eq!(capacity::quarter_steps(19_027, -STEP_DOWNS), 13_454);
    }
}
