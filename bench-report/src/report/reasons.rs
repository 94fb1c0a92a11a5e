//! Every reason of a run in words: bench-model holds the values (`bench_model::reasons`), this
//! module writes their sentences, for the terminal and the page alike (and the runner's own
//! messages while it runs). One function per reason; a reason whose words depend on its row
//! (the protocol, the mode) takes them.

use bench_model::{
    ChildFailure, ConnectionMode, DependenciesSkipped, FigureNotMeasured, GeneratorNotMeasured,
    NotCompared, NotCounted, Protocol, Refuted, ReleaseFailure, ReleasesSkipped, Results,
    RoundFailed, Tool, Toolchain, Unchecked, Withheld,
};

/// Why a row over `protocol` could not be checked.
pub fn unchecked(why: &Unchecked, protocol: Protocol) -> String {
    match why {
        Unchecked::HandshakesNotCounted => {
            "the TLS handshakes could not be counted (mock-rates' admin endpoint)".to_owned()
        }
        Unchecked::NoTls => {
            "its calls over https negotiated no TLS that mock-rates counted".to_owned()
        }
        Unchecked::NotH2 { not_h2, handshakes } => format!(
            "over {protocol}, mock-rates counted that {not_h2} of its {handshakes} TLS \
             handshakes did not choose h2"
        ),
        Unchecked::ChoseH2 { h2, handshakes } => format!(
            "over {protocol}, mock-rates counted that {h2} of its {handshakes} TLS handshakes \
             chose h2, where its client was built for HTTP/1.1"
        ),
    }
}

/// Each row of `results` that could not be checked, with why: `suite: row: why`.
pub fn unchecked_rows(results: &Results) -> Vec<String> {
    let latency = results.latency.iter().filter_map(|row| {
        let why = unchecked(row.unchecked.as_ref()?, row.protocol);
        Some(format!(
            "latency: {}: {why}",
            row.protocol.qualify(row.client)
        ))
    });
    let cost = results.cost.iter().filter_map(|row| {
        let why = unchecked(row.unchecked.as_ref()?, row.protocol);
        Some(format!("cost: {}: {why}", row.protocol.qualify(row.client)))
    });
    let load = results.load.iter().filter_map(|row| {
        let why = unchecked(row.unchecked.as_ref()?, row.protocol);
        Some(format!(
            "load: {} ({} of {} requests answered 200): {why}",
            row.label(),
            row.ok,
            row.scheduled
        ))
    });
    let fanout = results.fanout.iter().filter_map(|row| {
        let why = unchecked(row.unchecked.as_ref()?, row.protocol);
        Some(format!(
            "fanout: {} {} group of {}: {why}",
            row.series().label(),
            row.mode.as_str(),
            row.group_size
        ))
    });
    latency.chain(cost).chain(load).chain(fanout).collect()
}

/// What a latency or load row over `protocol` has not measured, and over TLS what was checked
/// on the client's side instead.
pub fn not_counted(why: &NotCounted, protocol: Protocol) -> String {
    let NotCounted::ForeignUpstream { url } = why;
    let checked = match protocol {
        Protocol::Http => {
            return format!(
                "connections and the server's CPU are not measured: mock-rates counts them, \
                 and {url} is not mock-rates"
            );
        }
        Protocol::H2 => {
            "every call went to an https:// URL with the certificate verified, and was answered \
             over HTTP/2 (a client built for h2 offers only h2 by ALPN and refuses any other \
             answer)"
        }
        Protocol::Https => {
            "every call went to an https:// URL with the certificate verified, the client \
             offering only http/1.1 by ALPN"
        }
    };
    format!(
        "the TLS version, handshakes, connections and the server's CPU are not measured: \
         mock-rates counts them, and {url} is not mock-rates; checked on the client's side: \
         {checked}"
    )
}

/// What a connections row in `mode` over `protocol` has not measured.
pub fn connections_not_counted(
    why: &NotCounted,
    mode: ConnectionMode,
    protocol: Protocol,
) -> String {
    let NotCounted::ForeignUpstream { url } = why;
    let tls = if protocol.is_tls() {
        ", the handshakes (full or resumed) and the TLS version"
    } else {
        ""
    };
    let per_call = if mode.connection_per_call() {
        format!(
            "; so that each call opened a connection of its own rests on how the client was \
             built ({}), not on a count",
            if mode == ConnectionMode::BuiltPerCall {
                "a new client per call"
            } else {
                "no idle connection kept"
            }
        )
    } else {
        String::new()
    };
    format!(
        "the connections opened{tls} are not measured: mock-rates counts them, and {url} is \
         not mock-rates{per_call}"
    )
}

/// Why a connections row's figures are withheld.
pub fn withheld(why: &Withheld) -> String {
    match why {
        Withheld::CountersUnread => "mock-rates' counters could not be read, so whether each \
                                     call opened a connection of its own, and what TLS it \
                                     negotiated, is unknown"
            .to_owned(),
        Withheld::NotOnePerCall { connections, calls } => format!(
            "mock-rates accepted {connections} connections for {calls} calls: not one \
             connection per call"
        ),
        Withheld::NoTls => {
            "its calls over https negotiated no TLS that mock-rates counted".to_owned()
        }
        Withheld::HandshakesMissing {
            connections,
            handshakes,
        } => format!(
            "mock-rates accepted {connections} connections but completed {handshakes} TLS \
             handshakes"
        ),
        Withheld::Resumed { resumed } => {
            format!("mock-rates with resumption off counted {resumed} resumed handshakes")
        }
    }
}

/// "31.5 ms", or "none".
fn p99(p99_ms: Option<f64>) -> String {
    p99_ms.map_or_else(|| "none".to_owned(), |p99| format!("{p99:.1} ms"))
}

/// Why a capacity, or a rate stepped down to, was not sustained.
pub fn refuted(why: &Refuted) -> String {
    match why {
        Refuted::Soak {
            percent,
            rps,
            failed,
            unsent,
            scheduled,
            p99_ms,
        } => format!(
            "its soak at {percent}% of it ({rps} RPS) failed {failed} and left {unsent} unsent \
             of {scheduled}, p99 {}",
            p99(*p99_ms)
        ),
        Refuted::Confirmation {
            rps,
            ok,
            sent,
            p99_ms,
        } => format!(
            "its confirmation at {rps} RPS did not hold: {ok} of {sent} sent answered 200, p99 \
             {}",
            p99(*p99_ms)
        ),
    }
}

/// How to get `tool`.
pub fn install_hint(tool: Tool) -> &'static str {
    match tool {
        Tool::Cargo | Tool::Rustc => "a Rust toolchain, e.g. by rustup",
        Tool::Readelf => "Debian: apt-get install binutils",
        Tool::Valgrind | Tool::Vgdb => "Debian: apt-get install valgrind",
        Tool::Wrk => "Debian: apt-get install wrk",
        Tool::Ip => "Debian: apt-get install iproute2",
    }
}

/// Why a generator row has no figures.
pub fn generator_not_measured(why: &GeneratorNotMeasured) -> String {
    match why {
        GeneratorNotMeasured::Script { error } => format!("wrk's script: {error}"),
        GeneratorNotMeasured::NotInstalled => {
            format!("wrk is not installed ({})", install_hint(Tool::Wrk))
        }
        GeneratorNotMeasured::WrkNotRun { error } => {
            format!("wrk could not be run ({error}); Debian: apt-get install wrk")
        }
        GeneratorNotMeasured::WrkFailed { status, stderr } => {
            format!("wrk failed ({status}): {stderr}")
        }
        GeneratorNotMeasured::WrkOutput { output } => {
            format!("wrk's output was not understood: {output}")
        }
    }
}

/// Why a memory round gave no reading: `round 2: ...`.
pub fn round_failed(why: &RoundFailed, protocol: Protocol) -> String {
    let failure = match &why.failure {
        ChildFailure::NotRun { error } => {
            format!("cannot run the bench's __memory child: {error}")
        }
        ChildFailure::Exited { status, stderr } => {
            format!("the child exited with {status}; its stderr ends: {stderr}")
        }
        ChildFailure::NoReadings => "the child printed no readings".to_owned(),
        ChildFailure::Unchecked { tls } => unchecked(tls, protocol),
    };
    format!("round {}: {failure}", why.round)
}

/// Why cargo cannot be used.
pub fn toolchain(why: &Toolchain) -> String {
    match why {
        Toolchain::CargoNotRun { error } => {
            format!("cargo cannot be run ({error}): the probes need it")
        }
        Toolchain::RustcNotRun { error } => {
            format!("rustc cannot be run ({error}): the probes need it")
        }
        Toolchain::NoHost => "rustc -vV names no host".to_owned(),
    }
}

/// Why the dependencies suite, or a client of it, could not be read.
pub fn dependencies_skipped(why: &DependenciesSkipped) -> String {
    match why {
        DependenciesSkipped::NoLock { path } => format!(
            "the workspace's Cargo.lock is not at {path} (the probes' trees are read from the \
             sources the bench was built from)"
        ),
        DependenciesSkipped::Toolchain { toolchain: why } => toolchain(why),
        DependenciesSkipped::Scratch { error } => format!("a scratch directory: {error}"),
        DependenciesSkipped::Base { error } => {
            format!("the probe with no HTTP client: {error}")
        }
        DependenciesSkipped::Client { client, error } => format!("{client}: {error}"),
    }
}

/// What of a run was not compared against its baseline.
pub fn not_compared(why: &NotCompared) -> String {
    match why {
        NotCompared::NoRows { suite } => format!("{suite}: the baseline has no {suite} rows"),
        NotCompared::Unmatched {
            suite,
            unmatched,
            rows,
        } => format!(
            "{suite}: {unmatched} of {rows} rows have no match in the baseline, or no figure \
             in one run"
        ),
        NotCompared::Connections => "connections: not compared against a baseline".to_owned(),
    }
}

/// Why the releases suite could not run.
pub fn releases_skipped(why: &ReleasesSkipped) -> String {
    match why {
        ReleasesSkipped::NoRelease => "no release of the run's clients' libraries".to_owned(),
        ReleasesSkipped::UnknownRelease { name, known } => format!(
            "--releases {name}: not a release the suite knows; it knows {}",
            known.join(", ")
        ),
        ReleasesSkipped::Toolchain { toolchain: why } => toolchain(why),
        ReleasesSkipped::Scratch { error } => format!("a scratch directory: {error}"),
        ReleasesSkipped::Pin { cpu, error } => format!("pinning to CPU {cpu:?}: {error}"),
        ReleasesSkipped::Upstreams { error } => error.clone(),
    }
}

/// Why a release has no figures.
pub fn release_failure(why: &ReleaseFailure) -> String {
    match why {
        ReleaseFailure::Write { error } => format!("writing the probe: {error}"),
        ReleaseFailure::Resolve { error } => format!("does not resolve: {error}"),
        ReleaseFailure::ResolvedOther { resolved, pinned } => format!(
            "resolved {} where {pinned} was pinned",
            resolved.as_deref().unwrap_or("nothing")
        ),
        ReleaseFailure::Fetch { error } => format!("cargo fetch: {error}"),
        ReleaseFailure::Build { error } => format!("does not build: {error}"),
        ReleaseFailure::Binary { path, error } => format!("{path}: {error}"),
    }
}

/// Why a release's figure over `protocol` has none.
pub fn figure_not_measured(why: &FigureNotMeasured, protocol: Protocol) -> String {
    match why {
        FigureNotMeasured::ProbeNotRun { error } => format!("running the probe: {error}"),
        FigureNotMeasured::ProbeWait { error } | FigureNotMeasured::Probe { error } => {
            error.clone()
        }
        FigureNotMeasured::ProbeFailed { status, stderr } => {
            format!("the probe failed ({status}): {stderr}")
        }
        FigureNotMeasured::WrongVersion { version } => match protocol {
            Protocol::H2 => format!(
                "answered over {version}: the release does not negotiate h2 with its defaults \
                 (offered h2 and http/1.1 by ALPN)"
            ),
            Protocol::Http | Protocol::Https => format!(
                "answered over {version}, {} expected",
                protocol.http_version()
            ),
        },
        FigureNotMeasured::NeverReached => {
            "the peer never read a whole request head: the call did not reach it".to_owned()
        }
        FigureNotMeasured::NoValgrind => {
            "not measured: valgrind is not installed (apt-get install valgrind)".to_owned()
        }
        FigureNotMeasured::Callgrind { failure } => {
            format!(
                "under callgrind: {}",
                figure_not_measured(failure, protocol)
            )
        }
        FigureNotMeasured::NoTotals => "callgrind wrote no totals".to_owned(),
        FigureNotMeasured::Profile { error } => format!("callgrind's profile: {error}"),
    }
}

#[cfg(test)]
#[path = "reasons_tests.rs"]
mod tests;
