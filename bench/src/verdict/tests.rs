//! The verdict fed synthetic results: it must follow the figures, call ties, and say what a
//! run did not measure.

use super::*;
use crate::model::test_rows::{latency_row, load_row};
use crate::model::{
    AdoptionRow, ClientCapacity, ClientName, Environment, ProbeBuild, Protocol, Results,
    RunSettings,
};

use ClientName::{Awc, Hyper, Isahc, Reqwest, Ureq};

fn results() -> Results {
    use clap::Parser as _;
    let cli = crate::cli::Cli::parse_from(["bench", "--quick"]);
    let environment = Environment {
        bench_version: "0.1.0".to_owned(),
        started_utc: "2026-12-02T00:00:00Z".to_owned(),
        os: "Debian".to_owned(),
        kernel: "6".to_owned(),
        cpu_model: "Test CPU".to_owned(),
        logical_cores: 2,
        physical_cores: Some(2),
        load_average: None,
        rustc: "rustc 1.95.0".to_owned(),
        build_profile: "release".to_owned(),
        target: "x86_64-unknown-linux-gnu".to_owned(),
        crates: Vec::new(),
        tls_libraries: Vec::new(),
    };
    let settings: RunSettings = crate::cli::resolve(&cli);
    Results::new(environment, settings)
}

fn capacity(client: ClientName, rps: u32) -> ClientCapacity {
    ClientCapacity {
        client,
        capacity_rps: Some(rps),
        latency_objective_ms: 25.0,
        steps: Vec::new(),
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
    verdict
        .picks
        .iter()
        .find(|pick| pick.use_case == use_case)
        .unwrap_or_else(|| panic!("no use case {use_case}"))
        .client
}

const ASYNC_SERVICE: &str = "A high-throughput async service";
const ON_ACTIX: &str = "A service already on actix-web";
const BLOCKING_CODE: &str = "Blocking or CLI code";
const SMALLEST: &str = "The smallest binary";
const FASTEST_BUILDS: &str = "The fastest builds";

/// A run in which hyper is clearly fastest and has the most capacity, and ureq the smallest.
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
}

#[test]
fn the_best_figures_win_and_swapping_two_clients_swaps_the_verdict() {
    let verdict = verdict(&clear_run());
    let latency = ranking(&verdict, Criterion::Latency(Protocol::Http));
    assert_eq!(
        (latency.best.client, latency.runner_up.client),
        (Hyper, Awc)
    );
    assert!(latency.decisive, "40 +- 1 against 60 +- 1");
    assert!((latency.margin - 0.5).abs() < 1e-9);
    let capacity = ranking(&verdict, Criterion::Capacity);
    assert_eq!(capacity.best.client, Hyper);
    assert!(capacity.decisive, "8000 against 4000 is two ramp steps");
    assert_eq!(pick(&verdict, ASYNC_SERVICE), Some(Hyper));
    assert_eq!(pick(&verdict, ON_ACTIX), Some(Hyper), "beyond the noise");
    assert_eq!(pick(&verdict, BLOCKING_CODE), Some(Ureq));
    assert_eq!(pick(&verdict, SMALLEST), Some(Ureq));
    assert_eq!(pick(&verdict, FASTEST_BUILDS), Some(Ureq));

    let verdict = super::verdict(&swapped(clear_run(), Hyper, Ureq));
    let latency = ranking(&verdict, Criterion::Latency(Protocol::Http));
    assert_eq!(latency.best.client, Ureq);
    assert_eq!(ranking(&verdict, Criterion::Capacity).best.client, Ureq);
    // ureq is blocking, so the async pick is among awc (4000), reqwest (2828) and hyper
    // (2000): awc and reqwest are one ramp step apart, a tie; the CPU tie-break was not
    // measured, so awc's better figure stands.
    assert_eq!(pick(&verdict, ASYNC_SERVICE), Some(Awc));
    assert!(
        verdict.picks[0].reason.contains("awc, reqwest tie"),
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
fn overlapping_intervals_and_one_ramp_step_are_ties() {
    let mut results = clear_run();
    results.latency = vec![
        latency_row(Hyper, Protocol::Http, 40.0, 3.0, 20.0),
        latency_row(Awc, Protocol::Http, 44.0, 3.0, 25.0),
    ];
    results.resilience.capacity = vec![capacity(Awc, 5657), capacity(Hyper, 4000)];
    let verdict = verdict(&results);
    let latency = ranking(&verdict, Criterion::Latency(Protocol::Http));
    assert_eq!(latency.best.client, Hyper);
    assert!(!latency.decisive, "40 +- 3 and 44 +- 3 overlap");
    let capacity = ranking(&verdict, Criterion::Capacity);
    assert_eq!(capacity.best.client, Awc);
    assert!(!capacity.decisive, "one ramp step apart");
    // On actix: awc is the best anyway.
    assert_eq!(pick(&verdict, ON_ACTIX), Some(Awc));
    let table = crate::report::markdown(&results, &[]);
    assert!(table.contains("no: a tie"), "{table}");
}

#[test]
fn a_capacity_tie_is_broken_by_cpu_per_request() {
    let mut results = clear_run();
    results.resilience.capacity = vec![capacity(Awc, 5657), capacity(Hyper, 4000)];
    let mut hyper = load_row(Some(Hyper), 480.0, 900.0, 0);
    let mut awc = load_row(Some(Awc), 480.0, 900.0, 0);
    hyper.api_cpu_s = Some(0.4);
    awc.api_cpu_s = Some(0.8);
    results.load = vec![hyper.clone(), awc.clone()];
    let verdict = verdict(&results);
    assert_eq!(pick(&verdict, ASYNC_SERVICE), Some(Hyper));
    let reason = &verdict.picks[0].reason;
    assert!(reason.contains("tie on capacity"), "{reason}");
    assert!(reason.contains("CPU per request: hyper"), "{reason}");
    assert_eq!(Criterion::Capacity.phrase(), "capacity");
    assert_eq!(
        Criterion::Latency(Protocol::Https).phrase(),
        "per-call latency, https"
    );
    // The CPU figures the other way round: awc wins the tie-break.
    hyper.api_cpu_s = Some(0.8);
    awc.api_cpu_s = Some(0.4);
    results.load = vec![hyper, awc];
    assert_eq!(pick(&super::verdict(&results), ASYNC_SERVICE), Some(Awc));
}

#[test]
fn awc_stays_the_actix_pick_unless_beaten_beyond_the_noise() {
    let mut results = clear_run();
    results.resilience.capacity = vec![capacity(Hyper, 5657), capacity(Awc, 4000)];
    assert_eq!(pick(&verdict(&results), ON_ACTIX), Some(Awc));
    results.resilience.capacity = vec![capacity(Hyper, 8000), capacity(Awc, 4000)];
    assert_eq!(pick(&verdict(&results), ON_ACTIX), Some(Hyper));
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
    assert_eq!(pick(&verdict, ASYNC_SERVICE), None);
    assert_eq!(pick(&verdict, SMALLEST), None);
    let smallest = verdict
        .picks
        .iter()
        .find(|pick| pick.use_case == SMALLEST)
        .unwrap();
    assert!(smallest.reason.contains("--suite adoption"), "{smallest:?}");
    // awc is the actix pick by its rule alone, and says capacity was not measured.
    assert_eq!(pick(&verdict, ON_ACTIX), Some(Awc));
}

#[test]
fn a_client_that_failed_calls_is_not_ranked_on_them() {
    let mut results = clear_run();
    results.latency[0].failures = 3;
    let verdict = verdict(&results);
    let latency = ranking(&verdict, Criterion::Latency(Protocol::Http));
    assert_eq!(latency.best.client, Awc);
    assert!(latency.order.iter().all(|figure| figure.client != Hyper));
}

#[test]
fn margins_are_judged_by_their_rule() {
    let at = |client, value, spread| Figure {
        client,
        value,
        spread,
        shown: String::new(),
    };
    let (margin, decisive) = compare(
        &at(Hyper, 10.0, Spread::HalfWidth(1.0)),
        &at(Awc, 12.5, Spread::HalfWidth(1.0)),
        Better::Lower,
        NoiseRule::Interval,
    );
    assert!((margin - 0.25).abs() < 1e-9);
    assert!(decisive);
    let (_, decisive) = compare(
        &at(Hyper, 10.0, Spread::None),
        &at(Awc, 100.0, Spread::HalfWidth(1.0)),
        Better::Lower,
        NoiseRule::Interval,
    );
    assert!(!decisive, "no interval, no claim");
    let (_, decisive) = compare(
        &at(Hyper, 10.0, Spread::Range(9.0, 11.0)),
        &at(Awc, 12.0, Spread::Range(10.5, 13.0)),
        Better::Lower,
        NoiseRule::Range,
    );
    assert!(!decisive, "ranges overlap");
    let higher = |a: f64, b: f64, rule| {
        compare(
            &at(Hyper, a, Spread::None),
            &at(Awc, b, Spread::None),
            Better::Higher,
            rule,
        )
        .1
    };
    assert!(!higher(
        5657.0,
        4000.0,
        NoiseRule::Step(std::f64::consts::SQRT_2)
    ));
    assert!(higher(
        5657.0,
        2828.0,
        NoiseRule::Step(std::f64::consts::SQRT_2)
    ));
    assert!(higher(11.0, 10.0, NoiseRule::Exact));
    assert!(!higher(10.0, 10.0, NoiseRule::Exact));
    assert!(!higher(10.5, 10.0, NoiseRule::Once(0.10)));
    assert!(higher(11.5, 10.0, NoiseRule::Once(0.10)));
    assert!(higher(10.2, 10.0, NoiseRule::Band(0.01)));
}

#[test]
fn the_verdict_is_the_first_section_of_both_outputs() {
    let results = clear_run();
    let terminal = crate::report::terminal(&results);
    assert!(
        terminal
            .trim_start()
            .starts_with("verdict: a pick per use case"),
        "{terminal}"
    );
    let markdown = crate::report::markdown(&results, &[]);
    let verdict_at = markdown.find("## Verdict").expect("a verdict heading");
    let latency_at = markdown.find("## latency").expect("a latency heading");
    assert!(verdict_at < latency_at);
}
