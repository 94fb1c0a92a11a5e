//! Why a row has no figure, or fewer than its columns: the bench's reasons as values (the
//! cause, the tool, the numbers), never as sentences. The runner records them; bench-report
//! words them (`report::reasons`), for the terminal and the page alike.
//!
//! results.json schema 2 held these reasons as the sentences the runner wrote. Every field
//! here reads either form: a sentence is mapped back to its value by [`FromSentence`], which
//! knows the few `format!` calls that wrote them. A sentence no writer could have produced is
//! an error, not a value guessed at.
//!
//! An error message a library or a child process gave (`error`, `stderr`, `output` below, and
//! the rows' `first_error`) is evidence, quoted as it came: a string.

use serde::{Deserialize, Deserializer, Serialize};

use crate::{ClientName, SuiteName};

/// A reason results.json schema 2 wrote as a sentence, read back as its value.
pub trait FromSentence: Sized {
    /// The value `sentence` was written from; `None` for a sentence no writer produced.
    fn from_sentence(sentence: &str) -> Option<Self>;
}

/// A reason as results.json holds it: the value, or (schema 2) the sentence.
#[derive(Deserialize)]
#[serde(untagged)]
enum Stored<T> {
    Value(T),
    Sentence(String),
}

impl<T: FromSentence> Stored<T> {
    fn value<E: serde::de::Error>(self) -> Result<T, E> {
        match self {
            Stored::Value(value) => Ok(value),
            Stored::Sentence(sentence) => T::from_sentence(&sentence).ok_or_else(|| {
                E::custom(format!(
                    "a reason no version of the bench wrote: {sentence:?}"
                ))
            }),
        }
    }
}

/// A client or suite by the name results.json gives it.
fn by_name<'de, T: Deserialize<'de>>(name: &'de str) -> Option<T> {
    use serde::de::IntoDeserializer;
    T::deserialize(IntoDeserializer::<serde::de::value::Error>::into_deserializer(name)).ok()
}

/// `deserialize_with` for an `Option` of a reason: a value, or a schema 2 sentence.
///
/// # Errors
/// A sentence that [`FromSentence`] does not know.
pub fn option<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + FromSentence,
{
    Option::<Stored<T>>::deserialize(deserializer)?
        .map(Stored::value)
        .transpose()
}

/// `deserialize_with` for a list of reasons: values, or schema 2 sentences.
///
/// # Errors
/// A sentence that [`FromSentence`] does not know.
pub fn list<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + FromSentence,
{
    Vec::<Stored<T>>::deserialize(deserializer)?
        .into_iter()
        .map(Stored::value)
        .collect()
}

/// Over https or h2, why a row could not be checked: what mock-rates counted does not show the
/// TLS or HTTP version the row claims. The row is no figure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum Unchecked {
    /// mock-rates' admin endpoint gave no counters: the TLS handshakes could not be counted.
    HandshakesNotCounted,
    /// Its calls negotiated no TLS that mock-rates counted.
    NoTls,
    /// Over h2: `not_h2` of its `handshakes` TLS handshakes did not choose h2 by ALPN.
    NotH2 { not_h2: u64, handshakes: u64 },
    /// Over HTTP/1.1: `h2` of its `handshakes` TLS handshakes chose h2.
    ChoseH2 { h2: u64, handshakes: u64 },
}

impl FromSentence for Unchecked {
    /// "TLS: {who}: the TLS handshakes could not be counted ...", "... negotiated no TLS
    /// ...", "... mock-rates counted that {n} of its {m} TLS handshakes did not choose h2",
    /// "... {n} of its {m} TLS handshakes chose h2, where ...".
    fn from_sentence(sentence: &str) -> Option<Self> {
        if sentence.contains("the TLS handshakes could not be counted") {
            return Some(Self::HandshakesNotCounted);
        }
        if sentence.contains("negotiated no TLS that mock-rates counted") {
            return Some(Self::NoTls);
        }
        let (_, counts) = sentence.split_once("mock-rates counted that ")?;
        let (n, rest) = counts.split_once(" of its ")?;
        let (m, rest) = rest.split_once(" TLS handshakes ")?;
        let (n, handshakes) = (n.parse().ok()?, m.parse().ok()?);
        if rest.starts_with("did not choose h2") {
            Some(Self::NotH2 {
                not_h2: n,
                handshakes,
            })
        } else if rest.starts_with("chose h2") {
            Some(Self::ChoseH2 { h2: n, handshakes })
        } else {
            None
        }
    }
}

/// What of a row was not measured: the figures only mock-rates counts (its connections,
/// handshakes, TLS and HTTP versions, its CPU), absent, not replaced. The row's own are
/// figures.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum NotCounted {
    /// The upstream was given with `--upstream-url`: `url` is not mock-rates.
    ForeignUpstream { url: String },
}

impl FromSentence for NotCounted {
    /// "... not measured: mock-rates counts them, and {url} is not mock-rates...".
    fn from_sentence(sentence: &str) -> Option<Self> {
        let (_, rest) = sentence.split_once("mock-rates counts them, and ")?;
        let (url, _) = rest.split_once(" is not mock-rates")?;
        Some(Self::ForeignUpstream {
            url: url.to_owned(),
        })
    }
}

/// Why a connections row's figures are withheld: what mock-rates counted contradicts the
/// row's mode or protocol. Its counts stay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum Withheld {
    /// mock-rates' counters could not be read where the mode or the protocol needs them.
    CountersUnread,
    /// A mode that opens a connection per call: mock-rates accepted `connections` for
    /// `calls`.
    NotOnePerCall { connections: u64, calls: u64 },
    /// Over https: no TLS counted.
    NoTls,
    /// Over https: `connections` accepted but `handshakes` TLS handshakes completed.
    HandshakesMissing { connections: u64, handshakes: u64 },
    /// `new_connection_full`: mock-rates with resumption off counted `resumed` resumed
    /// handshakes.
    Resumed { resumed: u64 },
}

impl FromSentence for Withheld {
    /// The sentences of `check_counts` in `bench/src/suites/connections/tally.rs`.
    fn from_sentence(sentence: &str) -> Option<Self> {
        if sentence.starts_with("mock-rates' counters could not be read") {
            return Some(Self::CountersUnread);
        }
        if sentence.starts_with("its calls over https negotiated no TLS") {
            return Some(Self::NoTls);
        }
        if let Some(rest) = sentence.strip_prefix("mock-rates with resumption off counted ") {
            let (resumed, _) = rest.split_once(' ')?;
            return Some(Self::Resumed {
                resumed: resumed.parse().ok()?,
            });
        }
        let rest = sentence.strip_prefix("mock-rates accepted ")?;
        let (connections, rest) = rest.split_once(" connections ")?;
        let connections = connections.parse().ok()?;
        if let Some(rest) = rest.strip_prefix("for ") {
            let (calls, _) = rest.split_once(' ')?;
            return Some(Self::NotOnePerCall {
                connections,
                calls: calls.parse().ok()?,
            });
        }
        let rest = rest.strip_prefix("but completed ")?;
        let (handshakes, _) = rest.split_once(' ')?;
        Some(Self::HandshakesMissing {
            connections,
            handshakes: handshakes.parse().ok()?,
        })
    }
}

/// Why a capacity (or a lower rate the suite stepped down to) was not sustained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum Refuted {
    /// Its soak at `percent` % of it (`rps`) failed `failed` requests and left `unsent` of the
    /// `scheduled` unsent, or its p99 (`p99_ms`, `None` for none) missed the objective.
    Soak {
        percent: u32,
        rps: u32,
        failed: u64,
        unsent: u64,
        scheduled: u64,
        p99_ms: Option<f64>,
    },
    /// Its confirmation stretch at `rps` did not hold: `ok` of `sent` answered 200, p99
    /// `p99_ms`.
    Confirmation {
        rps: u32,
        ok: u64,
        sent: u64,
        p99_ms: Option<f64>,
    },
}

/// "31.5 ms" or "none" (`Ok(None)`); `Err` for neither.
fn p99_of(text: &str) -> Result<Option<f64>, ()> {
    match text {
        "none" => Ok(None),
        text => {
            let ms = text.strip_suffix(" ms").ok_or(())?;
            ms.parse().map(Some).map_err(|_| ())
        }
    }
}

impl FromSentence for Refuted {
    /// "its soak at {percent}% of it ({rps} RPS) failed {failed} and left {unsent} unsent of
    /// {scheduled}, p99 {p99}", "its confirmation at {rps} RPS did not hold: {ok} of {sent}
    /// sent answered 200, p99 {p99}" (`bench/src/suites/resilience/`).
    fn from_sentence(sentence: &str) -> Option<Self> {
        if let Some(rest) = sentence.strip_prefix("its soak at ") {
            let (percent, rest) = rest.split_once("% of it (")?;
            let (rps, rest) = rest.split_once(" RPS) failed ")?;
            let (failed, rest) = rest.split_once(" and left ")?;
            let (unsent, rest) = rest.split_once(" unsent of ")?;
            let (scheduled, p99) = rest.split_once(", p99 ")?;
            return Some(Self::Soak {
                percent: percent.parse().ok()?,
                rps: rps.parse().ok()?,
                failed: failed.parse().ok()?,
                unsent: unsent.parse().ok()?,
                scheduled: scheduled.parse().ok()?,
                p99_ms: p99_of(p99).ok()?,
            });
        }
        let rest = sentence.strip_prefix("its confirmation at ")?;
        let (rps, rest) = rest.split_once(" RPS did not hold: ")?;
        let (ok, rest) = rest.split_once(" of ")?;
        let (sent, p99) = rest.split_once(" sent answered 200, p99 ")?;
        Some(Self::Confirmation {
            rps: rps.parse().ok()?,
            ok: ok.parse().ok()?,
            sent: sent.parse().ok()?,
            p99_ms: p99_of(p99).ok()?,
        })
    }
}

/// Why a generator row (wrk's) has no figures.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum GeneratorNotMeasured {
    /// wrk's Lua script (the payment's body) could not be written.
    Script { error: String },
    /// wrk is not on the machine.
    NotInstalled,
    /// wrk could not be started.
    WrkNotRun { error: String },
    /// wrk exited with `status`; the end of its stderr.
    WrkFailed { status: String, stderr: String },
    /// wrk's output had no totals the bench could read; its end.
    WrkOutput { output: String },
}

impl FromSentence for GeneratorNotMeasured {
    /// The sentences of `wrk_row` in `bench/src/suites/resilience/against_wrk.rs`.
    fn from_sentence(sentence: &str) -> Option<Self> {
        if let Some(rest) = sentence.strip_prefix("wrk could not be run (") {
            let (error, _) = rest.rsplit_once("); Debian: ")?;
            return Some(Self::WrkNotRun {
                error: error.to_owned(),
            });
        }
        if let Some(rest) = sentence.strip_prefix("wrk failed (") {
            let (status, stderr) = rest.split_once("): ")?;
            return Some(Self::WrkFailed {
                status: status.to_owned(),
                stderr: stderr.to_owned(),
            });
        }
        if let Some(output) = sentence.strip_prefix("wrk's output was not understood: ") {
            return Some(Self::WrkOutput {
                output: output.to_owned(),
            });
        }
        Some(Self::Script {
            error: sentence.to_owned(),
        })
    }
}

/// Why a memory round gave no reading.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundFailed {
    /// The round, from 1.
    pub round: u32,
    pub failure: ChildFailure,
}

/// Why one of the bench's own child processes (`__memory`) gave no reading.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum ChildFailure {
    /// The child could not be started.
    NotRun { error: String },
    /// It exited with `status`; the end of its stderr.
    Exited { status: String, stderr: String },
    /// It printed no readings.
    NoReadings,
    /// Over TLS, what mock-rates counted does not show what the row claims.
    Unchecked { tls: Unchecked },
}

impl FromSentence for RoundFailed {
    /// "round {round}: {why}", `why` from `Child::read` in `bench/src/suites/memory.rs`.
    fn from_sentence(sentence: &str) -> Option<Self> {
        let (round, why) = sentence.strip_prefix("round ")?.split_once(": ")?;
        let failure =
            if let Some(error) = why.strip_prefix("cannot run the bench's __memory child: ") {
                ChildFailure::NotRun {
                    error: error.to_owned(),
                }
            } else if let Some(rest) = why.strip_prefix("the child exited with ") {
                let (status, stderr) = rest.split_once("; its stderr ends: ")?;
                ChildFailure::Exited {
                    status: status.to_owned(),
                    stderr: stderr.to_owned(),
                }
            } else if why == "the child printed no readings" {
                ChildFailure::NoReadings
            } else {
                ChildFailure::Unchecked {
                    tls: Unchecked::from_sentence(why)?,
                }
            };
        Some(Self {
            round: round.parse().ok()?,
            failure,
        })
    }
}

/// Why cargo (with its rustc) cannot be used: the suites that build or read probes need it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum Toolchain {
    /// `cargo -V` could not be run.
    CargoNotRun { error: String },
    /// `rustc -vV` could not be run.
    RustcNotRun { error: String },
    /// `rustc -vV` named no host.
    NoHost,
}

impl FromSentence for Toolchain {
    /// The sentences of `Cargo::find` in `bench/src/suites/adoption/build.rs`.
    fn from_sentence(sentence: &str) -> Option<Self> {
        let error = |rest: &str| {
            rest.rsplit_once("): the probes need it")
                .map(|(error, _)| error.to_owned())
        };
        if let Some(rest) = sentence.strip_prefix("cargo cannot be run (") {
            return Some(Self::CargoNotRun {
                error: error(rest)?,
            });
        }
        if let Some(rest) = sentence.strip_prefix("rustc cannot be run (") {
            return Some(Self::RustcNotRun {
                error: error(rest)?,
            });
        }
        (sentence == "rustc -vV names no host").then_some(Self::NoHost)
    }
}

/// Why the dependencies suite, or one client of it, could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum DependenciesSkipped {
    /// The workspace's Cargo.lock is not at `path`: the probes' trees are read from the
    /// sources the bench was built from.
    NoLock {
        path: String,
    },
    Toolchain {
        toolchain: Toolchain,
    },
    /// A scratch directory could not be made.
    Scratch {
        error: String,
    },
    /// The tree of the probe with no HTTP client could not be read.
    Base {
        error: String,
    },
    /// `client`'s probe tree could not be read.
    Client {
        client: ClientName,
        error: String,
    },
}

impl FromSentence for DependenciesSkipped {
    /// The sentences of `dependencies` in `bench/src/suites/adoption/mod.rs`.
    fn from_sentence(sentence: &str) -> Option<Self> {
        if let Some(rest) = sentence.strip_prefix("the workspace's Cargo.lock is not at ") {
            let (path, _) = rest.split_once(" (the probes'")?;
            return Some(Self::NoLock {
                path: path.to_owned(),
            });
        }
        if let Some(error) = sentence.strip_prefix("a scratch directory: ") {
            return Some(Self::Scratch {
                error: error.to_owned(),
            });
        }
        if let Some(error) = sentence.strip_prefix("the probe with no HTTP client: ") {
            return Some(Self::Base {
                error: error.to_owned(),
            });
        }
        if let Some(toolchain) = Toolchain::from_sentence(sentence) {
            return Some(Self::Toolchain { toolchain });
        }
        let (client, error) = sentence.split_once(": ")?;
        Some(Self::Client {
            client: by_name(client)?,
            error: error.to_owned(),
        })
    }
}

/// What of a run was not compared against its baseline (`--baseline`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum NotCompared {
    /// The baseline has no rows of `suite`.
    NoRows { suite: SuiteName },
    /// `unmatched` of the run's `rows` rows of `suite` have no match in the baseline, or no
    /// figure in one run.
    Unmatched {
        suite: SuiteName,
        unmatched: usize,
        rows: usize,
    },
    /// The connections suite is never compared.
    Connections,
}

impl FromSentence for NotCompared {
    /// The sentences of `not_compared` in `bench-report/src/baseline/mod.rs`.
    fn from_sentence(sentence: &str) -> Option<Self> {
        if sentence == "connections: not compared against a baseline" {
            return Some(Self::Connections);
        }
        let (suite, rest) = sentence.split_once(": ")?;
        let suite = by_name(suite)?;
        if rest.starts_with("the baseline has no ") {
            return Some(Self::NoRows { suite });
        }
        let (unmatched, rest) = rest.split_once(" of ")?;
        let (rows, _) = rest.split_once(" rows have no match")?;
        Some(Self::Unmatched {
            suite,
            unmatched: unmatched.parse().ok()?,
            rows: rows.parse().ok()?,
        })
    }
}

/// Why the releases suite could not run at all.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum ReleasesSkipped {
    /// The catalogue has no release of the run's clients' libraries.
    NoRelease,
    /// `--releases` named `name`, which the catalogue does not hold; it holds `known`.
    UnknownRelease {
        name: String,
        known: Vec<String>,
    },
    Toolchain {
        toolchain: Toolchain,
    },
    /// A scratch directory could not be made.
    Scratch {
        error: String,
    },
    /// The thread could not be pinned to `cpu` (`--latency-cpu`).
    Pin {
        cpu: Option<usize>,
        error: String,
    },
    /// A server the probes call could not be started.
    Upstreams {
        error: String,
    },
}

impl FromSentence for ReleasesSkipped {
    /// The sentences of `run` in `bench/src/suites/releases/mod.rs`.
    fn from_sentence(sentence: &str) -> Option<Self> {
        if sentence == "no release of the run's clients' libraries" {
            return Some(Self::NoRelease);
        }
        if let Some(rest) = sentence.strip_prefix("--releases ") {
            let (name, known) = rest.split_once(": not a release the suite knows; it knows ")?;
            return Some(Self::UnknownRelease {
                name: name.to_owned(),
                known: known.split(", ").map(str::to_owned).collect(),
            });
        }
        if let Some(toolchain) = Toolchain::from_sentence(sentence) {
            return Some(Self::Toolchain { toolchain });
        }
        if let Some(error) = sentence.strip_prefix("a scratch directory: ") {
            return Some(Self::Scratch {
                error: error.to_owned(),
            });
        }
        if let Some(rest) = sentence.strip_prefix("pinning to CPU ") {
            let (cpu, error) = rest.split_once(": ")?;
            let cpu = match cpu {
                "None" => None,
                some => Some(
                    some.strip_prefix("Some(")?
                        .strip_suffix(')')?
                        .parse()
                        .ok()?,
                ),
            };
            return Some(Self::Pin {
                cpu,
                error: error.to_owned(),
            });
        }
        Some(Self::Upstreams {
            error: sentence.to_owned(),
        })
    }
}

/// Why a release has no figures: it could not be built into a probe.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum ReleaseFailure {
    /// The probe's project could not be written.
    Write { error: String },
    /// Its dependencies do not resolve (`cargo metadata`).
    Resolve { error: String },
    /// Another release of the library resolved (`None`: none) where `pinned` was pinned.
    ResolvedOther {
        resolved: Option<String>,
        pinned: String,
    },
    /// `cargo fetch` failed.
    Fetch { error: String },
    /// It does not build.
    Build { error: String },
    /// The built probe at `path` could not be copied or read.
    Binary { path: String, error: String },
}

impl FromSentence for ReleaseFailure {
    /// The sentences of `Scratch::build_in` in `bench/src/suites/releases/project.rs`.
    fn from_sentence(sentence: &str) -> Option<Self> {
        let owned = |error: &str| error.to_owned();
        if let Some(error) = sentence.strip_prefix("writing the probe: ") {
            return Some(Self::Write {
                error: owned(error),
            });
        }
        if let Some(error) = sentence.strip_prefix("does not resolve: ") {
            return Some(Self::Resolve {
                error: owned(error),
            });
        }
        if let Some(error) = sentence.strip_prefix("cargo fetch: ") {
            return Some(Self::Fetch {
                error: owned(error),
            });
        }
        if let Some(error) = sentence.strip_prefix("does not build: ") {
            return Some(Self::Build {
                error: owned(error),
            });
        }
        if let Some((resolved, pinned)) = sentence
            .strip_prefix("resolved ")
            .and_then(|rest| rest.split_once(" where "))
            .and_then(|(resolved, rest)| Some((resolved, rest.strip_suffix(" was pinned")?)))
        {
            let (_, version) = resolved.rsplit_once(' ')?;
            return Some(Self::ResolvedOther {
                resolved: (version != "nothing").then(|| owned(version)),
                pinned: owned(pinned),
            });
        }
        let (path, error) = sentence.split_once(": ")?;
        Some(Self::Binary {
            path: owned(path),
            error: owned(error),
        })
    }
}

/// Why one figure of a release has none: a round of its scenario failed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum FigureNotMeasured {
    /// The probe could not be started.
    ProbeNotRun { error: String },
    /// Waiting for the probe failed, or it passed its deadline: the process layer's message.
    ProbeWait { error: String },
    /// The probe's own error line (`not measured: ...` where its API cannot do the scenario).
    Probe { error: String },
    /// The probe exited with `status` and no result; the last lines of its stderr.
    ProbeFailed { status: String, stderr: String },
    /// Its answers came over `version`, not the protocol's HTTP version.
    WrongVersion { version: String },
    /// The half-closing peer never read a whole request head: the call did not reach it.
    NeverReached,
    /// valgrind is not installed.
    NoValgrind,
    /// Under callgrind: how the run failed.
    Callgrind { failure: Box<FigureNotMeasured> },
    /// callgrind wrote no totals.
    NoTotals,
    /// callgrind's profile could not be read.
    Profile { error: String },
}

impl FromSentence for FigureNotMeasured {
    /// The sentences of `bench/src/suites/releases/scenarios.rs` and of `finish_within`.
    fn from_sentence(sentence: &str) -> Option<Self> {
        let owned = |error: &str| error.to_owned();
        if let Some(rest) = sentence.strip_prefix("under callgrind: ") {
            let failure = match rest {
                "callgrind wrote no totals" => Self::NoTotals,
                rest => Self::from_sentence(rest)?,
            };
            return Some(Self::Callgrind {
                failure: Box::new(failure),
            });
        }
        if sentence == "not measured: valgrind is not installed (apt-get install valgrind)" {
            return Some(Self::NoValgrind);
        }
        if sentence.starts_with("the peer never read a whole request head") {
            return Some(Self::NeverReached);
        }
        if let Some(error) = sentence.strip_prefix("running the probe: ") {
            return Some(Self::ProbeNotRun {
                error: owned(error),
            });
        }
        if sentence.starts_with("waiting for the probe: ")
            || sentence.starts_with("the probe did not finish within ")
        {
            return Some(Self::ProbeWait {
                error: owned(sentence),
            });
        }
        if let Some(rest) = sentence.strip_prefix("the probe failed (") {
            let (status, stderr) = rest.split_once("): ")?;
            return Some(Self::ProbeFailed {
                status: owned(status),
                stderr: owned(stderr),
            });
        }
        if let Some(rest) = sentence.strip_prefix("answered over ") {
            let (version, _) = rest.split_once([':', ','])?;
            return Some(Self::WrongVersion {
                version: owned(version),
            });
        }
        Some(Self::Probe {
            error: owned(sentence),
        })
    }
}

#[cfg(test)]
#[path = "reasons_tests.rs"]
mod tests;
