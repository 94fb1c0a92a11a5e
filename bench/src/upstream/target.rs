//! The upstream a run is pointed at, from the flags: which suites and protocols it takes, and
//! what it cannot measure there.

use std::path::PathBuf;
use std::sync::Arc;

use rates_common::ClientSettings;

use bench_model::{ForeignUpstream, Protocol, RunSettings};

/// The flags (flattened into the bench's).
#[derive(Clone, Debug, Default, clap::Args)]
#[command(next_help_heading = "A server of your own as the upstream")]
pub struct UpstreamArgs {
    /// Run the latency, connections and load suites against the server at URL instead of
    /// mock-rates: a server the bench does not start, answering `GET /api/live?pairs=...` as
    /// the Free Forex API does (deploy/nginx/upstream.sh starts one). An https:// URL is
    /// measured over https and h2, an http:// one over http. What only mock-rates can count
    /// (connections, TLS handshakes and versions on the server's side, its CPU, the
    /// calibration) is recorded as not measured; the other suites are left out, each with
    /// why. See docs/upstream-url.md.
    #[arg(long, value_name = "URL", conflicts_with_all = ["mock_url", "api_url"])]
    pub upstream_url: Option<String>,

    /// With --upstream-url https://...: trust the CA certificates (PEM) in FILE besides the
    /// system's roots, for a server whose certificate a private CA signed. Certificates and
    /// host names are verified either way; without it, the system's roots only.
    #[arg(long, value_name = "FILE", requires = "upstream_url")]
    pub ca_file: Option<PathBuf>,
}

/// The upstream a run is pointed at, from the flags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GivenUpstream {
    /// The base URL, without a trailing `/`.
    pub url: String,
    pub ca_file: Option<PathBuf>,
}

/// Why the flags cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    #[error("--upstream-url {url:?}: {why}")]
    Url { url: String, why: String },
    #[error("--ca-file is for an https:// upstream; {0:?} is plain HTTP")]
    CaFileWithoutTls(String),
    #[error("--ca-file {path}: {why}")]
    CaFile { path: String, why: String },
    #[error(
        "--upstream-url runs the latency, connections and load suites only, and none of them \
         was selected"
    )]
    NoSuite,
    #[error("--upstream-url {url}: none of the protocols asked for can reach it ({allowed} only)")]
    NoProtocol { url: String, allowed: String },
    #[error("the upstream at {url} could not be reached over TLS: {why}")]
    Unreachable { url: String, why: String },
}

impl GivenUpstream {
    /// The target the flags name; `None` without `--upstream-url`.
    ///
    /// # Errors
    /// The URL is not an `http://` or `https://` base URL (no query, no fragment), or
    /// `--ca-file` comes with an `http://` one.
    pub fn from_args(args: &UpstreamArgs) -> Result<Option<Self>, UpstreamError> {
        let Some(url) = &args.upstream_url else {
            return Ok(None);
        };
        let url = url.trim_end_matches('/').to_owned();
        ClientSettings::for_base_url(&url)
            .check_with_tls("upstream")
            .map_err(|error| UpstreamError::Url {
                url: url.clone(),
                why: error.reason,
            })?;
        let target = Self {
            url,
            ca_file: args.ca_file.clone(),
        };
        if target.ca_file.is_some() && !target.is_https() {
            return Err(UpstreamError::CaFileWithoutTls(target.url));
        }
        Ok(Some(target))
    }

    pub fn is_https(&self) -> bool {
        self.url.starts_with("https://")
    }

    /// The protocols its scheme allows: `https` and `h2` (by ALPN) for `https://`, `http`
    /// for `http://` (HTTP/2 in the clear is offered by no client here).
    pub fn protocols(&self) -> &'static [Protocol] {
        if self.is_https() {
            &[Protocol::Https, Protocol::H2]
        } else {
            &[Protocol::Http]
        }
    }

    /// The PEM of `--ca-file`, checked to hold certificates, for the clients' extra root.
    ///
    /// # Errors
    /// The file cannot be read, or holds no usable certificate.
    pub fn ca_pem(&self) -> Result<Option<Arc<[u8]>>, UpstreamError> {
        let Some(path) = &self.ca_file else {
            return Ok(None);
        };
        let fail = |why: String| UpstreamError::CaFile {
            path: path.display().to_string(),
            why,
        };
        let pem = std::fs::read(path).map_err(|error| fail(error.to_string()))?;
        let pem: Arc<[u8]> = Arc::from(pem);
        ClientSettings {
            extra_ca_pem: Some(pem.clone()),
            ..ClientSettings::for_base_url(&self.url)
        }
        .extra_ca_certificates()
        .map_err(fail)?;
        Ok(Some(pem))
    }

    /// The run's settings restricted to what can run against the target: the suites that
    /// can ([`SuiteName::measures_a_given_upstream`]), over the run's protocols that its scheme allows, and the record
    /// of the upstream, with what the suites cannot measure there. The lines to print come
    /// back too: one per suite left out, and one per protocol asked for with `--protocol`
    /// that the scheme does not allow, with why.
    ///
    /// # Errors
    /// No suite or no protocol is left to run.
    pub fn restrict(&self, settings: &mut RunSettings) -> Result<Vec<String>, UpstreamError> {
        let mut upstream = ForeignUpstream::new(
            &self.url,
            self.ca_file.as_ref().map(|path| path.display().to_string()),
        );
        let mut lines = Vec::new();
        settings.suites.retain(|&suite| {
            if suite.measures_a_given_upstream() {
                return true;
            }
            upstream.left_out_suites.push(suite);
            lines.push(format!(
                "{suite}: skipped with --upstream-url: it {}",
                bench_report::report::left_out_of_upstream(suite)
            ));
            false
        });
        if settings.suites.is_empty() {
            return Err(UpstreamError::NoSuite);
        }
        let allowed = self.protocols();
        // Every protocol is the run's when `--protocol` named none: a line only for a
        // protocol named and refused.
        let named = settings.protocols.len() < Protocol::ALL.len();
        let left_out = settings.leave_out_protocols(|protocol| allowed.contains(&protocol));
        if named {
            for protocol in left_out {
                lines.push(format!(
                    "{protocol} left out: the upstream {} is {}",
                    self.url,
                    if self.is_https() {
                        "https://, so https and h2 only"
                    } else {
                        "http://, so http only"
                    }
                ));
            }
        }
        if settings.protocols.is_empty() {
            let allowed: Vec<&str> = allowed.iter().map(|protocol| protocol.as_str()).collect();
            return Err(UpstreamError::NoProtocol {
                url: self.url.clone(),
                allowed: allowed.join(" and "),
            });
        }
        settings.mock = format!("none: the upstream is {} (--upstream-url)", self.url);
        settings.foreign_upstream = Some(upstream);
        Ok(lines)
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
