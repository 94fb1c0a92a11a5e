use super::*;
use bench_model::{ClientName, SuiteName};

#[test]
fn a_tls_check_says_what_mock_rates_counted() {
    assert_eq!(
        unchecked(&Unchecked::HandshakesNotCounted, Protocol::Https),
        "the TLS handshakes could not be counted (mock-rates' admin endpoint)"
    );
    assert_eq!(
        unchecked(&Unchecked::NoTls, Protocol::Https),
        "its calls over https negotiated no TLS that mock-rates counted"
    );
    assert_eq!(
        unchecked(
            &Unchecked::NotH2 {
                not_h2: 1,
                handshakes: 2
            },
            Protocol::H2
        ),
        "over h2, mock-rates counted that 1 of its 2 TLS handshakes did not choose h2"
    );
    assert_eq!(
        unchecked(
            &Unchecked::ChoseH2 {
                h2: 2,
                handshakes: 3
            },
            Protocol::Https
        ),
        "over https, mock-rates counted that 2 of its 3 TLS handshakes chose h2, where its \
         client was built for HTTP/1.1"
    );
}

#[test]
fn a_row_against_a_foreign_upstream_says_what_was_checked_instead() {
    let at = |url: &str| NotCounted::ForeignUpstream {
        url: url.to_owned(),
    };
    let h2 = not_counted(&at("https://localhost:8443"), Protocol::H2);
    assert!(h2.contains("not measured"), "{h2}");
    assert!(h2.contains("answered over HTTP/2"), "{h2}");
    let https = not_counted(&at("https://localhost:8443"), Protocol::Https);
    assert!(https.contains("the certificate verified"), "{https}");
    let http = not_counted(&at("http://127.0.0.1:9000"), Protocol::Http);
    assert_eq!(
        http,
        "connections and the server's CPU are not measured: mock-rates counts them, and \
         http://127.0.0.1:9000 is not mock-rates"
    );
    let new = connections_not_counted(&at("u"), ConnectionMode::NewConnection, Protocol::Https);
    assert!(new.contains("handshakes"), "{new}");
    assert!(new.contains("no idle connection kept"), "{new}");
    let built = connections_not_counted(&at("u"), ConnectionMode::BuiltPerCall, Protocol::Http);
    assert!(built.contains("a new client per call"), "{built}");
    assert_eq!(
        connections_not_counted(&at("u"), ConnectionMode::Pooled, Protocol::Http),
        "the connections opened are not measured: mock-rates counts them, and u is not \
         mock-rates"
    );
}

#[test]
fn a_withheld_row_says_which_count_contradicts_it() {
    let cases = [
        (
            Withheld::CountersUnread,
            "mock-rates' counters could not be read, so whether each call opened a connection \
             of its own, and what TLS it negotiated, is unknown",
        ),
        (
            Withheld::NotOnePerCall {
                connections: 1,
                calls: 10,
            },
            "mock-rates accepted 1 connections for 10 calls: not one connection per call",
        ),
        (
            Withheld::NoTls,
            "its calls over https negotiated no TLS that mock-rates counted",
        ),
        (
            Withheld::HandshakesMissing {
                connections: 10,
                handshakes: 9,
            },
            "mock-rates accepted 10 connections but completed 9 TLS handshakes",
        ),
        (
            Withheld::Resumed { resumed: 1 },
            "mock-rates with resumption off counted 1 resumed handshakes",
        ),
    ];
    for (why, said) in cases {
        assert_eq!(withheld(&why), said);
    }
}

/// A row with a refutation, as results.json holds one.
#[derive(serde::Deserialize)]
struct Row {
    #[serde(deserialize_with = "bench_model::reasons::option")]
    why: Option<Refuted>,
}

#[test]
fn a_refutation_is_worded_as_schema_2_wrote_it() {
    // The sentences the saved runs in docs/ hold: read back as values, worded the same.
    for sentence in [
        "its soak at 50% of it (4757 RPS) failed 281 and left 0 unsent of 71355, p99 47.2 ms",
        "its soak at 50% of it (4757 RPS) failed 281 and left 0 unsent of 71355, p99 none",
        "its confirmation at 16000 RPS did not hold: 31606 of 32000 sent answered 200, p99 36.8 ms",
    ] {
        let row: Row = serde_json::from_value(serde_json::json!({ "why": sentence })).unwrap();
        let value = row.why.unwrap();
        assert!(matches!(
            value,
            Refuted::Soak { .. } | Refuted::Confirmation { .. }
        ));
        assert_eq!(refuted(&value), sentence);
    }
}

#[test]
fn a_generator_row_without_figures_says_why() {
    assert_eq!(
        generator_not_measured(&GeneratorNotMeasured::WrkNotRun {
            error: "No such file or directory (os error 2)".to_owned()
        }),
        "wrk could not be run (No such file or directory (os error 2)); Debian: apt-get install \
         wrk"
    );
    assert_eq!(
        generator_not_measured(&GeneratorNotMeasured::WrkFailed {
            status: "exit status: 1".to_owned(),
            stderr: "unable to connect".to_owned()
        }),
        "wrk failed (exit status: 1): unable to connect"
    );
    assert_eq!(
        generator_not_measured(&GeneratorNotMeasured::WrkOutput {
            output: "?".to_owned()
        }),
        "wrk's output was not understood: ?"
    );
    assert_eq!(
        generator_not_measured(&GeneratorNotMeasured::Script {
            error: "/tmp/x.lua: denied".to_owned()
        }),
        "wrk's script: /tmp/x.lua: denied"
    );
}

#[test]
fn a_failed_memory_round_and_the_suites_that_need_cargo_are_worded() {
    let round = |failure| RoundFailed { round: 2, failure };
    assert_eq!(
        round_failed(&round(ChildFailure::NoReadings), Protocol::Http),
        "round 2: the child printed no readings"
    );
    assert_eq!(
        round_failed(
            &round(ChildFailure::Exited {
                status: "exit status: 1".to_owned(),
                stderr: "panicked".to_owned()
            }),
            Protocol::Http
        ),
        "round 2: the child exited with exit status: 1; its stderr ends: panicked"
    );
    assert_eq!(
        round_failed(
            &round(ChildFailure::NotRun {
                error: "ENOENT".to_owned()
            }),
            Protocol::Http
        ),
        "round 2: cannot run the bench's __memory child: ENOENT"
    );
    assert_eq!(
        round_failed(
            &round(ChildFailure::Unchecked {
                tls: Unchecked::NoTls
            }),
            Protocol::Https
        ),
        "round 2: its calls over https negotiated no TLS that mock-rates counted"
    );
    assert_eq!(
        toolchain(&Toolchain::RustcNotRun {
            error: "ENOENT".to_owned()
        }),
        "rustc cannot be run (ENOENT): the probes need it"
    );
    assert_eq!(toolchain(&Toolchain::NoHost), "rustc -vV names no host");
    assert_eq!(
        dependencies_skipped(&DependenciesSkipped::Client {
            client: ClientName::Ureq,
            error: "cargo metadata failed".to_owned()
        }),
        "ureq: cargo metadata failed"
    );
    assert_eq!(
        dependencies_skipped(&DependenciesSkipped::NoLock {
            path: "/src/Cargo.lock".to_owned()
        }),
        "the workspace's Cargo.lock is not at /src/Cargo.lock (the probes' trees are read from \
         the sources the bench was built from)"
    );
    assert_eq!(
        dependencies_skipped(&DependenciesSkipped::Toolchain {
            toolchain: Toolchain::CargoNotRun {
                error: "ENOENT".to_owned()
            }
        }),
        "cargo cannot be run (ENOENT): the probes need it"
    );
}

#[test]
fn what_a_baseline_did_not_compare_is_worded() {
    assert_eq!(
        not_compared(&NotCompared::NoRows {
            suite: SuiteName::Faults
        }),
        "faults: the baseline has no faults rows"
    );
    assert_eq!(
        not_compared(&NotCompared::Unmatched {
            suite: SuiteName::Load,
            unmatched: 2,
            rows: 6
        }),
        "load: 2 of 6 rows have no match in the baseline, or no figure in one run"
    );
    assert_eq!(
        not_compared(&NotCompared::Connections),
        "connections: not compared against a baseline"
    );
}

#[test]
fn the_releases_reasons_are_worded() {
    assert_eq!(
        releases_skipped(&ReleasesSkipped::NoRelease),
        "no release of the run's clients' libraries"
    );
    assert_eq!(
        releases_skipped(&ReleasesSkipped::UnknownRelease {
            name: "ureq@9".to_owned(),
            known: vec!["ureq@2.12.1".to_owned(), "ureq@3.5.2".to_owned()]
        }),
        "--releases ureq@9: not a release the suite knows; it knows ureq@2.12.1, ureq@3.5.2"
    );
    assert_eq!(
        releases_skipped(&ReleasesSkipped::Pin {
            cpu: Some(1),
            error: "EINVAL".to_owned()
        }),
        "pinning to CPU Some(1): EINVAL"
    );
    assert_eq!(
        release_failure(&ReleaseFailure::Build {
            error: "error[E0433]".to_owned()
        }),
        "does not build: error[E0433]"
    );
    assert_eq!(
        release_failure(&ReleaseFailure::ResolvedOther {
            resolved: None,
            pinned: "1.0.0".to_owned()
        }),
        "resolved nothing where 1.0.0 was pinned"
    );
    let wrong = FigureNotMeasured::WrongVersion {
        version: "HTTP/1.1".to_owned(),
    };
    assert_eq!(
        figure_not_measured(&wrong, Protocol::H2),
        "answered over HTTP/1.1: the release does not negotiate h2 with its defaults (offered \
         h2 and http/1.1 by ALPN)"
    );
    let wrong = FigureNotMeasured::WrongVersion {
        version: "HTTP/2".to_owned(),
    };
    assert_eq!(
        figure_not_measured(&wrong, Protocol::Http),
        "answered over HTTP/2, HTTP/1.1 expected"
    );
    assert_eq!(
        figure_not_measured(&FigureNotMeasured::NoValgrind, Protocol::Http),
        "not measured: valgrind is not installed (apt-get install valgrind)"
    );
    let under = FigureNotMeasured::Callgrind {
        failure: Box::new(FigureNotMeasured::NoTotals),
    };
    assert_eq!(
        figure_not_measured(&under, Protocol::Http),
        "under callgrind: callgrind wrote no totals"
    );
    assert_eq!(
        figure_not_measured(
            &FigureNotMeasured::ProbeFailed {
                status: "signal: 9".to_owned(),
                stderr: "killed".to_owned()
            },
            Protocol::Http
        ),
        "the probe failed (signal: 9): killed"
    );
    assert_eq!(
        figure_not_measured(&FigureNotMeasured::NeverReached, Protocol::Http),
        "the peer never read a whole request head: the call did not reach it"
    );
}
