//! mock-rates in its own process (the hidden `__mock-rates` sub-command; see [`crate::child`]),
//! or one given by URL, and its admin endpoint.

use std::ffi::OsStr;
use std::io;
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use mock_rates::{Faults, MockState, Settings, Stats};

use crate::child::{self, ChildError, ChildProcess};

/// What the child prints on stdout once it listens, followed by its base URL.
const READY_PREFIX: &str = "mock-rates listening on ";
/// Limit on one admin call.
const ADMIN_TIMEOUT: Duration = Duration::from_secs(5);

/// Each [`MockEndpoint::stats`] call opens one connection of its own, which the mock counts in
/// the stats it returns; subtract this from a before/after difference.
pub const CONNECTIONS_PER_STATS_READ: u64 = 1;

#[derive(Debug, thiserror::Error)]
pub enum MockError {
    #[error(transparent)]
    Child(#[from] ChildError),
    #[error("the mock-rates admin endpoint failed: {0}")]
    Admin(String),
}

/// A mock-rates server the bench talks to: its own child process, or one given by URL.
#[derive(Debug)]
pub struct MockEndpoint {
    base_url: String,
    /// Kept for its `Drop`, which stops the child.
    process: Option<ChildProcess>,
}

impl MockEndpoint {
    /// Starts `exe __mock-rates` on a free loopback port and waits until it listens.
    pub fn spawn(exe: &Path) -> Result<Self, MockError> {
        Self::spawn_on(exe, None)
    }

    /// Like [`MockEndpoint::spawn`], the child running on `cpu` only, if given.
    pub fn spawn_on(exe: &Path, cpu: Option<usize>) -> Result<Self, MockError> {
        let cpu = cpu.map(|cpu| cpu.to_string());
        let mut args = vec![
            OsStr::new("__mock-rates"),
            OsStr::new("--listen"),
            OsStr::new("127.0.0.1:0"),
        ];
        if let Some(cpu) = &cpu {
            args.extend([OsStr::new("--cpu"), OsStr::new(cpu)]);
        }
        let (process, base_url) = ChildProcess::spawn("mock-rates", exe, &args, READY_PREFIX)?;
        Ok(Self {
            base_url,
            process: Some(process),
        })
    }

    /// A server someone else runs.
    pub fn external(base_url: &str) -> Self {
        Self {
            base_url: base_url.trim_end_matches('/').to_owned(),
            process: None,
        }
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Whether this endpoint is the bench's own child process.
    pub fn is_child(&self) -> bool {
        self.process.is_some()
    }

    /// The server's counters, from `GET /__admin/stats` on a fresh connection.
    pub fn stats(&self) -> Result<Stats, MockError> {
        let url = format!("{}/__admin/stats", self.base_url);
        let mut response = admin_agent()
            .get(&url)
            .header("connection", "close")
            .call()
            .map_err(|error| MockError::Admin(format!("GET {url}: {error}")))?;
        let body = response
            .body_mut()
            .read_to_string()
            .map_err(|error| MockError::Admin(format!("GET {url}: {error}")))?;
        serde_json::from_str(&body)
            .map_err(|error| MockError::Admin(format!("GET {url}: unexpected body: {error}")))
    }

    /// Sets the server's faults (and added latency) with `PUT /__admin/faults`.
    pub fn set_faults(&self, faults: &Faults) -> Result<(), MockError> {
        let url = format!("{}/__admin/faults", self.base_url);
        let body = serde_json::to_string(faults)
            .map_err(|error| MockError::Admin(format!("PUT {url}: {error}")))?;
        let response = admin_agent()
            .put(&url)
            .header("connection", "close")
            .header("content-type", "application/json")
            .send(body.as_bytes())
            .map_err(|error| MockError::Admin(format!("PUT {url}: {error}")))?;
        if response.status() == 200 {
            Ok(())
        } else {
            Err(MockError::Admin(format!(
                "PUT {url}: status {}",
                response.status()
            )))
        }
    }
}

/// A one-off agent for admin calls: fresh connections, no proxy (loopback only: a proxy from
/// the environment must not carry them), bounded in time.
fn admin_agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(ADMIN_TIMEOUT))
        .max_idle_connections(0)
        .proxy(None)
        .http_status_as_error(false)
        .build()
        .into()
}

/// The child's side: serve mock-rates on `listen` until stdin closes or the parent dies.
pub fn run_child(
    listen: SocketAddr,
    cpu: Option<usize>,
    parent_pid: Option<u32>,
) -> io::Result<()> {
    crate::alloc::stop_counting();
    if let Some(cpu) = cpu {
        // Before the runtime starts, so that its worker threads inherit the CPU.
        crate::affinity::CpuSet::single(cpu).apply_to_current_thread()?;
    }
    child::die_with_parent();
    if child::orphaned(parent_pid) {
        return Ok(());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(listen).await?;
        child::announce(READY_PREFIX, listener.local_addr()?)?;
        let (closed, stdin_closed) = tokio::sync::oneshot::channel::<()>();
        child::on_parent_gone(move || {
            let _ = closed.send(());
        })?;
        let shutdown = async {
            let _ = stdin_closed.await;
        };
        mock_rates::serve(listener, MockState::new(Settings::default()), shutdown).await
    })
}
