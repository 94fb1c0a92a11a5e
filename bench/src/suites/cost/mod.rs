//! Suite `cost`: each adapter's CPU instructions and allocations per call, counted under
//! valgrind's callgrind instead of timed, so that the figure holds across machines and runs
//! (instruction counts repeat to about 0.01% here, where times move by tens of percent).
//!
//! For each client and protocol the bench runs itself three times under callgrind (the hidden
//! `__cost` sub-command: build the adapter, make N calls, print what they allocated), with three
//! call counts; callgrind counts every instruction of that process, every thread of it (the
//! blocking pool, reqwest-blocking's runtime thread, isahc's curl thread). The difference between
//! the shortest and the longest run divided by the difference in calls cancels start-up, building
//! the client and the first connection, and leaves what one pooled call costs; the two halves
//! (shortest to middle, middle to longest) give the same figure twice, and what it moves between
//! them is its noise in the verdict. mock-rates runs natively on the bench's own threads (its work
//! is not counted); for `https` it serves TLS with a CA made at start, which the child is given.
//! One client is counted per core at a time, each worker with a mock-rates of its own.

pub mod service;
pub mod suite;

use std::io::{self, Write as _};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use indicatif::ProgressBar;
use mock_rates::{Settings, TlsSettings};
use rates_common::{ClientSettings, HttpVersion};
use tempfile::NamedTempFile;

use crate::alloc::AllocSnapshot;
use crate::clients::Counted;
use crate::error::BenchError;
use crate::process::{self, Cmd, Found, Tool, scratch};
use crate::servers::MockEndpoint;
use crate::suites::latency::cross_rate_pairs;
use crate::suites::progress::progress_bar;
use crate::suites::{adapters, tls};
use bench_model::{ClientName, CostRow, Protocol, Run, SuiteName};

/// The child's connect and call timeouts.
const CHILD_LIMIT: std::time::Duration = std::time::Duration::from_secs(60);

/// What the child prints once its calls are done, before the figures.
const REPORT_PREFIX: &str = "cost: ";
/// Runs the suite over every protocol of the run; see the module's documentation.
pub fn run(settings: &Run, mock: &MockEndpoint) -> Result<Vec<CostRow>, BenchError> {
    let (low, high) = settings.cost.calls;
    if low >= high {
        return Err(BenchError::Cost(format!(
            "--cost-calls needs two different counts, got {low} and {high}"
        )));
    }
    let exe = crate::error::bench_executable()?;
    let plan = settings.plan();
    let protocols = plan.protocols(SuiteName::Cost);
    let work = plan.pairs(SuiteName::Cost);
    // A third run between the two: two estimates of the same figure, whose difference is its
    // noise.
    let mid = low + (high - low) / 2;
    let bar = progress_bar(SuiteName::Cost, 3 * work as u64);
    let mut rows = Vec::new();
    for &protocol in &protocols {
        // One mock-rates per worker, so that what one counts (the TLS check) is one client's.
        let own_mocks = if mock.is_child() {
            (0..workers())
                .map(|_| hosted_mock(protocol))
                .collect::<Result<Vec<_>, _>>()?
        } else if protocol.is_tls() {
            eprintln!(
                "bench: cost: {protocol} left out: it needs a mock-rates of the bench's own, and \
                 --mock-url gives one over plain HTTP"
            );
            continue;
        } else {
            Vec::new()
        };
        let mocks: Vec<&MockEndpoint> = if own_mocks.is_empty() {
            vec![mock]
        } else {
            own_mocks.iter().collect()
        };
        let ca_files = mocks
            .iter()
            .map(|mock| mock.ca_pem().map(|pem| CaFile::write(pem)).transpose())
            .collect::<Result<Vec<_>, _>>()?;
        let clients = plan.clients(SuiteName::Cost, protocol);
        let next = AtomicUsize::new(0);
        // Each worker takes the next client and runs its three counts against its own
        // mock-rates. callgrind counts the child's instructions alone: beside another child
        // most rows counted within 0.5% of what they count alone, the clients with threads of
        // their own 1.5-2.5% more (docs/suites.md), inside the criterion's 5% band.
        let mut measured: Vec<(usize, Result<CostRow, BenchError>)> = std::thread::scope(|scope| {
            let workers: Vec<_> = mocks
                .iter()
                .zip(&ca_files)
                .map(|(mock, ca_file)| {
                    let (next, clients, bar, exe) = (&next, &clients, &bar, &exe);
                    scope.spawn(move || {
                        let mut done = Vec::new();
                        loop {
                            let index = next.fetch_add(1, Ordering::Relaxed);
                            let Some(&client) = clients.get(index) else {
                                return done;
                            };
                            let row = measure(
                                exe,
                                client,
                                protocol,
                                mock,
                                ca_file.as_ref(),
                                (low, mid, high),
                                bar,
                            );
                            let failed = row.is_err();
                            done.push((index, row));
                            if failed {
                                // The others stop at their next client.
                                next.store(clients.len(), Ordering::Relaxed);
                                return done;
                            }
                        }
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|worker| {
                    worker
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect()
        });
        measured.sort_by_key(|(index, _)| *index);
        let mut measured = measured
            .into_iter()
            .map(|(_, row)| row)
            .collect::<Result<Vec<_>, _>>()?;
        let baseline = measured
            .iter()
            .find(|row| row.client == ClientName::BASELINE)
            .map(|row| row.instructions_per_call);
        for row in &mut measured {
            row.ratio = baseline
                .filter(|&baseline| baseline > 0.0)
                .map(|baseline| row.instructions_per_call / baseline);
        }
        rows.extend(measured);
    }
    bar.finish_and_clear();
    Ok(rows)
}

/// How many clients are counted at once: one per core (at most four). Each runs under
/// callgrind, which serialises a process's threads onto one core.
fn workers() -> usize {
    std::thread::available_parallelism().map_or(1, |cores| cores.get().clamp(1, 4))
}

/// One client's three runs under callgrind against `mock`, and its row: what one pooled call
/// costs, from the shortest and longest runs, and the two halves' figures.
fn measure(
    exe: &Path,
    client: ClientName,
    protocol: Protocol,
    mock: &MockEndpoint,
    ca_file: Option<&CaFile>,
    (low, mid, high): (u32, u32, u32),
    bar: &ProgressBar,
) -> Result<CostRow, BenchError> {
    let admin = mock.admin();
    let run = |calls: u32| {
        bar.set_message(format!("{} {calls} calls", protocol.qualify(client)));
        let run = callgrind(exe, client, protocol, mock.base_url(), ca_file, calls);
        bar.inc(1);
        run
    };
    let before = admin.counters();
    let shorter = run(low)?;
    let middle = run(mid)?;
    let longer = run(high)?;
    let counted = Counted::between(before.as_ref(), admin.counters().as_ref());
    // A row over TLS that mock-rates did not count as such is no figure; the run goes on.
    let (negotiated, unchecked) = if protocol.is_tls() {
        match tls::negotiated(client, protocol, counted) {
            Ok(negotiated) => (Some(negotiated), None),
            Err(why) => (None, Some(why)),
        }
    } else {
        (None, None)
    };
    let mut row = row(
        client,
        protocol,
        (low, high),
        (&shorter, &longer),
        negotiated,
    );
    row.round_instructions_per_call = vec![
        per_call((low, mid), (&shorter, &middle)),
        per_call((mid, high), (&middle, &longer)),
    ];
    row.unchecked = unchecked;
    Ok(row)
}

/// A mock-rates of the suite's own, on the bench's threads (the measured process is the child
/// under callgrind), over TLS for `https` with a handshake limit that a client run under
/// valgrind can meet (building a native-tls connector there takes seconds).
pub(crate) fn hosted_mock(protocol: Protocol) -> Result<MockEndpoint, BenchError> {
    let tls = protocol.is_tls().then(|| TlsSettings {
        handshake_timeout: CHILD_LIMIT,
        ..TlsSettings::default()
    });
    MockEndpoint::hosted(Settings {
        tls,
        keep_alive: CHILD_LIMIT,
        ..Settings::default()
    })
    .map_err(|source| BenchError::io(Path::new("the cost suite's mock-rates"), source))
}

/// One run's counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RunCounts {
    instructions: u64,
    allocated: AllocSnapshot,
}

fn row(
    client: ClientName,
    protocol: Protocol,
    calls: (u32, u32),
    (shorter, longer): (&RunCounts, &RunCounts),
    tls: Option<bench_model::NegotiatedTls>,
) -> CostRow {
    let extra = f64::from(calls.1 - calls.0);
    let per_call = |low: u64, high: u64| high.saturating_sub(low) as f64 / extra;
    CostRow {
        client,
        protocol,
        tls,
        calls,
        instructions: (shorter.instructions, longer.instructions),
        instructions_per_call: per_call(shorter.instructions, longer.instructions),
        allocs_per_call: per_call(shorter.allocated.allocations, longer.allocated.allocations),
        bytes_per_call: per_call(shorter.allocated.bytes, longer.allocated.bytes),
        ratio: None,
        round_instructions_per_call: Vec::new(),
        unchecked: None,
    }
}

/// Instructions per call between two runs of `calls` calls.
fn per_call(calls: (u32, u32), (shorter, longer): (&RunCounts, &RunCounts)) -> f64 {
    let extra = f64::from(calls.1.saturating_sub(calls.0).max(1));
    longer.instructions.saturating_sub(shorter.instructions) as f64 / extra
}

/// Runs `exe __cost` under callgrind; the instructions it counted and what the calls
/// allocated.
fn callgrind(
    exe: &Path,
    client: ClientName,
    protocol: Protocol,
    url: &str,
    ca_file: Option<&CaFile>,
    calls: u32,
) -> Result<RunCounts, BenchError> {
    let valgrind = process::tool(Tool::Valgrind)
        .map_err(|missing| BenchError::Cost(format!("cannot run valgrind: {missing}")))?;
    let out = scratch::temp_file("callgrind", "out")
        .map_err(|source| BenchError::io(&std::env::temp_dir(), source))?;
    let mut command = under_callgrind(&valgrind, out.path())
        .arg(exe)
        .args(["__cost", "--client", client.as_str(), "--url", url])
        .args(["--calls", &calls.to_string()]);
    if let Some(ca_file) = ca_file {
        command = command.arg("--ca-file").arg(ca_file.path());
    }
    if protocol == Protocol::H2 {
        command = command.arg("--http2");
    }
    let failed = |why: String, stderr: &[u8]| {
        BenchError::Cost(format!(
            "{client} ({calls} calls under callgrind): {why}; its stderr ends: {}",
            tail(&String::from_utf8_lossy(stderr), 400)
        ))
    };
    let output = match command.run() {
        Ok(output) => output,
        Err(process::RunError::Killed { signal, stderr, .. }) => {
            return Err(failed(format!("killed by signal {signal}"), &stderr));
        }
        Err(error) => {
            return Err(BenchError::Cost(format!("cannot run valgrind: {error}")));
        }
    };
    let profile = std::fs::read_to_string(out.path());
    if !output.success() {
        return Err(failed(
            format!("exited with {}", output.status),
            &output.stderr,
        ));
    }
    let allocated = parse_report(&output.stdout_text())
        .ok_or_else(|| failed("printed no allocation counts".to_owned(), &output.stderr))?;
    let instructions = profile
        .ok()
        .as_deref()
        .and_then(parse_totals)
        .ok_or_else(|| {
            failed(
                format!("no instruction total in {}", out.path().display()),
                &output.stderr,
            )
        })?;
    Ok(RunCounts {
        instructions,
        allocated,
    })
}

/// `valgrind --tool=callgrind --callgrind-out-file=<out_file>`, to which the caller adds its
/// own options and the program to count: how every callgrind count of the bench is taken.
pub(crate) fn under_callgrind(valgrind: &Found, out_file: &Path) -> Cmd {
    Cmd::new(&valgrind.path)
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out_file.display()))
}

/// The last `limit` characters of `text`, for an error message.
pub(crate) fn tail(text: &str, limit: usize) -> &str {
    let start = text.len().saturating_sub(limit);
    let start = (start..text.len())
        .find(|&index| text.is_char_boundary(index))
        .unwrap_or(text.len());
    text[start..].trim()
}

/// The instruction count of a callgrind output file: its `totals:` line (or `summary:`, which
/// older versions write), the first event being instructions (Ir).
pub fn parse_totals(profile: &str) -> Option<u64> {
    profile.lines().find_map(|line| {
        let rest = line
            .strip_prefix("totals:")
            .or_else(|| line.strip_prefix("summary:"))?;
        rest.split_whitespace().next()?.parse().ok()
    })
}

/// The child's `cost: allocations=A bytes=B` line.
pub fn parse_report(stdout: &str) -> Option<AllocSnapshot> {
    let line = stdout
        .lines()
        .find_map(|line| line.strip_prefix(REPORT_PREFIX))?;
    let mut snapshot = AllocSnapshot::default();
    for field in line.split_whitespace() {
        let (name, value) = field.split_once('=')?;
        let value: u64 = value.parse().ok()?;
        match name {
            "allocations" => snapshot.allocations = value,
            "bytes" => snapshot.bytes = value,
            _ => {}
        }
    }
    Some(snapshot)
}

/// The mock's CA in a file for the children, removed when dropped.
#[derive(Debug)]
pub(crate) struct CaFile {
    file: NamedTempFile,
}

impl CaFile {
    pub(crate) fn write(pem: &[u8]) -> Result<Self, BenchError> {
        let file = scratch::temp_file_with("cost-ca", "pem", pem)
            .map_err(|source| BenchError::io(&std::env::temp_dir(), source))?;
        Ok(Self { file })
    }

    pub(crate) fn path(&self) -> &Path {
        self.file.path()
    }
}

/// The settings of a client a child process of the bench builds for the mock-rates at `url`
/// (trusting the CA in `ca_file` too, speaking HTTP/2 with `http2`), with `limit` as its
/// connect and call timeouts: the cost and memory suites' children, where time is not what is
/// measured.
///
/// # Errors
/// The CA file cannot be read.
pub(crate) fn child_settings(
    url: &str,
    ca_file: Option<&Path>,
    http2: bool,
    limit: std::time::Duration,
) -> io::Result<ClientSettings> {
    let extra_ca_pem = ca_file.map(std::fs::read).transpose()?.map(Into::into);
    Ok(ClientSettings {
        extra_ca_pem,
        connect_timeout: limit,
        timeout: limit,
        http_version: if http2 {
            HttpVersion::Http2
        } else {
            HttpVersion::Http11
        },
        ..ClientSettings::for_base_url(url)
    })
}

/// The child's side: build `client` for `url` (trusting `ca_file` too), make `calls` calls one
/// after another, each checked, and print what they allocated.
///
/// # Errors
/// The CA cannot be read, the client cannot be built, or a call fails.
pub fn run_child(
    client: ClientName,
    url: &str,
    ca_file: Option<&Path>,
    http2: bool,
    calls: u32,
) -> io::Result<()> {
    // Under callgrind everything runs tens of times slower (a TLS handshake of libcurl's
    // takes seconds): the limits only guard against a hang, time is not what is measured.
    let settings = child_settings(url, ca_file, http2, CHILD_LIMIT)?;
    let pairs = cross_rate_pairs();
    let allocated = actix_rt::System::new().block_on(async {
        let provider = adapters::build(client, &settings).map_err(io::Error::other)?;
        let before = AllocSnapshot::now();
        for call in 0..calls {
            let quotes = provider.fetch_quotes(&pairs).await.map_err(|error| {
                io::Error::other(format!("call {} of {calls} failed: {error}", call + 1))
            })?;
            if pairs.iter().any(|pair| quotes.get(pair).is_none()) {
                return Err(io::Error::other("the answer lacks a requested pair"));
            }
        }
        let allocated = AllocSnapshot::now().since(before);
        // Inside the runtime: some clients stop background tasks or threads when dropped.
        drop(provider);
        Ok::<_, io::Error>(allocated)
    })?;
    let mut stdout = io::stdout().lock();
    writeln!(
        stdout,
        "{REPORT_PREFIX}allocations={} bytes={}",
        allocated.allocations, allocated.bytes
    )?;
    stdout.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_callgrinds_totals_and_the_childs_report() {
        let profile = "version: 1\ncreator: callgrind-3.19.0\nevents: Ir\n\nfn=main\n1 5\n\
                       summary: 89264342\ntotals: 89264342\n";
        assert_eq!(parse_totals(profile), Some(89_264_342));
        assert_eq!(parse_totals("events: Ir\nsummary: 12\n"), Some(12));
        assert_eq!(parse_totals("events: Ir\n"), None);
        let report = parse_report("noise\ncost: allocations=4600 bytes=1536000\n").unwrap();
        assert_eq!((report.allocations, report.bytes), (4600, 1_536_000));
        assert_eq!(parse_report("nothing\n"), None);
    }

    #[test]
    fn the_difference_of_two_runs_is_the_cost_of_a_call() {
        let counts = |instructions, allocations| RunCounts {
            instructions,
            allocated: AllocSnapshot {
                allocations,
                bytes: allocations * 100,
            },
        };
        // 60 M of start-up in both; 20 calls more cost 2 M instructions and 460 allocations.
        let row = row(
            ClientName::Hyper,
            Protocol::Http,
            (20, 40),
            (&counts(62_000_000, 460), &counts(64_000_000, 920)),
            None,
        );
        assert!((row.instructions_per_call - 100_000.0).abs() < 1e-6);
        assert!((row.allocs_per_call - 23.0).abs() < 1e-9);
        assert!((row.bytes_per_call - 2_300.0).abs() < 1e-9);
        assert_eq!(row.instructions, (62_000_000, 64_000_000));
    }

    #[test]
    fn tail_keeps_the_end_on_a_character_boundary() {
        assert_eq!(tail("abcdef", 3), "def");
        assert_eq!(tail("ab", 10), "ab");
        assert_eq!(tail("aé", 1), "");
    }
}
