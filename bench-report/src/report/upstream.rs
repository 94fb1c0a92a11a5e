//! A run against a server the bench did not start (`--upstream-url`): whom the figures are
//! against, what the bench's own handshake read of it, and what was left out or not measured.

use crate::report::section::{Part, Section};
use bench_model::{ForeignUpstream, Results, UpstreamProbe};

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
            .suites_left_out
            .iter()
            .map(|line| format!("left out: {line}"))
            .collect(),
    );
    section = section.with_notes(
        upstream
            .not_measured
            .iter()
            .map(|line| format!("not measured: {line}"))
            .collect(),
    );
    Some(section.with(Part::Prose(HOW.to_owned())))
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
        upstream
            .suites_left_out
            .push("faults: needs mock-rates' faults".to_owned());
        upstream.not_measured.push("latency: Mock CPU".to_owned());
        results.settings.foreign_upstream = Some(upstream);
        let text = section(&results).unwrap().markdown();
        for expected in [
            "https://localhost:8443, a server the bench did not start",
            "https: TLSv1.3, ALPN http/1.1",
            "left out: faults: needs mock-rates' faults",
            "not measured: latency: Mock CPU",
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
