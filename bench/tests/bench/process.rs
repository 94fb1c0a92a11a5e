//! The mock child process never outlives the bench.

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use application::RatesProvider as _;
use bench::servers::{MockEndpoint, Serving};
use rates_common::ClientSettings;
use rates_hyper::HyperRates;

use crate::bench;

/// Starts a long latency run and returns it with its mock child's address, read from the
/// whole header (`--tables`) line `latency: ... mock-rates: child process at http://ADDR;
/// pinned ...`.
fn start_long_run() -> (Child, SocketAddr) {
    let mut child = bench()
        .args([
            "--suite",
            "latency",
            "--clients",
            "hyper",
            "--samples",
            "1000",
            "--tables",
        ])
        .args(["--out", "/nonexistent/never-written"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    for line in stdout.lines() {
        let line = line.unwrap();
        if let Some((_, url)) = line.split_once("child process at http://") {
            let address = url.split([';', ' ']).next().unwrap_or_default();
            return (child, address.trim().parse().unwrap());
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("the bench printed no mock address");
}

/// Waits until nothing listens on `address` any more; false if it still does after 10 s.
fn stops_listening(address: SocketAddr) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_err() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn sigterm_stops_the_bench_and_its_mock() {
    let (mut child, mock) = start_long_run();
    assert!(TcpStream::connect(mock).is_ok(), "the mock should be up");
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143), "{status}");
    assert!(stops_listening(mock), "the mock outlived the bench");
}

#[test]
fn the_mock_dies_with_a_killed_bench() {
    let (mut child, mock) = start_long_run();
    // SIGKILL: no handler runs, so only the child's parent-death signal can stop it.
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(stops_listening(mock), "the mock outlived the bench");
}

#[test]
fn the_mock_child_over_tls_resumes_sessions_unless_told_not_to() {
    let exe = Path::new(env!("CARGO_BIN_EXE_bench"));
    let pairs = bench::suites::latency::cross_rate_pairs();
    for resumption in [true, false] {
        let serving = Serving::Https {
            resumption,
            max_concurrent_streams: None,
        };
        let mock = MockEndpoint::spawn_serving(exe, None, serving).unwrap();
        // A new connection per call, from a client that keeps its TLS sessions.
        let settings = ClientSettings {
            extra_ca_pem: mock.ca_pem().cloned(),
            max_idle_per_host: 0,
            ..ClientSettings::for_base_url(mock.base_url())
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let client = HyperRates::new(&settings).unwrap();
            for _ in 0..3 {
                client.fetch_quotes(&pairs).await.unwrap();
            }
        });
        let stats = mock.admin().stats().unwrap();
        // Three calls and this read, which never resumes.
        assert_eq!(stats.connections, 4, "{stats:?}");
        if resumption {
            assert_eq!(
                (stats.tls_handshakes_full, stats.tls_handshakes_resumed),
                (2, 2),
                "{stats:?}"
            );
        } else {
            assert_eq!(
                (stats.tls_handshakes_full, stats.tls_handshakes_resumed),
                (4, 0),
                "{stats:?}"
            );
        }
    }
}
