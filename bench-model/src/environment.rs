//! Where and with what a run was taken.

use serde::{Deserialize, Serialize};

/// The machine, OS, compiler and crate versions of a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Environment {
    pub bench_version: String,
    /// When the run started, UTC, RFC 3339.
    pub started_utc: String,
    /// The distribution's PRETTY_NAME from /etc/os-release.
    pub os: String,
    /// Kernel name, release and machine, as `uname -srm` prints them.
    pub kernel: String,
    pub cpu_model: String,
    pub logical_cores: usize,
    /// Distinct (physical id, core id) pairs in /proc/cpuinfo, when it lists them.
    pub physical_cores: Option<usize>,
    /// /proc/loadavg's 1, 5 and 15 minute figures when the run started: other work on the
    /// machine shows up as noise (wide Error, bimodal samples).
    pub load_average: Option<String>,
    pub rustc: String,
    pub build_profile: String,
    pub target: String,
    /// Resolved versions of the compared crates, from the workspace's Cargo.lock.
    pub crates: Vec<CrateVersion>,
    /// The C TLS libraries as they report themselves at run time: the system's OpenSSL (under
    /// awc-openssl and the native-tls backends) and the libcurl isahc runs on, with its TLS
    /// (rustls, through rustls-ffi).
    #[serde(default)]
    pub tls_libraries: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrateVersion {
    pub name: String,
    pub version: String,
}
