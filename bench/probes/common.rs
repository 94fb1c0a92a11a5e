//! What every probe shares: the URL from the command line, the decode of the Free Forex body
//! (typed and borrowed, one `serde_json::from_slice`), and the line it prints.

use std::collections::HashMap;
use std::process::ExitCode;

use serde::Deserialize;

/// The pair every probe asks for.
pub const PAIR: &str = "EURUSD";

#[derive(Deserialize)]
struct Live<'a> {
    #[serde(borrow)]
    rates: HashMap<&'a str, Quote>,
    code: u16,
}

#[derive(Deserialize)]
struct Quote {
    rate: f64,
    timestamp: i64,
}

/// The URL given as the only argument.
#[allow(dead_code)] // the probe without a client reads stdin
pub fn url() -> Result<String, String> {
    std::env::args()
        .nth(1)
        .ok_or_else(|| "usage: probe URL (of /api/live?pairs=EURUSD)".to_owned())
}

/// The rate of `PAIR` in a body answered with `status`.
pub fn rate(status: u16, body: &[u8]) -> Result<f64, String> {
    if !(200..300).contains(&status) {
        return Err(format!("HTTP status {status}"));
    }
    let live: Live<'_> =
        serde_json::from_slice(body).map_err(|error| format!("not a Free Forex body: {error}"))?;
    if live.code != 200 {
        return Err(format!("API code {}", live.code));
    }
    let quote = live
        .rates
        .get(PAIR)
        .ok_or_else(|| format!("no {PAIR} in the body"))?;
    if !(quote.rate > 0.0) || quote.timestamp <= 0 {
        return Err(format!("a bad quote: {} at {}", quote.rate, quote.timestamp));
    }
    Ok(quote.rate)
}

/// Prints `EURUSD 1.17 threads=N peak_rss_kib=M` (the process's threads and its peak resident
/// memory, from /proc, as the call ended) and exits 0, or prints the error and exits 1.
pub fn finish(result: Result<f64, String>) -> ExitCode {
    match result {
        Ok(rate) => {
            println!(
                "{PAIR} {rate} threads={} peak_rss_kib={}",
                status("Threads:"),
                status("VmHWM:").trim_end_matches(" kB")
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("probe: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The value of a line of /proc/self/status.
fn status(key: &str) -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix(key))
                .map(|value| value.trim().to_owned())
        })
        .unwrap_or_else(|| "?".to_owned())
}
