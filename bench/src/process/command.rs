//! A command: the builder, its run and its errors, and a running child.

use super::group;
use std::ffi::{OsStr, OsString};
use std::io::{self, Write as _};
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What a child reads on stdin.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Input {
    /// Nothing: stdin is `/dev/null`.
    #[default]
    Null,
    /// These bytes, then end of file.
    Bytes(Vec<u8>),
    /// A pipe from the bench that stays open as long as the [`Running`] child: a server
    /// stops when it closes. ([`Cmd::run`] closes it at once.)
    Pipe,
}

/// Where a child's stdout or stderr goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Output {
    /// Read by the bench: returned by [`Cmd::run`], or handed over by
    /// [`Running::take_stdout`].
    #[default]
    Capture,
    /// The bench's own stdout or stderr.
    Inherit,
}

/// A process to start: see the module's documentation.
#[derive(Clone, Debug)]
pub struct Cmd {
    program: OsString,
    args: Vec<OsString>,
    /// Variables set (`Some`) or removed (`None`), in order.
    env: Vec<(OsString, Option<OsString>)>,
    dir: Option<PathBuf>,
    stdin: Input,
    stdout: Output,
    stderr: Output,
    deadline: Option<Duration>,
}

/// A command that ran to its end.
#[derive(Debug)]
pub struct Finished {
    /// How it exited: a code (a death by signal is a [`RunError::Killed`]).
    pub status: ExitStatus,
    /// Its stdout, when captured.
    pub stdout: Vec<u8>,
    /// Its stderr, when captured.
    pub stderr: Vec<u8>,
    /// From its start to its exit.
    pub elapsed: Duration,
}

/// Why a command gave no [`Finished`].
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{program} could not be started: {source}")]
    Start {
        program: String,
        #[source]
        source: io::Error,
    },
    #[error("{program} did not finish within {} s", after.as_secs())]
    TimedOut { program: String, after: Duration },
    #[error("{program} was killed by signal {signal}")]
    Killed {
        program: String,
        signal: i32,
        /// Its stdout and stderr, when captured: what it said before it died.
        stdout: Vec<u8>,
        stderr: Vec<u8>,
    },
    #[error("waiting for {program}: {source}")]
    Wait {
        program: String,
        #[source]
        source: io::Error,
    },
}

impl Cmd {
    pub fn new(program: impl AsRef<OsStr>) -> Self {
        Self {
            program: program.as_ref().to_owned(),
            args: Vec::new(),
            env: Vec::new(),
            dir: None,
            stdin: Input::Null,
            stdout: Output::Capture,
            stderr: Output::Capture,
            deadline: None,
        }
    }

    #[must_use]
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    #[must_use]
    pub fn args<I>(mut self, args: I) -> Self
    where
        I: IntoIterator,
        I::Item: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|arg| arg.as_ref().to_owned()));
        self
    }

    #[must_use]
    pub fn env(mut self, name: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.env
            .push((name.as_ref().to_owned(), Some(value.as_ref().to_owned())));
        self
    }

    #[must_use]
    pub fn env_remove(mut self, name: impl AsRef<OsStr>) -> Self {
        self.env.push((name.as_ref().to_owned(), None));
        self
    }

    #[must_use]
    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.dir = Some(dir.as_ref().to_owned());
        self
    }

    #[must_use]
    pub fn stdin(mut self, stdin: Input) -> Self {
        self.stdin = stdin;
        self
    }

    #[must_use]
    pub fn stdout(mut self, stdout: Output) -> Self {
        self.stdout = stdout;
        self
    }

    #[must_use]
    pub fn stderr(mut self, stderr: Output) -> Self {
        self.stderr = stderr;
        self
    }

    /// The most [`Cmd::run`] waits before it kills the command's group; without one it
    /// waits as long as the command runs.
    #[must_use]
    pub fn deadline(mut self, limit: Duration) -> Self {
        self.deadline = Some(limit);
        self
    }

    pub fn get_program(&self) -> &OsStr {
        &self.program
    }

    pub fn get_args(&self) -> impl Iterator<Item = &OsStr> {
        self.args.iter().map(OsString::as_os_str)
    }

    /// The program's file name, for messages.
    pub fn name(&self) -> String {
        Path::new(&self.program)
            .file_name()
            .unwrap_or(&self.program)
            .to_string_lossy()
            .into_owned()
    }

    fn std_command(&self) -> std::process::Command {
        let mut command = std::process::Command::new(&self.program);
        command.args(&self.args);
        for (name, value) in &self.env {
            match value {
                Some(value) => command.env(name, value),
                None => command.env_remove(name),
            };
        }
        if let Some(dir) = &self.dir {
            command.current_dir(dir);
        }
        command
    }

    /// Starts the command in a process group of its own, registered for the interrupt.
    fn start(&self) -> Result<Child, RunError> {
        let stdio = |output: Output| match output {
            Output::Capture => Stdio::piped(),
            Output::Inherit => Stdio::inherit(),
        };
        let mut command = self.std_command();
        command
            .stdin(match self.stdin {
                Input::Null => Stdio::null(),
                Input::Bytes(_) | Input::Pipe => Stdio::piped(),
            })
            .stdout(stdio(self.stdout))
            .stderr(stdio(self.stderr))
            .process_group(0);
        group::spawn(&mut command).map_err(|source| RunError::Start {
            program: self.name(),
            source,
        })
    }

    /// Runs the command to its end, or until its deadline; see [`Finished`] and [`RunError`].
    pub fn run(&self) -> Result<Finished, RunError> {
        let started = Instant::now();
        let mut child = self.start()?;
        let wait_error = |source| RunError::Wait {
            program: self.name(),
            source,
        };
        let writer = match (&self.stdin, child.stdin.take()) {
            (Input::Bytes(bytes), Some(mut stdin)) => {
                let bytes = bytes.clone();
                // A child that does not read them must not block the bench.
                Some(std::thread::spawn(move || {
                    let _ = stdin.write_all(&bytes);
                }))
            }
            // Nothing to write: end of file at once.
            (_, stdin) => {
                drop(stdin);
                None
            }
        };
        let stdout = child.stdout.take().map(read_all);
        let stderr = child.stderr.take().map(read_all);
        let exited = group::exited_within(&child, self.deadline);
        let elapsed = started.elapsed();
        // Also when it exited: what it left running in its group goes with it.
        let status = group::kill_and_reap(&mut child).map_err(wait_error)?;
        let in_time = exited.map_err(wait_error)?;
        if let Some(writer) = writer {
            let _ = writer.join();
        }
        let stdout = joined(stdout);
        let stderr = joined(stderr);
        if !in_time {
            return Err(RunError::TimedOut {
                program: self.name(),
                after: self.deadline.unwrap_or_default(),
            });
        }
        if let Some(signal) = status.signal() {
            return Err(RunError::Killed {
                program: self.name(),
                signal,
                stdout,
                stderr,
            });
        }
        Ok(Finished {
            status,
            stdout,
            stderr,
            elapsed,
        })
    }

    /// Starts the command and leaves it running; dropping the [`Running`] kills its group.
    /// No deadline applies.
    pub fn spawn(&self) -> Result<Running, RunError> {
        self.start().map(|child| Running { child })
    }

    /// Replaces the bench with the command (same process, same group); returns only if that
    /// fails, with why.
    pub fn exec(&self) -> io::Error {
        self.std_command().exec()
    }
}

fn read_all(mut stream: impl io::Read + Send + 'static) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stream.read_to_end(&mut bytes);
        bytes
    })
}

fn joined(reader: Option<JoinHandle<Vec<u8>>>) -> Vec<u8> {
    reader
        .and_then(|reader| reader.join().ok())
        .unwrap_or_default()
}

impl Finished {
    pub fn success(&self) -> bool {
        self.status.success()
    }

    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// A child started by [`Cmd::spawn`]; dropping it closes its stdin, kills its process
/// group and reaps it.
#[derive(Debug)]
pub struct Running {
    child: Child,
}

impl Running {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Its stdout, when captured; once.
    pub fn take_stdout(&mut self) -> Option<ChildStdout> {
        self.child.stdout.take()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        // An error means it could not be reaped: nothing more to do.
        let _ = group::kill_and_reap(&mut self.child);
    }
}

/// The first line `stream` gives, read on a helper thread within `limit`; the thread then
/// keeps draining the stream so that the child never blocks writing to it. `Ok(None)` when the
/// stream ended first (the child exited), `Err(limit)` when the line did not come in time.
pub fn first_line(
    stream: impl io::Read + Send + 'static,
    limit: Duration,
) -> io::Result<Result<Option<String>, Duration>> {
    use io::BufRead as _;
    let (sender, receiver) = mpsc::channel();
    std::thread::Builder::new()
        .name("child-stdout".to_owned())
        .spawn(move || {
            let mut reader = io::BufReader::new(stream);
            let mut line = String::new();
            let read = reader.read_line(&mut line).map(|_| line);
            let _ = sender.send(read);
            let _ = io::copy(&mut reader, &mut io::sink());
        })?;
    match receiver.recv_timeout(limit) {
        Ok(Ok(line)) if line.is_empty() => Ok(Ok(None)),
        Ok(Ok(line)) => Ok(Ok(Some(line))),
        Ok(Err(error)) => Err(error),
        Err(_) => Ok(Err(limit)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Cmd {
        Cmd::new("sh").args(["-c", script])
    }

    #[test]
    fn a_command_that_exits_gives_its_status_and_output() {
        let finished = sh("echo out; echo err >&2; exit 3").run().unwrap();
        assert_eq!(finished.status.code(), Some(3));
        assert_eq!(finished.stdout_text(), "out\n");
        assert_eq!(finished.stderr_text(), "err\n");
        assert!(!finished.success());
    }

    #[test]
    fn arguments_environment_directory_and_stdin_reach_the_child() {
        let dir = std::env::temp_dir();
        let finished = sh("printf '%s %s %s ' \"$1\" \"$BENCH_TEST_VALUE\" \"$PWD\"; cat")
            // `$0`, then `$1`.
            .args(["sh", "first"])
            .env("BENCH_TEST_VALUE", "set")
            .env("HOME", "kept")
            .env_remove("HOME")
            .current_dir(&dir)
            .stdin(Input::Bytes(b"from stdin".to_vec()))
            .deadline(Duration::from_secs(60))
            .run()
            .unwrap();
        assert!(finished.success());
        let dir = dir.canonicalize().unwrap();
        assert_eq!(
            finished.stdout_text(),
            format!("first set {} from stdin", dir.display())
        );
    }

    #[test]
    fn a_missing_program_cannot_be_started() {
        let error = Cmd::new("/nonexistent/bench-no-such-program")
            .run()
            .unwrap_err();
        match error {
            RunError::Start { program, source } => {
                assert_eq!(program, "bench-no-such-program");
                assert_eq!(source.kind(), io::ErrorKind::NotFound);
            }
            other => panic!("{other:?}"),
        }
    }

    /// Whether `pid` is still a process (a zombie of ours counts as gone).
    /// Whether `pid` is gone, waiting for init to reap it (up to 10 s: no timing is judged).
    fn gone(pid: i32) -> bool {
        for _ in 0..1000 {
            if !alive(pid) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }

    fn alive(pid: i32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            let state = stat.rsplit(')').next().unwrap_or_default().trim_start();
            !state.starts_with('Z')
        })
    }

    #[test]
    fn a_command_past_its_deadline_is_killed_with_its_group() {
        let dir = super::super::scratch::temp_dir("process-test").unwrap();
        let pid_file = dir.path().join("grandchild");
        // The grandchild's pid is written at once; the deadline comes long before its end.
        let script = format!("sleep 30 & echo $! > {}; wait", pid_file.display());
        let error = sh(&script)
            .deadline(Duration::from_secs(2))
            .run()
            .unwrap_err();
        assert!(matches!(error, RunError::TimedOut { .. }), "{error:?}");
        let grandchild: i32 = std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // SIGKILL is delivered before killpg returns; the process may still be exiting.
        let mut tries = 0;
        while alive(grandchild) && tries < 1000 {
            std::thread::sleep(Duration::from_millis(10));
            tries += 1;
        }
        assert!(
            !alive(grandchild),
            "the grandchild {grandchild} outlived it"
        );
    }

    #[test]
    fn what_a_command_leaves_running_goes_with_it() {
        // sh exits at once; the sleep it left would hold stdout open for 30 s.
        let finished = sh("sleep 30 & echo $!")
            .deadline(Duration::from_secs(60))
            .run()
            .unwrap();
        assert!(finished.success());
        let grandchild: i32 = finished.stdout_text().trim().parse().unwrap();
        assert!(gone(grandchild), "the grandchild is killed with the group");
    }

    #[test]
    fn a_command_killed_by_a_signal_is_an_error() {
        let error = sh("echo dying >&2; kill -9 $$").run().unwrap_err();
        match error {
            RunError::Killed { signal, stderr, .. } => {
                assert_eq!(signal, 9);
                assert_eq!(stderr, b"dying\n");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_running_child_is_killed_with_its_group_on_drop() {
        let mut running = sh("sleep 30 & echo $!; wait")
            .stdin(Input::Pipe)
            .spawn()
            .unwrap();
        let pid = running.pid().cast_signed();
        let line = first_line(running.take_stdout().unwrap(), Duration::from_secs(60))
            .unwrap()
            .unwrap()
            .unwrap();
        let grandchild: i32 = line.trim().parse().unwrap();
        assert!(alive(pid) && alive(grandchild));
        drop(running);
        assert!(!alive(pid), "the child is reaped on drop");
        assert!(gone(grandchild), "the grandchild is killed with the group");
    }

    #[test]
    fn a_stream_that_ends_has_no_first_line() {
        let mut running = sh("exit 0").spawn().unwrap();
        let read = first_line(running.take_stdout().unwrap(), Duration::from_secs(60)).unwrap();
        assert_eq!(read, Ok(None));
    }
}
