//! The adoption suite: what taking on each client costs before its first call. Per client and
//! TLS backend, a minimal probe (one GET of the rates and the same decode, `bench/probes/`) is
//! written into a scratch directory with the workspace's `Cargo.lock`, its tree read with
//! `cargo metadata`, built clean in release (`--offline`: every crate is the workspace's, so
//! already fetched), run against mock-rates, and its binary read; then the adapter's lines are
//! counted. The probe with no HTTP client is the base of the added size and crates.

pub(crate) mod build;
mod lines;
pub mod probes;
pub mod store;
pub(crate) mod tree;

use std::path::{Path, PathBuf};

use crate::error::BenchError;
use crate::servers::MockEndpoint;
use crate::suites::adapters;
use crate::suites::adoption::build::{Cargo, Scratch};
use crate::suites::adoption::probes::Probe;
use crate::suites::progress::progress_bar;
use crate::suites::shape::{Outcome, Suite, SuiteContext};
use bench_model::{
    AdoptionInputs, AdoptionResults, AdoptionRow, AdoptionSettings, ClientName,
    DependenciesResults, DependenciesSkipped, DependencyRow, Environment, NotRunWhy, Protocol,
    Results, Run, StoredFrom, SuiteName, SuitePart,
};

/// What the suite measured: the rows, and each client whose probe failed, with the error.
#[derive(Debug)]
pub struct Measured {
    pub results: AdoptionResults,
    pub failed: Vec<(ClientName, String)>,
}

/// The workspace this bench was built from: its `Cargo.lock` pins the probes' versions and
/// its `adapters/` are counted.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// After the suite ran: its figures stored for later runs on this machine (at
/// [`store::path`] under `target_dir`), when it measured every client of the run and the base;
/// `run` names the run's results directory.
///
/// # Errors
/// Why they were not stored.
pub fn store_measured(
    settings: &Run,
    environment: &Environment,
    results: &AdoptionResults,
    (target_dir, run): (&Path, &Path),
) -> Result<(), String> {
    // The adoption suite's clients, whether or not this run takes the suite.
    let clients = settings.plan().listed();
    if results.base.is_none() || clients.iter().any(|&client| results.row(client).is_none()) {
        return Err("not every probe was measured, so nothing was stored".to_owned());
    }
    let inputs = inputs_now(environment, &clients)?;
    let from = StoredFrom {
        measured_utc: environment.started_utc.clone(),
        run: run.display().to_string(),
    };
    store::save(&store::path(target_dir), inputs, from, results)
}

/// What the adoption figures of `clients` depend on now (store::inputs), from this
/// workspace's lock file and the cargo and rustc that build the probes.
fn inputs_now(environment: &Environment, clients: &[ClientName]) -> Result<AdoptionInputs, String> {
    let cargo = Cargo::find().map_err(|why| bench_report::report::reasons::toolchain(&why))?;
    store::inputs(
        &cargo,
        &workspace().join("Cargo.lock"),
        environment,
        clients,
    )
}

/// For a run that does not build the probes: the figures an earlier run on this machine
/// stored, when nothing they depend on changed and they cover the run's clients; `Ok(None)`
/// when none were stored.
///
/// # Errors
/// Why the stored figures cannot be used (an input changed, a client has no row).
pub fn stored(
    settings: &Run,
    environment: &Environment,
    target_dir: &Path,
) -> Result<Option<AdoptionResults>, String> {
    let file = store::path(target_dir);
    if !file.is_file() {
        return Ok(None);
    }
    let clients = settings.plan().listed();
    let inputs = inputs_now(environment, &clients)?;
    store::load(&file, &inputs, &clients)
}
/// The dependencies suite (see [`dependencies`]).
#[derive(Debug)]
pub struct Dependencies;

impl Suite for Dependencies {
    const NAME: SuiteName = SuiteName::Dependencies;
    type Rows = DependenciesResults;

    fn run(context: &SuiteContext<'_>) -> Result<Outcome<DependenciesResults>, BenchError> {
        Ok(Outcome::Ran(dependencies(context.settings)))
    }

    fn store(rows: DependenciesResults, results: &mut Results) -> Vec<(SuitePart, NotRunWhy)> {
        results.dependencies = rows;
        Vec::new()
    }
}

/// The adoption suite (see [`run`]).
#[derive(Debug)]
pub struct Adoption;

impl Suite for Adoption {
    const NAME: SuiteName = SuiteName::Adoption;
    type Rows = Measured;

    fn run(context: &SuiteContext<'_>) -> Result<Outcome<Measured>, BenchError> {
        self::run(context.settings, context.mock(Self::NAME)?)
    }

    fn store(rows: Measured, results: &mut Results) -> Vec<(SuitePart, NotRunWhy)> {
        results.adoption = rows.results;
        rows.failed
            .into_iter()
            .map(|(client, error)| (SuitePart::Probe { client }, NotRunWhy::Failed { error }))
            .collect()
    }
}

/// The dependencies suite: every client's probe tree (and the base's) read with `cargo
/// metadata`, nothing built. Without cargo or the workspace's sources it says why and reads
/// nothing; a client whose tree cannot be read is named and the others go on.
pub fn dependencies(settings: &Run) -> DependenciesResults {
    let skipped = |why: DependenciesSkipped| DependenciesResults {
        skipped: vec![why],
        ..DependenciesResults::default()
    };
    let lock = workspace().join("Cargo.lock");
    if !lock.is_file() {
        return skipped(DependenciesSkipped::NoLock {
            path: lock.display().to_string(),
        });
    }
    let cargo = match Cargo::find() {
        Ok(cargo) => cargo,
        Err(toolchain) => return skipped(DependenciesSkipped::Toolchain { toolchain }),
    };
    let scratch = match Scratch::new() {
        Ok(scratch) => scratch,
        Err(error) => {
            return skipped(DependenciesSkipped::Scratch {
                error: error.to_string(),
            });
        }
    };
    let clients = settings
        .plan()
        .clients(SuiteName::Dependencies, Protocol::Http);
    let bar = progress_bar(SuiteName::Dependencies, clients.len() as u64 + 1);
    let base = match scratch.tree(&cargo, &lock, &probes::BASE) {
        Ok(base) => base.crates,
        Err(error) => {
            bar.finish_and_clear();
            return skipped(DependenciesSkipped::Base { error });
        }
    };
    bar.inc(1);
    let mut results = DependenciesResults {
        base_crates: Some(base),
        ..DependenciesResults::default()
    };
    for &client in &clients {
        bar.set_message(client.as_str());
        match scratch.tree(&cargo, &lock, &probes::probe(client)) {
            Ok(tree) => results.rows.push(DependencyRow {
                client,
                crates: tree.crates,
                added_crates: i64::from(tree.crates) - i64::from(base),
            }),
            Err(error) => {
                eprintln!("bench: dependencies: {client}: {error}");
                results
                    .skipped
                    .push(DependenciesSkipped::Client { client, error });
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    results
}

/// Builds and reads every client's probe (the run's clients, every TLS backend), and the base.
/// It does not run at all without cargo, the workspace's sources, or a base probe that
/// builds: why is the error met.
pub fn run(settings: &Run, mock: &MockEndpoint) -> Result<Outcome<Measured>, BenchError> {
    let failed = |error: String| Ok(Outcome::NotRun(NotRunWhy::Failed { error }));
    let workspace = workspace();
    let lock = workspace.join("Cargo.lock");
    if !lock.is_file() {
        return failed(format!(
            "the workspace's Cargo.lock is not at {} (the probes are built from the sources \
             the bench was built from)",
            lock.display()
        ));
    }
    let cargo = match Cargo::find() {
        Ok(cargo) => cargo,
        Err(toolchain) => return Ok(Outcome::NotRun(NotRunWhy::Toolchain { toolchain })),
    };
    let url = format!(
        "{}/api/live?pairs={}",
        mock.base_url().trim_end_matches('/'),
        probes::PAIR
    );
    let clients: Vec<ClientName> = settings.plan().clients(SuiteName::Adoption, Protocol::Http);
    let bar = progress_bar(bench_model::SuiteName::Adoption, clients.len() as u64 + 1);
    let scratch = Scratch::new().map_err(|error| BenchError::Adoption(error.to_string()))?;
    bar.set_message("no client (the base)");
    // Without the base nothing can be counted over it: the suite is skipped, the run goes on.
    let base = match scratch.measure(&cargo, &lock, &probes::BASE, &url) {
        Ok(base) => base,
        Err(error) => {
            bar.finish_and_clear();
            return failed(format!("the probe with no HTTP client failed: {error}"));
        }
    };
    bar.inc(1);
    let mut rows = Vec::with_capacity(clients.len());
    let mut failures = Vec::new();
    for client in clients {
        bar.set_message(client.as_str());
        let probe = probes::probe(client);
        // A probe that does not build or run is the row's finding, not the end of the run.
        match scratch
            .measure(&cargo, &lock, &probe, &url)
            .and_then(|measured| row(client, &probe, measured, &base.build, &workspace))
        {
            Ok(row) => rows.push(row),
            Err(error) => {
                failures.push((client, error));
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(Outcome::Ran(Measured {
        results: AdoptionResults {
            settings: Some(AdoptionSettings {
                jobs: cargo.jobs,
                cargo: cargo.version.clone(),
            }),
            base: Some(base.build),
            rows,
            stored_from: None,
        },
        failed: failures,
    }))
}

fn row(
    client: ClientName,
    probe: &Probe,
    measured: build::Measured,
    base: &bench_model::ProbeBuild,
    workspace: &Path,
) -> Result<AdoptionRow, String> {
    let library_name = probe.library.unwrap_or_default();
    let library = tree::library(&measured.metadata, library_name, &measured.tree.names)?;
    let stack = adapters::tls_stack(client);
    let names = &measured.tree.names;
    let runtime = if names.contains("actix-rt") {
        "actix-rt (tokio)"
    } else if names.contains("tokio") {
        "tokio"
    } else {
        "none"
    };
    Ok(AdoptionRow {
        client,
        library: library_name.to_owned(),
        version: library.version,
        tls: format!("{} ({})", stack.backend, stack.provider),
        added_bytes: Some(
            i64::try_from(measured.build.binary_bytes).unwrap_or(i64::MAX)
                - i64::try_from(base.binary_bytes).unwrap_or(i64::MAX),
        ),
        added_crates: Some(i64::from(measured.build.crates) - i64::from(base.crates)),
        build: measured.build,
        builds_c: measured.tree.builds_c,
        cmake: measured.tree.cmake,
        pkg_config: measured.tree.pkg_config,
        system_libraries: measured.system_libraries,
        msrv: library.msrv,
        tree_msrv: measured.tree.highest_msrv,
        default_tls: library.default_tls,
        http2: library.http2,
        compression: library.compression,
        runtime: runtime.to_owned(),
        blocking: probe.blocking,
        adapter_lines: lines::adapter(workspace, client.library_default()),
    })
}
