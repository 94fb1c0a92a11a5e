//! The external tools the bench drives, each looked for once (on `PATH`, or where `CARGO` and
//! `RUSTC` say for the toolchain) and its version read: what the machine can do, for the run
//! plan to decide on before anything is measured.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use super::command::{Cmd, RunError};

pub use bench_model::Tool;

/// A tool that runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub tool: Tool,
    pub path: PathBuf,
    /// The first line of its version query; `None` for a tool that has none (vgdb).
    pub version: Option<String>,
}

/// A tool the machine lacks, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{tool} {cause} ({})", bench_report::report::reasons::install_hint(*tool))]
pub struct Missing {
    pub tool: Tool,
    pub cause: MissingCause,
}

/// Why a tool cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MissingCause {
    /// No such program on `PATH` (or at the path its variable gives).
    NotInstalled,
    /// The program is there but does not start.
    CannotStart(io::ErrorKind),
    /// Its version query failed: the exit code, or none when a signal or the deadline ended
    /// it.
    VersionFailed { code: Option<i32> },
}

impl fmt::Display for MissingCause {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotInstalled => formatter.write_str("is not installed"),
            Self::CannotStart(kind) => write!(formatter, "cannot be run ({kind})"),
            Self::VersionFailed { code: Some(code) } => {
                write!(formatter, "fails its version query (exit code {code})")
            }
            Self::VersionFailed { code: None } => {
                formatter.write_str("fails its version query (killed or stuck)")
            }
        }
    }
}

/// The most a version query may take.
const VERSION_LIMIT: Duration = Duration::from_secs(30);

/// The program to look for: the toolchain the bench was run with, else the name.
fn program(tool: Tool) -> OsString {
    let variable = match tool {
        Tool::Cargo => std::env::var_os("CARGO"),
        Tool::Rustc => std::env::var_os("RUSTC"),
        _ => None,
    };
    variable.unwrap_or_else(|| OsString::from(tool.name()))
}

/// The arguments that print its version, and whether they exit 0 (wrk's `-v` prints its
/// version, then its usage, and exits 1).
fn version_query(tool: Tool) -> Option<(&'static [&'static str], bool)> {
    match tool {
        Tool::Cargo | Tool::Rustc | Tool::Ip => Some((&["-V"], true)),
        Tool::Readelf | Tool::Valgrind => Some((&["--version"], true)),
        Tool::Wrk => Some((&["-v"], false)),
        Tool::Vgdb => None,
    }
}

/// `tool` where it runs, with its version, or why it cannot be used. Looked for on the first
/// call; later calls answer the same.
///
/// # Errors
/// The tool is not installed, does not start, or fails its version query.
pub fn tool(tool: Tool) -> Result<Found, Missing> {
    static FOUND: [OnceLock<Result<Found, Missing>>; Tool::ALL.len()] =
        [const { OnceLock::new() }; Tool::ALL.len()];
    FOUND[tool as usize]
        .get_or_init(|| look_up(tool, std::env::var_os("PATH").as_deref()))
        .clone()
}

fn look_up(tool: Tool, path_variable: Option<&OsStr>) -> Result<Found, Missing> {
    let missing = |cause| Missing { tool, cause };
    let path = find_program(&program(tool), path_variable)
        .ok_or_else(|| missing(MissingCause::NotInstalled))?;
    let Some((args, must_succeed)) = version_query(tool) else {
        return Ok(Found {
            tool,
            path,
            version: None,
        });
    };
    let finished = Cmd::new(&path)
        .args(args)
        .deadline(VERSION_LIMIT)
        .run()
        .map_err(|error| match error {
            RunError::Start { source, .. } | RunError::Wait { source, .. } => {
                missing(MissingCause::CannotStart(source.kind()))
            }
            RunError::TimedOut { .. } | RunError::Killed { .. } => {
                missing(MissingCause::VersionFailed { code: None })
            }
        })?;
    if must_succeed && !finished.success() {
        return Err(missing(MissingCause::VersionFailed {
            code: finished.status.code(),
        }));
    }
    let version = finished
        .stdout_text()
        .lines()
        .next()
        .map(|line| line.trim().to_owned())
        .filter(|line| !line.is_empty());
    Ok(Found {
        tool,
        path,
        version,
    })
}

/// `program` itself when it names a path, else the first executable file of that name in
/// the directories of `path_variable`.
fn find_program(program: &OsStr, path_variable: Option<&OsStr>) -> Option<PathBuf> {
    let program = Path::new(program);
    if program.components().count() > 1 {
        return is_executable(program).then(|| program.to_owned());
    }
    std::env::split_paths(path_variable?)
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path)
        .is_ok_and(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_is_found_on_the_path_only_when_executable() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = super::super::scratch::temp_dir("tool-test").unwrap();
        let script = dir.path().join("runs");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = std::env::join_paths(["/nonexistent-bench-dir".as_ref(), dir.path()]).unwrap();
        assert_eq!(
            find_program(OsStr::new("runs"), Some(&path)),
            Some(script.clone())
        );
        assert_eq!(find_program(OsStr::new("plain"), Some(&path)), None);
        assert_eq!(find_program(OsStr::new("absent"), Some(&path)), None);
        assert_eq!(find_program(OsStr::new("runs"), None), None);
        assert_eq!(find_program(script.as_os_str(), None), Some(script.clone()));
    }

    #[test]
    fn a_tool_not_on_the_path_is_missing_with_how_to_get_it() {
        let missing = look_up(Tool::Wrk, Some(OsStr::new("/nonexistent-bench-dir"))).unwrap_err();
        assert_eq!(missing.cause, MissingCause::NotInstalled);
        assert_eq!(
            missing.to_string(),
            "wrk is not installed (Debian: apt-get install wrk)"
        );
    }

    #[test]
    fn a_tool_whose_version_query_fails_is_missing() {
        // `false` stands in for an `ip` that fails `ip -V` (a link: no file written to run).
        let dir = super::super::scratch::temp_dir("tool-test").unwrap();
        let fake = dir.path().join("ip");
        let false_program = find_program(OsStr::new("false"), std::env::var_os("PATH").as_deref())
            .expect("false is on the path");
        std::os::unix::fs::symlink(false_program, &fake).unwrap();
        let missing = look_up(Tool::Ip, Some(dir.path().as_os_str())).unwrap_err();
        assert_eq!(missing.cause, MissingCause::VersionFailed { code: Some(1) });
    }

    #[test]
    fn the_toolchain_that_runs_the_tests_is_found_with_its_version() {
        let found = tool(Tool::Cargo).unwrap();
        assert!(found.path.is_file());
        assert!(
            found
                .version
                .as_deref()
                .is_some_and(|v| v.starts_with("cargo ")),
            "{found:?}"
        );
    }
}
