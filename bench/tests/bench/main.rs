//! The bench binary end to end: tiny runs of each suite, the mock child process, baselines.

mod connections;
mod fanout;
mod faults;
mod load;
mod process;
mod runs;
mod upstream;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::Value;

/// The bench binary Cargo built for these tests.
/// The bench under test, told to measure itself although the test profile builds it without
/// optimisations (it would otherwise build and run the release one); the runs here check what
/// it does, not its figures.
pub fn bench() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_bench"));
    command.arg("--debug-build");
    command
}

/// A fresh, empty directory under Cargo's scratch space for integration tests.
pub fn scratch_dir(name: &str) -> PathBuf {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "bench-{name}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the bench with `args`, asserts success, and returns results.json.
pub fn run_ok(args: &[&str], out: &Path) -> Value {
    let output = bench().args(args).arg("--out").arg(out).output().unwrap();
    assert_success(&output);
    read_json(&out.join("results.json"))
}

pub fn assert_success(output: &Output) {
    assert!(
        output.status.success(),
        "bench failed ({}):\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

pub fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

pub fn positive(row: &Value, field: &str) -> f64 {
    let value = row[field]
        .as_f64()
        .unwrap_or_else(|| panic!("{field} is not a number in {row}"));
    assert!(value > 0.0, "{field} = {value} in {row}");
    value
}
