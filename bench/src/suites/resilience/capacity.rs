//! Each client's capacity as an open model sees it: the highest rate the service sustains with
//! a p99 within [`LATENCY_OBJECTIVE`] and no failure. After an unrecorded warm-up at the
//! first step's rate, a ramp of constant-rate steps, each √2 times the last, is sent in one
//! run; each step is judged by the requests due in it, and the capacity is the highest step
//! sustained before the first two misses in a row (one miss alone can be a stall of a busy
//! machine). A closed model (the load suite's
//! capacity step) measures more on a small machine, because its generator never leaves the
//! runtime; the overload and the soak are open-model runs, so they are sized from this.

use std::sync::Arc;
use std::time::Duration;

use tokio::runtime::Runtime;

use crate::error::BenchError;
use crate::model::RampStep;
use crate::suites::load::http::{LoadClient, Target};
use crate::suites::load::open;
use crate::suites::load::schedule::{Phases, Schedule, Timetable as _};
use crate::suites::load::timeline::{Timeline, counts};

/// A step is sustained when its p99, from the due time, is within this.
pub const LATENCY_OBJECTIVE: Duration = Duration::from_millis(25);
/// The unrecorded warm-up before the ramp: the service's first calls open its connections.
const WARMUP: Duration = Duration::from_millis(500);
/// The ramp's steps: 250 RPS times √2 per step, to 16 000 RPS.
pub const RAMP_RPS: [u32; 13] = [
    250, 354, 500, 707, 1_000, 1_414, 2_000, 2_828, 4_000, 5_657, 8_000, 11_314, 16_000,
];

/// Sends the ramp to `target`, `step` per rate; the steps as they went and the capacity (the
/// rate of the last sustained step before the first unsustained one; `None` if even the
/// first failed).
pub fn measure(
    runtime: &Runtime,
    client: &Arc<LoadClient>,
    target: &Arc<Target>,
    step: Duration,
) -> Result<(Vec<RampStep>, Option<u32>), BenchError> {
    let warmup = Schedule::new(RAMP_RPS[0], WARMUP);
    open::run(runtime, client, target, warmup)?;
    let ramp = Phases(RAMP_RPS.map(|rps| Schedule::new(rps, step)));
    let expected = usize::try_from(ramp.count()).unwrap_or(0);
    let (timeline, _) = open::run_into(runtime, client, target, ramp, move |start| {
        Timeline::new(start, expected)
    })?;
    let steps: Vec<RampStep> = RAMP_RPS
        .iter()
        .enumerate()
        .map(|(index, &rps)| RampStep {
            rps,
            requests: counts(timeline.due_in(ramp.start_of(index), ramp.start_of(index + 1))),
        })
        .collect();
    let planned = ramp.0.map(Schedule::count);
    let capacity = capacity_of(&steps, &planned);
    Ok((steps, capacity))
}

/// Whether a step kept up: every request planned was sent and answered 200, with a p99
/// within the objective.
fn sustained(step: &RampStep, planned: u64) -> bool {
    let requests = &step.requests;
    requests.sent == planned
        && requests.ok == requests.sent
        && requests
            .ok_p99_ms
            .is_some_and(|p99| p99 <= LATENCY_OBJECTIVE.as_secs_f64() * 1_000.0)
}

/// The rate of the highest sustained step before the first two misses in a row.
fn capacity_of(steps: &[RampStep], planned: &[u64]) -> Option<u32> {
    let kept: Vec<bool> = steps
        .iter()
        .zip(planned)
        .map(|(step, &planned)| sustained(step, planned))
        .collect();
    let end = kept
        .windows(2)
        .position(|pair| !pair[0] && !pair[1])
        .unwrap_or(kept.len());
    steps[..end]
        .iter()
        .zip(&kept)
        .rev()
        .find(|&(_, &kept)| kept)
        .map(|(step, _)| step.rps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::PhaseCounts;

    fn step(rps: u32, sent: u64, ok: u64, p99_ms: f64) -> RampStep {
        RampStep {
            rps,
            requests: PhaseCounts {
                sent,
                ok,
                ok_p99_ms: Some(p99_ms),
                ..PhaseCounts::default()
            },
        }
    }

    #[test]
    fn the_capacity_is_the_highest_step_before_two_misses_in_a_row() {
        let steps = [
            step(250, 50, 50, 1.0),
            // One miss alone does not end the ramp.
            step(354, 71, 71, 26.0),
            step(500, 100, 100, 2.0),
            step(707, 141, 141, 30.0),
            step(1_000, 200, 200, 40.0),
            // Sustained again, but after two misses: not counted.
            step(1_414, 283, 283, 3.0),
        ];
        let planned = [50, 71, 100, 141, 200, 283];
        assert_eq!(capacity_of(&steps, &planned), Some(500));
        // The first step missed, the second kept up: a capacity all the same.
        assert_eq!(capacity_of(&steps[1..3], &planned[1..3]), Some(500));
        // A failure, or a request the generator could not send, is a miss too.
        let failed = [step(250, 50, 49, 1.0)];
        assert_eq!(capacity_of(&failed, &[50]), None);
        let skipped = [step(250, 49, 49, 1.0)];
        assert_eq!(capacity_of(&skipped, &[50]), None);
        assert_eq!(capacity_of(&steps[..2], &planned[..2]), Some(250));
    }
}
