//! Each client's capacity as an open model sees it: the highest rate the service sustains with
//! no failure, nothing left unsent, and a p99 within [`LATENCY_OBJECTIVE`], held long enough
//! to say so. One round of the search:
//! 1. an unrecorded warm-up at the first step's rate;
//! 2. a ramp of constant-rate steps, each √2 times the last, until two steps in a row miss
//!    (one miss alone can be a stall of a busy machine); the candidate is the highest step
//!    sustained before that;
//! 3. confirmation stretches, each `confirm_ms` long: the candidate first. Where it holds,
//!    three more bisect the ramp step above it (which missed): 2^(4/16) above it, then
//!    2^(2/16) and 2^(1/16) above the highest rate that held so far. A short ramp step can
//!    pass at a rate the service cannot keep up for seconds; a confirmation stretch cannot, so
//!    where the candidate does not hold, the quarter-steps (2^¼) below it follow, down to half
//!    of it, until one holds, and the quarter-step above that one is bisected the same way.
//!    The round's capacity is the highest rate that held, to within 2^(1/16), 4.4%:
//!    confirmations a quarter-step apart (as before 2026-12-06) moved a capacity 19% when the
//!    service sat near a step's edge.
//!
//! Every stretch is paired, as duet benchmarking pairs its runs (Bulej et al., ICPE 2020): the
//! client's service and a second service serving the [`REFERENCE`] client, each with its own
//! mock-rates and the same CPU budget, are driven at the same rate, the two timetables
//! starting together. When the machine slows down (steal, a neighbour, a frequency step) both
//! meet it in the same stretch, so the ratio of their CPU per payment holds where the CPU per
//! payment itself moves (see `ClientCapacity::cpu_beside`). The ramp's end and the search are
//! the client's. The reference's own capacity is not searched: in two runs that searched it
//! (2026-12-07, Intel Xeon VM), two services alike driven together sustained rates up to 48%
//! apart, so the capacity's spread is the stretch's own, which a pair does not cancel, and the
//! ratio of two capacities moved as much as the capacity itself (30% and 38% between rounds,
//! against 24% and 38%).
//!
//! The suite runs the rounds in turn over the clients (every client's round 1, then every
//! client's round 2, ..., the clients in a new random order each round, the client on the
//! first service in odd rounds and on the second in even ones) and takes the median; the
//! rounds' spread is the figure's noise. Each stretch reads the CPU each service and its
//! mock-rates spent during it, and the bench's own, shared between the sides by their answers.
//! The overload and the soak are sized from the median, and a soak at half of it that fails
//! refutes it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::runtime::Runtime;

use crate::error::BenchError;
use crate::measure::own::CpuTime;
use crate::measure::process::ProcessCpu;
use crate::suites::load::http::{LoadClient, ReadyScenario};
use crate::suites::load::open;
use crate::suites::load::schedule::Schedule;
use crate::suites::load::tally::Tally;
use crate::suites::load::timeline::{Timeline, counts};
use bench_model::stats::quantile::lower_median;
use bench_model::{Beside, CapacityRound, ClientName, RampStep, StretchCpu};

/// A step is sustained when its p99, from the due time, is within this.
pub const LATENCY_OBJECTIVE: Duration = Duration::from_millis(25);
/// The unrecorded warm-up before the ramp: the service's first calls open its connections.
const WARMUP: Duration = Duration::from_millis(500);
/// The ramp's steps: 250 RPS times √2 per step, to 64 000 RPS. It ended at 16 000 until three
/// clients confirmed 19 027 RPS (a quarter-step above it) in every round on a 2-vCPU Xeon VM:
/// a ramp a client can top measures the ramp, not the client.
pub const RAMP_RPS: [u32; 17] = [
    250, 354, 500, 707, 1_000, 1_414, 2_000, 2_828, 4_000, 5_657, 8_000, 11_314, 16_000, 22_627,
    32_000, 45_255, 64_000,
];
/// Below a candidate that did not hold: down by quarter-steps (2^¼) to half of it.
const DOWN_QUARTERS: [i32; 4] = [-1, -2, -3, -4];
/// The bisection of a bracket, in sixteenths of a doubling above the highest rate that held
/// so far: a ramp step (√2, eight sixteenths) takes the three, a quarter-step the last two.
const BISECT_SIXTEENTHS: [i32; 3] = [4, 2, 1];

/// The most ramp steps a round runs again because both services missed them: a stall both
/// met is seldom met twice, and two services past their capacities miss every step again.
const MAX_REPEATS: usize = 2;

/// The client every other is measured beside: the baseline of the adapters.
pub const REFERENCE: ClientName = ClientName::Hyper;

/// One side of a paired round: a service's payments target, and its and its mock-rates' CPU
/// clocks (`None` where the process is not the bench's child).
#[derive(Clone, Copy, Debug)]
pub struct Side<'a> {
    pub target: &'a Arc<ReadyScenario>,
    pub service: Option<&'a ProcessCpu>,
    pub mock: Option<&'a ProcessCpu>,
}

/// One round for the client on `sides[0]`, the reference on `sides[1]` beside it: ramp `step`
/// per rate, then confirmation stretches of `confirm`, the services let go idle (`settle`)
/// before each stretch. Every stretch drives both sides at the same rate, their timetables
/// starting together; the ramp's end and the search are the client's, and what the reference
/// gave in each stretch is kept beside it (`side`: which service ran the client).
pub fn round(
    runtime: &Runtime,
    client: &Arc<LoadClient>,
    sides: [Side<'_>; 2],
    side: u8,
    (step, confirm): (Duration, Duration),
    settle: &dyn Fn(),
) -> Result<CapacityRound, BenchError> {
    let targets = sides.map(|side| side.target);
    let meters = Meters {
        services: sides.map(|side| side.service),
        mocks: sides.map(|side| side.mock),
    };
    open::run_into_each(
        runtime,
        client,
        targets,
        Schedule::new(RAMP_RPS[0], WARMUP),
        open::ROOM_PER_ANSWER,
        |_| Tally::new(Instant::now(), 0),
    )?;
    let Ramp {
        steps,
        beside,
        repeated,
    } = ramp(|rps| {
        stretch(
            runtime,
            client,
            targets,
            Schedule::new(rps, step),
            Some(&meters),
        )
    })?;
    let candidate = candidate(&steps);
    if candidate == RAMP_RPS.last().copied() {
        eprintln!(
            "bench: resilience: {} sustained the ramp's last step ({} RPS): its capacity is a \
             floor, not a figure of the client",
            sides[0].target.scenario.path(),
            RAMP_RPS[RAMP_RPS.len() - 1]
        );
    }
    let steps: Vec<RampStep> = steps.into_iter().map(|(step, _)| step).collect();
    let mut confirmations = Vec::new();
    let mut confirmed_beside = Vec::new();
    let capacity_rps = match candidate {
        Some(candidate) => search(candidate, |rps| {
            settle();
            let [(own, held), (theirs, _)] = stretch(
                runtime,
                client,
                targets,
                Schedule::new(rps, confirm),
                Some(&meters),
            )?;
            confirmations.push(own);
            confirmed_beside.push(theirs);
            Ok(held)
        })?,
        None => None,
    };
    Ok(CapacityRound {
        capacity_rps,
        steps,
        confirmations,
        beside: Some(Beside {
            reference: REFERENCE,
            side,
            steps: beside,
            confirmations: confirmed_beside,
            repeated,
        }),
    })
}

/// A round's ramp: the client's steps (each with whether it held), the reference's beside
/// them, and the rates run again.
struct Ramp {
    steps: Vec<(RampStep, bool)>,
    beside: Vec<RampStep>,
    repeated: Vec<u32>,
}

/// The ramp up [`RAMP_RPS`], `step` running one paired stretch at a rate, until the client
/// misses two steps in a row. A step both sides missed is run again once (at most
/// [`MAX_REPEATS`] a round), and the second run is the step's: a stall both met (the
/// machine's, the generator's) is not the client's, and where both are past their capacity
/// it misses again.
fn ramp(
    mut step: impl FnMut(u32) -> Result<[(RampStep, bool); 2], BenchError>,
) -> Result<Ramp, BenchError> {
    let mut ramp = Ramp {
        steps: Vec::new(),
        beside: Vec::new(),
        repeated: Vec::new(),
    };
    let mut misses = 0;
    for rps in RAMP_RPS {
        let [mut own, mut theirs] = step(rps)?;
        if !own.1 && !theirs.1 && ramp.repeated.len() < MAX_REPEATS {
            ramp.repeated.push(rps);
            [own, theirs] = step(rps)?;
        }
        misses = if own.1 { 0 } else { misses + 1 };
        ramp.steps.push(own);
        ramp.beside.push(theirs.0);
        if misses == 2 {
            break;
        }
    }
    Ok(ramp)
}

/// One confirmation stretch at `rps`, `confirm` long: what it gave, and whether it held.
pub fn confirm(
    runtime: &Runtime,
    client: &Arc<LoadClient>,
    target: &Arc<ReadyScenario>,
    rps: u32,
    confirm: Duration,
) -> Result<(RampStep, bool), BenchError> {
    let [stretch] = stretch(runtime, client, [target], Schedule::new(rps, confirm), None)?;
    Ok(stretch)
}

/// The CPU clocks a paired stretch reads before and after itself: each side's service's and
/// mock-rates' (`None` where the process is not the bench's child), and the bench's own.
#[derive(Clone, Copy, Debug)]
struct Meters<'a, const N: usize> {
    services: [Option<&'a ProcessCpu>; N],
    mocks: [Option<&'a ProcessCpu>; N],
}

/// One reading of every clock of [`Meters`]: each side's service's and mock-rates', and the
/// bench's.
type Reading<const N: usize> = ([Option<u64>; N], [Option<u64>; N], Option<CpuTime>);

impl<const N: usize> Meters<'_, N> {
    fn read(&self) -> Reading<N> {
        let nanos = |clock: Option<&ProcessCpu>| clock.and_then(ProcessCpu::nanos);
        (
            self.services.map(nanos),
            self.mocks.map(nanos),
            CpuTime::now(),
        )
    }
}

/// What each clock moved between two readings of [`Meters::read`], per side: its service's
/// and its mock-rates' own, and the generator's shared out between the sides by the requests
/// each answered (evenly where none was).
fn spent<const N: usize>(
    (services, mocks, generator): Reading<N>,
    (services_after, mocks_after, generator_after): Reading<N>,
    answered: [u64; N],
) -> [StretchCpu; N] {
    let seconds =
        |before: Option<u64>, after: Option<u64>| Some(after?.saturating_sub(before?) as f64 / 1e9);
    let generator_s = generator_after
        .zip(generator)
        .map(|(after, before)| after.since(before).total().as_secs_f64());
    let total: u64 = answered.iter().sum();
    std::array::from_fn(|side| {
        let share = if total == 0 {
            1.0 / N as f64
        } else {
            answered[side] as f64 / total as f64
        };
        StretchCpu {
            service_s: seconds(services[side], services_after[side]),
            mock_s: seconds(mocks[side], mocks_after[side]),
            generator_s: generator_s.map(|seconds| seconds * share),
        }
    })
}

/// `rps` times 2^(quarters/4), rounded, at least 1.
pub fn quarter_steps(rps: u32, quarters: i32) -> u32 {
    scaled(rps, f64::from(quarters) / 4.0)
}

/// `rps` times 2^`doublings`, rounded, at least 1.
fn scaled(rps: u32, doublings: f64) -> u32 {
    (f64::from(rps) * 2f64.powf(doublings)).round().max(1.0) as u32
}

/// The confirmation search from the ramp's `candidate` (whose next step, √2 above, missed),
/// one stretch per rate `holds` is asked about: the candidate first; where it holds, the
/// bisection of the ramp step above it; where it does not (a short ramp step passed a rate the
/// service cannot keep up), the quarter-steps below it until one holds, and the bisection of
/// the quarter-step above that one. The highest rate that held, to within 2^(1/16); `None`
/// when nothing down to half the candidate held.
fn search(
    candidate: u32,
    mut holds: impl FnMut(u32) -> Result<bool, BenchError>,
) -> Result<Option<u32>, BenchError> {
    if holds(candidate)? {
        let above = bisect(candidate, &BISECT_SIXTEENTHS, &mut holds)?;
        return Ok(Some(above.unwrap_or(candidate)));
    }
    for quarters in DOWN_QUARTERS {
        let rps = quarter_steps(candidate, quarters);
        if holds(rps)? {
            let above = bisect(rps, &BISECT_SIXTEENTHS[1..], &mut holds)?;
            return Ok(Some(above.unwrap_or(rps)));
        }
    }
    Ok(None)
}

/// Bisects the bracket above `low`, a rate that held: for each of `sixteenths`, the rate that
/// many sixteenths of a doubling above the highest that held so far. The highest rate that
/// held, if any did.
fn bisect(
    low: u32,
    sixteenths: &[i32],
    holds: &mut impl FnMut(u32) -> Result<bool, BenchError>,
) -> Result<Option<u32>, BenchError> {
    let mut held = None;
    for &step in sixteenths {
        let base = held.unwrap_or(low);
        let rps = scaled(base, f64::from(step) / 16.0);
        if rps > base && holds(rps)? {
            held = Some(rps);
        }
    }
    Ok(held)
}

/// One constant-rate stretch to each of `targets` at once: what each gave, and whether it was
/// sustained; `meters` read the CPU each process spent during it.
fn stretch<const N: usize>(
    runtime: &Runtime,
    client: &Arc<LoadClient>,
    targets: [&Arc<ReadyScenario>; N],
    schedule: Schedule,
    meters: Option<&Meters<'_, N>>,
) -> Result<[(RampStep, bool); N], BenchError> {
    let planned = schedule.count();
    let expected = usize::try_from(planned).unwrap_or(0);
    let before = meters.map(Meters::read);
    let timelines = open::run_into_each(
        runtime,
        client,
        targets,
        schedule,
        open::ROOM_PER_ANSWER,
        move |start| Timeline::new(start, expected),
    )?;
    let after = meters.map(Meters::read);
    let requests = timelines.map(|(timeline, _)| counts(&timeline.records));
    let cpu = before
        .zip(after)
        .map(|(before, after)| spent(before, after, requests.each_ref().map(|counts| counts.ok)));
    Ok(std::array::from_fn(|side| {
        let step = RampStep {
            rps: schedule.rate(),
            requests: requests[side].clone(),
            cpu: cpu.map(|cpu| cpu[side]),
        };
        let held = sustained(&step, planned);
        (step, held)
    }))
}

/// Whether a stretch kept up: every request planned was sent and answered 200, with a p99
/// within the objective.
fn sustained(step: &RampStep, planned: u64) -> bool {
    step.requests.sent == planned && step.answered_within(LATENCY_OBJECTIVE.as_secs_f64() * 1_000.0)
}

/// The rate of the highest sustained step before the first two misses in a row (the ramp
/// stops there).
fn candidate(steps: &[(RampStep, bool)]) -> Option<u32> {
    let end = steps
        .windows(2)
        .position(|pair| !pair[0].1 && !pair[1].1)
        .unwrap_or(steps.len());
    steps[..end]
        .iter()
        .rev()
        .find(|(_, held)| *held)
        .map(|(step, _)| step.rps)
}

/// The median of the rounds' capacities, a round without one counting as 0 (the lower of the
/// two middle ones for an even count: a rate some round confirmed); `None` when no round
/// confirmed a rate.
pub fn median(rounds: &[CapacityRound]) -> Option<u32> {
    let mut rates: Vec<u32> = rounds
        .iter()
        .map(|round| round.capacity_rps.unwrap_or(0))
        .collect();
    if rates.iter().all(|&rate| rate == 0) {
        return None;
    }
    lower_median(&mut rates)
}

/// The planned time of one round, for the progress bar: the warm-up, the whole ramp, the
/// candidate and a ramp step's bisection (a round usually takes less ramp).
pub fn round_ms(step_ms: u64, confirm_ms: u64) -> u64 {
    WARMUP.as_millis() as u64
        + step_ms * RAMP_RPS.len() as u64
        + (1 + BISECT_SIXTEENTHS.len() as u64) * confirm_ms
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::PhaseCounts;

    #[test]
    fn a_ramp_step_both_sides_missed_is_run_again_once() {
        // The client holds to 2000 RPS; both sides stall once at 500 RPS, and both are past
        // their capacities from 2828 RPS on.
        let mut calls = Vec::new();
        let mut stalled = false;
        let ramp = ramp(|rps| {
            calls.push(rps);
            let stall = rps == 500 && !stalled;
            stalled |= stall;
            let held = !stall && rps <= 2_000;
            Ok([step(rps, held), step(rps, held && !stall)])
        })
        .unwrap();
        assert_eq!(
            calls,
            [
                250, 354, 500, 500, 707, 1_000, 1_414, 2_000, 2_828, 2_828, 4_000
            ]
        );
        assert_eq!(ramp.repeated, [500, 2_828], "at most two a round");
        let rates: Vec<(u32, bool)> = ramp.steps.iter().map(|(s, held)| (s.rps, *held)).collect();
        assert_eq!(rates[2], (500, true), "the second run is the step's");
        assert_eq!(candidate(&ramp.steps), Some(2_000));
        assert_eq!(ramp.beside.len(), ramp.steps.len());
        // A step only the client missed is not run again.
        let mut calls = 0;
        let alone = super::ramp(|rps| {
            calls += 1;
            Ok([step(rps, rps < 1_000), step(rps, true)])
        })
        .unwrap();
        assert!(alone.repeated.is_empty());
        assert_eq!(calls, 6, "250 to 1414: two misses end the ramp");
    }

    fn step(rps: u32, held: bool) -> (RampStep, bool) {
        (
            RampStep {
                rps,
                requests: PhaseCounts::default(),
                cpu: None,
            },
            held,
        )
    }

    fn phase(sent: u64, ok: u64, p99_ms: f64) -> RampStep {
        RampStep {
            rps: 100,
            requests: PhaseCounts {
                sent,
                ok,
                ok_p99_ms: Some(p99_ms),
                ..PhaseCounts::default()
            },
            cpu: None,
        }
    }

    #[test]
    fn the_candidate_is_the_highest_step_before_two_misses_in_a_row() {
        let steps = [
            step(250, true),
            // One miss alone does not end the ramp.
            step(354, false),
            step(500, true),
            step(707, false),
            step(1_000, false),
            // Sustained again, but after two misses: not counted.
            step(1_414, true),
        ];
        assert_eq!(candidate(&steps), Some(500));
        assert_eq!(candidate(&steps[1..3]), Some(500));
        assert_eq!(candidate(&[step(250, false)]), None);
        assert_eq!(candidate(&steps[..2]), Some(250));
    }

    #[test]
    fn a_stretch_is_sustained_only_whole_answered_and_within_the_objective() {
        assert!(sustained(&phase(50, 50, 10.0), 50));
        assert!(!sustained(&phase(50, 49, 10.0), 50), "a failure");
        assert!(!sustained(&phase(49, 49, 10.0), 50), "a request never sent");
        assert!(
            !sustained(&phase(50, 50, 26.0), 50),
            "p99 past the objective"
        );
    }

    /// The search against a service that holds up to `limit`: what it keeps, and the rates
    /// it tried.
    fn searched(candidate: u32, limit: u32) -> (Option<u32>, Vec<u32>) {
        let mut tried = Vec::new();
        let kept = search(candidate, |rps| {
            tried.push(rps);
            Ok(rps <= limit)
        })
        .unwrap();
        (kept, tried)
    }

    #[test]
    fn the_search_confirms_the_candidate_then_bisects_the_ramp_step_above_it() {
        // 8000 holds; x 2^(4/16) = 9514 holds, x 2^(2/16) = 10375 holds, x 2^(1/16) = 10834
        // does not.
        assert_eq!(
            searched(8_000, 10_500),
            (Some(10_375), vec![8_000, 9_514, 10_375, 10_834])
        );
        // 9514 fails: 8000 x 2^(2/16) = 8724 holds, 8724 x 2^(1/16) = 9110 does not.
        assert_eq!(
            searched(8_000, 9_000),
            (Some(8_724), vec![8_000, 9_514, 8_724, 9_110])
        );
        // Everything just under the next ramp step (11314) holds: kept within 2^(1/16) of it.
        assert_eq!(searched(8_000, 11_313).0, Some(10_834));
        // Only the candidate holds: four stretches, a figure to within 4.4%.
        assert_eq!(
            searched(8_000, 8_100),
            (Some(8_000), vec![8_000, 9_514, 8_724, 8_354])
        );
    }

    #[test]
    fn below_a_candidate_that_does_not_hold_the_search_steps_down_and_bisects() {
        // 8000 does not hold: 6727 does; then 6727's quarter-step is bisected.
        let (kept, tried) = searched(8_000, 7_100);
        assert_eq!(kept, Some(7_025));
        assert_eq!(tried, [8_000, 6_727, 7_336, 7_025]);
        // Nothing down to half the candidate: no capacity.
        let (kept, tried) = searched(8_000, 3_000);
        assert_eq!(kept, None);
        assert_eq!(tried, [8_000, 6_727, 5_657, 4_757, 4_000]);
        // A stretch that cannot be run ends the round with its error.
        assert!(search(8_000, |_| Err(BenchError::Resilience("gone".to_owned()))).is_err());
        // At the lowest rates the steps round to nothing new: a rate is not tried twice.
        assert_eq!(search(1, |_| Ok(true)).unwrap(), Some(1));
    }

    #[test]
    fn the_capacity_is_the_median_of_the_rounds() {
        let round = |capacity_rps| CapacityRound {
            capacity_rps,
            steps: Vec::new(),
            confirmations: Vec::new(),
            beside: None,
        };
        assert_eq!(
            median(&[round(Some(4_000)), round(Some(8_000)), round(Some(3_364))]),
            Some(4_000)
        );
        // A round that confirmed nothing counts as 0; two rounds: the lower.
        assert_eq!(median(&[round(None), round(Some(2_000))]), Some(0));
        assert_eq!(median(&[round(None), round(None)]), None);
    }
}
