use serde::de::DeserializeOwned;
use serde_json::json;

use super::*;

/// `value` through JSON and back, and the JSON it is written as.
fn round_trip<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(
    value: &T,
) -> serde_json::Value {
    let written = serde_json::to_value(value).unwrap();
    assert_eq!(
        &serde_json::from_value::<T>(written.clone()).unwrap(),
        value
    );
    written
}

/// A struct with one reason, as the rows hold them.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "T: Deserialize<'de> + FromSentence"))]
struct Row<T> {
    #[serde(default, deserialize_with = "option")]
    why: Option<T>,
}

fn read_sentence<T: FromSentence + DeserializeOwned>(sentence: &str) -> T {
    let row: Row<T> = serde_json::from_value(json!({ "why": sentence })).unwrap();
    row.why.unwrap()
}

#[test]
fn each_reason_round_trips_through_json_with_its_cause_as_tag() {
    let unchecked = Unchecked::NotH2 {
        not_h2: 1,
        handshakes: 2,
    };
    assert_eq!(
        round_trip(&unchecked),
        json!({"cause": "not_h2", "not_h2": 1, "handshakes": 2})
    );
    for value in [
        Unchecked::HandshakesNotCounted,
        Unchecked::NoTls,
        Unchecked::ChoseH2 {
            h2: 3,
            handshakes: 4,
        },
    ] {
        round_trip(&value);
    }
    round_trip(&NotCounted::ForeignUpstream {
        url: "https://x".to_owned(),
    });
    for value in [
        Withheld::CountersUnread,
        Withheld::NoTls,
        Withheld::NotOnePerCall {
            connections: 1,
            calls: 2,
        },
        Withheld::HandshakesMissing {
            connections: 3,
            handshakes: 2,
        },
        Withheld::Resumed { resumed: 5 },
    ] {
        round_trip(&value);
    }
    round_trip(&Refuted::Confirmation {
        rps: 100,
        ok: 9,
        sent: 10,
        p99_ms: None,
    });
    round_trip(&GeneratorNotMeasured::WrkFailed {
        status: "exit status: 1".to_owned(),
        stderr: "boom".to_owned(),
    });
    let failed = RoundFailed {
        round: 2,
        failure: ChildFailure::Unchecked {
            tls: Unchecked::NoTls,
        },
    };
    assert_eq!(
        round_trip(&failed),
        json!({"round": 2, "failure": {"cause": "unchecked", "tls": {"cause": "no_tls"}}})
    );
    round_trip(&DependenciesSkipped::Toolchain {
        toolchain: Toolchain::NoHost,
    });
    round_trip(&NotCompared::Unmatched {
        suite: SuiteName::Load,
        unmatched: 1,
        rows: 4,
    });
    round_trip(&ReleasesSkipped::Pin {
        cpu: Some(2),
        error: "EINVAL".to_owned(),
    });
    round_trip(&ReleaseFailure::ResolvedOther {
        resolved: None,
        pinned: "1.0.0".to_owned(),
    });
    round_trip(&FigureNotMeasured::Callgrind {
        failure: Box::new(FigureNotMeasured::NoTotals),
    });
}

#[test]
fn a_row_written_with_a_value_reads_back_and_none_stays_none() {
    let row = Row {
        why: Some(Withheld::Resumed { resumed: 2 }),
    };
    let written = serde_json::to_string(&row).unwrap();
    assert_eq!(
        serde_json::from_str::<Row<Withheld>>(&written).unwrap(),
        row
    );
    let none: Row<Withheld> = serde_json::from_str("{}").unwrap();
    assert_eq!(none.why, None);
}

#[test]
fn the_refutations_schema_2_wrote_map_to_their_values() {
    // As the saved runs in docs/ hold them.
    assert_eq!(
        read_sentence::<Refuted>(
            "its soak at 50% of it (4757 RPS) failed 281 and left 0 unsent of 71355, p99 47.2 ms"
        ),
        Refuted::Soak {
            percent: 50,
            rps: 4757,
            failed: 281,
            unsent: 0,
            scheduled: 71355,
            p99_ms: Some(47.2),
        }
    );
    assert_eq!(
        read_sentence::<Refuted>(
            "its confirmation at 16000 RPS did not hold: 31606 of 32000 sent answered 200, p99 \
             none"
        ),
        Refuted::Confirmation {
            rps: 16000,
            ok: 31606,
            sent: 32000,
            p99_ms: None,
        }
    );
}

#[test]
fn the_tls_and_count_checks_schema_2_wrote_map_to_their_values() {
    let cases = [
        (
            "TLS: hyper over https: the TLS handshakes could not be counted (mock-rates' admin \
             endpoint)",
            Unchecked::HandshakesNotCounted,
        ),
        (
            "TLS: hyper: its calls over https negotiated no TLS that mock-rates counted",
            Unchecked::NoTls,
        ),
        (
            "TLS: reqwest: over h2, mock-rates counted that 1 of its 2 TLS handshakes did not \
             choose h2",
            Unchecked::NotH2 {
                not_h2: 1,
                handshakes: 2,
            },
        ),
        (
            "TLS: reqwest: over https, mock-rates counted that 2 of its 2 TLS handshakes chose \
             h2, where its client was built for HTTP/1.1",
            Unchecked::ChoseH2 {
                h2: 2,
                handshakes: 2,
            },
        ),
    ];
    for (sentence, value) in cases {
        assert_eq!(read_sentence::<Unchecked>(sentence), value, "{sentence}");
    }
    assert_eq!(
        read_sentence::<NotCounted>(
            "connections and the server's CPU are not measured: mock-rates counts them, and \
             http://127.0.0.1:9000 is not mock-rates"
        ),
        NotCounted::ForeignUpstream {
            url: "http://127.0.0.1:9000".to_owned()
        }
    );
    let withheld = [
        (
            "mock-rates' counters could not be read, so whether ...",
            Withheld::CountersUnread,
        ),
        (
            "mock-rates accepted 3 connections for 4 calls: not one connection per call",
            Withheld::NotOnePerCall {
                connections: 3,
                calls: 4,
            },
        ),
        (
            "its calls over https negotiated no TLS that mock-rates counted",
            Withheld::NoTls,
        ),
        (
            "mock-rates accepted 4 connections but completed 3 TLS handshakes",
            Withheld::HandshakesMissing {
                connections: 4,
                handshakes: 3,
            },
        ),
        (
            "mock-rates with resumption off counted 2 resumed handshakes",
            Withheld::Resumed { resumed: 2 },
        ),
    ];
    for (sentence, value) in withheld {
        assert_eq!(read_sentence::<Withheld>(sentence), value, "{sentence}");
    }
}

#[test]
fn the_other_sentences_schema_2_wrote_map_to_their_values() {
    assert_eq!(
        read_sentence::<GeneratorNotMeasured>(
            "wrk could not be run (No such file or directory (os error 2)); Debian: apt-get \
             install wrk"
        ),
        GeneratorNotMeasured::WrkNotRun {
            error: "No such file or directory (os error 2)".to_owned()
        }
    );
    assert_eq!(
        read_sentence::<RoundFailed>("round 3: the child printed no readings"),
        RoundFailed {
            round: 3,
            failure: ChildFailure::NoReadings
        }
    );
    assert_eq!(
        read_sentence::<DependenciesSkipped>("ureq: cargo metadata: exit status: 101"),
        DependenciesSkipped::Client {
            client: ClientName::Ureq,
            error: "cargo metadata: exit status: 101".to_owned()
        }
    );
    assert_eq!(
        read_sentence::<DependenciesSkipped>(
            "cargo cannot be run (No such file or directory (os error 2)): the probes need it"
        ),
        DependenciesSkipped::Toolchain {
            toolchain: Toolchain::CargoNotRun {
                error: "No such file or directory (os error 2)".to_owned()
            }
        }
    );
    assert_eq!(
        read_sentence::<NotCompared>(
            "load: 2 of 6 rows have no match in the baseline, or no figure in one run"
        ),
        NotCompared::Unmatched {
            suite: SuiteName::Load,
            unmatched: 2,
            rows: 6
        }
    );
    assert_eq!(
        read_sentence::<NotCompared>("decode: the baseline has no decode rows"),
        NotCompared::NoRows {
            suite: SuiteName::Decode
        }
    );
    assert_eq!(
        read_sentence::<ReleasesSkipped>("pinning to CPU Some(1): Invalid argument"),
        ReleasesSkipped::Pin {
            cpu: Some(1),
            error: "Invalid argument".to_owned()
        }
    );
    assert_eq!(
        read_sentence::<ReleaseFailure>("resolved hyper 1.0.1 where 1.0.0 was pinned"),
        ReleaseFailure::ResolvedOther {
            resolved: Some("1.0.1".to_owned()),
            pinned: "1.0.0".to_owned()
        }
    );
    assert_eq!(
        read_sentence::<FigureNotMeasured>(
            "not measured: valgrind is not installed (apt-get install valgrind)"
        ),
        FigureNotMeasured::NoValgrind
    );
    assert_eq!(
        read_sentence::<FigureNotMeasured>("answered over HTTP/1.1, HTTP/2 expected"),
        FigureNotMeasured::WrongVersion {
            version: "HTTP/1.1".to_owned()
        }
    );
}

#[test]
fn a_sentence_no_bench_wrote_is_an_error_not_a_guess() {
    let read = serde_json::from_value::<Row<Refuted>>(json!({ "why": "it was a bad day" }));
    assert!(read.unwrap_err().to_string().contains("it was a bad day"));
}
