//! The suite's generator against wrk, before the capacities, over http: each drives the service
//! in a closed loop (every connection sends its next request when its last is answered) with
//! the same connections and threads for the same time, on `GET /health/live` and on one
//! payment (the first client's, the same payment every time, as wrk sends one request). What
//! rate each drove, and the CPU each took per request beside the service's: the capacity the
//! open model finds is the machine's, shared by the service, mock-rates and the generator, so
//! the generator's cost per request is part of every capacity figure.
//!
//! wrk counts every 2xx or 3xx answer as done and reads no body; the bench reads and checks
//! every body. Without wrk on the machine its rows say so.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tempfile::NamedTempFile;
use tokio::runtime::Runtime;

use crate::measure::own::CpuTime;
use crate::measure::process::ProcessCpu;
use crate::process::{self, Cmd, Missing, MissingCause, Tool, scratch};
use crate::suites::load::http::{self, LoadClient, ReadyScenario};
use bench_model::{GeneratorNotMeasured, GeneratorRow};

/// Connections each tool keeps busy.
pub const CONNECTIONS: u32 = 16;
/// How long each tool drives the service.
pub const DURATION: Duration = Duration::from_secs(2);

/// The bench's generator, then wrk, on each of `targets`, the service (whose CPU clock is
/// `service`) let go idle (`settle`) before each.
pub fn run(
    runtime: &Runtime,
    client: &Arc<LoadClient>,
    targets: &[Arc<ReadyScenario>],
    threads: u32,
    service: Option<&ProcessCpu>,
    settle: &dyn Fn(),
) -> Vec<GeneratorRow> {
    let mut rows = Vec::new();
    for target in targets {
        settle();
        rows.push(bench_row(runtime, client, target, threads, service));
        settle();
        rows.push(wrk_row(target, threads, service));
    }
    rows
}

/// The suite's generator in a closed loop.
fn bench_row(
    runtime: &Runtime,
    client: &Arc<LoadClient>,
    target: &Arc<ReadyScenario>,
    threads: u32,
    service: Option<&ProcessCpu>,
) -> GeneratorRow {
    let service_before = service.and_then(ProcessCpu::nanos);
    let cpu_before = CpuTime::now();
    let started = Instant::now();
    let (ok, failed) = runtime.block_on(closed_loop(client, target, CONNECTIONS, DURATION));
    let duration = started.elapsed();
    let tool_cpu_s = CpuTime::now()
        .zip(cpu_before)
        .map(|(after, before)| after.since(before).total().as_secs_f64());
    GeneratorRow {
        scenario: target.scenario,
        tool: "bench".to_owned(),
        connections: CONNECTIONS,
        threads,
        duration_s: duration.as_secs_f64(),
        ok,
        failed,
        tool_cpu_s,
        service_cpu_s: seconds_since(service, service_before),
        not_measured: None,
    }
}

/// `connections` tasks, each sending request 0 of `target` again as soon as its last is
/// answered, until `duration` has passed; (answered as expected, the others).
async fn closed_loop(
    client: &Arc<LoadClient>,
    target: &Arc<ReadyScenario>,
    connections: u32,
    duration: Duration,
) -> (u64, u64) {
    let deadline = tokio::time::Instant::now() + duration;
    let failed = Arc::new(AtomicU64::new(0));
    let tasks: Vec<_> = (0..connections)
        .map(|_| {
            let client = Arc::clone(client);
            let target = Arc::clone(target);
            let failed = Arc::clone(&failed);
            tokio::spawn(async move {
                let mut ok = 0_u64;
                while tokio::time::Instant::now() < deadline {
                    // The same request every time, as wrk sends: the mix's first payment.
                    match http::exchange(&client, &target, 0).await.failure {
                        None => ok += 1,
                        Some(_) => {
                            failed.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                ok
            })
        })
        .collect();
    let mut ok = 0;
    for task in tasks {
        match task.await {
            Ok(answered) => ok += answered,
            Err(_) => {
                failed.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    (ok, failed.load(Ordering::Relaxed))
}

/// wrk with the same connections, threads and time.
fn wrk_row(target: &ReadyScenario, threads: u32, service: Option<&ProcessCpu>) -> GeneratorRow {
    let row = |not_measured: Option<GeneratorNotMeasured>| GeneratorRow {
        scenario: target.scenario,
        tool: "wrk".to_owned(),
        connections: CONNECTIONS,
        threads,
        duration_s: 0.0,
        ok: 0,
        failed: 0,
        tool_cpu_s: None,
        service_cpu_s: None,
        not_measured,
    };
    let (url, body) = target.url_and_body(0);
    let script = match body.map(|body| Script::write(target.scenario.method(), body)) {
        Some(Ok(script)) => Some(script),
        Some(Err(error)) => return row(Some(GeneratorNotMeasured::Script { error })),
        None => None,
    };
    let wrk = match process::tool(Tool::Wrk) {
        Ok(wrk) => wrk,
        Err(Missing {
            cause: MissingCause::NotInstalled,
            ..
        }) => return row(Some(GeneratorNotMeasured::NotInstalled)),
        Err(missing) => {
            return row(Some(GeneratorNotMeasured::WrkNotRun {
                error: missing.to_string(),
            }));
        }
    };
    let mut command = Cmd::new(&wrk.path)
        .arg(format!("--threads={threads}"))
        .arg(format!("--connections={CONNECTIONS}"))
        .arg(format!("--duration={}s", DURATION.as_secs()))
        .arg("--timeout=5s");
    if let Some(script) = &script {
        command = command.arg(format!("--script={}", script.file.path().display()));
    }
    command = command.arg(&url);
    let service_before = service.and_then(ProcessCpu::nanos);
    let children_before = CpuTime::children();
    let output = match command.run() {
        Ok(output) => output,
        Err(error) => {
            return row(Some(GeneratorNotMeasured::WrkNotRun {
                error: error.to_string(),
            }));
        }
    };
    let tool_cpu_s = CpuTime::children()
        .zip(children_before)
        .map(|(after, before)| after.since(before).total().as_secs_f64());
    let service_cpu_s = seconds_since(service, service_before);
    let stdout = output.stdout_text();
    if !output.success() {
        return row(Some(GeneratorNotMeasured::WrkFailed {
            status: output.status.to_string(),
            stderr: crate::suites::cost::tail(&output.stderr_text(), 300).to_owned(),
        }));
    }
    match parse_wrk(&stdout) {
        Some(counts) => GeneratorRow {
            duration_s: counts.seconds,
            ok: counts.requests.saturating_sub(counts.failed),
            failed: counts.failed,
            tool_cpu_s,
            service_cpu_s,
            ..row(None)
        },
        None => row(Some(GeneratorNotMeasured::WrkOutput {
            output: crate::suites::cost::tail(&stdout, 300).to_owned(),
        })),
    }
}

/// What a process's CPU clock moved since `before`, in seconds.
fn seconds_since(clock: Option<&ProcessCpu>, before: Option<u64>) -> Option<f64> {
    let after = clock.and_then(ProcessCpu::nanos)?;
    Some(after.saturating_sub(before?) as f64 / 1e9)
}

/// wrk's totals: requests completed, over how long, and how many of them were not a 2xx or
/// 3xx or met a socket error.
#[derive(Debug, PartialEq)]
struct WrkCounts {
    requests: u64,
    seconds: f64,
    failed: u64,
}

/// Reads `N requests in 2.00s, 1.2MB read`, `Non-2xx or 3xx responses: K` and `Socket errors:
/// connect A, read B, write C, timeout D` from wrk's output.
fn parse_wrk(stdout: &str) -> Option<WrkCounts> {
    let mut requests = None;
    let mut seconds = None;
    let mut failed = 0;
    for line in stdout.lines().map(str::trim) {
        if let Some((count, rest)) = line.split_once(" requests in ") {
            requests = count.trim().parse().ok();
            seconds = duration_seconds(rest.split(',').next()?.trim());
        } else if let Some(count) = line.strip_prefix("Non-2xx or 3xx responses:") {
            failed += count.trim().parse::<u64>().ok()?;
        } else if let Some(errors) = line.strip_prefix("Socket errors:") {
            for part in errors.split(',') {
                failed += part.split_whitespace().last()?.parse::<u64>().ok()?;
            }
        }
    }
    Some(WrkCounts {
        requests: requests?,
        seconds: seconds?,
        failed,
    })
}

/// wrk's durations: `2.00s`, `1.50m`, `800.00ms`, `20.00us`.
fn duration_seconds(text: &str) -> Option<f64> {
    let split = text.find(|c: char| c.is_ascii_alphabetic())?;
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let scale = match unit {
        "us" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        "m" => 60.0,
        "h" => 3_600.0,
        _ => return None,
    };
    Some(number * scale)
}

/// wrk's Lua script for a request with a body, removed when dropped.
#[derive(Debug)]
struct Script {
    file: NamedTempFile,
}

impl Script {
    fn write(method: &str, body: &[u8]) -> Result<Self, String> {
        let body = std::str::from_utf8(body).map_err(|error| error.to_string())?;
        let text = format!(
            "wrk.method = {}\nwrk.body = {}\nwrk.headers[\"Content-Type\"] = \
             \"application/json\"\n",
            lua_string(method),
            lua_string(body)
        );
        let file = scratch::temp_file_with("wrk", "lua", text.as_bytes())
            .map_err(|error| format!("wrk's script: {error}"))?;
        Ok(Self { file })
    }
}

/// `text` as a Lua string literal.
fn lua_string(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for character in text.chars() {
        match character {
            '"' | '\\' => {
                quoted.push('\\');
                quoted.push(character);
            }
            '\n' => quoted.push_str("\\n"),
            other => quoted.push(other),
        }
    }
    quoted.push('"');
    quoted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_wrks_totals() {
        let output = "Running 2s test @ http://127.0.0.1:8080/health/live
  2 threads and 16 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   310.12us  120.00us   4.00ms   90.00%
    Req/Sec    25.10k     1.20k   27.00k    70.00%
  100200 requests in 2.00s, 12.23MB read
  Non-2xx or 3xx responses: 12
  Socket errors: connect 0, read 3, write 0, timeout 1
Requests/sec:  50100.00
Transfer/sec:      6.11MB
";
        assert_eq!(
            parse_wrk(output),
            Some(WrkCounts {
                requests: 100_200,
                seconds: 2.0,
                failed: 16,
            })
        );
        assert_eq!(
            parse_wrk("  800 requests in 1.50m, 1MB read\n").map(|counts| counts.seconds),
            Some(90.0)
        );
        assert_eq!(parse_wrk("wrk: command not understood\n"), None);
        assert_eq!(duration_seconds("800.00ms"), Some(0.8));
        assert_eq!(duration_seconds("2.00"), None);
    }

    #[test]
    fn a_body_is_quoted_for_lua() {
        assert_eq!(lua_string(r#"{"a":"b\c"}"#), r#""{\"a\":\"b\\c\"}""#);
        let script = Script::write("POST", br#"{"amount":"100.00"}"#).unwrap();
        let text = std::fs::read_to_string(script.file.path()).unwrap();
        assert!(
            text.contains(r#"wrk.body = "{\"amount\":\"100.00\"}""#),
            "{text}"
        );
        assert!(text.contains(r#"wrk.method = "POST""#), "{text}");
        let path = script.file.path().to_owned();
        drop(script);
        assert!(!path.exists(), "removed when dropped");
    }
}
