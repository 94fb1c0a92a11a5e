//! The adoption suite's rows: what taking on each client costs before its first call, measured
//! from a minimal probe program built alone.

use serde::{Deserialize, Serialize};

use crate::ClientName;

/// How to run the suite, for a run that left it out.
pub const HOW_TO_RUN_ADOPTION: &str = "cargo run --release -p bench -- --suite adoption (or \
     --adoption beside the other suites)";

/// How the probes were built.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdoptionSettings {
    /// `cargo build -j`: the machine's logical CPUs.
    pub jobs: usize,
    /// `cargo -V` of the cargo that built them.
    pub cargo: String,
}

/// The suite's results: the probe with no HTTP client, and one row per client.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AdoptionResults {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<AdoptionSettings>,
    /// The same decode with no HTTP client: what the rows' added size and crates are over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<ProbeBuild>,
    #[serde(default)]
    pub rows: Vec<AdoptionRow>,
    /// When a run that did not build the probes took these figures from an earlier run on
    /// this machine whose inputs were the same: when, and which run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stored_from: Option<StoredFrom>,
}

/// An earlier run whose figures a later one used.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredFrom {
    /// When that run started (UTC, RFC 3339).
    pub measured_utc: String,
    /// Where it wrote its results.
    pub run: String,
}

/// What the adoption suite's figures depend on: a stored figure is used only when all of it
/// is the same now. The whole inputs are kept, not digests, so that a refusal can name what
/// changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdoptionInputs {
    /// The workspace's Cargo.lock, which pins every probe's versions.
    pub cargo_lock: String,
    /// `rustc -vV` and `cargo -V`.
    pub toolchain: String,
    /// Each probe's sources and manifest entries, the base's first.
    pub probes: Vec<String>,
    /// The machine: CPU model and logical cores (build times are its).
    pub machine: String,
}

impl AdoptionInputs {
    /// What differs between the inputs a figure was stored with and `now`'s: empty when the
    /// figure may be used.
    pub fn changed_since(&self, stored: &Self) -> Vec<&'static str> {
        let mut changed = Vec::new();
        if self.cargo_lock != stored.cargo_lock {
            changed.push("the lock file");
        }
        if self.toolchain != stored.toolchain {
            changed.push("the toolchain");
        }
        if self.probes != stored.probes {
            changed.push("the probes' sources");
        }
        if self.machine != stored.machine {
            changed.push("the machine");
        }
        changed
    }
}

/// The adoption figures of a run, stored on the machine for later runs, with what they depend
/// on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredAdoption {
    pub inputs: AdoptionInputs,
    pub from: StoredFrom,
    pub results: AdoptionResults,
}

impl StoredAdoption {
    /// The stored figures, for a run with `inputs` that lists `clients`, marked as taken from
    /// their run; or why they cannot be used: an input changed, or a client has no row.
    pub fn use_for(
        &self,
        inputs: &AdoptionInputs,
        clients: &[ClientName],
    ) -> Result<AdoptionResults, String> {
        let changed = inputs.changed_since(&self.inputs);
        if !changed.is_empty() {
            return Err(format!(
                "the adoption figures stored by the run of {} ({}) were not used: {} changed \
                 since",
                self.from.measured_utc,
                self.from.run,
                changed.join(", ")
            ));
        }
        let missing: Vec<&str> = clients
            .iter()
            .filter(|&&client| self.results.row(client).is_none())
            .map(|client| client.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "the adoption figures stored by the run of {} ({}) were not used: they have no \
                 row for {}",
                self.from.measured_utc,
                self.from.run,
                missing.join(", ")
            ));
        }
        let mut results = self.results.clone();
        results.rows.retain(|row| clients.contains(&row.client));
        results.stored_from = Some(self.from.clone());
        Ok(results)
    }
}

impl AdoptionResults {
    pub fn is_empty(&self) -> bool {
        self.settings.is_none() && self.base.is_none() && self.rows.is_empty()
    }

    /// `client`'s row, when it was measured.
    pub fn row(&self, client: ClientName) -> Option<&AdoptionRow> {
        self.rows.iter().find(|row| row.client == client)
    }
}

/// One probe's clean build and what it produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProbeBuild {
    /// Wall time of `cargo build --release` in an empty target directory.
    pub build_wall_s: f64,
    /// CPU time (user and system) of that build and every process it waited for.
    pub build_cpu_s: f64,
    /// The stripped release binary.
    pub binary_bytes: u64,
    /// Packages in its resolved dependency tree for this platform (normal and build
    /// dependencies, proc macros included), the probe itself not counted.
    pub crates: u32,
    /// What the probe printed when run: `EURUSD 1.17 threads=1 peak_rss_kib=2112`.
    pub output: String,
    /// Threads in the probe's process as its call ended (from /proc).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<u32>,
    /// The probe process's peak resident memory (VmHWM) as its call ended, in KiB: runtime,
    /// client, TLS set-up, one call and the decode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_kib: Option<u64>,
}

/// One client with one TLS backend.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AdoptionRow {
    pub client: ClientName,
    /// The crate the probe calls (`hyper-util` for hyper) and its resolved version.
    pub library: String,
    pub version: String,
    /// The TLS the probe was built with: `rustls (aws-lc-rs)`.
    pub tls: String,
    pub build: ProbeBuild,
    /// Bytes over the base probe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added_bytes: Option<i64>,
    /// Crates over the base probe's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added_crates: Option<i64>,
    /// Packages of the tree whose build script compiles C (a build dependency on `cc`).
    pub builds_c: Vec<String>,
    /// Packages with a build dependency on `cmake`.
    pub cmake: Vec<String>,
    /// Packages that look for a system library with `pkg-config`.
    pub pkg_config: Vec<String>,
    /// Shared libraries the binary needs beyond the C runtime's (its ELF `NEEDED` entries).
    pub system_libraries: Vec<String>,
    /// The library's declared `rust-version`, when it declares one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msrv: Option<String>,
    /// The highest `rust-version` declared anywhere in the tree, and by which package: the
    /// oldest compiler the whole probe can build with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree_msrv: Option<(String, String)>,
    /// The library's TLS with its default features: `rustls`, `native-tls`, or `none`.
    pub default_tls: String,
    /// Its features naming HTTP/2 (empty: it cannot speak it), with `(default)` after those
    /// on by default.
    pub http2: Vec<String>,
    /// Its features naming a compression (gzip, brotli, zstd, deflate), marked the same way.
    pub compression: Vec<String>,
    /// The async runtime in its tree: `tokio`, `actix-rt (tokio)`, or `none`.
    pub runtime: String,
    /// Whether its calls are `async` (else blocking), as the probe makes them.
    pub blocking: bool,
    /// Lines of code of its adapter in this repository (blank lines, comments and tests not
    /// counted); shared by a library's TLS backends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adapter_lines: Option<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs() -> AdoptionInputs {
        AdoptionInputs {
            cargo_lock: "version = 4\n".to_owned(),
            toolchain: "rustc 1.95.0\ncargo 1.95.0".to_owned(),
            probes: vec!["base".to_owned(), "ureq".to_owned()],
            machine: "a CPU, 2 logical cores".to_owned(),
        }
    }

    fn row(client: ClientName) -> AdoptionRow {
        AdoptionRow {
            client,
            library: client.as_str().to_owned(),
            version: "1".to_owned(),
            tls: "rustls".to_owned(),
            build: ProbeBuild {
                build_wall_s: 30.0,
                build_cpu_s: 50.0,
                binary_bytes: 3_000_000,
                crates: 60,
                output: "EURUSD 1.17".to_owned(),
                threads: None,
                peak_rss_kib: None,
            },
            added_bytes: None,
            added_crates: None,
            builds_c: Vec::new(),
            cmake: Vec::new(),
            pkg_config: Vec::new(),
            system_libraries: Vec::new(),
            msrv: None,
            tree_msrv: None,
            default_tls: "rustls".to_owned(),
            http2: Vec::new(),
            compression: Vec::new(),
            runtime: "none".to_owned(),
            blocking: true,
            adapter_lines: None,
        }
    }

    fn stored() -> StoredAdoption {
        StoredAdoption {
            inputs: inputs(),
            from: StoredFrom {
                measured_utc: "2026-12-05T10:00:00Z".to_owned(),
                run: "runs/adoption".to_owned(),
            },
            results: AdoptionResults {
                rows: vec![row(ClientName::Ureq), row(ClientName::Hyper)],
                ..AdoptionResults::default()
            },
        }
    }

    #[test]
    fn a_stored_figure_is_used_when_nothing_it_depends_on_changed() {
        let used = stored()
            .use_for(&inputs(), &[ClientName::Ureq])
            .expect("the same inputs");
        assert_eq!(used.rows.len(), 1, "only the run's clients");
        assert_eq!(used.stored_from, Some(stored().from));
    }

    #[test]
    fn a_stored_figure_is_refused_when_an_input_changed_and_says_which() {
        type Change = fn(&mut AdoptionInputs);
        let cases: [(&str, Change); 4] = [
            ("the lock file", |inputs| {
                inputs.cargo_lock.push_str("[[package]]\n");
            }),
            ("the toolchain", |inputs| {
                inputs.toolchain = "rustc 1.96.0".to_owned();
            }),
            ("the probes' sources", |inputs| {
                inputs.probes[1].push(' ');
            }),
            ("the machine", |inputs| {
                inputs.machine = "another CPU".to_owned();
            }),
        ];
        for (what, change) in cases {
            let mut now = inputs();
            change(&mut now);
            let refused = stored()
                .use_for(&now, &[ClientName::Ureq])
                .expect_err("an input changed");
            assert!(refused.contains(what), "{what}: {refused}");
            assert!(refused.contains("2026-12-05T10:00:00Z"), "{refused}");
        }
    }

    #[test]
    fn a_stored_figure_without_every_client_of_the_run_is_refused() {
        let refused = stored()
            .use_for(&inputs(), &[ClientName::Ureq, ClientName::Awc])
            .expect_err("awc has no row");
        assert!(refused.contains("no row for awc"), "{refused}");
    }
}
