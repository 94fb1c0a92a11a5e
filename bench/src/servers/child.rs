//! Servers the bench runs as its own child processes (mock-rates, the api), so that their work
//! never shows in the bench's timings or allocation counts.
//!
//! The bench re-executes its own binary with a hidden sub-command through the process layer
//! ([`crate::process`]), reads the `... listening on http://ADDR` line from the child's stdout,
//! and kills and reaps the child when the [`ChildProcess`] guard drops: at the end of a run, on
//! error, on panic, and on Ctrl-C or SIGTERM (the layer's signal thread kills every live child
//! before the bench exits). As safety nets the child also asks the kernel to kill it when its
//! parent dies, and stops when its stdin (a pipe from the parent) closes.

use std::ffi::OsStr;
use std::io;
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use crate::measure::process::ProcessCpu;
use crate::process::{Cmd, Input, Output, RunError, Running, first_line};

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
pub struct Wrapper {
    pub command: Cmd,
    pub start_timeout: Duration,
}

/// The running child; dropping it kills its process group and reaps it.
#[derive(Debug)]
pub struct ChildProcess {
    /// Declared first, dropped first: the process is gone before its CPU groups are removed.
    /// Closing its stdin on drop tells the child to stop even if the kill were lost.
    running: Running,
    /// Its CPU time, every thread of it (see [`ProcessCpu`]).
    cpu: ProcessCpu,
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
        wrapper: Option<&Wrapper>,
        exe: &Path,
        args: &[&OsStr],
        env: &[(&str, &str)],
        ready_prefix: &str,
    ) -> Result<(Self, String), ChildError> {
        let (command, start_timeout) = match wrapper {
            Some(wrapper) => (wrapper.command.clone().arg(exe), wrapper.start_timeout),
            None => (Cmd::new(exe), START_TIMEOUT),
        };
        let mut command = command
            .args(args)
            .arg("--parent-pid")
            .arg(std::process::id().to_string())
            .stdin(Input::Pipe)
            .stdout(Output::Capture)
            .stderr(Output::Inherit);
        for (variable, value) in env {
            command = command.env(variable, value);
        }
        let mut running = command.spawn().map_err(|error| ChildError::Spawn {
            name,
            source: match error {
                RunError::Start { source, .. } | RunError::Wait { source, .. } => source,
                other => io::Error::other(other),
            },
        })?;
        let stdout = running.take_stdout();
        let cpu = ProcessCpu::attach(running.pid(), name);
        // From here on the guard owns the child: any early return below stops it.
        let process = Self { running, cpu };
        let start_error = |reason: String| ChildError::Start { name, reason };
        let stdout = stdout.ok_or_else(|| start_error("no stdout pipe".to_owned()))?;
        let line = match first_line(stdout, start_timeout) {
            Ok(Ok(Some(line))) => line,
            Ok(Ok(None)) => {
                return Err(start_error(
                    "it exited before listening (see its error above)".to_owned(),
                ));
            }
            Ok(Err(limit)) => {
                return Err(start_error(format!(
                    "no answer within {} s",
                    limit.as_secs()
                )));
            }
            Err(error) => return Err(start_error(error.to_string())),
        };
        let base_url = parse_ready_line(&line, ready_prefix).ok_or_else(|| {
            start_error(format!(
                "expected \"{ready_prefix}http://ADDR\", got {line:?}"
            ))
        })?;
        Ok((process, base_url))
    }

    /// The child's process id (for /proc readings).
    pub fn pid(&self) -> u32 {
        self.running.pid()
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

/// `http://127.0.0.1:PORT` (or `https://...`) from `<prefix>http://127.0.0.1:PORT`.
fn parse_ready_line(line: &str, prefix: &str) -> Option<String> {
    let url = line.trim().strip_prefix(prefix)?;
    let address = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))?;
    address.parse::<SocketAddr>().ok()?;
    Some(url.to_owned())
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
