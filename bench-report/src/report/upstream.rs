//! A run against a server the bench did not start (`--upstream-url`): whom the figures are
//! against, what the bench's own handshake read of it, and what was left out or not measured.

use crate::report::section::{Part, Section};
use bench_model::{ForeignUpstream, Protocol, Results, RunSettings, SuiteName, UpstreamProbe};

/// The section, for a run against a foreign upstream.
pub fn section(results: &Results) -> Option<Section> {
    let upstream = results.settings.foreign_upstream.as_ref()?;
    let mut section =
        Section::new("upstream").with(Part::Text(format!("Upstream: {}.", upstream.describe())));
    let probes: Vec<String> = upstream
        .probes
        .iter()
        .map(|probe| format!("the bench's own TLS handshake over {}", probe.describe()))
        .collect();
    section = section.with_notes(probes);
    section = section.with_notes(
        upstream
            .left_out_suites
            .iter()
            .map(|&suite| format!("left out: {suite}: {}", left_out(suite)))
            .collect(),
    );
    section = section.with_notes(
        not_measured(&results.settings)
            .into_iter()
            .map(|line| format!("not measured: {line}"))
            .collect(),
    );
    Some(section.with(Part::Prose(HOW.to_owned())))
}

/// Why `suite` is left out of a run against a given upstream ("it ...").
pub fn left_out(suite: SuiteName) -> &'static str {
    match suite {
        SuiteName::Latency | SuiteName::Connections | SuiteName::Load => {
            "runs against it (it is not left out)"
        }
        SuiteName::Fanout => "needs mock-rates' added latency, set through its admin endpoint",
        SuiteName::Faults => "needs mock-rates' faults, set through its admin endpoint",
        SuiteName::Idle => {
            "sets mock-rates' idle timeout and reads its counts of idle closes, through its \
             admin endpoint"
        }
        SuiteName::Resilience => {
            "stops and restarts the upstream, and reads and sets mock-rates' admin endpoint"
        }
        SuiteName::Resolution => {
            "runs inside a network namespace of its own, which reaches only its own mock-rates \
             and DNS server"
        }
        SuiteName::Cost => "counts its calls to a mock-rates hosted in the bench's process",
        SuiteName::Memory => {
            "reads each client's memory against a mock-rates hosted in the bench's process, \
             which counts its handshakes"
        }
        SuiteName::Decode => {
            "measures no upstream: it decodes mock-rates' bodies in the bench's process"
        }
        SuiteName::Dependencies | SuiteName::Adoption => {
            "measures no upstream: it reads and builds the clients' crates"
        }
        SuiteName::Releases => {
            "runs each release's probe against mock-rates of its own over http, https and h2, \
             and a half-closing peer of its own"
        }
        SuiteName::Wan => {
            "runs across a link between two network namespaces of its own, mock-rates in one \
             and the payment service in the other"
        }
    }
}

/// What the run's suites could not measure against a given upstream, each with why; and each
/// protocol the bench's own handshake could not reach.
fn not_measured(settings: &RunSettings) -> Vec<String> {
    let over_tls = settings.protocols.iter().any(|protocol| protocol.is_tls());
    let tls = if over_tls {
        ", the TLS and HTTP versions and handshakes it counted"
    } else {
        ""
    };
    let mut lines = Vec::new();
    for suite in &settings.suites {
        let line = match suite {
            SuiteName::Latency => format!(
                "latency: Connections (the TCP connections the server accepted){tls}, Mock CPU, \
                 and the calibration rows (a minimal client's calls to mock-rates, the \
                 instrument's own cost): mock-rates counts them, and this server is not \
                 mock-rates; nor the unpinned check, which needs a mock-rates of the bench's own"
            ),
            SuiteName::Connections => format!(
                "connections: connections opened and per call, full and resumed handshakes and \
                 the TLS version, which mock-rates counts: so that each call of new_connection \
                 and built_per_call opened a connection of its own rests on how the client was \
                 built, not on a count{}",
                if settings.protocols.contains(&Protocol::Https) {
                    "; new_connection_full left out: it needs a server with TLS session \
                     resumption off"
                } else {
                    ""
                }
            ),
            SuiteName::Load => format!(
                "load: the upstream's connections, calls and reuse ratio{tls}: mock-rates \
                 counts them"
            ),
            _ => continue,
        };
        lines.push(line);
    }
    if let Some(upstream) = &settings.foreign_upstream {
        for probe in &upstream.probes {
            if let Some(why) = &probe.error {
                lines.push(format!(
                    "{} left out: the bench's own handshake: {why}",
                    probe.protocol
                ));
            }
        }
    }
    lines
}

/// The header's lines on the upstream; none for a run against mock-rates.
pub fn header_lines(upstream: Option<&ForeignUpstream>) -> Vec<String> {
    let Some(upstream) = upstream else {
        return Vec::new();
    };
    let mut lines = vec![format!("Upstream: {}", upstream.describe())];
    if !upstream.probes.is_empty() {
        let probes: Vec<String> = upstream
            .probes
            .iter()
            .map(UpstreamProbe::describe)
            .collect();
        lines.push(format!(
            "Upstream TLS, read by the bench's own handshake: {}",
            probes.join("; ")
        ));
    }
    lines
}

/// Each distinct reason of `rows` (a label, and what the row did not measure) once, with the
/// labels it holds for: `Not measured (hyper over https, awc over https): why`.
pub fn not_measured_notes(rows: impl IntoIterator<Item = (String, Option<String>)>) -> Vec<String> {
    let mut reasons: Vec<(String, Vec<String>)> = Vec::new();
    for (label, why) in rows {
        let Some(why) = why else { continue };
        match reasons.iter_mut().find(|(known, _)| *known == why) {
            Some((_, labels)) => labels.push(label),
            None => reasons.push((why, vec![label])),
        }
    }
    reasons
        .into_iter()
        .map(|(why, labels)| format!("Not measured ({}): {why}.", labels.join(", ")))
        .collect()
}

const HOW: &str = "The upstream was given with `--upstream-url`: the bench started no \
    mock-rates, so nothing of the server could be read but what a client sees. The figures \
    that need mock-rates' counters or process (connections and handshakes it accepted, the TLS \
    and HTTP versions it counted, its CPU, the calibration of its own cost) are absent from the \
    rows, never replaced by another number; each row that misses one says what, and what was \
    checked on the client's side instead. Every certificate was verified, against the system's \
    roots and the CA given with `--ca-file`.";

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::Protocol;

    #[test]
    fn says_whom_the_figures_are_against_and_what_is_missing() {
        let mut results = crate::report::fanout::test_rows::results("360");
        assert!(section(&results).is_none());
        assert!(header_lines(None).is_empty());
        let mut upstream = ForeignUpstream::new("https://localhost:8443", None);
        upstream.probes.push(UpstreamProbe {
            protocol: Protocol::Https,
            tls_version: Some("TLSv1.3".to_owned()),
            alpn: Some("http/1.1".to_owned()),
            error: None,
        });
        upstream.left_out_suites.push(SuiteName::Faults);
        results.settings.edit(|settings| {
            settings.protocols = vec![Protocol::Https];
            settings.suites = vec![SuiteName::Latency];
            settings.foreign_upstream = Some(upstream);
        });
        let text = section(&results).unwrap().markdown();
        for expected in [
            "https://localhost:8443, a server the bench did not start",
            "https: TLSv1.3, ALPN http/1.1",
            "left out: faults: needs mock-rates' faults",
            "not measured: latency: Connections (the TCP connections the server accepted), the \
             TLS and HTTP versions and handshakes it counted, Mock CPU",
        ] {
            assert!(text.contains(expected), "{expected}: {text}");
        }
        let header = header_lines(results.settings.foreign_upstream.as_ref());
        assert_eq!(header.len(), 2);
        assert!(header[0].starts_with("Upstream: https://localhost:8443"));
    }

    #[test]
    fn each_reason_is_said_once_with_its_rows() {
        let (https, h2) = ("over TLS".to_owned(), "over h2".to_owned());
        let notes = not_measured_notes([
            ("hyper".to_owned(), Some(https.clone())),
            ("awc".to_owned(), Some(https)),
            ("hyper h2".to_owned(), Some(h2)),
            ("health".to_owned(), None),
        ]);
        assert_eq!(
            notes,
            [
                "Not measured (hyper, awc): over TLS.",
                "Not measured (hyper h2): over h2."
            ]
        );
    }
}
