//! The verdict fed synthetic results: it must follow the figures, call ties, and say what a
//! run did not measure.

use super::*;
use bench_model::test_rows::{latency_row, load_row};
use bench_model::{
    AdoptionRow, CapacityRound, ClientCapacity, ClientName, LoadRow, PhaseCounts, ProbeBuild,
    Protocol, RampStep, Results, StepDown,
};

use ClientName::{Awc, Hyper, Isahc, Reqwest, ReqwestBlocking, Ureq};

/// A run's results with the quick sizes, judged as a default run is (a quick run leaves ties
/// unbroken: see `a_quick_run_leaves_a_first_tie_unbroken`).
fn results() -> Results {
    use bench_model::test_rows::{environment, quick_settings};
    let mut results = Results::new(environment("2026-12-02T00:00:00Z"), quick_settings());
    results.settings.edit(|settings| settings.quick = false);
    results
}

/// A capacity whose three rounds gave `rps` and a tenth either side, each round's ramp
/// costing the service as much CPU per payment beside hyper as 8000 RPS is of `rps` (hyper's
/// 8000 RPS are 1.00x, 4000 RPS 2.00x).
fn capacity(client: ClientName, rps: u32) -> ClientCapacity {
    let own = 60.0 * 8_000.0 / f64::from(rps);
    let round = |rps, side| CapacityRound {
        capacity_rps: Some(rps),
        steps: vec![step_costing(1_000, own), step_costing(2_000, own)],
        confirmations: Vec::new(),
        beside: Some(bench_model::Beside {
            reference: Hyper,
            side,
            steps: vec![step_costing(1_000, 60.0), step_costing(2_000, 60.0)],
            confirmations: Vec::new(),
            repeated: Vec::new(),
        }),
    };
    ClientCapacity {
        client,
        protocol: Protocol::Http,
        capacity_rps: Some(rps),
        latency_objective_ms: 25.0,
        rounds: vec![
            round(rps * 9 / 10, 0),
            round(rps, 1),
            round(rps * 11 / 10, 0),
        ],
        refuted: None,
        step_downs: Vec::new(),
        cpu_quota_millicpus: None,
        tls: None,
        unchecked: None,
    }
}

fn adoption(client: ClientName, megabytes: f64, crates: u32, build_s: f64) -> AdoptionRow {
    let bytes = (megabytes * 1024.0 * 1024.0) as u64;
    AdoptionRow {
        client,
        library: client.as_str().to_owned(),
        version: "1.0.0".to_owned(),
        tls: "rustls (ring)".to_owned(),
        build: ProbeBuild {
            build_wall_s: build_s,
            build_cpu_s: build_s * 1.8,
            binary_bytes: bytes,
            crates,
            output: "EURUSD 1.17 threads=1 peak_rss_kib=3000".to_owned(),
            threads: Some(1),
            peak_rss_kib: Some(3000),
        },
        added_bytes: Some(i64::try_from(bytes).unwrap() - 400_000),
        added_crates: Some(i64::from(crates) - 11),
        builds_c: Vec::new(),
        cmake: Vec::new(),
        pkg_config: Vec::new(),
        system_libraries: Vec::new(),
        msrv: None,
        tree_msrv: None,
        default_tls: "rustls".to_owned(),
        http2: Vec::new(),
        compression: Vec::new(),
        runtime: "none".to_owned(),
        blocking: true,
        adapter_lines: Some(200),
    }
}

fn judged(verdict: &Verdict, criterion: Criterion) -> &Judgement {
    verdict
        .criteria
        .iter()
        .find(|judgement| judgement.criterion == criterion)
        .unwrap_or_else(|| panic!("{criterion:?} is not judged"))
}

fn ranking(verdict: &Verdict, criterion: Criterion) -> &Ranking {
    match &judged(verdict, criterion).outcome {
        Outcome::Ranked(ranking) => ranking,
        other => panic!("{criterion:?}: {other:?}"),
    }
}

fn pick(verdict: &Verdict, use_case: &str) -> Option<ClientName> {
    choice(verdict, use_case).client()
}

fn choice(verdict: &Verdict, use_case: &str) -> Choice {
    pick_of(verdict, use_case).choice.clone()
}

/// The pick of `use_case`, whatever its choice.
fn pick_of<'a>(verdict: &'a Verdict, use_case: &str) -> &'a Pick {
    verdict
        .picks
        .iter()
        .find(|pick| pick.use_case == use_case)
        .unwrap_or_else(|| panic!("no use case {use_case}"))
}

/// `row` with `cpu_s` of the service's CPU in all, spread evenly over its rounds.
fn with_cpu(mut row: LoadRow, cpu_s: f64) -> LoadRow {
    row.api_cpu_s = Some(cpu_s);
    let rounds = row.rounds.len() as f64;
    for round in &mut row.rounds {
        round.api_cpu_s = Some(cpu_s / rounds);
    }
    row
}

/// The service's instructions per payment, three rounds at `instructions` and 1% either side.
fn service_cost(client: ClientName, instructions: f64) -> bench_model::ServiceCostRow {
    bench_model::ServiceCostRow {
        client,
        protocol: Protocol::Http,
        payments: 400,
        in_flight: 8,
        instructions_per_payment: instructions,
        rounds: vec![instructions * 0.99, instructions, instructions * 1.01],
        positions: vec![0, 1, 0],
        failed: 0,
        warmup_failed: 0,
        first_failure: None,
        ratio: None,
    }
}

const ASYNC_SERVICE: &str = "A high-throughput async service";
const ON_ACTIX: &str = "A service already on actix-web";
const BLOCKING_CODE: &str = "Blocking or CLI code";
const SMALLEST: &str = "The smallest binary";
const UNDER_A_CPU_LIMIT: &str = "A service under a CPU limit";
const FASTEST_BUILDS: &str = "The fastest builds";

/// A run in which hyper is clearly fastest, costs the fewest instructions per payment and has
/// the most capacity, and ureq the smallest.
fn clear_run() -> Results {
    let mut results = results();
    results.latency = vec![
        latency_row(Hyper, Protocol::Http, 40.0, 1.0, 20.0),
        latency_row(Awc, Protocol::Http, 60.0, 1.0, 25.0),
        latency_row(Ureq, Protocol::Http, 80.0, 1.0, 30.0),
        latency_row(Isahc, Protocol::Http, 120.0, 2.0, 40.0),
    ];
    results.resilience.capacity = vec![
        capacity(Hyper, 8000),
        capacity(Awc, 4000),
        capacity(Reqwest, 2828),
        capacity(Ureq, 2000),
    ];
    results.service_cost = vec![
        service_cost(Hyper, 100_000.0),
        service_cost(Awc, 150_000.0),
        service_cost(Reqwest, 200_000.0),
        service_cost(Ureq, 250_000.0),
    ];
    results.adoption.rows = vec![
        adoption(Hyper, 4.0, 90, 200.0),
        adoption(Ureq, 2.5, 36, 100.0),
        adoption(Isahc, 5.0, 60, 180.0),
    ];
    results
}

/// `client`'s figures swapped with `other`'s in every row of the run.
fn swapped(mut results: Results, client: ClientName, other: ClientName) -> Results {
    let swap = |name: &mut ClientName| {
        if *name == client {
            *name = other;
        } else if *name == other {
            *name = client;
        }
    };
    results
        .latency
        .iter_mut()
        .for_each(|row| swap(&mut row.client));
    results
        .resilience
        .capacity
        .iter_mut()
        .for_each(|row| swap(&mut row.client));
    results
        .adoption
        .rows
        .iter_mut()
        .for_each(|row| swap(&mut row.client));
    results
        .service_cost
        .iter_mut()
        .for_each(|row| swap(&mut row.client));
    results
}

/// A capacity measured in rounds that gave `rounds` (its median the figure).
fn capacity_rounds(client: ClientName, rounds: &[u32]) -> ClientCapacity {
    let mut sorted = rounds.to_vec();
    sorted.sort_unstable();
    ClientCapacity {
        capacity_rps: Some(sorted[(sorted.len() - 1) / 2]),
        rounds: rounds
            .iter()
            .map(|&rps| CapacityRound {
                capacity_rps: Some(rps),
                steps: Vec::new(),
                confirmations: Vec::new(),
                beside: None,
            })
            .collect(),
        ..capacity(client, 1)
    }
}

#[test]
fn the_best_figures_win_and_swapping_two_clients_swaps_the_verdict() {
    let verdict = verdict(&clear_run());
    let latency = ranking(&verdict, Criterion::Latency(Protocol::Http));
    assert_eq!(
        (latency.best.client, latency.runner_up.client),
        (Hyper, Awc)
    );
    assert!(latency.decisive, "40 +- 1 against 60 +- 1, rounds apart");
    assert!((latency.margin - 0.5).abs() < 1e-9);
    let capacity = ranking(&verdict, Criterion::Capacity);
    assert_eq!(capacity.best.client, Hyper);
    assert!(capacity.decisive, "7200-8800 against 3600-4400");
    assert_eq!(pick(&verdict, ASYNC_SERVICE), Some(Hyper));
    assert_eq!(pick(&verdict, ON_ACTIX), Some(Hyper), "beyond the noise");
    assert_eq!(pick(&verdict, BLOCKING_CODE), Some(Ureq));
    assert_eq!(pick(&verdict, SMALLEST), Some(Ureq));
    assert_eq!(pick(&verdict, FASTEST_BUILDS), Some(Ureq));

    let verdict = super::verdict(&swapped(clear_run(), Hyper, Ureq));
    let latency = ranking(&verdict, Criterion::Latency(Protocol::Http));
    assert_eq!(latency.best.client, Ureq);
    assert_eq!(ranking(&verdict, Criterion::Capacity).best.client, Ureq);
    // ureq is blocking, so the async pick is among awc (150 000 instructions per payment),
    // reqwest (200 000) and hyper (250 000), whose rounds do not overlap.
    assert_eq!(pick(&verdict, ASYNC_SERVICE), Some(Awc));
    assert!(
        verdict.picks[0].reason.contains("beyond the noise"),
        "{:?}",
        verdict.picks[0]
    );
    assert_eq!(pick(&verdict, SMALLEST), Some(Hyper));
    assert_eq!(pick(&verdict, FASTEST_BUILDS), Some(Hyper));

    // The two blocking clients swapped: isahc now has ureq's 80 us.
    let verdict = super::verdict(&swapped(clear_run(), Ureq, Isahc));
    assert_eq!(pick(&verdict, BLOCKING_CODE), Some(Isahc));
    assert_eq!(pick(&verdict, SMALLEST), Some(Isahc));
}

#[test]
fn reqwest_blocking_is_weighed_for_blocking_code_and_is_no_async_pick() {
    let mut results = clear_run();
    results.latency.push(latency_row(
        ReqwestBlocking,
        Protocol::Http,
        30.0,
        1.0,
        20.0,
    ));
    results
        .resilience
        .capacity
        .push(capacity(ReqwestBlocking, 16_000));
    results
        .adoption
        .rows
        .push(adoption(ReqwestBlocking, 4.0, 80, 200.0));
    let verdict = verdict(&results);
    assert_eq!(
        ranking(&verdict, Criterion::Capacity).best.client,
        ReqwestBlocking
    );
    assert_eq!(pick(&verdict, ASYNC_SERVICE), Some(Hyper), "it blocks");
    assert_eq!(pick(&verdict, BLOCKING_CODE), Some(ReqwestBlocking));
}

#[test]
fn overlapping_intervals_and_overlapping_rounds_are_ties() {
    let mut results = clear_run();
    results.latency = vec![
        latency_row(Hyper, Protocol::Http, 40.0, 3.0, 20.0),
        latency_row(Awc, Protocol::Http, 44.0, 3.0, 25.0),
    ];
    results.resilience.capacity = vec![
        capacity_rounds(Awc, &[5_657, 4_000, 4_757]),
        capacity_rounds(Hyper, &[4_000, 4_757, 3_364]),
    ];
    let verdict = verdict(&results);
    let latency = ranking(&verdict, Criterion::Latency(Protocol::Http));
    assert_eq!(latency.best.client, Hyper);
    assert!(
        !latency.decisive,
        "the rounds are apart, but 40 +- 3 and 44 +- 3 overlap"
    );
    let capacity = ranking(&verdict, Criterion::Capacity);
    assert_eq!(capacity.best.client, Awc);
    assert!(!capacity.decisive, "4000-5657 and 3364-4757 overlap");
    // On actix: awc is the best anyway.
    assert_eq!(pick(&verdict, ON_ACTIX), Some(Awc));
    let table = crate::report::markdown(&crate::report::Rendering::of(&results), &[]);
    assert!(table.contains("no: a tie"), "{table}");
    assert!(
        table.contains("up to 35%"),
        "awc's rounds moved 1657 of 4757: {table}"
    );
}

#[test]
fn an_instructions_tie_is_broken_by_cpu_per_payment_beside_hyper() {
    let mut results = clear_run();
    // Within the 5% band: hyper and awc tie on what a payment costs.
    results.service_cost = vec![service_cost(Hyper, 130_000.0), service_cost(Awc, 133_000.0)];
    // The load suite's CPU per request, the other way round, is shown but breaks no tie.
    let hyper = load_row(Some(Hyper), 480.0, 900.0, 0);
    let awc = load_row(Some(Awc), 480.0, 900.0, 0);
    results.load = vec![with_cpu(hyper, 0.8), with_cpu(awc, 0.4)];
    let verdict = verdict(&results);
    assert_eq!(
        pick(&verdict, ASYNC_SERVICE),
        Some(Hyper),
        "1.00x hyper's against 2.00x"
    );
    let reason = &verdict.picks[0].reason;
    assert!(
        reason.contains("tie on instructions per payment, whole service"),
        "{reason}"
    );
    assert!(
        reason.contains("CPU per payment beside hyper: hyper 1.00x"),
        "{reason}"
    );
    // The terminal's clause: the tie and what broke it, figures and margin.
    let brief = &verdict.picks[0].brief;
    assert!(
        brief.starts_with("2% apart on instructions/payment: a tie; CPU/payment beside hyper ")
            && brief.contains(" against awc ")
            && brief.ends_with("(+100%)"),
        "{brief}"
    );
    assert_eq!(verdict.picks[0].undecided, None);
    assert_eq!(Criterion::Capacity.phrase(), "capacity");
    assert_eq!(
        Criterion::Latency(Protocol::Https).phrase(),
        "per-call latency, https"
    );
    // The other way round: awc wins the tie-break.
    results.resilience.capacity = vec![capacity(Hyper, 4000), capacity(Awc, 8000)];
    assert_eq!(pick(&super::verdict(&results), ASYNC_SERVICE), Some(Awc));
    // Ratios whose rounds overlap: a declared tie between the two.
    results.resilience.capacity = vec![
        beside(Awc, 5_000, &[60.0, 66.0, 62.0], &[60.0, 60.0, 60.0]),
        beside(Hyper, 4_000, &[63.0, 60.0, 64.0], &[60.0, 60.0, 60.0]),
    ];
    let verdict = super::verdict(&results);
    assert_eq!(
        choice(&verdict, ASYNC_SERVICE),
        Choice::Tie(vec![Hyper, Awc]),
        "in table order"
    );
    let brief = &verdict.picks[0].brief;
    assert!(
        brief.starts_with("2% apart on instructions/payment, ")
            && brief.ends_with("% on CPU/payment beside hyper: a tie"),
        "{brief}"
    );
    // The tie-break's tie states its resolution too: the client at its edge, and the
    // smallest margin this run could have called.
    assert!(
        verdict.picks[0]
            .reason
            .contains("tie on CPU per payment beside hyper too (within the noise: ")
            && verdict.picks[0].reason.contains("this run calls"),
        "{}",
        verdict.picks[0].reason
    );
    // What the run's other criteria still separate among the tied, for a reader who must
    // choose: hyper's calls are faster in this run.
    let reason = &verdict.picks[0].reason;
    assert!(
        reason.contains("Still separating them, beyond the noise: hyper")
            && reason.contains("on per-call latency, http"),
        "{reason}"
    );
    // With nothing else measured, the tie says that nothing separates them.
    results.latency.clear();
    results.load.clear();
    let reason = super::verdict(&results).picks[0].reason.clone();
    assert!(
        reason.contains("No criterion of this run separates hyper, awc beyond the noise"),
        "{reason}"
    );
}

#[test]
fn payments_that_failed_leave_a_client_out_of_instructions_per_payment() {
    let mut results = clear_run();
    let mut failed = service_cost(Awc, 100_000.0);
    failed.failed = 2;
    failed.first_failure = Some("Timeout (status None): no complete response".to_owned());
    results.service_cost = vec![service_cost(Hyper, 130_000.0), failed];
    let verdict = verdict(&results);
    let judgement = judged(&verdict, Criterion::InstructionsPerPayment);
    assert_eq!(judgement.order().len(), 1, "awc's payments failed");
    assert_eq!(judgement.order()[0].client, Hyper);
    assert!(
        judgement
            .left_out
            .iter()
            .any(|(client, why)| *client == Awc && why.contains("2 of its payments failed")),
        "{:?}",
        judgement.left_out
    );
}

#[test]
fn a_larger_answer_is_a_criterion_of_its_own_and_breaks_no_tie() {
    let mut results = clear_run();
    results.resilience.capacity = vec![
        capacity_rounds(Awc, &[5_657, 4_000, 4_757]),
        capacity_rounds(Hyper, &[4_000, 4_757, 3_364]),
    ];
    let large = |client, cpu_s| LoadRow {
        body_bytes: Some(1024 * 1024),
        target_rps: 50,
        ..with_cpu(load_row(Some(client), 50.0, 9_000.0, 0), cpu_s)
    };
    // Ordinary answers: hyper cheaper; 1 MiB answers: awc far cheaper.
    results.service_cost = vec![service_cost(Hyper, 130_000.0), service_cost(Awc, 170_000.0)];
    results.load = vec![
        with_cpu(load_row(Some(Hyper), 480.0, 900.0, 0), 0.4),
        with_cpu(load_row(Some(Awc), 480.0, 900.0, 0), 0.8),
        large(Hyper, 8.0),
        large(Awc, 2.0),
    ];
    let verdict = verdict(&results);
    assert_eq!(
        pick(&verdict, ASYNC_SERVICE),
        Some(Hyper),
        "instructions per payment decide, not the 1 MiB rows"
    );
    let of = |criterion| {
        verdict
            .criteria
            .iter()
            .find(|judgement| judgement.criterion == criterion)
            .unwrap_or_else(|| panic!("no {criterion:?}"))
    };
    let ordinary = of(Criterion::CpuPerRequest);
    assert_eq!(ordinary.order()[0].client, Hyper);
    assert_eq!(ordinary.order().len(), 2);
    let answer = of(Criterion::CpuPerRequestOfAnswer(1024 * 1024));
    assert_eq!(answer.order()[0].client, Awc);
    assert_eq!(
        Criterion::CpuPerRequestOfAnswer(1024 * 1024).name(),
        "CPU per request, 1 MiB answer"
    );
}

#[test]
fn a_tie_whose_tie_break_was_not_measured_is_not_decided() {
    let mut results = clear_run();
    results.service_cost = vec![service_cost(Hyper, 130_000.0), service_cost(Awc, 131_000.0)];
    results.resilience.capacity.clear();
    let verdict = verdict(&results);
    assert_eq!(choice(&verdict, ASYNC_SERVICE), Choice::NotDecided);
    let reason = &verdict.picks[0].reason;
    assert!(
        reason.contains("hyper, awc tie on instructions per payment"),
        "{reason}"
    );
    assert!(reason.contains("--suite resilience"), "{reason}");
    // The terminal's clause, and the line under the table that names the flag deciding it.
    assert_eq!(
        verdict.picks[0].brief,
        "1% apart on instructions/payment: a tie; CPU/payment beside hyper not measured"
    );
    let undecided = verdict.picks[0].undecided.as_deref().unwrap_or_default();
    assert!(
        undecided.contains("--suite resilience") && !undecided.contains("the fewest instructions"),
        "{undecided}"
    );
    // The blocking clients tie on latency; their crates are not in the run: not decided.
    results.latency = vec![
        latency_row(Ureq, Protocol::Http, 80.0, 3.0, 30.0),
        latency_row(Isahc, Protocol::Http, 81.0, 3.0, 40.0),
    ];
    results.adoption.rows.clear();
    assert_eq!(
        choice(&super::verdict(&results), BLOCKING_CODE),
        Choice::NotDecided
    );
    // With the dependencies suite's crate counts, fewer crates decide.
    results.dependencies.rows = vec![
        bench_model::DependencyRow {
            client: Ureq,
            crates: 36,
            added_crates: 25,
        },
        bench_model::DependencyRow {
            client: Isahc,
            crates: 85,
            added_crates: 74,
        },
    ];
    assert_eq!(pick(&super::verdict(&results), BLOCKING_CODE), Some(Ureq));
}

#[test]
fn awc_stays_the_actix_pick_unless_beaten_beyond_the_noise() {
    let mut results = clear_run();
    results.resilience.capacity = vec![
        capacity_rounds(Hyper, &[5_657, 4_000, 4_757]),
        capacity_rounds(Awc, &[4_000, 4_757, 3_364]),
    ];
    assert_eq!(pick(&verdict(&results), ON_ACTIX), Some(Awc));
    results.resilience.capacity = vec![capacity(Hyper, 8000), capacity(Awc, 4000)];
    assert_eq!(pick(&verdict(&results), ON_ACTIX), Some(Hyper));
    // Others measured and awc not (CI's `--clients hyper,ureq` run): the reason names them,
    // and does not say that no candidate was measured.
    results.resilience.capacity = vec![capacity(Hyper, 8000), capacity(Ureq, 2000)];
    let verdict = verdict(&results);
    let actix = pick_of(&verdict, ON_ACTIX);
    assert_eq!(actix.choice, Choice::NotDecided, "{actix:?}");
    assert!(
        actix.reason.contains(
            "awc's capacity was not measured in this run (measured: hyper, ureq; awc in \
             --clients decides it)"
        ),
        "{}",
        actix.reason
    );
    assert!(!actix.reason.contains("no candidate"), "{}", actix.reason);
}

#[test]
fn capacities_over_tls_are_shown_not_ranked() {
    let mut results = clear_run();
    let over_tls = |protocol| ClientCapacity {
        protocol,
        ..capacity(Awc, 64_000)
    };
    results
        .resilience
        .capacity
        .extend([over_tls(Protocol::Https), over_tls(Protocol::H2)]);
    let verdict = verdict(&results);
    let capacity = ranking(&verdict, Criterion::Capacity);
    assert_eq!(
        capacity.best.client, Hyper,
        "awc's rows over TLS are not ranked"
    );
    assert_eq!(
        capacity
            .order
            .iter()
            .filter(|figure| figure.client == Awc)
            .count(),
        1
    );
}

#[test]
fn a_tie_break_missing_for_one_tied_client_decides_among_the_others_and_names_it() {
    let mut results = clear_run();
    // hyper, awc and reqwest tie on what a payment costs (within 5%).
    results.service_cost = vec![
        service_cost(Hyper, 130_000.0),
        service_cost(Awc, 131_000.0),
        service_cost(Reqwest, 132_000.0),
    ];
    // hyper's service sustained no ramp step beside the reference (every one over the
    // objective); awc's CPU per payment beats reqwest's beyond the noise.
    let over_objective = |row: &mut ClientCapacity| {
        for round in &mut row.rounds {
            for step in &mut round.steps {
                step.requests.ok_p99_ms = Some(30.0);
            }
        }
    };
    over_objective(&mut results.resilience.capacity[0]);
    results.resilience.capacity[1] = capacity(Awc, 8000);
    let verdict = verdict(&results);
    let async_pick = &verdict.picks[0];
    assert_eq!(async_pick.choice, Choice::Client(Awc), "{async_pick:?}");
    assert!(
        async_pick.reason.contains(
            "CPU per payment beside hyper: awc 1.00x hyper's (1.00 / 1.00 / 1.00) against \
             reqwest 2.83x"
        ) && async_pick.reason.contains(
            "left out of the tie-break, no figure for CPU per payment beside hyper: hyper (no \
             ramp step both its service and hyper's sustained)"
        ),
        "{}",
        async_pick.reason
    );
    assert!(
        !async_pick.reason.contains("no candidate was measured"),
        "{}",
        async_pick.reason
    );
    assert!(
        async_pick.brief.ends_with("; hyper left out"),
        "{}",
        async_pick.brief
    );
    // With every tied client's figure missing, nothing decides, and the reason says which.
    for row in &mut results.resilience.capacity {
        over_objective(row);
    }
    let verdict = super::verdict(&results);
    assert_eq!(verdict.picks[0].choice, Choice::NotDecided);
    assert!(
        verdict.picks[0]
            .reason
            .contains("no figure for CPU per payment beside hyper: hyper (")
            && !verdict.picks[0]
                .reason
                .contains("no candidate was measured"),
        "{}",
        verdict.picks[0].reason
    );
}

#[test]
fn a_capacity_its_soak_refuted_is_not_ranked() {
    let mut results = clear_run();
    results.resilience.capacity[0].refuted = Some(bench_model::Refuted::Soak {
        percent: 50,
        rps: 4000,
        failed: 301,
        unsent: 0,
        scheduled: 84_855,
        p99_ms: None,
    });
    let verdict = verdict(&results);
    let capacity = ranking(&verdict, Criterion::Capacity);
    assert_eq!(capacity.best.client, Awc, "hyper's 8000 was refuted");
    assert!(capacity.order.iter().all(|figure| figure.client != Hyper));
    // Hyper's place is unknown, so no pick that ranks it by capacity holds; the async
    // service is decided by instructions per payment, where hyper costs the least.
    assert_eq!(pick(&verdict, ASYNC_SERVICE), Some(Hyper));
    let actix = pick_of(&verdict, ON_ACTIX);
    assert_eq!(actix.choice, Choice::NotDecided, "{actix:?}");
    assert!(
        actix
            .reason
            .contains("has no figure for capacity in this run: hyper (8000 RPS, but its soak"),
        "{}",
        actix.reason
    );
    // The blocking pick does not rank by capacity: still made.
    assert_eq!(pick(&verdict, BLOCKING_CODE), Some(Ureq));
}

#[test]
fn a_latency_row_with_failures_leaves_its_pick_undecided() {
    let mut results = clear_run();
    let row = results
        .latency
        .iter_mut()
        .find(|row| row.client == Isahc && row.protocol == Protocol::Http)
        .expect("isahc over http");
    row.failures = 3;
    let calls = row.calls;
    let verdict = verdict(&results);
    let latency = judged(&verdict, Criterion::Latency(Protocol::Http));
    assert_eq!(
        latency.left_out,
        [(Isahc, format!("3 of {calls} calls failed"))]
    );
    let blocking = verdict
        .picks
        .iter()
        .find(|pick| pick.use_case == BLOCKING_CODE)
        .unwrap();
    assert_eq!(blocking.choice, Choice::NotDecided, "{blocking:?}");
}

#[test]
fn what_the_run_did_not_measure_is_said_and_picks_nothing() {
    let verdict = verdict(&results());
    for judgement in &verdict.criteria {
        assert!(
            matches!(judgement.outcome, Outcome::NotMeasured(_)),
            "{judgement:?}"
        );
    }
    for pick in &verdict.picks {
        assert_eq!(pick.choice, Choice::NotDecided, "{pick:?}");
    }
    let smallest = verdict
        .picks
        .iter()
        .find(|pick| pick.use_case == SMALLEST)
        .unwrap();
    assert!(smallest.reason.contains("--suite adoption"), "{smallest:?}");
    assert_eq!(verdict.picks[1].use_case, ON_ACTIX);
    assert!(
        verdict.picks[1].reason.contains("was not measured"),
        "{:?}",
        verdict.picks[1]
    );
}

#[test]
fn a_client_that_failed_calls_is_not_ranked_on_them() {
    let mut results = clear_run();
    results.latency[0].failures = 3;
    results.latency[1].unchecked = Some(bench_model::Unchecked::NoTls);
    let verdict = verdict(&results);
    let latency = ranking(&verdict, Criterion::Latency(Protocol::Http));
    assert_eq!(
        latency.best.client, Ureq,
        "hyper failed calls, awc is unchecked"
    );
    assert!(
        latency
            .order
            .iter()
            .all(|figure| figure.client != Hyper && figure.client != Awc)
    );
}

#[test]
fn margins_are_judged_by_their_rule() {
    let at = |client, value, rounds: &[f64], half_width| Figure {
        client,
        value,
        rounds: rounds.to_vec(),
        half_width,
        shown: String::new(),
    };
    let (margin, decisive) = compare(
        &at(Hyper, 10.0, &[9.5, 10.0, 10.5], Some(1.0)),
        &at(Awc, 12.5, &[12.0, 12.5, 13.0], Some(1.0)),
        Better::Lower,
        NoiseRule::Rounds,
    );
    assert!((margin - 0.25).abs() < 1e-9);
    assert!(decisive);
    let (_, decisive) = compare(
        &at(Hyper, 10.0, &[9.0, 11.0], None),
        &at(Awc, 12.0, &[10.5, 13.0], None),
        Better::Lower,
        NoiseRule::Rounds,
    );
    assert!(!decisive, "the rounds overlap");
    let (_, decisive) = compare(
        &at(Hyper, 10.0, &[10.0], None),
        &at(Awc, 100.0, &[100.0], None),
        Better::Lower,
        NoiseRule::Rounds,
    );
    assert!(!decisive, "one round each: no spread measured, no claim");
    let (_, decisive) = compare(
        &at(Hyper, 10.0, &[9.9, 10.1], Some(3.0)),
        &at(Awc, 12.0, &[11.9, 12.1], Some(3.0)),
        Better::Lower,
        NoiseRule::Rounds,
    );
    assert!(!decisive, "the rounds are apart but the CIs overlap");
    let tight = |rule| {
        compare(
            &at(Hyper, 100.0, &[99.9, 100.1], None),
            &at(Awc, 103.0, &[102.9, 103.1], None),
            Better::Lower,
            rule,
        )
        .1
    };
    assert!(tight(NoiseRule::Rounds), "the rounds alone are apart");
    assert!(
        !tight(NoiseRule::RoundsAndBand(0.05)),
        "3% apart is within what runs moved"
    );
    assert!(tight(NoiseRule::RoundsAndBand(0.02)));
    let higher = |a: f64, b: f64, rule| {
        compare(
            &at(Hyper, a, &[], None),
            &at(Awc, b, &[], None),
            Better::Higher,
            rule,
        )
        .1
    };
    assert!(higher(11.0, 10.0, NoiseRule::Exact));
    assert!(!higher(10.0, 10.0, NoiseRule::Exact));
    assert!(!higher(10.5, 10.0, NoiseRule::Once(0.10)));
    assert!(higher(11.5, 10.0, NoiseRule::Once(0.10)));
    assert!(higher(10.2, 10.0, NoiseRule::Band(0.01)));
    let spread = at(Hyper, 10.0, &[9.0, 10.0, 11.5], None);
    assert_eq!(spread.range(), Some((9.0, 11.5)));
    assert!((spread.spread().unwrap() - 0.25).abs() < 1e-9);
}

#[test]
fn the_verdict_is_the_first_section_of_both_outputs() {
    let results = clear_run();
    let rendering = crate::report::Rendering::of(&results);
    let terminal = crate::report::terminal(&rendering);
    assert!(
        terminal
            .trim_start()
            .starts_with("verdict: a pick per use case"),
        "{terminal}"
    );
    let markdown = crate::report::markdown(&rendering, &[]);
    let verdict_at = markdown.find("## Verdict").expect("a verdict heading");
    let latency_at = markdown.find("## latency").expect("a latency heading");
    assert!(verdict_at < latency_at);
}

#[test]
fn the_cpu_limit_pick_ranks_the_smallest_quota_and_waits_for_it() {
    let mut results = clear_run();
    let reason = |verdict: &Verdict| {
        verdict
            .picks
            .iter()
            .find(|pick| pick.use_case == UNDER_A_CPU_LIMIT)
            .map(|pick| (pick.choice.clone(), pick.reason.clone()))
            .unwrap()
    };
    let (choice, why) = reason(&verdict(&results));
    assert_eq!(choice, Choice::NotDecided);
    assert!(why.contains("--cpu-quota"), "{why}");
    let quota = |client, rounds: &[u32], millicpus| ClientCapacity {
        cpu_quota_millicpus: Some(millicpus),
        ..capacity_rounds(client, rounds)
    };
    results.resilience.capacity.extend([
        // At 1 CPU hyper leads; at half a CPU, the smallest quota, ureq does.
        quota(Hyper, &[4_000, 4_000, 4_000], 1_000),
        quota(Ureq, &[2_000, 2_000, 2_000], 1_000),
        quota(Hyper, &[1_000, 1_000, 1_000], 500),
        quota(Ureq, &[2_000, 2_000, 2_000], 500),
    ]);
    let verdict = verdict(&results);
    assert_eq!(pick(&verdict, UNDER_A_CPU_LIMIT), Some(Ureq));
    assert_eq!(
        ranking(&verdict, Criterion::CapacityUnderQuota(1_000))
            .best
            .client,
        Hyper
    );
    // Equal rounds still tie within the band a capacity moves between runs: that is what
    // the run could not call.
    let mut equal = results.clone();
    equal
        .resilience
        .capacity
        .retain(|row| row.cpu_quota_millicpus != Some(500));
    equal.resilience.capacity.extend([
        quota(Hyper, &[2_000, 2_000, 2_000], 500),
        quota(Ureq, &[2_000, 2_000, 2_000], 500),
    ]);
    let (_, why) = reason(&super::verdict(&equal));
    assert!(why.contains("this run calls 30% or more"), "{why}");
    assert!(!why.contains("any difference or more"), "{why}");
    // The plain capacity does not see the quota rows.
    assert_eq!(ranking(&verdict, Criterion::Capacity).best.client, Hyper);
    assert_eq!(
        ranking(&verdict, Criterion::Capacity).best.shown,
        "8000 RPS",
        "hyper's capacity without a quota"
    );
}

#[test]
fn each_pick_names_the_criteria_its_rule_weighed() {
    let deciding = |verdict: &Verdict, use_case: &str| {
        verdict
            .picks
            .iter()
            .find(|pick| pick.use_case == use_case)
            .map(|pick| pick.deciding)
            .unwrap()
    };
    let mut results = clear_run();
    let before = verdict(&results);
    assert_eq!(
        deciding(&before, ASYNC_SERVICE),
        Deciding {
            first: Some(Criterion::InstructionsPerPayment),
            tie_break: Some(Criterion::CpuBeside),
        }
    );
    assert_eq!(
        deciding(&before, ON_ACTIX),
        Deciding {
            first: Some(Criterion::Capacity),
            tie_break: None,
        }
    );
    assert_eq!(
        deciding(&before, BLOCKING_CODE),
        Deciding {
            first: Some(Criterion::Latency(Protocol::Http)),
            tie_break: Some(Criterion::Dependencies),
        }
    );
    // No quota measured: no judgement of one to name, the tie-break named all the same.
    assert_eq!(
        deciding(&before, UNDER_A_CPU_LIMIT),
        Deciding {
            first: None,
            tie_break: Some(Criterion::InstructionsPerPayment),
        }
    );
    results.resilience.capacity.extend([
        ClientCapacity {
            cpu_quota_millicpus: Some(500),
            ..capacity_rounds(Hyper, &[1_000, 1_000, 1_000])
        },
        ClientCapacity {
            cpu_quota_millicpus: Some(1_000),
            ..capacity_rounds(Hyper, &[2_000, 2_000, 2_000])
        },
    ]);
    assert_eq!(
        deciding(&verdict(&results), UNDER_A_CPU_LIMIT).first,
        Some(Criterion::CapacityUnderQuota(500)),
        "the smallest quota"
    );
}

#[test]
fn a_refuted_capacity_far_below_the_pick_does_not_hold_it_up() {
    let mut results = clear_run();
    // ureq's 2000 RPS was refuted: it is at best 2000, which hyper and awc beat beyond the
    // noise, so the picks that rank by capacity still stand.
    let ureq = results
        .resilience
        .capacity
        .iter_mut()
        .find(|row| row.client == Ureq)
        .unwrap();
    ureq.refuted = Some(bench_model::Refuted::Soak {
        percent: 50,
        rps: 1000,
        failed: 3,
        unsent: 0,
        scheduled: 84_855,
        p99_ms: None,
    });
    let verdict = verdict(&results);
    assert_eq!(pick(&verdict, ON_ACTIX), Some(Hyper));
    let capacity = judged(&verdict, Criterion::Capacity);
    assert_eq!(capacity.left_out.len(), 1);
    assert_eq!(capacity.claimed[0].shown, "2000 RPS, refuted");
}

#[test]
fn rounds_apart_by_less_than_their_own_spread_are_a_tie() {
    let mut results = clear_run();
    // Ranges apart (7100-9000 against 6000-7000), but hyper's margin (7200 against 6500: 11%)
    // is within the 26% its own rounds moved: three rounds of two equal figures fall apart one
    // time in ten.
    results.resilience.capacity = vec![
        capacity_rounds(Hyper, &[7_100, 9_000, 7_200]),
        capacity_rounds(Awc, &[6_000, 6_500, 7_000]),
    ];
    let run = verdict(&results);
    let capacity = ranking(&run, Criterion::Capacity);
    assert_eq!(capacity.best.client, Hyper);
    assert!(!capacity.decisive, "a margin of 11% within a spread of 26%");
    results.resilience.capacity[0] = capacity_rounds(Hyper, &[9_000, 9_500, 9_200]);
    let run = verdict(&results);
    let capacity = ranking(&run, Criterion::Capacity);
    assert!(
        capacity.decisive,
        "42% against spreads of 5% and 15%: {capacity:?}"
    );
}

#[test]
fn a_timed_margin_within_what_runs_move_is_a_tie() {
    let mut results = clear_run();
    // 7% apart, the rounds and CIs far apart: still within the 10% that runs moved.
    results.latency = vec![
        latency_row(Hyper, Protocol::Http, 40.0, 0.2, 20.0),
        latency_row(Awc, Protocol::Http, 42.8, 0.2, 25.0),
    ];
    let run = verdict(&results);
    let latency = ranking(&run, Criterion::Latency(Protocol::Http));
    assert!(!latency.decisive, "{latency:?}");
    results.latency[1] = latency_row(Awc, Protocol::Http, 46.0, 0.2, 25.0);
    let run = verdict(&results);
    let latency = ranking(&run, Criterion::Latency(Protocol::Http));
    assert!(latency.decisive, "15% apart");
}

/// A stretch of `rps` with `ok` of `sent` answered.
fn stretch(rps: u32, sent: u64, ok: u64) -> RampStep {
    RampStep {
        rps,
        requests: PhaseCounts {
            sent,
            ok,
            ok_p99_ms: Some(5.0),
            ..PhaseCounts::default()
        },
        cpu: None,
    }
}

#[test]
fn a_refuted_capacity_is_ranked_at_the_rate_it_stepped_down_to() {
    let mut results = clear_run();
    let hyper = &mut results.resilience.capacity[0];
    hyper.refuted = Some(bench_model::Refuted::Soak {
        percent: 50,
        rps: 4000,
        failed: 519,
        unsent: 0,
        scheduled: 84_855,
        p99_ms: None,
    });
    hyper.step_downs = vec![
        StepDown {
            rps: 6_727,
            confirmation: stretch(6_727, 100, 100),
            soak: Some(stretch(3_364, 500, 499)),
            refuted: Some(bench_model::Refuted::Soak {
                percent: 50,
                rps: 3_364,
                failed: 1,
                unsent: 0,
                scheduled: 30_276,
                p99_ms: Some(12.5),
            }),
        },
        StepDown {
            rps: 5_657,
            confirmation: stretch(5_657, 100, 100),
            soak: Some(stretch(2_828, 500, 500)),
            refuted: None,
        },
    ];
    assert_eq!(hyper.sustained_rps(), Some(5_657));
    let verdict = verdict(&results);
    let capacity = ranking(&verdict, Criterion::Capacity);
    let figure = capacity.order.iter().find(|f| f.client == Hyper).unwrap();
    assert!((figure.value - 5_657.0).abs() < 1e-9);
    assert_eq!(
        figure.shown,
        "5657 RPS, stepped down from 8000 (its soak failed)"
    );
    assert!(judged(&verdict, Criterion::Capacity).left_out.is_empty());
    let table = crate::report::markdown(&crate::report::Rendering::of(&results), &[]);
    assert!(
        table.contains("at 5657 RPS its confirmation and its soak at 2828 RPS held"),
        "{table}"
    );

    // Neither step held: no figure, and why, down to the last rate tried.
    let hyper = &mut results.resilience.capacity[0];
    hyper.step_downs[1].refuted = Some(bench_model::Refuted::Confirmation {
        rps: 5_657,
        ok: 90,
        sent: 100,
        p99_ms: None,
    });
    assert_eq!(hyper.sustained_rps(), None);
    let verdict = super::verdict(&results);
    let capacity = judged(&verdict, Criterion::Capacity);
    assert_eq!(capacity.left_out[0].0, Hyper);
    assert!(
        capacity.left_out[0].1.ends_with(
            "stepped down to 5657 RPS, where its confirmation at 5657 RPS did not hold: 90 \
                 of 100 sent answered 200, p99 none"
        ),
        "{:?}",
        capacity.left_out
    );
    assert_eq!(capacity.claimed[0].shown, "8000 RPS, refuted");
}

/// A figure of `value` whose rounds were `rounds`.
fn rounds_of(client: ClientName, value: f64, rounds: &[f64]) -> Figure {
    Figure {
        client,
        value,
        rounds: rounds.to_vec(),
        half_width: None,
        shown: format!("{value}"),
    }
}

#[test]
fn a_resolution_is_the_margin_the_rule_would_have_called() {
    // 100 with rounds 95-105 against 110 with rounds 100-120: spreads 10% and 18%; the lower's
    // top round 5% above it, the higher's bottom round 9% below: apart from 1.05 / 0.909 - 1
    // = 15.5% on; the larger spread, 18%, decides.
    let lower = rounds_of(Hyper, 100.0, &[95.0, 100.0, 105.0]);
    let higher = rounds_of(Awc, 110.0, &[100.0, 110.0, 120.0]);
    let Resolution::Margin(margin) = resolution(&lower, &higher, NoiseRule::Rounds) else {
        panic!("a margin");
    };
    assert!((margin - 20.0 / 110.0).abs() < 1e-9, "{margin}");
    // The same from either side, and a band above it decides instead.
    assert_eq!(
        resolution(&higher, &lower, NoiseRule::Rounds),
        Resolution::Margin(margin)
    );
    assert_eq!(
        resolution(&lower, &higher, NoiseRule::RoundsAndBand(0.25)),
        Resolution::Margin(0.25)
    );
    // Ranges that reach far: the ranges decide. 100 with rounds up to 130 against 110 with
    // rounds down to 80: apart from 1.3 / (1 - 30/110) - 1 = 78.75% on.
    let wide_low = rounds_of(Hyper, 100.0, &[100.0, 130.0, 100.0]);
    let wide_high = rounds_of(Awc, 110.0, &[80.0, 110.0, 110.0]);
    let Resolution::Margin(wide) = resolution(&wide_low, &wide_high, NoiseRule::Rounds) else {
        panic!("a margin");
    };
    assert!(
        (wide - (1.3 / (1.0 - 30.0 / 110.0) - 1.0)).abs() < 1e-9,
        "{wide}"
    );
    // Once, bands and counts.
    assert_eq!(
        resolution(&lower, &higher, NoiseRule::Once(0.1)),
        Resolution::Margin(0.1)
    );
    assert_eq!(
        resolution(&lower, &higher, NoiseRule::Exact),
        Resolution::AnyDifference
    );
    let once = rounds_of(Hyper, 100.0, &[100.0]);
    assert_eq!(
        resolution(&once, &higher, NoiseRule::Rounds),
        Resolution::NoClaim
    );
    // A margin past the resolution is called, one short of it is not.
    let at = |factor: f64| {
        rounds_of(
            Awc,
            100.0 * factor,
            &[95.0 * factor, 100.0 * factor, 105.0 * factor],
        )
    };
    let Resolution::Margin(same_shape) = resolution(&lower, &at(1.2), NoiseRule::Rounds) else {
        panic!("a margin");
    };
    let past = 1.0 + same_shape + 0.01;
    let short = 1.0 + same_shape - 0.01;
    assert!(compare(&lower, &at(past), Better::Lower, NoiseRule::Rounds).1);
    assert!(!compare(&lower, &at(short), Better::Lower, NoiseRule::Rounds).1);
    assert_eq!(Resolution::Margin(0.0).describe(), "any difference");
    assert_eq!(Resolution::Margin(0.123).describe(), "12%");
}

#[test]
fn a_tied_pick_says_what_it_could_not_see_and_who_sits_at_its_edge() {
    let mut results = clear_run();
    results.service_cost = vec![
        service_cost(Hyper, 100_000.0),
        service_cost(Awc, 102_000.0),
        service_cost(Reqwest, 104_000.0),
    ];
    let run = verdict(&results);
    let async_pick = run
        .picks
        .iter()
        .find(|pick| pick.use_case == "A high-throughput async service")
        .unwrap();
    assert!(
        async_pick.reason.contains("this run calls")
            && async_pick
                .reason
                .contains("reqwest, 4% behind hyper, at the edge"),
        "{}",
        async_pick.reason
    );
    // The CPU per payment beside hyper breaks the three-way tie: hyper 1.00x, beyond the noise.
    assert_eq!(async_pick.choice, Choice::Client(Hyper));
}

const IDLE_CLOSE: &str = "An upstream that closes idle connections";
const MANY_HOSTS: &str = "A service calling many hosts";
const SMALL_MEMORY: &str = "A service with a small memory budget";

fn configured(verdict: &Verdict, use_case: &str) -> crate::verdict::Configured {
    verdict
        .picks
        .iter()
        .find(|pick| pick.use_case == use_case)
        .unwrap_or_else(|| panic!("no use case {use_case}"))
        .configured
        .clone()
}

/// The idle suite's forced race for `client`: `lost` of 12 calls lost, with the client's idle
/// timeout above the server's (`above`) or below it.
fn idle_race_row(client: ClientName, above: bool, lost: u64) -> bench_model::IdleRow {
    bench_model::IdleRow {
        client,
        client_idle_ms: if above { 4_000 } else { 125 },
        server_idle_ms: 250,
        server_close: bench_model::ServerClose::OnArrival,
        gap_ms: 275,
        calls: 12,
        ok: 12 - lost,
        errors: if lost == 0 {
            Vec::new()
        } else {
            vec![bench_model::IdleError {
                kind: "Connect".to_owned(),
                count: lost,
                first: "connection closed before message completed".to_owned(),
            }]
        },
        connections: None,
        idle_closes: None,
        races: None,
    }
}

#[test]
fn with_the_idle_timeout_below_the_servers_every_client_keeps_its_calls() {
    let mut results = clear_run();
    results
        .settings
        .edit(|settings| settings.clients = vec![Hyper, Awc, Isahc]);
    results.resilience.capacity.push(capacity(Isahc, 1000));
    results.idle = vec![
        idle_race_row(Hyper, true, 6),
        idle_race_row(Awc, true, 6),
        idle_race_row(Isahc, true, 0),
        idle_race_row(Hyper, false, 0),
        idle_race_row(Awc, false, 0),
        idle_race_row(Isahc, false, 0),
    ];
    let verdict = verdict(&results);
    // As shipped, only libcurl resends the lost request.
    assert_eq!(
        pick(&verdict, IDLE_CLOSE),
        Some(Isahc),
        "{:?}",
        verdict.picks
    );
    // With the setting every client loses nothing: the tie is broken by capacity, where hyper
    // leads beyond the noise; the setting that made its figure is named.
    let with_settings = configured(&verdict, IDLE_CLOSE);
    assert_eq!(
        with_settings.choice,
        Choice::Client(Hyper),
        "{with_settings:?}"
    );
    assert!(
        with_settings.reason.contains("pool_idle_timeout"),
        "{}",
        with_settings.reason
    );
    assert_eq!(
        ranking(&verdict, Criterion::IdleRaceBelow).best.shown,
        "0/12",
        "the setting's own criterion"
    );
}

#[test]
fn a_setting_row_is_a_candidate_with_settings_only_and_says_its_setting() {
    let mut results = clear_run();
    results.settings.edit(|settings| {
        settings.clients = vec![Hyper, Reqwest, Isahc, ClientName::ReqwestHickoryDns];
    });
    results
        .settings
        .edit(|settings| settings.resolution.delays_ms = vec![100]);
    let asked = |client, questions| bench_model::ResolutionRow {
        client,
        dns_delay_ms: Some(100),
        calls: 30,
        ok: 30,
        first_error: None,
        median_us: Some(1000.0),
        mean_us: Some(1000.0),
        connections: Some(30),
        a_questions: Some(questions),
        aaaa_questions: Some(questions),
    };
    results.resolution = vec![
        asked(Hyper, 30),
        asked(Reqwest, 30),
        asked(Isahc, 0),
        asked(ClientName::ReqwestHickoryDns, 0),
    ];
    results.resilience.capacity.push(capacity(Isahc, 1000));
    let verdict = verdict(&results);
    assert_eq!(pick(&verdict, MANY_HOSTS), Some(Isahc));
    // With settings, reqwest's resolver asks no more than libcurl: a tie on questions, broken
    // by capacity, which the resolution row has none of its own: reqwest's stands for it.
    let with_settings = configured(&verdict, MANY_HOSTS);
    assert_eq!(
        with_settings.choice,
        Choice::Client(ClientName::ReqwestHickoryDns),
        "{with_settings:?}"
    );
    assert!(with_settings.reason.contains("hickory_dns(true)"));
    assert!(
        with_settings
            .reason
            .contains("the setting's own not measured")
    );
    // Equal capacities: a tie, which says whose capacity stands for the setting row.
    results.resilience.capacity = vec![capacity(Reqwest, 2_000), capacity(Isahc, 2_000)];
    let tie = configured(&super::verdict(&results), MANY_HOSTS);
    assert_eq!(
        tie.choice,
        Choice::Tie(vec![Isahc, ClientName::ReqwestHickoryDns]),
        "{tie:?}"
    );
    assert!(
        tie.reason
            .contains("(reqwest-hickory-dns's is reqwest's, its own not measured)"),
        "{}",
        tie.reason
    );
}

#[test]
fn the_small_memory_pick_holds_the_least_with_its_pool_warm() {
    use bench_model::{MemoryPoint, MemoryRound, MemoryRow};
    let held = |kib: u64| MemoryRound {
        before: MemoryPoint {
            heap_bytes: 1_000_000,
            ..MemoryPoint::default()
        },
        warm: MemoryPoint {
            heap_bytes: 1_000_000 + kib * 1024,
            ..MemoryPoint::default()
        },
        ..MemoryRound::default()
    };
    let row = |client, kibs: [u64; 3]| MemoryRow {
        client,
        protocol: Protocol::Https,
        rounds: kibs.into_iter().map(held).collect(),
        failed: Vec::new(),
    };
    let mut results = clear_run();
    results.memory = vec![
        row(Hyper, [900, 920, 940]),
        row(Ureq, [300, 310, 320]),
        row(Isahc, [2_000, 2_050, 2_100]),
        // Within the band of ureq's: a tie, were it the best.
        row(Reqwest, [330, 331, 332]),
    ];
    let verdict = verdict(&results);
    // ureq and reqwest tie on the heap (7% apart, within the band); fewer crates break it,
    // and this run has reqwest's crate count missing: the tie-break decides among those it
    // has, and names the one left out.
    let tied = verdict
        .picks
        .iter()
        .find(|pick| pick.use_case == SMALL_MEMORY)
        .expect("the use case");
    assert_eq!(tied.choice, Choice::Client(Ureq), "{tied:?}");
    assert!(
        tied.reason.contains("ureq, reqwest tie on memory held")
            && tied.reason.contains(
                "left out of the tie-break, no figure for dependencies: reqwest (not measured \
                 in this run)"
            ),
        "{}",
        tied.reason
    );
    assert!(
        tied.brief
            .ends_with("the only one measured; reqwest left out"),
        "{}",
        tied.brief
    );
    results.memory.pop();
    let verdict = super::verdict(&results);
    assert_eq!(pick(&verdict, SMALL_MEMORY), Some(Ureq));
    assert_eq!(
        ranking(&verdict, Criterion::Memory(Protocol::Https))
            .best
            .shown,
        "310 KiB"
    );
    // A failed round leaves the client out, and a pick among it undecided.
    results.memory[1].failed = vec![bench_model::RoundFailed {
        round: 2,
        failure: bench_model::ChildFailure::NoReadings,
    }];
    assert_eq!(
        choice(&super::verdict(&results), SMALL_MEMORY),
        Choice::NotDecided
    );
}

#[test]
fn a_quick_run_leaves_a_first_tie_unbroken() {
    // The blocking clients tie on latency; ureq has the fewest crates.
    let mut results = clear_run();
    results.latency = vec![
        latency_row(ReqwestBlocking, Protocol::Http, 36.0, 8.0, 62.0),
        latency_row(Ureq, Protocol::Http, 40.0, 8.0, 48.0),
    ];
    results.adoption.rows = vec![
        adoption(ReqwestBlocking, 4.0, 105, 200.0),
        adoption(Ureq, 2.5, 36, 100.0),
    ];
    assert_eq!(pick(&verdict(&results), BLOCKING_CODE), Some(Ureq));
    results.settings.edit(|settings| settings.quick = true);
    let verdict = verdict(&results);
    assert_eq!(
        choice(&verdict, BLOCKING_CODE),
        Choice::Tie(vec![Ureq, ReqwestBlocking]),
        "the latency tie, in table order, not fewer crates' pick"
    );
    let reason = &verdict
        .picks
        .iter()
        .find(|pick| pick.use_case == BLOCKING_CODE)
        .unwrap()
        .reason;
    assert!(
        reason.contains("A --quick run leaves the first tie unbroken")
            && reason.contains("the tie-break picks ureq here"),
        "{reason}"
    );
    // A pick the first criterion makes beyond the noise stands in a quick run too.
    assert_eq!(pick(&verdict, SMALLEST), Some(Ureq));
}

/// A ramp step at `rps`, every request answered within the objective, the service taking
/// `service_us` of CPU per payment.
fn step_costing(rps: u32, service_us: f64) -> RampStep {
    let answered = u64::from(rps) / 4;
    RampStep {
        rps,
        requests: PhaseCounts {
            sent: answered,
            ok: answered,
            ok_p99_ms: Some(5.0),
            ..PhaseCounts::default()
        },
        cpu: Some(bench_model::StretchCpu {
            service_s: Some(service_us * answered as f64 / 1e6),
            mock_s: None,
            generator_s: None,
        }),
    }
}

/// A capacity of `rps` whose rounds' ramps cost `own` us per payment at 1000 and 2000 RPS,
/// each beside a reference that cost `reference` us in the same steps.
fn beside(client: ClientName, rps: u32, own: &[f64], reference: &[f64]) -> ClientCapacity {
    let mut row = capacity(client, rps);
    for ((round, &own), (&theirs, side)) in row
        .rounds
        .iter_mut()
        .zip(own)
        .zip(reference.iter().zip(0u8..))
    {
        round.steps = vec![step_costing(1_000, own), step_costing(2_000, own)];
        round.beside = Some(bench_model::Beside {
            reference: Hyper,
            side: side % 2,
            steps: vec![step_costing(1_000, theirs), step_costing(2_000, theirs)],
            confirmations: Vec::new(),
            repeated: Vec::new(),
        });
    }
    row
}

#[test]
fn cpu_per_payment_beside_the_reference_is_ranked_by_its_ratio_in_the_same_steps() {
    let mut results = clear_run();
    // The machine slowed down in round 2 for both sides alike: the CPU per payment overlaps,
    // its ratio to the reference's in the same steps does not.
    results.resilience.capacity = vec![
        beside(Awc, 8_000, &[60.0, 90.0, 62.0], &[60.0, 90.0, 61.0]),
        beside(Reqwest, 7_000, &[70.0, 104.0, 71.0], &[60.0, 90.0, 61.0]),
    ];
    let verdict = verdict(&results);
    let cpu = ranking(&verdict, Criterion::CpuBeside);
    assert_eq!((cpu.best.client, cpu.runner_up.client), (Awc, Reqwest));
    assert_eq!(cpu.best.shown, "1.00x hyper's (1.00 / 1.00 / 1.02)");
    assert_eq!(cpu.runner_up.shown, "1.16x hyper's (1.17 / 1.16 / 1.16)");
    assert!(cpu.decisive, "1.00-1.02 against 1.16-1.17");
    assert!(
        judged(&verdict, Criterion::CpuBeside)
            .source
            .contains("as a ratio to hyper's on a second service beside it"),
        "{}",
        judged(&verdict, Criterion::CpuBeside).source
    );
    // The capacity stays the rate itself.
    assert_eq!(
        ranking(&verdict, Criterion::Capacity).best.shown,
        "8000 RPS"
    );
    let table = crate::report::markdown(&crate::report::Rendering::of(&results), &[]);
    assert!(
        table.contains("1.16x hyper's (1.17 / 1.16 / 1.16)"),
        "{table}"
    );
    assert!(
        table.contains("the service's CPU per payment moved 49% between a client's rounds"),
        "{table}"
    );
    assert!(
        table.contains("its ratio to hyper's in the same steps 1%"),
        "{table}"
    );
    assert!(
        !table.contains("ran again"),
        "no step was run again: {table}"
    );
    // Steps both sides missed and ran again: those the client's service then held are named.
    for (round, repeated) in results.resilience.capacity[0].rounds.iter_mut().zip([
        vec![1_000],
        vec![2_000, 4_000],
        Vec::new(),
    ]) {
        if let Some(beside) = round.beside.as_mut() {
            beside.repeated = repeated;
        }
    }
    let table = crate::report::markdown(&crate::report::Rendering::of(&results), &[]);
    assert!(
        table.contains(
            "Ramp steps both services missed and ran again (the second run counts): 3; the \
             client's service then held awc at 1000 RPS, awc at 2000 RPS: a stall both met."
        ),
        "{table}"
    );

    // A step the reference did not sustain is no step of the ratio; a round with none, no
    // round of it.
    let mut row = beside(Ureq, 1_000, &[100.0, 100.0, 100.0], &[50.0, 50.0, 50.0]);
    let reference = row.rounds[1].beside.as_mut().unwrap();
    reference.steps[0].requests.ok -= 1;
    reference.steps[1].requests.ok_p99_ms = Some(30.0);
    let rounds = row.cpu_beside();
    assert_eq!(rounds[0].map(|round| round.ratio), Some(2.0));
    assert_eq!(rounds[1], None);
    // Without a reference beside it (runs before the pairing): not measured.
    let mut before = clear_run();
    for row in &mut before.resilience.capacity {
        for round in &mut row.rounds {
            round.beside = None;
        }
    }
    let verdict = super::verdict(&before);
    assert!(matches!(
        judged(&verdict, Criterion::CpuBeside).outcome,
        Outcome::NotMeasured(_)
    ));
}
