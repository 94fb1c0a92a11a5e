//! The `mock-rates` binary: the announce line, flags from the environment, the probe, SIGTERM,
//! TLS with the CA written out.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::helpers::{Client, server};
use crate::tls_client;

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
    let (running, scheme, addr) = spawn_with(&[], envs);
    assert_eq!(scheme, "http");
    (running, addr)
}

/// Starts the binary with `args` on a free port; its scheme and address, from the announce line.
fn spawn_with(args: &[&str], envs: &[(&str, &str)]) -> (Running, String, SocketAddr) {
    let mut child = Command::new(BINARY)
        .args(["--listen", "127.0.0.1:0"])
        .args(args)
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
    let (scheme, addr) = line
        .trim_end()
        .strip_prefix("mock-rates listening on ")
        .and_then(|url| url.split_once("://"))
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    (running, scheme.to_owned(), addr.parse().unwrap())
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

#[test]
fn tls_writes_the_ca_and_no_resumption_makes_every_handshake_full() {
    let ca_out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("mock-rates-ca-{}.pem", std::process::id()));
    let ca_arg = ca_out.to_str().expect("a UTF-8 temporary path");
    let (_running, scheme, addr) = spawn_with(
        &["--tls", "--ca-out", ca_arg],
        &[("MOCK_RATES_NO_RESUMPTION", "true")],
    );
    assert_eq!(scheme, "https");
    let ca_pem = std::fs::read_to_string(&ca_out).expect("the CA was written before the announce");
    let _ = std::fs::remove_file(&ca_out);
    // The PEM parses (or the configuration could not be built) and is the one served.
    let config = tls_client::trusting(&ca_pem);
    let connect = || Client::over(tls_client::connect(addr, "localhost", &config).unwrap());
    assert_eq!(connect().get("/__admin/ca").text(), ca_pem);
    let stats = connect().get("/__admin/stats").json();
    assert_eq!(
        (
            stats["tls_handshakes_full"].as_u64(),
            stats["tls_handshakes_resumed"].as_u64()
        ),
        (Some(2), Some(0))
    );
}

#[test]
fn no_http2_offers_only_http_1_1() {
    let ca_out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("mock-rates-ca-h2-{}.pem", std::process::id()));
    let ca_arg = ca_out.to_str().expect("a UTF-8 temporary path");
    let (_running, _scheme, addr) = spawn_with(
        &[
            "--tls",
            "--ca-out",
            ca_arg,
            "--max-concurrent-streams",
            "10",
        ],
        &[("MOCK_RATES_NO_HTTP2", "1")],
    );
    let ca_pem = std::fs::read_to_string(&ca_out).expect("the CA was written before the announce");
    let _ = std::fs::remove_file(&ca_out);
    let mut only_h2 = std::sync::Arc::unwrap_or_clone(tls_client::trusting(&ca_pem));
    only_h2.alpn_protocols = vec![b"h2".to_vec()];
    let refused = tls_client::connect(addr, "localhost", &std::sync::Arc::new(only_h2));
    assert!(refused.is_err(), "a client that offers only h2 is refused");
    let config = tls_client::trusting(&ca_pem);
    let stream = tls_client::connect(addr, "localhost", &config).unwrap();
    assert_eq!(
        stream.tls().and_then(|tls| tls.alpn_protocol()),
        Some(&b"http/1.1"[..])
    );
}

#[test]
fn tls_flags_are_refused_without_tls() {
    for args in [
        &["--no-resumption"][..],
        &["--ca-out", "ca.pem"],
        &["--no-http2"],
        &["--max-concurrent-streams", "10"],
        &["--tls", "--max-concurrent-streams", "0"],
    ] {
        let status = Command::new(BINARY)
            .args(args)
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn the_idle_timeout_is_read_from_the_environment_and_checked() {
    let (_running, addr) = spawn(&[("MOCK_RATES_IDLE_TIMEOUT_MS", "60000")]);
    let mut client = Client::connect_to(addr);
    assert_eq!(
        client.get("/__admin/idle-timeout").json()["idle_timeout_ms"],
        60000
    );
    for bad in ["0", "86400001", "soon"] {
        let status = Command::new(BINARY)
            .args(["--idle-timeout-ms", bad])
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(2), "{bad}");
    }
}
