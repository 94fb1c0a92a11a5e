//! mock-rates in its own process (the hidden `__mock-rates` sub-command; see
//! [`crate::servers::child`]), or one given by URL.

use std::ffi::OsStr;
use std::io;
use std::net::SocketAddr;
use std::path::Path;

use mock_rates::{MockState, Settings};

use crate::clients::MockAdmin;
use crate::servers::child::{self, ChildError, ChildProcess};

/// What the child prints on stdout once it listens, followed by its base URL.
const READY_PREFIX: &str = "mock-rates listening on ";

/// A mock-rates server the bench talks to: its own child process, or one given by URL.
#[derive(Debug)]
pub struct MockEndpoint {
    base_url: String,
    /// Kept for its `Drop`, which stops the child.
    process: Option<ChildProcess>,
}

impl MockEndpoint {
    /// Starts `exe __mock-rates` on a free loopback port and waits until it listens.
    pub fn spawn(exe: &Path) -> Result<Self, ChildError> {
        Self::spawn_on(exe, None)
    }

    /// Like [`MockEndpoint::spawn`], the child running on `cpu` only, if given.
    pub fn spawn_on(exe: &Path, cpu: Option<usize>) -> Result<Self, ChildError> {
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

    /// Its admin endpoints: counters and faults.
    pub fn admin(&self) -> MockAdmin<'_> {
        MockAdmin::new(&self.base_url)
    }
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
