//! The adoption figures kept on this machine for later runs. A run that builds the probes
//! stores what it measured beside what the figures depend on (the lock file, the toolchain,
//! the probes' sources, the machine); a run that does not build them uses the stored figures
//! when all of that is the same now, says when and by which run they were measured, and
//! otherwise says which input changed and leaves the figures out.

use std::path::{Path, PathBuf};

use crate::suites::adoption::build::Cargo;
use crate::suites::adoption::probes::{self, COMMON, ROOTS};
use bench_model::{
    AdoptionInputs, AdoptionResults, ClientName, Environment, StoredAdoption, StoredFrom,
};

/// The file under Cargo's target directory (`target_dir`) that holds the stored figures.
pub fn path(target_dir: &Path) -> PathBuf {
    target_dir
        .join("bench-results")
        .join("stored")
        .join("adoption.json")
}

/// What the figures of `clients` depend on now.
pub fn inputs(
    cargo: &Cargo,
    lock: &Path,
    environment: &Environment,
    clients: &[ClientName],
) -> Result<AdoptionInputs, String> {
    let cargo_lock = std::fs::read_to_string(lock)
        .map_err(|error| format!("{} cannot be read: {error}", lock.display()))?;
    let probe_text = |probe: &probes::Probe| format!("{probe:?}");
    let mut probes = vec![
        probe_text(&probes::BASE),
        COMMON.to_owned(),
        ROOTS.to_owned(),
    ];
    probes.extend(
        clients
            .iter()
            .map(|&client| probe_text(&probes::probe(client))),
    );
    Ok(AdoptionInputs {
        cargo_lock,
        toolchain: format!("{}\n{}", cargo.rustc_verbose, cargo.version),
        probes,
        machine: format!(
            "{}, {} logical cores",
            environment.cpu_model, environment.logical_cores
        ),
    })
}

/// Stores a run's figures at `file`, with their inputs and the run that measured them.
pub fn save(
    file: &Path,
    inputs: AdoptionInputs,
    from: StoredFrom,
    results: &AdoptionResults,
) -> Result<(), String> {
    let stored = StoredAdoption {
        inputs,
        from,
        results: AdoptionResults {
            stored_from: None,
            ..results.clone()
        },
    };
    let json = serde_json::to_string(&stored).map_err(|error| error.to_string())?;
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|error| format!("{}: {error}", dir.display()))?;
    }
    std::fs::write(file, json).map_err(|error| format!("{}: {error}", file.display()))
}

/// The figures stored at `file` for a run with `inputs` and `clients`: `Ok(None)` when none
/// were stored; an error that says why when they cannot be used.
pub fn load(
    file: &Path,
    inputs: &AdoptionInputs,
    clients: &[ClientName],
) -> Result<Option<AdoptionResults>, String> {
    let json = match std::fs::read_to_string(file) {
        Ok(json) => json,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(format!("{}: {error}", file.display())),
    };
    let stored: StoredAdoption = serde_json::from_str(&json).map_err(|error| {
        format!(
            "the stored adoption figures ({}) cannot be read: {error}",
            file.display()
        )
    })?;
    stored.use_for(inputs, clients).map(Some)
}
