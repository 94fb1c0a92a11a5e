//! Suite `memory`: what each client costs its process in memory. A service holds one client
//! per upstream for its whole life, with a pool of connections kept warm between requests;
//! that is what a small container's memory limit has to fit.
//!
//! For each protocol, client and round the bench runs itself once more (the hidden `__memory`
//! sub-command), so that every reading starts from the same fresh process and no client
//! inherits memory another freed. The child starts an actix system and reads its own memory
//! four times: before the client is built, once it is built, after one call (one pooled
//! connection), and after a burst of concurrent calls (`burst`: over HTTP/1.1 as many
//! connections as the library opens for them, one over h2), each reading after the calls'
//! answers were checked and `settle_ms` passed. A reading is the anonymous resident memory
//! (`RssAnon`, what a cgroup's memory limit charges for heap and stacks), the C allocator's bytes
//! in use (`mallinfo2`: the Rust heap and libcurl's alike), the threads, and the TCP connections
//! the process has established to the upstream (its sockets, matched in /proc/net/tcp), each
//! read through [`crate::measure`]. A blocking client's calls run on the runtime's blocking
//! pool, as in the service: the threads they need are its cost.
//!
//! mock-rates runs on the bench's own threads (its memory is not the child's); over https and
//! h2 it serves TLS with a CA made at start, which the child is given, and its counters say
//! whether each child's handshakes negotiated what the row claims.

use std::io::{self, Write as _};
use std::path::Path;
use std::time::Duration;

use crate::clients::Counted;
use crate::error::BenchError;
use crate::measure::{heap, process};
use crate::process::{Cmd, RunError};
use crate::servers::MockEndpoint;
use crate::suites::cost::{CaFile, child_settings, hosted_mock, tail};
use crate::suites::latency::cross_rate_pairs;
use crate::suites::progress::progress_bar;
use crate::suites::shape::{Outcome, Suite, SuiteContext};
use crate::suites::{adapters, tls};
use bench_model::{
    ChildFailure, ClientName, MemoryPoint, MemoryRound, MemoryRow, MemorySettings, Protocol,
    RoundFailed, Run, SuiteName,
};
use bench_model::{NotRunWhy, Results, SuitePart};

/// What the child prints once its readings are done, before them as JSON.
const REPORT_PREFIX: &str = "memory: ";

/// The child's connect and call timeouts: generous, since time is not what is measured.
const CHILD_LIMIT: Duration = Duration::from_secs(30);
/// The memory suite (see the module's documentation).
#[derive(Debug)]
pub struct Memory;

impl Suite for Memory {
    const NAME: SuiteName = SuiteName::Memory;
    type Rows = Vec<MemoryRow>;

    fn run(context: &SuiteContext<'_>) -> Result<Outcome<Vec<MemoryRow>>, BenchError> {
        self::run(context.settings, context.mock(Self::NAME)?).map(Outcome::Ran)
    }

    fn store(rows: Vec<MemoryRow>, results: &mut Results) -> Vec<(SuitePart, NotRunWhy)> {
        results.memory = rows;
        Vec::new()
    }
}

/// Runs the suite over every protocol of the run; see the module's documentation.
pub fn run(settings: &Run, mock: &MockEndpoint) -> Result<Vec<MemoryRow>, BenchError> {
    let sizes = &settings.memory;
    if sizes.rounds == 0 || sizes.burst < 2 {
        return Err(BenchError::Memory(format!(
            "it needs at least one round and a burst of two calls or more, got {} and {}",
            sizes.rounds, sizes.burst
        )));
    }
    let exe = crate::error::bench_executable()?;
    let plan = settings.plan();
    let protocols = plan.protocols(SuiteName::Memory);
    let work = plan.pairs(SuiteName::Memory);
    let bar = progress_bar(SuiteName::Memory, (work as u64) * u64::from(sizes.rounds));
    let mut rows = Vec::new();
    for &protocol in &protocols {
        let own_mock = if mock.is_child() {
            Some(hosted_mock(protocol)?)
        } else if protocol.is_tls() {
            eprintln!(
                "bench: memory: {protocol} left out: it needs a mock-rates of the bench's own, \
                 and --mock-url gives one over plain HTTP"
            );
            continue;
        } else {
            None
        };
        let mock = own_mock.as_ref().unwrap_or(mock);
        let ca_file = mock.ca_pem().map(|pem| CaFile::write(pem)).transpose()?;
        let clients = plan.clients(SuiteName::Memory, protocol);
        let mut measured: Vec<MemoryRow> = clients
            .iter()
            .map(|&client| MemoryRow {
                client,
                protocol,
                rounds: Vec::new(),
                failed: Vec::new(),
            })
            .collect();
        // Round by round, so that a drift of the machine falls on every client alike.
        for round in 1..=sizes.rounds {
            for row in &mut measured {
                bar.set_message(format!(
                    "{}, round {round} of {}",
                    protocol.qualify(row.client),
                    sizes.rounds
                ));
                let child = Child {
                    exe: &exe,
                    client: row.client,
                    protocol,
                    mock,
                    ca_file: ca_file.as_ref(),
                    sizes,
                };
                match child.read() {
                    Ok(reading) => row.rounds.push(reading),
                    Err(failure) => row.failed.push(RoundFailed { round, failure }),
                }
                bar.inc(1);
            }
        }
        rows.extend(measured);
    }
    bar.finish_and_clear();
    Ok(rows)
}

/// One child process of the suite.
struct Child<'a> {
    exe: &'a Path,
    client: ClientName,
    protocol: Protocol,
    mock: &'a MockEndpoint,
    ca_file: Option<&'a CaFile>,
    sizes: &'a MemorySettings,
}

impl Child<'_> {
    /// Runs the child and returns its readings, or why there are none: the child failed, or
    /// over TLS mock-rates did not count the handshakes the row claims.
    fn read(&self) -> Result<MemoryRound, ChildFailure> {
        let admin = self.mock.admin();
        let before = admin.counters();
        let mut command = Cmd::new(self.exe)
            .args(["__memory", "--client", self.client.as_str()])
            .args(["--url", self.mock.base_url()])
            .args(["--burst", &self.sizes.burst.to_string()])
            .args(["--settle-ms", &self.sizes.settle_ms.to_string()]);
        if let Some(ca_file) = self.ca_file {
            command = command.arg("--ca-file").arg(ca_file.path());
        }
        if self.protocol == Protocol::H2 {
            command = command.arg("--http2");
        }
        let output = match command.run() {
            Ok(output) => output,
            Err(RunError::Killed { signal, stderr, .. }) => {
                return Err(ChildFailure::Exited {
                    status: format!("killed by signal {signal}"),
                    stderr: tail(&String::from_utf8_lossy(&stderr), 400).to_owned(),
                });
            }
            Err(error) => {
                return Err(ChildFailure::NotRun {
                    error: error.to_string(),
                });
            }
        };
        if !output.success() {
            return Err(ChildFailure::Exited {
                status: output.status.to_string(),
                stderr: tail(&output.stderr_text(), 400).to_owned(),
            });
        }
        let round = parse_report(&output.stdout_text()).ok_or(ChildFailure::NoReadings)?;
        if self.protocol.is_tls() {
            let counted = Counted::between(before.as_ref(), admin.counters().as_ref());
            tls::negotiated(self.client, self.protocol, counted)
                .map_err(|tls| ChildFailure::Unchecked { tls })?;
        }
        Ok(round)
    }
}

/// The child's readings, from the line it printed.
pub fn parse_report(stdout: &str) -> Option<MemoryRound> {
    let line = stdout
        .lines()
        .find_map(|line| line.strip_prefix(REPORT_PREFIX))?;
    serde_json::from_str(line).ok()
}

/// The child's side: read this process's memory, build `client` for `url` (trusting
/// `ca_file` too), read it again, make one call and read it, make `burst` calls at once and
/// read it with the pool warm; every call checked. Prints the readings as one JSON line.
///
/// # Errors
/// The CA cannot be read, the client cannot be built, a call fails, or /proc cannot be read.
pub fn run_child(
    client: ClientName,
    url: &str,
    ca_file: Option<&Path>,
    http2: bool,
    burst: u32,
    settle_ms: u64,
) -> io::Result<()> {
    let settings = child_settings(url, ca_file, http2, CHILD_LIMIT)?;
    let port = upstream_port(url)
        .ok_or_else(|| io::Error::other(format!("no port in the upstream's URL {url}")))?;
    let settle = Duration::from_millis(settle_ms);
    let pairs = cross_rate_pairs();
    let round = actix_rt::System::new().block_on(async {
        let read = || MemoryPoint::of_this_process(port);
        let before = read()?;
        let provider = adapters::build(client, &settings).map_err(io::Error::other)?;
        let built = read()?;
        let checked = |outcome: Result<application::Quotes, application::RatesError>| {
            let quotes =
                outcome.map_err(|error| io::Error::other(format!("a call failed: {error}")))?;
            if pairs.iter().any(|pair| quotes.get(pair).is_none()) {
                return Err(io::Error::other("the answer lacks a requested pair"));
            }
            Ok(())
        };
        checked(provider.fetch_quotes(&pairs).await)?;
        tokio::time::sleep(settle).await;
        let one_call = read()?;
        let calls = (0..burst).map(|_| provider.fetch_quotes(&pairs));
        for outcome in futures_util::future::join_all(calls).await {
            checked(outcome)?;
        }
        tokio::time::sleep(settle).await;
        let warm = read()?;
        // Inside the runtime: some clients stop background tasks or threads when dropped.
        drop(provider);
        Ok::<_, io::Error>(MemoryRound {
            before,
            built,
            one_call,
            warm,
        })
    })?;
    let json = serde_json::to_string(&round).map_err(io::Error::other)?;
    let mut stdout = io::stdout().lock();
    writeln!(stdout, "{REPORT_PREFIX}{json}")?;
    stdout.flush()
}

/// The port of `url` (`http://127.0.0.1:8080/...`): the upstream the child's connections go to.
fn upstream_port(url: &str) -> Option<u16> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split('/').next()?;
    authority.rsplit_once(':')?.1.parse().ok()
}

/// Reading a process's own memory.
trait OfThisProcess: Sized {
    fn of_this_process(upstream_port: u16) -> io::Result<Self>;
}

impl OfThisProcess for MemoryPoint {
    /// This process now. /proc is read first and the heap last, so that the reads' own
    /// buffers are freed before the allocator is asked.
    fn of_this_process(upstream_port: u16) -> io::Result<Self> {
        let pid = std::process::id();
        let status = process::Status::read(pid)?;
        let field = |value: Option<u64>, name: &str| {
            value.ok_or_else(|| io::Error::other(format!("no {name} in /proc/self/status")))
        };
        let rss_anon_kib = field(status.rss_anon_kib, "RssAnon:")?;
        let threads = field(status.threads, "Threads:")?;
        let connections = process::Descriptors::read(pid)?.established_to(upstream_port);
        Ok(Self {
            rss_anon_kib,
            heap_bytes: heap::in_use(),
            threads,
            connections,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_port_is_read_from_the_upstreams_url() {
        assert_eq!(upstream_port("http://127.0.0.1:8080"), Some(8080));
        assert_eq!(upstream_port("https://localhost:443/rates"), Some(443));
        assert_eq!(upstream_port("http://[::1]:9000/"), Some(9000));
        assert_eq!(upstream_port("http://localhost/"), None);
    }

    #[test]
    fn the_childs_line_is_read_back() {
        let round = MemoryRound {
            warm: MemoryPoint {
                rss_anon_kib: 10,
                heap_bytes: 20,
                threads: 3,
                connections: 8,
            },
            ..MemoryRound::default()
        };
        let stdout = format!(
            "something else\n{REPORT_PREFIX}{}\n",
            serde_json::to_string(&round).unwrap()
        );
        assert_eq!(parse_report(&stdout), Some(round));
        assert_eq!(parse_report("memory: not json"), None);
    }

    #[test]
    fn this_process_can_read_its_own_memory() {
        let point = MemoryPoint::of_this_process(1).expect("/proc is readable");
        assert!(point.rss_anon_kib > 0);
        assert!(point.heap_bytes > 0);
        assert!(point.threads >= 1);
        assert_eq!(point.connections, 0, "nothing here connects to port 1");
    }
}
