//! One release's probe project: written, resolved from the registry, fetched, built clean
//! offline, its binary kept for the measured rounds and its build removed.

use std::path::{Path, PathBuf};

use cargo_metadata::Metadata;
use tempfile::TempDir;

use super::catalogue::{HARNESS, Release, STACK};
use crate::process::scratch;
use crate::suites::adoption::build::{Cargo, Network, clean_build, read_tree_of, stdout};
use bench_model::{ReleaseBuild, ReleaseFailure, ReleaseFigure, ReleaseRow, ResolvedCrate};

/// The suite's scratch directory, removed when dropped.
#[derive(Debug)]
pub struct Scratch {
    root: TempDir,
}

/// A release built: its binary, and what it resolved to.
#[derive(Debug)]
pub struct Probe {
    pub binary: PathBuf,
    pub stack: Vec<ResolvedCrate>,
    pub build: ReleaseBuild,
    /// What its source calls through (its `API` line).
    pub api: String,
}

/// A release that did not build, with what it resolved to when it got that far.
#[derive(Debug)]
pub struct Failure {
    pub why: ReleaseFailure,
    pub stack: Vec<ResolvedCrate>,
}

impl Scratch {
    pub fn new() -> std::io::Result<Self> {
        let root = scratch::temp_dir("releases")?;
        std::fs::create_dir_all(root.path().join("bin"))?;
        Ok(Self { root })
    }

    pub fn path(&self) -> &Path {
        self.root.path()
    }

    /// Writes `release`'s project, resolves and fetches it, builds it clean, and keeps its
    /// binary; its target directory is removed either way.
    pub fn build(&self, cargo: &Cargo, release: &Release) -> Result<Probe, Failure> {
        let dir = self.path().join(release.dir_name());
        let built = self.build_in(cargo, release, &dir);
        let _ = std::fs::remove_dir_all(dir.join("target"));
        built
    }

    fn build_in(&self, cargo: &Cargo, release: &Release, dir: &Path) -> Result<Probe, Failure> {
        let failed = |why: ReleaseFailure, stack: &[ResolvedCrate]| Failure {
            why,
            stack: stack.to_vec(),
        };
        write(dir, release).map_err(|error| {
            let error = error.to_string();
            failed(ReleaseFailure::Write { error }, &[])
        })?;
        let (tree, metadata) = read_tree_of(cargo, dir, Network::Registry)
            .map_err(|error| failed(ReleaseFailure::Resolve { error }, &[]))?;
        let stack = stack(&metadata, release.library);
        let resolved = stack
            .iter()
            .find(|krate| krate.name == release.library)
            .map(|krate| krate.version.as_str());
        if resolved != Some(release.version) {
            let why = ReleaseFailure::ResolvedOther {
                resolved: resolved.map(str::to_owned),
                pinned: release.version.to_owned(),
            };
            return Err(failed(why, &stack));
        }
        fetch(cargo, dir).map_err(|error| failed(ReleaseFailure::Fetch { error }, &stack))?;
        let (build_wall_s, build_cpu_s) = clean_build(cargo, dir, Network::Offline)
            .map_err(|error| failed(ReleaseFailure::Build { error }, &stack))?;
        let built = dir.join("target/release/probe");
        let binary = self.path().join("bin").join(release.dir_name());
        let unreadable = |path: &Path, error: std::io::Error| ReleaseFailure::Binary {
            path: path.display().to_string(),
            error: error.to_string(),
        };
        std::fs::copy(&built, &binary)
            .map_err(|error| failed(unreadable(&built, error), &stack))?;
        let binary_bytes = std::fs::metadata(&binary)
            .map_err(|error| failed(unreadable(&binary, error), &stack))?
            .len();
        Ok(Probe {
            binary,
            stack,
            build: ReleaseBuild {
                build_wall_s,
                build_cpu_s,
                binary_bytes,
                crates: tree.crates,
            },
            api: api_of(release.source),
        })
    }
}

impl Probe {
    pub fn row(self, release: &Release, figures: Vec<ReleaseFigure>) -> ReleaseRow {
        ReleaseRow {
            library: release.library.to_owned(),
            release: release.version.to_owned(),
            api: self.api,
            tls: release.tls.to_owned(),
            why: release.why.map(str::to_owned),
            stack: self.stack,
            build: Some(self.build),
            failed: None,
            figures,
        }
    }
}

impl Failure {
    pub fn row(self, release: &Release) -> ReleaseRow {
        ReleaseRow {
            library: release.library.to_owned(),
            release: release.version.to_owned(),
            api: api_of(release.source),
            tls: release.tls.to_owned(),
            why: release.why.map(str::to_owned),
            stack: self.stack,
            build: None,
            failed: Some(self.why),
            figures: Vec::new(),
        }
    }
}

fn write(dir: &Path, release: &Release) -> std::io::Result<()> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.join("src"))?;
    std::fs::write(dir.join("Cargo.toml"), release.manifest())?;
    std::fs::write(dir.join("src/main.rs"), HARNESS)?;
    std::fs::write(dir.join("src/client.rs"), release.source)
}

/// `cargo fetch`: every crate the lock file names downloaded before the timed build.
fn fetch(cargo: &Cargo, dir: &Path) -> Result<(), String> {
    stdout(&cargo.command(dir, &["fetch"])).map(|_| ())
}

/// The versions resolved for this platform of the library and of [`STACK`]'s crates, each
/// name once (several versions of one crate joined: `0.3.27, 0.4.12`).
fn stack(metadata: &Metadata, library: &str) -> Vec<ResolvedCrate> {
    let Some(resolve) = &metadata.resolve else {
        return Vec::new();
    };
    let mut stack: Vec<ResolvedCrate> = Vec::new();
    let names = std::iter::once(library).chain(STACK.iter().copied());
    for name in names {
        let mut versions: Vec<String> = resolve
            .nodes
            .iter()
            .filter_map(|node| {
                metadata
                    .packages
                    .iter()
                    .find(|package| package.id == node.id)
            })
            .filter(|package| package.name.as_str() == name)
            .map(|package| package.version.to_string())
            .collect();
        versions.sort_by(|a, b| bench_model::compare_versions(a, b));
        versions.dedup();
        if !versions.is_empty() && !stack.iter().any(|krate| krate.name == name) {
            stack.push(ResolvedCrate {
                name: name.to_owned(),
                version: versions.join(", "),
            });
        }
    }
    stack
}

/// A probe source's `pub const API: &str = "...";`.
fn api_of(source: &str) -> String {
    source
        .split_once("pub const API: &str = \"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map_or_else(String::new, |(api, _)| api.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_line_is_read_from_the_source() {
        assert_eq!(
            api_of("//! doc\npub const API: &str = \"ureq 3 Agent\";\n"),
            "ureq 3 Agent"
        );
        assert_eq!(api_of("no line"), "");
    }
}
