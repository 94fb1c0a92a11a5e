//! Stopping a server with misbehaving connections still open.

use std::sync::mpsc;
use std::time::Duration;

use mock_rates::{FaultMode, Faults, MockServer, Settings};

use crate::helpers::{Client, server_with_faults};

/// A safety net so a broken shutdown fails the test instead of hanging it.
const GIVE_UP: Duration = Duration::from_secs(10);

fn wait_for_live_requests(server: &MockServer, count: u64) {
    for _ in 0..1000 {
        if server.state().stats().live_requests >= count {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("the server never saw the request");
}

fn shut_down_in_background(server: MockServer) -> mpsc::Receiver<()> {
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        server.shutdown();
        let _ = done.send(());
    });
    finished
}

#[test]
fn shutdown_returns_while_a_connection_hangs() {
    let server = server_with_faults(Faults {
        mode: FaultMode::Hang,
        ..Faults::default()
    });
    let mut client = Client::connect(&server);
    client.send("GET", "/api/live?pairs=EURUSD", &[], "");
    wait_for_live_requests(&server, 1);
    shut_down_in_background(server)
        .recv_timeout(GIVE_UP)
        .expect("shutdown returns");
    // The hanging connection was ended, not leaked.
    assert!(client.is_closed());
}

#[test]
fn dropping_returns_while_a_connection_drips() {
    let server = server_with_faults(Faults {
        mode: FaultMode::Drip,
        ..Faults::default()
    });
    let mut client = Client::connect(&server);
    client.send("GET", "/api/live?pairs=EURUSD", &[], "");
    client.read_head().unwrap();
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        drop(server);
        let _ = done.send(());
    });
    finished.recv_timeout(GIVE_UP).expect("drop returns");
}

#[test]
fn shutdown_returns_with_idle_keep_alive_connections() {
    let server = MockServer::start(Settings::default()).unwrap();
    let mut client = Client::connect(&server);
    assert_eq!(client.get("/health").status, 200);
    shut_down_in_background(server)
        .recv_timeout(GIVE_UP)
        .expect("shutdown returns");
    assert!(client.is_closed());
}

#[test]
fn start_on_uses_the_given_listener() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = MockServer::start_on(listener, Settings::default()).unwrap();
    assert_eq!(server.addr(), addr);
    assert_eq!(server.base_url(), format!("http://{addr}"));
    assert_eq!(Client::connect_to(addr).get("/health").status, 200);
}
