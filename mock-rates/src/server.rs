//! Accepting connections, and a server on its own thread for tests and embedding.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinSet;

use crate::connection;
use crate::settings::Settings;
use crate::state::MockState;

/// Serves on an already-bound listener until `shutdown` resolves, then ends every connection.
/// HTTPS when `state` was made with TLS settings, plain HTTP otherwise.
///
/// Works inside any tokio runtime. Accept errors (such as running out of file descriptors)
/// are logged and retried, so this only returns once `shutdown` resolves.
pub async fn serve(
    listener: TcpListener,
    state: MockState,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let mut shutdown = std::pin::pin!(shutdown);
    // Owning every connection task lets shutdown end hanging and dripping connections too.
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => {
                    state.count_connection();
                    connections.spawn(connection::run(stream, state.clone()));
                }
                Err(error) => {
                    tracing::warn!(%error, "accept failed");
                    // Without a pause, a persistent error such as EMFILE would spin the loop.
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            },
            Some(finished) = connections.join_next(), if !connections.is_empty() => {
                if let Err(error) = finished {
                    tracing::error!(%error, "a connection task failed");
                }
            }
        }
    }
    connections.shutdown().await;
    Ok(())
}

/// A server running on its own thread with its own two-worker tokio runtime.
///
/// Dropping it shuts it down, like [`MockServer::shutdown`].
#[derive(Debug)]
pub struct MockServer {
    addr: SocketAddr,
    state: MockState,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl MockServer {
    /// Starts a server on `127.0.0.1` and a free port; with `settings.tls`, an HTTPS one.
    pub fn start(settings: Settings) -> io::Result<Self> {
        Self::start_on(std::net::TcpListener::bind(("127.0.0.1", 0))?, settings)
    }

    /// Starts a server on an already-bound listener.
    pub fn start_on(listener: std::net::TcpListener, settings: Settings) -> io::Result<Self> {
        let addr = listener.local_addr()?;
        listener.set_nonblocking(true)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("mock-rates")
            .enable_all()
            .build()?;
        let listener = {
            let _entered = runtime.enter();
            TcpListener::from_std(listener)?
        };
        let state = MockState::try_new(settings)?;
        let (stop, stopped) = oneshot::channel::<()>();
        let served = state.clone();
        let thread = std::thread::Builder::new()
            .name(format!("mock-rates {addr}"))
            .spawn(move || {
                // A dropped sender also stops the server, so `stopped` resolving either way is fine.
                let shutdown = async {
                    let _ = stopped.await;
                };
                if let Err(error) = runtime.block_on(serve(listener, served, shutdown)) {
                    tracing::error!(%error, "mock-rates stopped with an error");
                }
            })?;
        Ok(Self {
            addr,
            state,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://ADDR`, or `https://ADDR` with TLS, without a trailing slash.
    pub fn base_url(&self) -> String {
        let scheme = if self.state.ca_pem().is_some() {
            "https"
        } else {
            "http"
        };
        format!("{scheme}://{}", self.addr)
    }

    /// The PEM of the CA a client must trust to reach it over TLS; `None` when TLS is off.
    pub fn ca_pem(&self) -> Option<&str> {
        self.state.ca_pem()
    }

    /// Its state: counters and faults.
    pub fn state(&self) -> &MockState {
        &self.state
    }

    /// Stops accepting, ends every connection and joins the server thread.
    pub fn shutdown(self) {
        drop(self);
    }

    fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            // An error means the server already stopped on its own.
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::error!("the mock-rates thread panicked");
        }
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.stop();
    }
}
