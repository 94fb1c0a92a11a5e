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
