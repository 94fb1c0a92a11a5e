//! The `mock-rates` binary: the announce line, flags from the environment, the probe, SIGTERM.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::helpers::{Client, server};

const BINARY: &str = env!("CARGO_BIN_EXE_mock-rates");

/// A child process killed on drop, so a failing test leaves nothing behind.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn(envs: &[(&str, &str)]) -> (Running, SocketAddr) {
    let mut child = Command::new(BINARY)
        .args(["--listen", "127.0.0.1:0"])
        .envs(envs.iter().copied())
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let stdout = child.stdout.take().expect("piped stdout");
    let running = Running(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let addr = line
        .trim_end()
        .strip_prefix("mock-rates listening on http://")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .parse()
        .unwrap();
    (running, addr)
}

fn probe_exit_code(url: &str) -> Option<i32> {
    Command::new(BINARY)
        .args(["--probe", url])
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .code()
}

#[test]
fn announces_its_address_and_reads_flags_from_the_environment() {
    let (_running, addr) = spawn(&[
        ("MOCK_RATES_CONTENT_TYPE", "html"),
        ("MOCK_RATES_CHUNKED", "true"),
        ("MOCK_RATES_FAULT", "status"),
        ("MOCK_RATES_FAULT_STATUS", "503"),
        ("MOCK_RATES_FAULT_PERCENT", "0"),
    ]);
    let mut client = Client::connect_to(addr);
    let response = client.get("/api/live?pairs=EURUSD");
    assert_eq!(response.status, 200);
    assert_eq!(
        response.header("content-type"),
        Some("text/html; charset=UTF-8")
    );
    assert_eq!(response.header("transfer-encoding"), Some("chunked"));
    let faults = client.get("/__admin/faults").json();
    assert_eq!(
        (
            faults["mode"].as_str(),
            faults["status"].as_u64(),
            faults["percent"].as_u64()
        ),
        (Some("status"), Some(503), Some(0))
    );
}

#[test]
fn probe_exits_0_on_200_and_1_otherwise() {
    let server = server();
    let base = server.base_url();
    assert_eq!(probe_exit_code(&format!("{base}/health")), Some(0));
    assert_eq!(probe_exit_code(&format!("{base}/nope")), Some(1));
    assert_eq!(probe_exit_code("not a url"), Some(1));
    assert_eq!(
        health_probe::probe(&format!("{base}/health"), Duration::from_secs(2)).unwrap(),
        200
    );
}

#[cfg(unix)]
#[test]
fn sigterm_stops_it_cleanly() {
    let (mut running, addr) = spawn(&[]);
    assert_eq!(Client::connect_to(addr).get("/health").status, 200);
    let pid = running.0.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(killed.success());
    let status = running.0.wait().unwrap();
    assert!(status.success(), "{status:?}");
}
