//! The releases suite's probe: one client library at one release, measured the same way for
//! every release. `bench --suite releases` writes this file as `src/main.rs` of a scratch
//! project, the library's source (one per major API, beside this file) as `src/client.rs`, and
//! a manifest pinning the release; builds it clean; and runs it once per scenario and round
//! against the bench's mock-rates. Each run prints one line of JSON.
//!
//! `probe SCENARIO --url URL [--ca FILE] [--calls N] [--warmup N] [--concurrency N]
//! [--hold-ms N] [--expect-bytes N]`
//!
//! - `pooled`: one client, `--warmup` calls, then `--calls` calls one after another, each
//!   timed; the Rust heap's allocations counted over the timed calls (every thread).
//! - `fresh`: the same with a client whose pool keeps no idle connection (the library's
//!   documented setting), so that every call opens a connection (and over TLS shakes hands).
//! - `concurrent`: one client, one warm-up call, then `--concurrency` calls at once; the
//!   process's CPU time (user and system, every thread) over them.
//! - `half-close`: a POST whose body sends one chunk, is held open `--hold-ms`, then ends,
//!   to a peer that reads the request head and half-closes without answering; the process's
//!   CPU time over the call (a client that spins on the half-close burns the whole hold).
//!
//! Every answer is checked: status 200, and the body the rates (`EURUSD`) or, with
//! `--expect-bytes`, that many bytes. A call that fails is counted and its first error shown;
//! no figure is printed for a scenario with a failed call but the error.

mod client;

use std::alloc::{GlobalAlloc, Layout, System};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Counts the Rust heap's allocations (and reallocations) and their bytes, every thread.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static ALLOCATED_BYTES: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is forwarded to `System` unchanged; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        ALLOCATED_BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        ALLOCATED_BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        ALLOCATED_BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// One answer as the library gave it.
pub struct Answer {
    pub status: u16,
    /// `HTTP/1.1` or `HTTP/2`, as the library reports the answer's version.
    pub version: &'static str,
    pub body: Vec<u8>,
}

/// How a client is built.
pub struct Options {
    /// The mock's CA certificate (PEM), trusted beside what the library trusts by default.
    pub ca_pem: Option<Vec<u8>>,
    /// A bound on every call: a call past it is a failure, not a figure.
    pub timeout: Duration,
}

/// `n` calls of `call` at once, each on a thread of its own (how a blocking client makes
/// concurrent calls, sharing one client), each timed from its thread's start.
#[allow(dead_code)] // the blocking clients' sources call it; the async ones join futures
pub fn on_threads<F>(n: usize, call: F) -> Vec<Result<(Answer, Duration), String>>
where
    F: Fn() -> Result<Answer, String> + Sync,
{
    std::thread::scope(|scope| {
        let calls: Vec<_> = (0..n)
            .map(|_| {
                scope.spawn(|| {
                    let started = Instant::now();
                    call().map(|answer| (answer, started.elapsed()))
                })
            })
            .collect();
        calls
            .into_iter()
            .map(|call| {
                call.join()
                    .unwrap_or_else(|_| Err("the thread panicked".to_owned()))
            })
            .collect()
    })
}

/// A request body for the blocking clients' `half-close`: it yields one chunk, blocks for
/// `hold`, then yields a last chunk and ends (a client streams a `Read` of unknown length
/// chunked).
#[allow(dead_code)] // the blocking clients' sources send it; the async ones stream their own
pub struct HeldBody {
    hold: Duration,
    step: u8,
}

#[allow(dead_code)]
impl HeldBody {
    pub fn new(hold: Duration) -> Self {
        Self { hold, step: 0 }
    }
}

impl std::io::Read for HeldBody {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let chunk: &[u8] = match self.step {
            0 => b"first chunk.....",
            1 => {
                std::thread::sleep(self.hold);
                b"last chunk......"
            }
            _ => return Ok(0),
        };
        self.step += 1;
        let length = chunk.len().min(buf.len());
        buf[..length].copy_from_slice(&chunk[..length]);
        Ok(length)
    }
}

/// The pair the rates body must carry.
const PAIR: &str = "EURUSD";

struct Args {
    scenario: String,
    url: String,
    ca: Option<String>,
    calls: usize,
    warmup: usize,
    concurrency: usize,
    hold: Duration,
    expect_bytes: Option<usize>,
}

fn args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let scenario = args.next().ok_or("usage: probe SCENARIO --url URL [...]")?;
    let mut parsed = Args {
        scenario,
        url: String::new(),
        ca: None,
        calls: 200,
        warmup: 20,
        concurrency: 100,
        hold: Duration::from_millis(1_000),
        expect_bytes: None,
    };
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        let number = || {
            value
                .parse::<usize>()
                .map_err(|error| format!("{flag} {value}: {error}"))
        };
        match flag.as_str() {
            "--url" => parsed.url = value.clone(),
            "--ca" => parsed.ca = Some(value.clone()),
            "--calls" => parsed.calls = number()?,
            "--warmup" => parsed.warmup = number()?,
            "--concurrency" => parsed.concurrency = number()?,
            "--hold-ms" => parsed.hold = Duration::from_millis(number()? as u64),
            "--expect-bytes" => parsed.expect_bytes = Some(number()?),
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    if parsed.url.is_empty() {
        return Err("--url is required".to_owned());
    }
    Ok(parsed)
}

fn main() -> ExitCode {
    match run() {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            println!(
                "{}",
                serde_json::json!({ "error": error, "api": client::API })
            );
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<serde_json::Value, String> {
    let args = args()?;
    let ca_pem = args
        .ca
        .as_ref()
        .map(|path| std::fs::read(path).map_err(|error| format!("{path}: {error}")))
        .transpose()?;
    let options = Options {
        ca_pem,
        timeout: Duration::from_secs(60),
    };
    let check = |answer: &Answer| check(answer, args.expect_bytes);
    match args.scenario.as_str() {
        "pooled" | "fresh" => {
            let client = if args.scenario == "pooled" {
                client::Client::new(&options)?
            } else {
                client::Client::unpooled(&options)?
            };
            for _ in 0..args.warmup {
                check(&client.get(&args.url)?)?;
            }
            let mut times = Vec::with_capacity(args.calls);
            let mut version = "";
            // Only the calls are counted: the check's own decode is not the library's.
            let (mut allocated, mut allocated_size) = (0, 0);
            for _ in 0..args.calls {
                let (count, size) = (allocations(), allocated_bytes());
                let started = Instant::now();
                let answer = client.get(&args.url)?;
                times.push(started.elapsed());
                allocated += allocations() - count;
                allocated_size += allocated_bytes() - size;
                check(&answer)?;
                version = answer.version;
            }
            let calls = args.calls.max(1) as f64;
            let per_call = |total: u64| total as f64 / calls;
            Ok(serde_json::json!({
                "scenario": args.scenario,
                "api": client::API,
                "calls": args.calls,
                "version": version,
                "mean_ns": mean_ns(&times),
                "median_ns": quantile_ns(&mut times, 0.5),
                "p99_ns": quantile_ns(&mut times, 0.99),
                "allocations_per_call": per_call(allocated),
                "allocated_bytes_per_call": per_call(allocated_size),
            }))
        }
        "concurrent" => {
            let client = client::Client::new(&options)?;
            check(&client.get(&args.url)?)?;
            let cpu = cpu_time();
            let started = Instant::now();
            let answers = client.get_concurrently(&args.url, args.concurrency);
            let wall = started.elapsed();
            let cpu = cpu_time().saturating_sub(cpu);
            let mut times = Vec::with_capacity(answers.len());
            let mut version = "";
            let mut failed = 0_usize;
            let mut first_error = None;
            for answer in answers {
                match answer.and_then(|(answer, took)| check(&answer).map(|()| (answer, took))) {
                    Ok((answer, took)) => {
                        version = answer.version;
                        times.push(took);
                    }
                    Err(error) => {
                        failed += 1;
                        first_error.get_or_insert(error);
                    }
                }
            }
            if let Some(error) = first_error {
                return Err(format!(
                    "{failed} of {} concurrent calls failed; the first: {error}",
                    args.concurrency
                ));
            }
            Ok(serde_json::json!({
                "scenario": "concurrent",
                "api": client::API,
                "calls": args.concurrency,
                "version": version,
                "wall_ns": wall.as_nanos() as u64,
                "cpu_ns": cpu.as_nanos() as u64,
                "median_ns": quantile_ns(&mut times, 0.5),
                "max_ns": times.iter().max().map_or(0, |took| took.as_nanos() as u64),
            }))
        }
        "half-close" => {
            let client = client::Client::new(&options)?;
            let cpu = cpu_time();
            let started = Instant::now();
            let outcome = client.post_held_body(&args.url, args.hold);
            let wall = started.elapsed();
            let cpu = cpu_time().saturating_sub(cpu);
            let outcome = match outcome {
                Ok(answer) => format!("answered {} over {}", answer.status, answer.version),
                Err(error) if error.starts_with("not measured") => return Err(error),
                Err(error) => format!("failed: {error}"),
            };
            Ok(serde_json::json!({
                "scenario": "half-close",
                "api": client::API,
                "hold_ns": args.hold.as_nanos() as u64,
                "wall_ns": wall.as_nanos() as u64,
                "cpu_ns": cpu.as_nanos() as u64,
                "outcome": outcome,
            }))
        }
        other => Err(format!(
            "unknown scenario {other} (pooled, fresh, concurrent, half-close)"
        )),
    }
}

/// Status 200 and the body expected: `bytes` of it, or the rates with the pair.
fn check(answer: &Answer, bytes: Option<usize>) -> Result<(), String> {
    if answer.status != 200 {
        return Err(format!("status {}", answer.status));
    }
    match bytes {
        Some(bytes) if answer.body.len() != bytes => Err(format!(
            "{} bytes of body, {bytes} expected",
            answer.body.len()
        )),
        Some(_) => Ok(()),
        None => {
            let value: serde_json::Value = serde_json::from_slice(&answer.body)
                .map_err(|error| format!("the body is not JSON: {error}"))?;
            value["rates"][PAIR]["rate"]
                .as_f64()
                .filter(|rate| rate.is_finite() && *rate > 0.0)
                .map(|_| ())
                .ok_or_else(|| format!("the body has no rate for {PAIR}"))
        }
    }
}

fn allocations() -> u64 {
    ALLOCATIONS.load(Ordering::Relaxed)
}

fn allocated_bytes() -> u64 {
    ALLOCATED_BYTES.load(Ordering::Relaxed)
}

fn mean_ns(times: &[Duration]) -> f64 {
    if times.is_empty() {
        return 0.0;
    }
    times.iter().map(Duration::as_nanos).sum::<u128>() as f64 / times.len() as f64
}

fn quantile_ns(times: &mut [Duration], quantile: f64) -> u64 {
    if times.is_empty() {
        return 0;
    }
    times.sort_unstable();
    let index = ((times.len() - 1) as f64 * quantile).round() as usize;
    times[index].as_nanos() as u64
}

/// The process's CPU time so far, user and system, every thread.
fn cpu_time() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc_rusage::Rusage>::zeroed();
    // SAFETY: getrusage writes a `struct rusage` into the pointer it is given.
    let done = unsafe { libc_rusage::getrusage(0, usage.as_mut_ptr()) };
    if done != 0 {
        return Duration::ZERO;
    }
    // SAFETY: getrusage returned 0, so it wrote the struct.
    let usage = unsafe { usage.assume_init() };
    let of = |time: libc_rusage::Timeval| {
        Duration::from_secs(time.tv_sec as u64) + Duration::from_micros(time.tv_usec as u64)
    };
    of(usage.ru_utime) + of(usage.ru_stime)
}

/// `getrusage(2)` without the libc crate (Linux, 64-bit): the two times it starts with, and
/// room for the fourteen longs that follow.
mod libc_rusage {
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct Timeval {
        pub tv_sec: i64,
        pub tv_usec: i64,
    }

    #[repr(C)]
    pub struct Rusage {
        pub ru_utime: Timeval,
        pub ru_stime: Timeval,
        pub rest: [i64; 14],
    }

    unsafe extern "C" {
        pub fn getrusage(who: i32, usage: *mut Rusage) -> i32;
    }
}
