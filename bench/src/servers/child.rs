//! Servers the bench runs as its own child processes (mock-rates, the api), so that their work
//! never shows in the bench's timings or allocation counts.
//!
//! The bench re-executes its own binary with a hidden sub-command, reads the `... listening on
//! http://ADDR` line from the child's stdout, and kills and reaps the child when the
//! [`ChildProcess`] guard drops: at the end of a run, on error, on panic, and on Ctrl-C or
//! SIGTERM (a signal thread kills every live child before the bench exits). As safety nets the
//! child also asks the kernel to kill it when its parent dies, and stops when its stdin (a pipe
//! from the parent) closes.

use std::ffi::OsStr;
use std::io::{self, BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, Once, PoisonError, mpsc};
use std::time::Duration;

use crate::measure::process::ProcessCpu;

/// How long a child may take to start listening.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a child server could not be started.
#[derive(Debug, thiserror::Error)]
pub enum ChildError {
    #[error("cannot start the {name} child process: {source}")]
    Spawn {
        name: &'static str,
        #[source]
        source: io::Error,
    },
    #[error("the {name} child process did not report its address: {reason}")]
    Start { name: &'static str, reason: String },
}

/// A program that runs a child server's executable, with its arguments before the
/// executable's path (e.g. `valgrind --tool=callgrind`), and how long the two may take to
/// start listening.
#[derive(Debug)]
pub struct Wrapper<'a> {
    pub command: &'a [&'a OsStr],
    pub start_timeout: Duration,
}

/// The running child; dropping it kills and reaps the process.
#[derive(Debug)]
pub struct ChildProcess {
    pid: u32,
    /// Closing it (on drop) tells the child to stop even if the kill below were lost.
    stdin: Option<ChildStdin>,
    /// Its CPU time, every thread of it (see [`ProcessCpu`]).
    cpu: ProcessCpu,
}

/// Children alive right now, so that the signal thread can kill them before the bench exits.
static CHILDREN: Mutex<Vec<Child>> = Mutex::new(Vec::new());

/// The process ids of commands the bench is waiting on to finish (the adoption suite's
/// `cargo build`s), so that the signal thread can stop them too: each is removed as soon as
/// the command has been waited for.
static WAITED_ON: Mutex<Vec<u32>> = Mutex::new(Vec::new());

fn waited_on() -> std::sync::MutexGuard<'static, Vec<u32>> {
    WAITED_ON.lock().unwrap_or_else(PoisonError::into_inner)
}

/// `command.output()`, stdin closed, with the command stopped (SIGTERM) if the bench is
/// interrupted meanwhile, instead of left running after it: a clean release build goes on for
/// minutes.
///
/// # Errors
/// The command cannot be started, or its output cannot be read.
pub fn output_stopped_with_bench(command: &mut Command) -> io::Result<std::process::Output> {
    install_signal_handler();
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let pid = child.id();
    waited_on().push(pid);
    let output = child.wait_with_output();
    waited_on().retain(|&waited| waited != pid);
    output
}

fn children() -> std::sync::MutexGuard<'static, Vec<Child>> {
    CHILDREN.lock().unwrap_or_else(PoisonError::into_inner)
}

impl ChildProcess {
    /// Runs `exe` with `args` plus `--parent-pid <ours>`, and waits for the line
    /// `<ready_prefix>http://ADDR` on its stdout. Returns the guard and `http://ADDR`.
    pub fn spawn(
        name: &'static str,
        exe: &Path,
        args: &[&OsStr],
        ready_prefix: &str,
    ) -> Result<(Self, String), ChildError> {
        Self::spawn_with_env(name, exe, args, &[], ready_prefix)
    }

    /// [`ChildProcess::spawn`] with `env` added to the environment the child inherits.
    pub fn spawn_with_env(
        name: &'static str,
        exe: &Path,
        args: &[&OsStr],
        env: &[(&str, &str)],
        ready_prefix: &str,
    ) -> Result<(Self, String), ChildError> {
        Self::spawn_wrapped(name, None, exe, args, env, ready_prefix)
    }

    /// [`ChildProcess::spawn_with_env`] with `exe` run by `wrapper` (e.g. under valgrind),
    /// given the wrapper's own time to start.
    pub fn spawn_wrapped(
        name: &'static str,
        wrapper: Option<&Wrapper<'_>>,
        exe: &Path,
        args: &[&OsStr],
        env: &[(&str, &str)],
        ready_prefix: &str,
    ) -> Result<(Self, String), ChildError> {
        install_signal_handler();
        let (mut command, start_timeout) = match wrapper {
            Some(wrapper) => {
                let (program, wrapper_args) =
                    wrapper
                        .command
                        .split_first()
                        .ok_or_else(|| ChildError::Spawn {
                            name,
                            source: io::Error::other("an empty wrapper command"),
                        })?;
                let mut command = Command::new(program);
                command.args(wrapper_args).arg(exe);
                (command, wrapper.start_timeout)
            }
            None => (Command::new(exe), START_TIMEOUT),
        };
        let mut child = command
            .args(args)
            .envs(env.iter().copied())
            .arg("--parent-pid")
            .arg(std::process::id().to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|source| ChildError::Spawn { name, source })?;
        let stdout = child.stdout.take();
        let process = Self {
            pid: child.id(),
            stdin: child.stdin.take(),
            cpu: ProcessCpu::attach(child.id(), name),
        };
        // From here on the guard owns the child: any early return below stops it.
        children().push(child);
        let start_error = |reason: String| ChildError::Start { name, reason };
        let stdout = stdout.ok_or_else(|| start_error("no stdout pipe".to_owned()))?;
        let line = first_line(stdout, start_timeout).map_err(start_error)?;
        let base_url = parse_ready_line(&line, ready_prefix).ok_or_else(|| {
            start_error(format!(
                "expected \"{ready_prefix}http://ADDR\", got {line:?}"
            ))
        })?;
        // Drain the rest of stdout so that the child never blocks on a full pipe.
        Ok((process, base_url))
    }

    /// The child's process id (for /proc readings).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Its CPU clock.
    pub fn cpu(&self) -> &ProcessCpu {
        &self.cpu
    }

    /// Its CPU clock, to set a quota on.
    pub fn cpu_mut(&mut self) -> &mut ProcessCpu {
        &mut self.cpu
    }
}

impl Drop for ChildProcess {
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

/// Reads the first line from `stdout` on a helper thread, giving up after `timeout`; the thread
/// then keeps draining stdout so the child never blocks writing to it.
fn first_line(stdout: impl Read + Send + 'static, timeout: Duration) -> Result<String, String> {
    let (sender, receiver) = mpsc::channel();
    std::thread::Builder::new()
        .name("child-stdout".to_owned())
        .spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let read = reader.read_line(&mut line).map(|_| line);
            let _ = sender.send(read);
            let _ = io::copy(&mut reader, &mut io::sink());
        })
        .map_err(|error| error.to_string())?;
    match receiver.recv_timeout(timeout) {
        Ok(Ok(line)) if !line.is_empty() => Ok(line),
        Ok(Ok(_)) => Err("it exited before listening (see its error above)".to_owned()),
        Ok(Err(error)) => Err(error.to_string()),
        Err(_) => Err(format!("no answer within {} s", timeout.as_secs())),
    }
}

/// `http://127.0.0.1:PORT` (or `https://...`) from `<prefix>http://127.0.0.1:PORT`.
fn parse_ready_line(line: &str, prefix: &str) -> Option<String> {
    let url = line.trim().strip_prefix(prefix)?;
    let address = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))?;
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
                    for pid in waited_on().drain(..) {
                        if let Ok(pid) = i32::try_from(pid) {
                            let _ = nix::sys::signal::kill(
                                nix::unistd::Pid::from_raw(pid),
                                nix::sys::signal::Signal::SIGTERM,
                            );
                        }
                    }
                    // The exit below drops nothing: the children's CPU groups go here.
                    crate::measure::process::remove_own_groups();
                    eprintln!("\nbench: interrupted; child servers stopped");
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

/// Asks the kernel to SIGKILL this process when its parent exits, even by SIGKILL.
///
/// The signal is sent when the parent's spawning thread ends: the bench spawns from its main
/// thread, which lives as long as the run. Best effort: without it the child still follows
/// through its closed stdin.
#[cfg(target_os = "linux")]
pub fn die_with_parent() {
    let _ = nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL);
}

#[cfg(not(target_os = "linux"))]
pub fn die_with_parent() {}

/// The child's side: true if `parent_pid` was given and is no longer our parent (it died
/// before the death signal was armed), in which case the child should exit at once.
pub fn orphaned(parent_pid: Option<u32>) -> bool {
    parent_pid.is_some_and(|expected| std::os::unix::process::parent_id() != expected)
}

/// The child's side: runs `on_close` on a thread once stdin (the pipe from the parent) closes.
pub fn on_parent_gone(on_close: impl FnOnce() + Send + 'static) -> io::Result<()> {
    std::thread::Builder::new()
        .name("parent-stdin".to_owned())
        .spawn(move || {
            // Nothing is ever sent; EOF or an error means the parent is gone.
            let _ = io::copy(&mut io::stdin().lock(), &mut io::sink());
            on_close();
        })
        .map(drop)
}

/// The child's side: announces `http://address` (`https://` with `tls`) after `prefix` on
/// stdout, flushed.
pub fn announce(prefix: &str, address: SocketAddr, tls: bool) -> io::Result<()> {
    use std::io::Write as _;
    let scheme = if tls { "https" } else { "http" };
    let mut stdout = io::stdout().lock();
    writeln!(stdout, "{prefix}{scheme}://{address}")?;
    stdout.flush()
}

/// A fresh path in the temporary directory for a file the bench hands to a child or a tool
/// (a CA, a profile, a script): `bench-<what>-<pid>-<n>.<extension>`, never the same twice.
pub fn scratch_path(what: &str, extension: &str) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    std::env::temp_dir().join(format!(
        "bench-{what}-{}-{}.{extension}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_ready_line() {
        let prefix = "mock-rates listening on ";
        assert_eq!(
            parse_ready_line("mock-rates listening on http://127.0.0.1:41234\n", prefix).as_deref(),
            Some("http://127.0.0.1:41234")
        );
        assert_eq!(parse_ready_line("listening on 127.0.0.1:1", prefix), None);
        assert_eq!(
            parse_ready_line("mock-rates listening on http://nowhere", prefix),
            None
        );
        assert_eq!(
            parse_ready_line("mock-rates listening on https://127.0.0.1:8443", prefix).as_deref(),
            Some("https://127.0.0.1:8443")
        );
    }
}
