//! Building one probe alone: its scratch project, `cargo metadata`, a clean `cargo build
//! --release` timed (wall and CPU), its binary's size and shared libraries, and one run of it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use cargo_metadata::Metadata;
use tempfile::TempDir;

use crate::measure::own::CpuTime;
use crate::process::{self, Cmd, Input, Tool, scratch};
use crate::suites::adoption::probes::{self, Probe};
use crate::suites::adoption::tree::{self, Tree};
use bench_model::{ProbeBuild, Toolchain};

/// The cargo that builds the probes: the one running the bench (`$CARGO`), else the one on
/// PATH.
#[derive(Debug)]
pub struct Cargo {
    program: PathBuf,
    /// `cargo -V`.
    pub version: String,
    /// `-j`: the machine's logical CPUs.
    pub jobs: usize,
    /// The host's target triple (`rustc -vV`), for `--filter-platform`.
    host: String,
    /// `rustc -vV` whole: with `version`, the toolchain a stored figure depends on.
    pub rustc_verbose: String,
}

impl Cargo {
    /// Cargo and rustc, or why they cannot be run.
    pub fn find() -> Result<Self, Toolchain> {
        let cargo = process::tool(Tool::Cargo).map_err(|missing| Toolchain::CargoNotRun {
            error: missing.to_string(),
        })?;
        let rustc = process::tool(Tool::Rustc).map_err(|missing| Toolchain::RustcNotRun {
            error: missing.to_string(),
        })?;
        let verbose = stdout(&Cmd::new(&rustc.path).arg("-vV"))
            .map_err(|error| Toolchain::RustcNotRun { error })?;
        let host = verbose
            .lines()
            .find_map(|line| line.strip_prefix("host: "))
            .ok_or(Toolchain::NoHost)?
            .to_owned();
        Ok(Self {
            program: cargo.path,
            version: cargo.version.unwrap_or_default(),
            jobs: std::thread::available_parallelism().map_or(1, usize::from),
            host,
            rustc_verbose: verbose.trim().to_owned(),
        })
    }

    /// `cargo ARGS` for the project in `dir`, into its own target directory.
    pub(crate) fn command(&self, dir: &Path, args: &[&str]) -> Cmd {
        Cmd::new(&self.program)
            .args(args)
            .arg("--manifest-path")
            .arg(dir.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", dir.join("target"))
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .env_remove("CARGO_BUILD_RUSTFLAGS")
            .current_dir(dir)
    }
}

/// A directory of scratch projects, removed when dropped.
#[derive(Debug)]
pub struct Scratch {
    root: TempDir,
}

/// One probe measured.
#[derive(Debug)]
pub struct Measured {
    pub build: ProbeBuild,
    pub tree: Tree,
    pub metadata: Metadata,
    pub system_libraries: Vec<String>,
}

/// A body for the probe with no client, from the Free Forex documentation's example.
const BODY: &str = r#"{"rates":{"EURUSD":{"rate":1.170900,"timestamp":1732900000}},"code":200}"#;

/// The C runtime's own libraries, which every binary here needs.
const C_RUNTIME: [&str; 8] = [
    "libc.so",
    "libm.so",
    "libgcc_s.so",
    "ld-linux",
    "libpthread.so",
    "libdl.so",
    "librt.so",
    "libutil.so",
];

impl Scratch {
    pub fn new() -> std::io::Result<Self> {
        Ok(Self {
            root: scratch::temp_dir("adoption")?,
        })
    }

    /// Writes `probe`'s project, reads its tree, builds it clean, reads its binary, runs it
    /// against `url` (the base reads a body from stdin), and removes its build.
    pub fn measure(
        &self,
        cargo: &Cargo,
        lock: &Path,
        probe: &Probe,
        url: &str,
    ) -> Result<Measured, String> {
        let dir = self.root.path().join(probe.name());
        let written = write_project(&dir, lock, probe)
            .map_err(|error| format!("writing {}: {error}", dir.display()));
        let measured = written.and_then(|()| measure_project(cargo, &dir, probe, url));
        let _ = std::fs::remove_dir_all(&dir);
        measured
    }
}

impl Scratch {
    /// Writes `probe`'s project and reads its tree, nothing built; removes the project.
    pub fn tree(&self, cargo: &Cargo, lock: &Path, probe: &Probe) -> Result<Tree, String> {
        let dir = self.root.path().join(probe.name());
        let written = write_project(&dir, lock, probe)
            .map_err(|error| format!("writing {}: {error}", dir.display()));
        let tree = written.and_then(|()| read_tree(cargo, &dir).map(|(tree, _)| tree));
        let _ = std::fs::remove_dir_all(&dir);
        tree
    }
}

fn write_project(dir: &Path, lock: &Path, probe: &Probe) -> std::io::Result<()> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.join("src"))?;
    std::fs::write(dir.join("Cargo.toml"), probe.manifest())?;
    std::fs::copy(lock, dir.join("Cargo.lock"))?;
    std::fs::write(dir.join("src/main.rs"), probe.main)?;
    std::fs::write(dir.join("src/common.rs"), probes::COMMON)?;
    if probe.roots {
        std::fs::write(dir.join("src/roots.rs"), probes::ROOTS)?;
    }
    Ok(())
}

/// `cargo metadata` of the project in `dir`, for the host, offline: its tree, and the
/// metadata itself.
fn read_tree(cargo: &Cargo, dir: &Path) -> Result<(Tree, Metadata), String> {
    read_tree_of(cargo, dir, Network::Offline)
}

/// Whether cargo may reach the registry: the adoption probes take only crates the workspace
/// already fetched; the releases suite's take releases it never had.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Network {
    Offline,
    Registry,
}

impl Network {
    fn flag(self) -> Option<&'static str> {
        match self {
            Self::Offline => Some("--offline"),
            Self::Registry => None,
        }
    }
}

/// `cargo metadata` of the project in `dir`, for the host (resolving its lock file first when
/// it has none, from the registry when `network` allows): its tree, and the metadata itself.
pub(crate) fn read_tree_of(
    cargo: &Cargo,
    dir: &Path,
    network: Network,
) -> Result<(Tree, Metadata), String> {
    let mut args = vec!["metadata", "--format-version", "1", "--filter-platform"];
    args.push(&cargo.host);
    args.extend(network.flag());
    let metadata =
        stdout(&cargo.command(dir, &args)).map_err(|error| format!("cargo metadata: {error}"))?;
    tree::parse(&metadata)
}

/// A clean `cargo build --release` of the project in `dir` (its target directory empty):
/// wall and CPU seconds (every process it waited for), or the build's last lines of errors.
pub(crate) fn clean_build(
    cargo: &Cargo,
    dir: &Path,
    network: Network,
) -> Result<(f64, f64), String> {
    let jobs = cargo.jobs.to_string();
    let mut args = vec!["build", "--release", "-j", &jobs];
    args.extend(network.flag());
    let cpu_before = CpuTime::children().unwrap_or_default();
    let built = cargo
        .command(dir, &args)
        .run()
        .map_err(|error| format!("cargo build: {error}"))?;
    let cpu = CpuTime::children().unwrap_or_default().since(cpu_before);
    if !built.success() {
        return Err(format!(
            "cargo build --release failed ({}): {}",
            built.status,
            tail(&built.stderr_text(), 12)
        ));
    }
    Ok((built.elapsed.as_secs_f64(), cpu.total().as_secs_f64()))
}

fn measure_project(
    cargo: &Cargo,
    dir: &Path,
    probe: &Probe,
    url: &str,
) -> Result<Measured, String> {
    let (tree, metadata) = read_tree(cargo, dir)?;

    let (build_wall_s, build_cpu_s) = clean_build(cargo, dir, Network::Offline)?;
    let binary = dir.join("target/release/probe");
    let binary_bytes = std::fs::metadata(&binary)
        .map_err(|error| format!("{}: {error}", binary.display()))?
        .len();
    let system_libraries = needed(&binary)?
        .into_iter()
        .filter(|library| !C_RUNTIME.iter().any(|runtime| library.starts_with(runtime)))
        .collect();
    let output = run_probe(&binary, probe.client.map(|_| url))?;
    let field = |name: &str| {
        output
            .split_whitespace()
            .find_map(|word| word.strip_prefix(name)?.strip_prefix('='))
            .and_then(|value| value.parse::<u64>().ok())
    };
    let threads = field("threads").and_then(|count| u32::try_from(count).ok());
    let peak_rss_kib = field("peak_rss_kib");
    Ok(Measured {
        build: ProbeBuild {
            build_wall_s,
            build_cpu_s,
            binary_bytes,
            crates: tree.crates,
            output,
            threads,
            peak_rss_kib,
        },
        tree,
        metadata,
        system_libraries,
    })
}

/// The binary's `NEEDED` shared libraries, by `readelf -d`.
fn needed(binary: &Path) -> Result<Vec<String>, String> {
    let readelf = process::tool(Tool::Readelf).map_err(|missing| missing.to_string())?;
    let dynamic = stdout(&Cmd::new(&readelf.path).arg("-d").arg(binary))
        .map_err(|error| format!("readelf -d (binutils): {error}"))?;
    Ok(dynamic
        .lines()
        .filter(|line| line.contains("(NEEDED)"))
        .filter_map(|line| {
            let start = line.find('[')? + 1;
            let end = line[start..].find(']')? + start;
            Some(line[start..end].to_owned())
        })
        .collect())
}

/// Runs the probe once, with `url` as its argument (or the example body on stdin when there
/// is none), for at most 30 s; its output line when it printed the rate.
fn run_probe(binary: &Path, url: Option<&str>) -> Result<String, String> {
    let command = match url {
        Some(url) => Cmd::new(binary).arg(url),
        None => Cmd::new(binary).stdin(Input::Bytes(BODY.as_bytes().to_vec())),
    };
    let finished = command
        .deadline(Duration::from_secs(30))
        .run()
        .map_err(|error| error.to_string())?;
    let line = finished.stdout_text().trim().to_owned();
    if !finished.success() || !line.starts_with(probes::PAIR) {
        return Err(format!(
            "the probe failed ({}): {}{}",
            finished.status,
            finished.stderr_text().trim(),
            line
        ));
    }
    Ok(line)
}

/// A command's stdout, or its stderr's last lines when it fails.
pub(crate) fn stdout(command: &Cmd) -> Result<String, String> {
    let finished = command.run().map_err(|error| error.to_string())?;
    if finished.success() {
        Ok(finished.stdout_text())
    } else {
        Err(format!(
            "{}: {}",
            finished.status,
            tail(&finished.stderr_text(), 12)
        ))
    }
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_is_given_the_body_on_stdin() {
        // `cat` stands in for the probe with no client: it prints the body it is given, which
        // is no rate line.
        let error = run_probe(Path::new("/bin/cat"), None).unwrap_err();
        assert!(error.contains(BODY), "{error}");
    }

    #[test]
    fn a_binarys_shared_libraries_are_read() {
        if process::tool(Tool::Readelf).is_err() {
            return;
        }
        let libraries = needed(Path::new("/bin/sh")).unwrap();
        assert!(
            libraries
                .iter()
                .any(|library| library.starts_with("libc.so")),
            "{libraries:?}"
        );
    }
}
