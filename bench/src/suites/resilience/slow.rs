//! Slow clients: connections that send half a request head and then wait, as slowloris does.
//! Each slot reconnects whenever the service closes its connection, so the count holds while
//! payments are measured beside them; then the slots stop reconnecting, and the bench waits for
//! the service to close the last ones (its request timeout) and notes how each one ended.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;

use crate::suites::load::open;
use bench_model::SlowConnections;
use bench_model::stats::quantile::percentile_nearest_rank;

/// Half a request head: no blank line ends it, so the service waits for the rest.
const HALF_HEAD: &[u8] =
    b"POST /payments/hyper HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
/// How long the bench waits for the service to close the connections once they stop
/// reconnecting: longer than any request timeout a service would set (actix's default is 5 s).
pub const CLOSE_WAIT_LIMIT: Duration = Duration::from_secs(15);
/// How long the bench waits for every slot to be connected before it measures.
const CONNECT_LIMIT: Duration = Duration::from_secs(5);
/// A slot that failed to connect tries again after this.
const RETRY_AFTER: Duration = Duration::from_millis(20);

/// How one connection ended: after how long, and whether the service answered 408 first.
#[derive(Clone, Copy, Debug)]
struct Ended {
    lifetime: Duration,
    answered_408: bool,
}

/// The slow connections while they are held.
#[derive(Debug)]
pub struct SlowClients {
    reconnect: Arc<AtomicBool>,
    open: Arc<AtomicU64>,
    opened: Arc<AtomicU64>,
    failed: Arc<AtomicU64>,
    ended: Arc<Mutex<Vec<Ended>>>,
    slots: Vec<JoinHandle<()>>,
}

impl SlowClients {
    /// Opens `count` slow connections to `address` on `runtime`, and waits (a few seconds at
    /// most) until all are connected.
    pub fn open(runtime: &Runtime, address: SocketAddr, count: u32) -> Self {
        let clients = Self {
            reconnect: Arc::new(AtomicBool::new(true)),
            open: Arc::new(AtomicU64::new(0)),
            opened: Arc::new(AtomicU64::new(0)),
            failed: Arc::new(AtomicU64::new(0)),
            ended: Arc::new(Mutex::new(Vec::new())),
            slots: Vec::new(),
        };
        let slots = (0..count)
            .map(|_| runtime.spawn(clients.slot(address)))
            .collect();
        let clients = Self { slots, ..clients };
        let deadline = Instant::now() + CONNECT_LIMIT;
        while clients.held() < u64::from(count) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        clients
    }

    /// Connections open now.
    pub fn held(&self) -> u64 {
        self.open.load(Ordering::Relaxed)
    }

    fn slot(&self, address: SocketAddr) -> impl Future<Output = ()> + Send + 'static {
        let (reconnect, open, opened, failed, ended) = (
            Arc::clone(&self.reconnect),
            Arc::clone(&self.open),
            Arc::clone(&self.opened),
            Arc::clone(&self.failed),
            Arc::clone(&self.ended),
        );
        async move {
            loop {
                let started = Instant::now();
                let connected = match TcpStream::connect(address).await {
                    Ok(mut stream) => match stream.write_all(HALF_HEAD).await {
                        Ok(()) => Some(stream),
                        Err(_) => None,
                    },
                    Err(_) => None,
                };
                let Some(mut stream) = connected else {
                    failed.fetch_add(1, Ordering::Relaxed);
                    if !reconnect.load(Ordering::Relaxed) {
                        return;
                    }
                    tokio::time::sleep(RETRY_AFTER).await;
                    continue;
                };
                opened.fetch_add(1, Ordering::Relaxed);
                open.fetch_add(1, Ordering::Relaxed);
                let answered_408 = wait_for_close(&mut stream).await;
                open.fetch_sub(1, Ordering::Relaxed);
                ended
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(Ended {
                        lifetime: started.elapsed(),
                        answered_408,
                    });
                if !reconnect.load(Ordering::Relaxed) {
                    return;
                }
            }
        }
    }

    /// Stops reconnecting, waits until the service has closed every connection or
    /// [`CLOSE_WAIT_LIMIT`] has passed, and tells how they ended.
    pub fn finish(self) -> SlowConnections {
        self.reconnect.store(false, Ordering::Relaxed);
        let deadline = Instant::now() + CLOSE_WAIT_LIMIT;
        while self.held() > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let still_open = self.held();
        for slot in &self.slots {
            slot.abort();
        }
        let ended = self
            .ended
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        summarize(
            &ended,
            self.opened.load(Ordering::Relaxed),
            self.failed.load(Ordering::Relaxed),
            still_open,
        )
    }
}

/// Reads until the service closes the connection (or resets it); whether what it sent first
/// was a 408.
async fn wait_for_close(stream: &mut TcpStream) -> bool {
    let mut first = Vec::new();
    let mut buffer = [0_u8; 1024];
    loop {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => return first.starts_with(b"HTTP/1.1 408"),
            Ok(read) => {
                if first.len() < 16 {
                    first.extend_from_slice(&buffer[..read.min(16)]);
                }
            }
        }
    }
}

fn summarize(ended: &[Ended], opened: u64, failed: u64, still_open: u64) -> SlowConnections {
    let mut lifetimes: Vec<f64> = ended
        .iter()
        .map(|end| end.lifetime.as_secs_f64() * 1_000.0)
        .collect();
    lifetimes.sort_by(f64::total_cmp);
    SlowConnections {
        opened,
        failed,
        closed_by_server: ended.len() as u64,
        answered_408: ended.iter().filter(|end| end.answered_408).count() as u64,
        still_open,
        lifetime_min_ms: lifetimes.first().copied(),
        lifetime_p50_ms: percentile_nearest_rank(&lifetimes, 50.0),
        lifetime_max_ms: lifetimes.last().copied(),
    }
}

/// Raises this process's soft limit on open files to its hard limit when the slow connections
/// and the generator's own could exceed it; the service and mock-rates children started after
/// this inherit it. Best effort: if the limit cannot be raised, connections beyond it fail
/// and are counted as failed.
pub fn raise_descriptor_limit(slow_connections: u32) {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let wanted = u64::from(slow_connections) + 4 * open::MAX_IN_FLIGHT as u64;
    let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE) else {
        return;
    };
    if soft >= wanted {
        return;
    }
    if setrlimit(Resource::RLIMIT_NOFILE, hard.min(wanted), hard).is_err() {
        eprintln!(
            "bench: resilience: cannot raise the open-file limit from {soft}: slow connections \
             beyond it will fail"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn how_the_connections_ended() {
        let ended = [
            Ended {
                lifetime: Duration::from_millis(5_001),
                answered_408: true,
            },
            Ended {
                lifetime: Duration::from_millis(5_003),
                answered_408: true,
            },
            Ended {
                lifetime: Duration::from_millis(4_990),
                answered_408: false,
            },
        ];
        let summary = summarize(&ended, 4, 1, 1);
        assert_eq!(
            (
                summary.opened,
                summary.failed,
                summary.closed_by_server,
                summary.answered_408,
                summary.still_open
            ),
            (4, 1, 3, 2, 1)
        );
        assert_eq!(summary.lifetime_min_ms, Some(4_990.0));
        assert_eq!(summary.lifetime_p50_ms, Some(5_001.0));
        assert_eq!(summary.lifetime_max_ms, Some(5_003.0));
    }

    /// Against a listener that answers 408 and closes, as a server's request timeout does.
    #[test]
    fn a_connection_closed_by_the_server_is_counted_with_its_408() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let address = listener.local_addr().unwrap();
        runtime.spawn(async move {
            loop {
                let Ok((mut stream, _)) = listener.accept().await else {
                    return;
                };
                tokio::spawn(async move {
                    let mut head = [0_u8; HALF_HEAD.len()];
                    if stream.read_exact(&mut head).await.is_ok() {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        let _ = stream
                            .write_all(b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\n\r\n")
                            .await;
                    }
                });
            }
        });
        let clients = SlowClients::open(&runtime, address, 3);
        assert!(clients.held() <= 3);
        let summary = clients.finish();
        assert_eq!(summary.still_open, 0);
        assert!(summary.closed_by_server >= 3, "{summary:?}");
        assert_eq!(summary.answered_408, summary.closed_by_server);
        assert!(
            summary.lifetime_min_ms.is_some_and(|ms| ms >= 50.0),
            "{summary:?}"
        );
    }
}
