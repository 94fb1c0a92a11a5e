//! Suite `resolution`: what resolving the upstream's host name adds to a new connection, per
//! client, and whether the client keeps the answer. hyper, awc and reqwest ask the system's
//! resolver (`getaddrinfo`, on a blocking thread) for every new connection; ureq too, on a
//! thread of its own; libcurl keeps answers for 60 s; reqwest with hickory-dns for their time
//! to live. A slow resolver (Kubernetes' `ndots:5` search list, a busy DNS server) lands in the
//! latency of every new connection of a client that does not keep them.
//!
//! The suite makes a network namespace of its own (root and `ip netns`; skipped with a line
//! otherwise), whose `resolv.conf` points at a DNS server of the bench's on the namespace's
//! loopback, and runs itself inside it (`bench __resolution`), where the clients call a
//! mock-rates on that loopback: by address, then by name with the DNS server answering after
//! each delay of the settings. Every call opens a new connection (the client keeps no idle
//! one), so every call of a client that does not cache resolves. The rows come back as JSON.

pub mod inside;

use std::path::Path;

use crate::error::BenchError;
use crate::process::{Namespace, Output, RunError};
use crate::suites::shape::{Outcome, Suite, SuiteContext};
use bench_model::{ClientName, NotRunWhy, Protocol, ResolutionRow, Run, SuiteName};
use bench_model::{Results, SuitePart};
/// What the namespace's `resolv.conf` says: the DNS server on the namespace's loopback, no
/// search list (a name is asked once), and one try of 2 s (a lost answer fails the call
/// rather than hiding behind retries). `ip netns exec` mounts it over `/etc/resolv.conf`, so
/// the system's resolver (glibc's `getaddrinfo`) and hickory-dns, which both read that file,
/// ask the bench's DNS server, as a service in a container asks its cluster's.
const RESOLV_CONF: &str = "nameserver 127.0.0.1\noptions timeout:2 attempts:1\n";

/// The resolution suite (see the module's documentation).
#[derive(Debug)]
pub struct Resolution;

impl Suite for Resolution {
    const NAME: SuiteName = SuiteName::Resolution;
    type Rows = Vec<ResolutionRow>;

    fn run(context: &SuiteContext<'_>) -> Result<Outcome<Vec<ResolutionRow>>, BenchError> {
        self::run(context.settings)
    }

    fn store(rows: Vec<ResolutionRow>, results: &mut Results) -> Vec<(SuitePart, NotRunWhy)> {
        results.resolution = rows;
        Vec::new()
    }
}

/// Runs the suite in a network namespace of its own, or says why it could not make one (the
/// plan skips it without root, `ip` or a client over plain HTTP).
pub fn run(settings: &Run) -> Result<Outcome<Vec<ResolutionRow>>, BenchError> {
    let clients = clients(settings);
    let namespace = match Namespace::create("dns")
        .and_then(|namespace| namespace.write_resolv_conf(RESOLV_CONF).map(|()| namespace))
    {
        Ok(namespace) => namespace,
        Err(error) => return Ok(Outcome::NotRun(NotRunWhy::Failed { error })),
    };
    let exe = crate::error::bench_executable()?;
    let sizes = serde_json::to_string(&settings.resolution).map_err(BenchError::Json)?;
    let names: Vec<&str> = clients.iter().map(|client| client.as_str()).collect();
    let ran = namespace
        .command(&exe)
        .args(["__resolution", "--settings", &sizes, "--clients"])
        .arg(names.join(","))
        .stderr(Output::Inherit)
        .run();
    drop(namespace);
    let output = match ran {
        Ok(output) => output,
        Err(RunError::Start { source, .. } | RunError::Wait { source, .. }) => {
            return Err(BenchError::io(Path::new("ip netns exec"), source));
        }
        Err(error) => {
            return Err(BenchError::Resolution(format!(
                "`bench __resolution` in its namespace: {error}"
            )));
        }
    };
    if !output.success() {
        return Err(BenchError::Resolution(format!(
            "`bench __resolution` in its namespace ended with {}",
            output.status
        )));
    }
    let stdout = output.stdout_text();
    let line = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(line)
        .map(Outcome::Ran)
        .map_err(|error| BenchError::Resolution(format!("its rows ({error}): {line:?}")))
}

/// The suite's clients, as the run plan has them (reqwest's hickory-dns row among them when
/// reqwest is).
fn clients(settings: &Run) -> Vec<ClientName> {
    settings
        .plan()
        .clients(SuiteName::Resolution, Protocol::Http)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reqwest_brings_its_hickory_dns_row_once() {
        use clap::Parser as _;
        let mut settings = crate::cli::resolve(&crate::cli::Cli::parse_from([
            "bench",
            "--clients",
            "hyper,reqwest",
        ]));
        let clients = |settings: &bench_model::RunSettings| clients(&Run::from(settings.clone()));
        assert_eq!(
            clients(&settings),
            [
                ClientName::Hyper,
                ClientName::Reqwest,
                ClientName::ReqwestHickoryDns
            ]
        );
        settings.clients.push(ClientName::ReqwestHickoryDns);
        assert_eq!(clients(&settings).len(), 3, "named already: not twice");
        settings.clients = vec![ClientName::Ureq];
        assert_eq!(
            clients(&settings),
            [ClientName::Ureq],
            "no reqwest, no row of it"
        );
    }
}
