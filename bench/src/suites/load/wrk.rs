//! The generator checked against `wrk`: when `wrk` is on PATH, every level of the capacity
//! step of `/health/live` and of hyper's payments is run again by wrk right after it, against
//! the same service and at the same concurrency, so that the report can show whether the bench's own generator (which
//! also checks every response) keeps up with a tool that does nothing else.

use std::process::Command;
use std::time::Duration;

use crate::model::{CapacityLevel, GeneratorCheck};
use crate::servers::child::scratch_path;
use crate::suites::load::http::Target;

/// wrk's threads: one, as the generator's own figures were first checked against.
const WRK_THREADS: u32 = 1;

/// What one wrk run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct WrkRun {
    pub requests_per_second: f64,
    /// Answers that were not 2xx or 3xx, and socket errors of any kind.
    pub non_2xx: u64,
    pub socket_errors: u64,
}

/// Whether `wrk` can be run here.
pub fn available() -> bool {
    Command::new("wrk")
        .arg("--version")
        .output()
        .is_ok_and(|output| !output.stdout.is_empty() || !output.stderr.is_empty())
}

/// wrk against `target` at the concurrency of a capacity `level` just measured, for as long.
/// A wrk run that fails is said and left out.
pub fn check(target: &Target, level: &CapacityLevel, duration: Duration) -> Option<GeneratorCheck> {
    match run(target, level.concurrency, duration) {
        Ok(wrk) => Some(GeneratorCheck {
            scenario: target.scenario,
            concurrency: level.concurrency,
            bench_rps: level.rps,
            bench_failures: level.fail,
            wrk_rps: wrk.requests_per_second,
            ratio: if wrk.requests_per_second > 0.0 {
                level.rps / wrk.requests_per_second
            } else {
                0.0
            },
            wrk_non_2xx: wrk.non_2xx,
            wrk_socket_errors: wrk.socket_errors,
        }),
        Err(error) => {
            eprintln!(
                "bench: load: wrk against {} at concurrency {}: {error}",
                target.scenario, level.concurrency
            );
            None
        }
    }
}

/// How long wrk runs for a level of `duration`: whole seconds, at least one.
pub fn whole_seconds(duration: Duration) -> u64 {
    duration.as_secs_f64().ceil().max(1.0) as u64
}

/// Runs wrk against `target` with `concurrency` connections for about `duration` (whole
/// seconds, at least one: wrk counts no less).
pub fn run(target: &Target, concurrency: u32, duration: Duration) -> Result<WrkRun, String> {
    let seconds = whole_seconds(duration);
    let mut command = Command::new("wrk");
    command
        .arg(format!("-t{WRK_THREADS}"))
        .arg(format!("-c{}", concurrency.max(WRK_THREADS)))
        .arg(format!("-d{seconds}s"))
        .arg("--timeout")
        .arg("5s");
    let script = target.wrk_script();
    let script_path = script.as_ref().map(|script| {
        let path = scratch_path("wrk", "lua");
        std::fs::write(&path, script).map(|()| path)
    });
    let script_path = script_path
        .transpose()
        .map_err(|error| format!("cannot write wrk's script: {error}"))?;
    if let Some(path) = &script_path {
        command.arg("-s").arg(path);
    }
    command.arg(target.url());
    let output = command.output();
    if let Some(path) = &script_path {
        let _ = std::fs::remove_file(path);
    }
    let output = output.map_err(|error| format!("cannot run wrk: {error}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "wrk exited with {}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    parse(&stdout).ok_or_else(|| format!("wrk printed no Requests/sec line: {stdout}"))
}

/// wrk's summary: `Requests/sec:`, `Non-2xx or 3xx responses:` and `Socket errors:`.
pub fn parse(stdout: &str) -> Option<WrkRun> {
    let field = |name: &str| {
        stdout
            .lines()
            .find_map(|line| line.trim().strip_prefix(name).map(str::trim))
    };
    let requests_per_second = field("Requests/sec:")?.parse().ok()?;
    let non_2xx = field("Non-2xx or 3xx responses:").map_or(Some(0), |value| value.parse().ok())?;
    let socket_errors = field("Socket errors:").map_or(0, |value| {
        value
            .split(',')
            .filter_map(|part| part.split_whitespace().last()?.parse::<u64>().ok())
            .sum()
    });
    Some(WrkRun {
        requests_per_second,
        non_2xx,
        socket_errors,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_wrks_summary() {
        let stdout = "Running 2s test @ http://127.0.0.1:8080/health/live\n  1 threads and 16 \
                      connections\n  Thread Stats   Avg      Stdev     Max   +/- Stdev\n    \
                      Latency   200.00us  100.00us   2.00ms   90.00%\n  150000 requests in \
                      2.00s, 20.00MB read\n  Socket errors: connect 0, read 2, write 0, timeout \
                      1\n  Non-2xx or 3xx responses: 7\nRequests/sec:  74123.45\nTransfer/sec:     \
                      10.00MB\n";
        assert_eq!(
            parse(stdout),
            Some(WrkRun {
                requests_per_second: 74_123.45,
                non_2xx: 7,
                socket_errors: 3,
            })
        );
        let clean = "Requests/sec:  52000.00\n";
        assert_eq!(
            parse(clean),
            Some(WrkRun {
                requests_per_second: 52_000.0,
                non_2xx: 0,
                socket_errors: 0,
            })
        );
        assert_eq!(parse("nothing"), None);
    }
}
