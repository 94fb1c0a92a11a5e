//! Records, at build time, what the report header needs and cannot learn at run time:
//! the compiler's version, the build profile and the versions of the compared crates as
//! resolved in the workspace's Cargo.lock.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;
use std::process::Command;

/// The crates whose resolved versions the header shows (those in the lock file).
const REPORTED_CRATES: &[&str] = &[
    "awc",
    "reqwest",
    "ureq",
    "isahc",
    "curl-sys",
    "hyper",
    "hyper-util",
    "actix-web",
    "actix-rt",
    "tokio",
    "serde_json",
    // The TLS libraries and crypto providers the clients can use.
    "rustls",
    "hyper-rustls",
    "aws-lc-rs",
    "ring",
    "native-tls",
    "openssl",
];

fn main() {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let rustc_version = Command::new(&rustc)
        .arg("-V")
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map_or_else(
            || "unknown".to_owned(),
            |output| String::from_utf8_lossy(&output.stdout).trim().to_owned(),
        );
    println!("cargo:rustc-env=BENCH_RUSTC_VERSION={rustc_version}");

    let profile = env::var("PROFILE").unwrap_or_else(|_| "unknown".to_owned());
    let opt_level = env::var("OPT_LEVEL").unwrap_or_else(|_| "?".to_owned());
    let debug = env::var("DEBUG").unwrap_or_else(|_| "?".to_owned());
    println!(
        "cargo:rustc-env=BENCH_BUILD_PROFILE={profile} (opt-level={opt_level}, debug={debug})"
    );
    let target = env::var("TARGET").unwrap_or_else(|_| "unknown".to_owned());
    println!("cargo:rustc-env=BENCH_TARGET={target}");

    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let lock_path = manifest_dir.join("..").join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock_path.display());
    println!("cargo:rerun-if-changed=build.rs");
    let lock = fs::read_to_string(&lock_path).unwrap_or_default();
    println!(
        "cargo:rustc-env=BENCH_CRATE_VERSIONS={}",
        crate_versions(&lock)
    );
}

/// `name=v1,v2;name=v` for every reported crate found in the lock file, in the listed order.
fn crate_versions(lock: &str) -> String {
    let packages = lock_packages(lock);
    let mut out = String::new();
    for name in REPORTED_CRATES {
        let versions: Vec<&str> = packages
            .iter()
            .filter(|(package, _)| package == name)
            .map(|(_, version)| version.as_str())
            .collect();
        if versions.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(';');
        }
        let _ = write!(out, "{name}={}", versions.join(","));
    }
    out
}

/// The `(name, version)` of every `[[package]]` entry; enough TOML for Cargo.lock's fixed layout.
fn lock_packages(lock: &str) -> Vec<(String, String)> {
    let mut packages = Vec::new();
    let mut name: Option<String> = None;
    for line in lock.lines() {
        let line = line.trim();
        if line == "[[package]]" {
            name = None;
        } else if let Some(value) = string_value(line, "name") {
            name = Some(value);
        } else if let Some(value) = string_value(line, "version")
            && let Some(package) = name.take()
        {
            packages.push((package, value));
        }
    }
    packages
}

fn string_value(line: &str, key: &str) -> Option<String> {
    let rest = line
        .strip_prefix(key)?
        .trim_start()
        .strip_prefix('=')?
        .trim();
    Some(rest.strip_prefix('"')?.strip_suffix('"')?.to_owned())
}
