//! The releases suite: one client library across its own releases, measured the same way.
//! Each release of the catalogue is a probe of its own (`bench/probes/releases/`: one harness,
//! one source per major API), written into a scratch directory with a manifest pinning the
//! release and no lock file of anyone else's, resolved from the registry, fetched, and built
//! clean offline (so its build time has no download in it). Then, in rounds interleaved across
//! the releases in a new order each round, every probe runs its scenarios against mock-rates
//! of the suite's own (http; https offering only HTTP/1.1; TLS offering h2 first) and a
//! half-closing peer; callgrind counts its instructions per call. See `docs/suites.md`.

mod catalogue;
mod peer;
mod project;
mod scenarios;
mod upstreams;

use bench_model::{
    ClientName, Protocol, ReleaseRow, ReleasesResults, ReleasesSettings, ReleasesSkipped, Run,
    SuiteName,
};
use bench_report::report::reasons;

use crate::affinity::Pinned;
use crate::error::BenchError;
use crate::process::{self, Tool};
use crate::suites::adoption::build::Cargo;
use crate::suites::progress::progress_bar;
use crate::suites::shape::{Outcome, Suite, SuiteContext};
use crate::suites::shuffle::Shuffle;
use bench_model::{NotRunWhy, Results, SuitePart};

use catalogue::Release;
use upstreams::Upstreams;

/// The library a client row belongs to: `reqwest` for `reqwest-native-tls`.
fn library(client: ClientName) -> &'static str {
    let name = client.library_default().as_str();
    name.split('-').next().unwrap_or(name)
}

/// The suite's sizes: a quick run's smaller, the same shape.
fn sizes(quick: bool, cargo: &Cargo) -> ReleasesSettings {
    ReleasesSettings {
        rounds: if quick { 2 } else { 5 },
        calls: if quick { 50 } else { 300 },
        warmup: if quick { 10 } else { 30 },
        fresh_calls: if quick { 10 } else { 30 },
        concurrency: 100,
        large_bytes: 1 << 20,
        hold_ms: 1_000,
        instruction_calls: if quick {
            vec![20, 60, 100]
        } else {
            vec![50, 150, 250]
        },
        cargo: cargo.version.clone(),
        jobs: cargo.jobs,
        cpu: None,
    }
}
/// The releases suite (see the module's documentation).
#[derive(Debug)]
pub struct Releases;

impl Suite for Releases {
    const NAME: SuiteName = SuiteName::Releases;
    type Rows = ReleasesResults;

    fn run(context: &SuiteContext<'_>) -> Result<Outcome<ReleasesResults>, BenchError> {
        self::run(context.settings).map(Outcome::Ran)
    }

    fn store(rows: ReleasesResults, results: &mut Results) -> Vec<(SuitePart, NotRunWhy)> {
        results.releases = rows;
        Vec::new()
    }
}

/// Builds every release of the run's libraries (or those `--releases` names) and measures
/// them; a release that does not build or run is its row's finding, and the suite goes on.
pub fn run(settings: &Run) -> Result<ReleasesResults, BenchError> {
    let skipped = |why: ReleasesSkipped| {
        eprintln!(
            "bench: releases: skipped: {}",
            reasons::releases_skipped(&why)
        );
        Ok(ReleasesResults {
            skipped: Some(why),
            ..ReleasesResults::default()
        })
    };
    let clients = settings.plan().clients(SuiteName::Releases, Protocol::Http);
    let mut libraries: Vec<&str> = clients.iter().map(|&client| library(client)).collect();
    libraries.dedup();
    let releases = match catalogue::select(&libraries, &settings.releases) {
        Ok(releases) if releases.is_empty() => {
            return skipped(ReleasesSkipped::NoRelease);
        }
        Ok(releases) => releases,
        Err(why) => return skipped(why),
    };
    let cargo = match Cargo::find() {
        Ok(cargo) => cargo,
        Err(toolchain) => return skipped(ReleasesSkipped::Toolchain { toolchain }),
    };
    let suite_settings = ReleasesSettings {
        cpu: settings.latency_cpu,
        ..sizes(settings.quick, &cargo)
    };
    let scratch = match project::Scratch::new() {
        Ok(scratch) => scratch,
        Err(error) => {
            return skipped(ReleasesSkipped::Scratch {
                error: error.to_string(),
            });
        }
    };
    // Builds first, one at a time (each takes every CPU), then the measured rounds.
    let bar = progress_bar(SuiteName::Releases, releases.len() as u64);
    let mut built = Vec::with_capacity(releases.len());
    for release in &releases {
        bar.set_message(format!("building {}", release.key()));
        built.push(scratch.build(&cargo, release));
        bar.inc(1);
    }
    bar.finish_and_clear();

    // From here every probe and the mocks share one CPU, as in the latency suite (see
    // `crate::affinity`): the probes inherit this thread's CPU, and so do the hosted mocks'
    // threads, started below. Unpinned, a pooled call here was 13-17 us in one run and
    // 95-135 us in the next. The builds above ran on every CPU.
    let _pinned = match settings.latency_cpu.map(Pinned::to).transpose() {
        Ok(pinned) => pinned,
        Err(error) => {
            return skipped(ReleasesSkipped::Pin {
                cpu: settings.latency_cpu,
                error: error.to_string(),
            });
        }
    };
    let upstreams = match Upstreams::start(scratch.path()) {
        Ok(upstreams) => upstreams,
        Err(error) => return skipped(ReleasesSkipped::Upstreams { error }),
    };
    let measured = measure(
        &releases,
        &built,
        &upstreams,
        &suite_settings,
        scratch.path(),
    );

    let rows: Vec<ReleaseRow> = releases
        .iter()
        .zip(built)
        .zip(measured)
        .map(|((release, built), measured)| match built {
            Ok(probe) => probe.row(release, measured.figures()),
            Err(failure) => failure.row(release),
        })
        .collect();
    for row in &rows {
        if let Some(why) = &row.failed {
            eprintln!(
                "bench: releases: {}: {}",
                row.label(),
                reasons::release_failure(why)
            );
        }
    }
    Ok(ReleasesResults {
        settings: Some(suite_settings),
        rows,
        skipped: None,
    })
}

/// Every scenario of every release that built, in rounds interleaved across them in a new
/// order each round; then each one's instructions per call under callgrind.
fn measure(
    releases: &[Release],
    built: &[Result<project::Probe, project::Failure>],
    upstreams: &Upstreams,
    settings: &ReleasesSettings,
    scratch: &std::path::Path,
) -> Vec<scenarios::Measured> {
    let mut measured: Vec<scenarios::Measured> = built
        .iter()
        .map(|_| scenarios::Measured::default())
        .collect();
    let probes: Vec<(usize, &project::Probe)> = built
        .iter()
        .enumerate()
        .filter_map(|(index, built)| Some((index, built.as_ref().ok()?)))
        .collect();
    let rounds = settings.rounds as usize;
    let bar = progress_bar(SuiteName::Releases, (rounds * probes.len()) as u64);
    let mut shuffle = Shuffle::seeded();
    for round in 0..rounds {
        let mut order = probes.clone();
        shuffle.shuffle(&mut order);
        for (index, probe) in order {
            bar.set_message(format!(
                "round {} of {rounds}: {}",
                round + 1,
                releases[index].key()
            ));
            scenarios::round(probe, upstreams, settings, &mut measured[index]);
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    let valgrind = process::tool(Tool::Valgrind);
    for (index, probe) in probes {
        scenarios::instructions(
            probe,
            upstreams,
            settings,
            valgrind.as_ref(),
            scratch,
            &mut measured[index],
        );
    }
    measured
}
