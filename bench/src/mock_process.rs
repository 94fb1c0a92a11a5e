//! mock-rates in its own process, so that the server's work never shows in the bench's
//! timings or allocation counts.
//!
//! The bench re-executes its own binary with the hidden `__mock-rates` sub-command, reads the
//! `mock-rates listening on http://ADDR` line from the child's stdout, and kills and reaps the
//! child when the [`MockProcess`] guard drops: at the end of a run, on error, on panic, and on
//! Ctrl-C or SIGTERM (a signal thread kills every live child before the bench exits). As safety
//! nets the child also asks the kernel to kill it when its parent dies, and stops when its
//! stdin (a pipe from the parent) closes.

use std::io::{self, BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, Once, PoisonError, mpsc};
use std::time::Duration;

use mock_rates::{MockState, Settings, Stats};

/// What the child prints on stdout once it listens, followed by its base URL.
const READY_PREFIX: &str = "mock-rates listening on ";
/// How long the child may take to start listening.
const START_TIMEOUT: Duration = Duration::from_secs(15);
/// Limit on one admin call.
const ADMIN_TIMEOUT: Duration = Duration::from_secs(5);

/// Each [`MockEndpoint::stats`] call opens one connection of its own, which the mock counts in
/// the stats it returns; subtract this from a before/after difference.
pub const CONNECTIONS_PER_STATS_READ: u64 = 1;

#[derive(Debug, thiserror::Error)]
pub enum MockError {
    #[error("cannot start the mock-rates child process: {0}")]
    Spawn(#[source] io::Error),
    #[error("the mock-rates child process did not report its address: {0}")]
    Start(String),
    #[error("the mock-rates admin endpoint failed: {0}")]
    Admin(String),
}

/// A mock-rates server the bench talks to: its own child process, or one given by URL.
#[derive(Debug)]
pub struct MockEndpoint {
    base_url: String,
    /// Kept for its `Drop`, which stops the child.
    process: Option<MockProcess>,
}

impl MockEndpoint {
    /// Starts `exe __mock-rates` on a free loopback port and waits until it listens.
    pub fn spawn(exe: &Path) -> Result<Self, MockError> {
        let (process, base_url) = MockProcess::spawn(exe)?;
        Ok(Self {
            base_url,
            process: Some(process),
        })
    }

    /// A server someone else runs.
    pub fn external(base_url: &str) -> Self {
        Self {
            base_url: base_url.trim_end_matches('/').to_owned(),
            process: None,
        }
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Whether this endpoint is the bench's own child process.
    pub fn is_child(&self) -> bool {
        self.process.is_some()
    }

    /// The server's counters, from `GET /__admin/stats` on a fresh connection.
    pub fn stats(&self) -> Result<Stats, MockError> {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(ADMIN_TIMEOUT))
            .max_idle_connections(0)
            // Loopback only: a proxy from the environment must not carry the admin call.
            .proxy(None)
            .build()
            .into();
        let url = format!("{}/__admin/stats", self.base_url);
        let mut response = agent
            .get(&url)
            .header("connection", "close")
            .call()
            .map_err(|error| MockError::Admin(format!("GET {url}: {error}")))?;
        let body = response
            .body_mut()
            .read_to_string()
            .map_err(|error| MockError::Admin(format!("GET {url}: {error}")))?;
        serde_json::from_str(&body)
            .map_err(|error| MockError::Admin(format!("GET {url}: unexpected body: {error}")))
    }
}

/// The running child; dropping it kills and reaps the process.
#[derive(Debug)]
pub struct MockProcess {
    pid: u32,
    /// Closing it (on drop) tells the child to stop even if the kill below were lost.
    stdin: Option<ChildStdin>,
}

/// Children alive right now, so that the signal thread can kill them before the bench exits.
static CHILDREN: Mutex<Vec<Child>> = Mutex::new(Vec::new());

fn children() -> std::sync::MutexGuard<'static, Vec<Child>> {
    CHILDREN.lock().unwrap_or_else(PoisonError::into_inner)
}

impl MockProcess {
    fn spawn(exe: &Path) -> Result<(Self, String), MockError> {
        install_signal_handler();
        let mut child = Command::new(exe)
            .args(["__mock-rates", "--listen", "127.0.0.1:0", "--parent-pid"])
            .arg(std::process::id().to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(MockError::Spawn)?;
        let stdout = child.stdout.take();
        let process = Self {
            pid: child.id(),
            stdin: child.stdin.take(),
        };
        // From here on the guard owns the child: any early return below stops it.
        children().push(child);
        let stdout = stdout.ok_or_else(|| MockError::Start("no stdout pipe".to_owned()))?;
        let line = first_line(stdout, START_TIMEOUT)?;
        let base_url = parse_ready_line(&line).ok_or_else(|| {
            MockError::Start(format!(
                "expected \"{READY_PREFIX}http://ADDR\", got {line:?}"
            ))
        })?;
        Ok((process, base_url))
    }
}

impl Drop for MockProcess {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let mut live = children();
        if let Some(index) = live.iter().position(|child| child.id() == self.pid) {
            stop(&mut live.swap_remove(index));
        }
    }
}

fn stop(child: &mut Child) {
    // Errors here mean the child already exited; `wait` reaps it either way.
    let _ = child.kill();
    let _ = child.wait();
}

/// Reads one line from `stdout` on a helper thread, giving up after `timeout`.
fn first_line(stdout: impl Read + Send + 'static, timeout: Duration) -> Result<String, MockError> {
    let (sender, receiver) = mpsc::channel();
    std::thread::Builder::new()
        .name("mock-rates-stdout".to_owned())
        .spawn(move || {
            let mut line = String::new();
            let read = BufReader::new(stdout).read_line(&mut line).map(|_| line);
            let _ = sender.send(read);
        })
        .map_err(MockError::Spawn)?;
    match receiver.recv_timeout(timeout) {
        Ok(Ok(line)) if !line.is_empty() => Ok(line),
        Ok(Ok(_)) => Err(MockError::Start(
            "it exited before listening (see its error above)".to_owned(),
        )),
        Ok(Err(error)) => Err(MockError::Start(error.to_string())),
        Err(_) => Err(MockError::Start(format!(
            "no answer within {} s",
            timeout.as_secs()
        ))),
    }
}

/// `http://127.0.0.1:PORT` from `mock-rates listening on http://127.0.0.1:PORT`.
fn parse_ready_line(line: &str) -> Option<String> {
    let url = line.trim().strip_prefix(READY_PREFIX)?;
    let address = url.strip_prefix("http://")?;
    address.parse::<SocketAddr>().ok()?;
    Some(url.to_owned())
}

/// On SIGINT or SIGTERM: kill and reap every child, then exit as the signal would have.
/// Returns once the handlers are registered, so no signal after it is lost to the default.
fn install_signal_handler() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let (registered, ready) = mpsc::channel::<()>();
        let spawned = std::thread::Builder::new()
            .name("bench-signals".to_owned())
            .spawn(move || {
                let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                    .enable_io()
                    .build()
                else {
                    return;
                };
                runtime.block_on(async move {
                    use tokio::signal::unix::{SignalKind, signal};
                    let (Ok(mut interrupt), Ok(mut terminate)) = (
                        signal(SignalKind::interrupt()),
                        signal(SignalKind::terminate()),
                    ) else {
                        return;
                    };
                    let _ = registered.send(());
                    let code = tokio::select! {
                        _ = interrupt.recv() => 130,
                        _ = terminate.recv() => 143,
                    };
                    for mut child in children().drain(..) {
                        stop(&mut child);
                    }
                    eprintln!("\nbench: interrupted; mock-rates stopped");
                    std::process::exit(code);
                });
            });
        // Without the thread the default signal action still ends the bench, and the child
        // follows through its parent-death signal and closed stdin.
        if spawned.is_ok() {
            let _ = ready.recv_timeout(Duration::from_secs(5));
        }
    });
}

/// The child's side: serve mock-rates on `listen` until stdin closes or the parent dies.
pub fn run_child(listen: SocketAddr, parent_pid: Option<u32>) -> io::Result<()> {
    die_with_parent();
    if let Some(expected) = parent_pid
        && std::os::unix::process::parent_id() != expected
    {
        // The parent died before the death signal was armed.
        return Ok(());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(listen).await?;
        let address = listener.local_addr()?;
        {
            use std::io::Write as _;
            let mut stdout = io::stdout().lock();
            writeln!(stdout, "{READY_PREFIX}http://{address}")?;
            stdout.flush()?;
        }
        let (closed, stdin_closed) = tokio::sync::oneshot::channel::<()>();
        std::thread::Builder::new()
            .name("parent-stdin".to_owned())
            .spawn(move || {
                // Nothing is ever sent; EOF or an error means the parent is gone.
                let _ = io::copy(&mut io::stdin().lock(), &mut io::sink());
                let _ = closed.send(());
            })?;
        let shutdown = async {
            let _ = stdin_closed.await;
        };
        mock_rates::serve(listener, MockState::new(Settings::default()), shutdown).await
    })
}

/// Asks the kernel to SIGKILL this process when its parent exits, even by SIGKILL.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)] // The one call below; libc has no safe wrapper for prctl.
fn die_with_parent() {
    // SAFETY: PR_SET_PDEATHSIG takes integer arguments only and touches no memory of ours.
    // The signal is sent when the parent's spawning thread ends: the bench spawns from its
    // main thread, which lives as long as the run.
    unsafe {
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        );
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_ready_line() {
        assert_eq!(
            parse_ready_line("mock-rates listening on http://127.0.0.1:41234\n").as_deref(),
            Some("http://127.0.0.1:41234")
        );
        assert_eq!(parse_ready_line("listening on 127.0.0.1:1"), None);
        assert_eq!(
            parse_ready_line("mock-rates listening on http://nowhere"),
            None
        );
    }
}
