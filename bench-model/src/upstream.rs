//! A server the bench did not start as the upstream of a run (`--upstream-url`), as recorded in
//! results.json: every figure of such a run is against it.

use serde::{Deserialize, Serialize};

use crate::{Protocol, SuiteName};

/// The upstream given with `--upstream-url`: not mock-rates, not the bench's, so nothing of it
/// can be read but what a client sees. Recorded under `settings.foreign_upstream`; absent
/// from every other run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForeignUpstream {
    /// The base URL the clients and the payment service called (`https://localhost:8443`).
    pub url: String,
    /// Always true: the server is someone else's, so the figures are against it, and its
    /// counters (connections, handshakes, CPU) are not the bench's to read.
    pub foreign: bool,
    /// The CA file given with `--ca-file`, trusted besides the system's roots; `None`: the
    /// system's roots only. Certificates are verified either way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_file: Option<String>,
    /// What the bench's own TLS client read of the server at the start, per TLS protocol of
    /// the run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub probes: Vec<UpstreamProbe>,
    /// The suites selected but not run against it ([`SuiteName::measures_a_given_upstream`]);
    /// the report says why, and what the suites that ran could not measure there (their
    /// figures are absent, JSON null, never replaced by another number). Runs before schema
    /// 3 kept sentences under `suites_left_out` and `not_measured`, no longer read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out_suites: Vec<SuiteName>,
}

impl ForeignUpstream {
    /// The server at `url`, trusting `ca_file` besides the system's roots.
    pub fn new(url: &str, ca_file: Option<String>) -> Self {
        Self {
            url: url.to_owned(),
            foreign: true,
            ca_file,
            probes: Vec::new(),
            left_out_suites: Vec::new(),
        }
    }

    /// The line that says whom the figures are against.
    pub fn describe(&self) -> String {
        let trust = self.ca_file.as_ref().map_or_else(
            || "the system's roots".to_owned(),
            |file| format!("the system's roots and the CA in {file}"),
        );
        format!(
            "{}, a server the bench did not start (trusting {trust}): every figure is against \
             it, and what only mock-rates can count is not measured",
            self.url
        )
    }
}

/// One TLS handshake of the bench's own (rustls, the same roots as the clients, ALPN as the
/// protocol's clients offer it) with the upstream, before the suites: what the server chose,
/// read on the client's side.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpstreamProbe {
    pub protocol: Protocol,
    /// "TLSv1.3" or "TLSv1.2"; `None` when the handshake failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_version: Option<String>,
    /// The protocol the server chose by ALPN ("h2", "http/1.1"); `None` when it chose none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpn: Option<String>,
    /// Why the handshake failed, or chose another protocol than the one offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl UpstreamProbe {
    /// `https: TLSv1.3, ALPN http/1.1`, or the error.
    pub fn describe(&self) -> String {
        match (&self.error, &self.tls_version) {
            (Some(error), _) => format!("{}: {error}", self.protocol),
            (None, Some(version)) => format!(
                "{}: {version}, ALPN {}",
                self.protocol,
                self.alpn.as_deref().unwrap_or("none")
            ),
            (None, None) => format!("{}: no TLS", self.protocol),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_whom_the_figures_are_against_and_what_was_read() {
        let upstream = ForeignUpstream::new("https://localhost:8443", Some("ca.pem".to_owned()));
        assert!(upstream.foreign);
        let line = upstream.describe();
        assert!(line.starts_with("https://localhost:8443, a server the bench did not start"));
        assert!(line.contains("the CA in ca.pem"), "{line}");
        let probe = UpstreamProbe {
            protocol: Protocol::H2,
            tls_version: Some("TLSv1.3".to_owned()),
            alpn: Some("h2".to_owned()),
            error: None,
        };
        assert_eq!(probe.describe(), "h2: TLSv1.3, ALPN h2");
        // Absent fields stay absent in results.json, and older runs read without them.
        let json = serde_json::to_value(ForeignUpstream::new("http://a", None)).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"url": "http://a", "foreign": true})
        );
    }
}
