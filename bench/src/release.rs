//! No debug figures by accident: a debug-built bench (what `cargo run -p bench` builds) runs
//! the release one through cargo instead of measuring itself, unless told `--debug-build`.

use std::ffi::OsString;
use std::io;
use std::path::Path;

use crate::process::Cmd;

/// Whether this binary was built without optimisations.
pub const IS_DEBUG_BUILD: bool = cfg!(debug_assertions);

/// The command that builds and runs the release bench with `args`: the cargo that built this
/// one (`CARGO`, else `cargo` on the path), on this workspace's manifest.
pub fn release_command(cargo: Option<OsString>, manifest: &Path, args: &[OsString]) -> Cmd {
    Cmd::new(cargo.unwrap_or_else(|| OsString::from("cargo")))
        .args([
            "run",
            "--release",
            "--quiet",
            "-p",
            "bench",
            "--manifest-path",
        ])
        .arg(manifest)
        .arg("--")
        .args(args)
}

/// The workspace's manifest, as it was when this binary was built.
pub fn workspace_manifest() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml"))
}

/// Replaces this process with the release bench given the same arguments. Returns only if
/// that could not start, with why.
pub fn run_release_instead() -> io::Error {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let manifest = workspace_manifest();
    eprintln!(
        "bench: this is a debug build, whose figures would mislead; building and running the \
         release one (cargo run --release -p bench), or pass --debug-build to measure this one"
    );
    release_command(std::env::var_os("CARGO"), manifest, &args).exec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn the_release_command_is_cargo_run_release_with_the_same_arguments() {
        let args = [OsString::from("--quick"), OsString::from("--suite=latency")];
        let command = release_command(
            Some(OsString::from("/opt/cargo")),
            Path::new("/ws/Cargo.toml"),
            &args,
        );
        assert_eq!(command.get_program(), "/opt/cargo");
        let given: Vec<&OsStr> = command.get_args().collect();
        assert_eq!(
            given,
            [
                "run",
                "--release",
                "--quiet",
                "-p",
                "bench",
                "--manifest-path",
                "/ws/Cargo.toml",
                "--",
                "--quick",
                "--suite=latency"
            ]
        );
        let without_cargo = release_command(None, Path::new("/ws/Cargo.toml"), &[]);
        assert_eq!(without_cargo.get_program(), "cargo");
    }

    #[test]
    fn the_manifest_is_this_workspaces() {
        assert!(workspace_manifest().is_file());
    }
}
