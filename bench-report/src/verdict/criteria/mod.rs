//! The criteria: for each, the figures of this run it is judged on, round by round where the
//! suite measured it in rounds, which way is better, and the noise its margin must beat.

mod adoption;
mod calls;
mod judged;
mod memory;
mod service;
mod wan;

/// The noise rules of the verdict's criteria, which the releases suite judges its figures by.
pub(crate) use adoption::{CLOSE, ONCE};
pub(crate) use calls::{INSTRUCTIONS, TIMED};

pub(crate) use service::service_cpus;

use crate::verdict::judge::{Criterion, Judgement};
use adoption::adoption;
use bench_model::{Protocol, Results, SuiteName};
use calls::{allocations, construction, handshake, instructions, latency, latency_of_answer};
use judged::not_measured;
use memory::memory_held;
use service::{
    capacity, capacity_under_quota, cpu_beside, cpu_per_request, dns_questions, fanout, faults,
    idle_race, idle_race_below, instructions_per_payment,
};

/// Every criterion, in the table's order.
pub fn judge_all(results: &Results) -> Vec<Judgement> {
    let mut judged = Vec::new();
    per_protocol(
        &mut judged,
        results,
        latency,
        Criterion::Latency(Protocol::Http),
        SuiteName::Latency,
    );
    let mut bodies: Vec<u64> = results
        .latency_by_body
        .iter()
        .filter_map(|row| row.body_bytes)
        .collect();
    bodies.sort_unstable();
    bodies.dedup();
    judged.extend(
        bodies
            .into_iter()
            .filter_map(|bytes| latency_of_answer(results, bytes)),
    );
    judged.push(capacity(results));
    let mut quotas: Vec<u32> = results
        .resilience
        .capacity
        .iter()
        .filter_map(|row| row.cpu_quota_millicpus)
        .collect();
    quotas.sort_unstable_by(|a, b| b.cmp(a));
    quotas.dedup();
    judged.extend(
        quotas
            .into_iter()
            .map(|millicpus| capacity_under_quota(results, millicpus)),
    );
    judged.push(cpu_per_request(results, None));
    judged.push(cpu_beside(results));
    let mut load_bodies: Vec<u64> = results
        .load
        .iter()
        .filter_map(|row| row.body_bytes)
        .collect();
    load_bodies.sort_unstable();
    load_bodies.dedup();
    judged.extend(
        load_bodies
            .into_iter()
            .map(|bytes| cpu_per_request(results, Some(bytes))),
    );
    judged.push(instructions_per_payment(results));
    per_protocol(
        &mut judged,
        results,
        instructions,
        Criterion::Instructions(Protocol::Http),
        SuiteName::Cost,
    );
    per_protocol(
        &mut judged,
        results,
        memory_held,
        Criterion::Memory(Protocol::Https),
        SuiteName::Memory,
    );
    judged.extend(
        Protocol::ALL
            .into_iter()
            .filter_map(|protocol| allocations(results, protocol)),
    );
    judged.push(handshake(results));
    judged.push(construction(results));
    judged.push(fanout(results));
    judged.push(faults(results));
    judged.push(idle_race(results));
    judged.push(idle_race_below(results));
    judged.push(dns_questions(results));
    judged.extend([
        wan::wan_p99(results),
        wan::wan_connections(results),
        wan::wan_lost(results),
        wan::wan_first_success(results),
    ]);
    judged.extend(adoption(results));
    judged
}

/// `judge` over every protocol the run measured, or one line saying the suite did not run.
fn per_protocol(
    judged: &mut Vec<Judgement>,
    results: &Results,
    judge: fn(&Results, Protocol) -> Option<Judgement>,
    unmeasured: Criterion,
    suite: SuiteName,
) {
    let found: Vec<Judgement> = Protocol::ALL
        .into_iter()
        .filter_map(|protocol| judge(results, protocol))
        .collect();
    if found.is_empty() {
        judged.push(not_measured(unmeasured, suite));
    }
    judged.extend(found);
}
