//! mock-rates in its own process (the hidden `__mock-rates` sub-command; see
//! [`crate::servers::child`]), or one given by URL.

use std::ffi::OsStr;
use std::io;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use mock_rates::{MockState, Settings, TlsIdentity, TlsSettings};
use tempfile::NamedTempFile;

use crate::clients::MockAdmin;
use crate::measure::process::ProcessCpu;
use crate::process::scratch;
use crate::servers::child::{self, ChildError, ChildProcess};

/// What the child prints on stdout once it listens, followed by its base URL.
const READY_PREFIX: &str = "mock-rates listening on ";

/// What a mock-rates child serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Serving {
    /// HTTP/1.1 in the clear.
    Http,
    /// HTTP/2 and HTTP/1.1 over TLS (offered by ALPN), with a CA made at start. With
    /// `resumption` off every handshake is a full one: no TLS 1.2 session ids, no TLS 1.3
    /// tickets. `max_concurrent_streams` is each HTTP/2 connection's stream limit.
    Https {
        resumption: bool,
        max_concurrent_streams: Option<u32>,
    },
}

impl Serving {
    /// TLS as production servers offer it: resumption allowed, no stream limit.
    pub const HTTPS: Serving = Serving::Https {
        resumption: true,
        max_concurrent_streams: None,
    };
}

/// A mock-rates server the bench talks to: its own child process, or one given by URL; or, with
/// `--upstream-url`, a server that is not mock-rates at all (see [`MockEndpoint::foreign`]).
#[derive(Debug)]
pub struct MockEndpoint {
    base_url: String,
    /// Not mock-rates: no admin endpoint, no counters, no faults.
    foreign: bool,
    /// The CA of a mock over TLS, which its clients must be given.
    ca_pem: Option<Arc<[u8]>>,
    /// Kept for its `Drop`, which stops the child.
    process: Option<ChildProcess>,
    /// A server on threads of the bench's own (see [`MockEndpoint::hosted`]), kept for its
    /// `Drop`, which stops it.
    hosted: Option<mock_rates::MockServer>,
}

impl MockEndpoint {
    /// Starts `exe __mock-rates` on a free loopback port and waits until it listens.
    pub fn spawn(exe: &Path) -> Result<Self, ChildError> {
        Self::spawn_on(exe, None, false)
    }

    /// Like [`MockEndpoint::spawn`], the child running on `cpu` only, if given, and serving
    /// HTTPS with a CA of its own with `tls` (resumption allowed, as production servers do).
    pub fn spawn_on(exe: &Path, cpu: Option<usize>, tls: bool) -> Result<Self, ChildError> {
        let serving = if tls { Serving::HTTPS } else { Serving::Http };
        Self::spawn_serving(exe, cpu, serving)
    }

    /// Like [`MockEndpoint::spawn`], the child running on `cpu` only, if given, and serving
    /// what `serving` says.
    pub fn spawn_serving(
        exe: &Path,
        cpu: Option<usize>,
        serving: Serving,
    ) -> Result<Self, ChildError> {
        Self::spawn_listening(exe, cpu, serving, "127.0.0.1:0", None)
    }

    /// Starts a mock-rates child on `listen`, such as the address of one that was just
    /// stopped, to restart an upstream in place: over plain HTTP, or over TLS serving
    /// `identity` (as production servers do, resumption allowed), so that the clients that
    /// trusted the stopped one trust it.
    pub fn spawn_at(
        exe: &Path,
        listen: SocketAddr,
        identity: Option<&IdentityFile>,
    ) -> Result<Self, ChildError> {
        let (serving, identity) = match identity {
            Some(identity) => (Serving::HTTPS, Some(identity.path())),
            None => (Serving::Http, None),
        };
        Self::spawn_listening(exe, None, serving, &listen.to_string(), identity)
    }

    /// Starts a mock-rates child over TLS on a free loopback port, serving `identity`, so that
    /// a later [`MockEndpoint::spawn_at`] can replace it.
    pub fn spawn_with_identity(exe: &Path, identity: &IdentityFile) -> Result<Self, ChildError> {
        Self::spawn_listening(
            exe,
            None,
            Serving::HTTPS,
            "127.0.0.1:0",
            Some(identity.path()),
        )
    }

    fn spawn_listening(
        exe: &Path,
        cpu: Option<usize>,
        serving: Serving,
        listen: &str,
        identity: Option<&Path>,
    ) -> Result<Self, ChildError> {
        let cpu = cpu.map(|cpu| cpu.to_string());
        let ca_out = matches!(serving, Serving::Https { .. })
            .then(|| scratch::temp_file("mock-ca", "pem"))
            .transpose()
            .map_err(|source| ChildError::Spawn {
                name: "mock-rates",
                source,
            })?;
        let mut args = vec![
            OsStr::new("__mock-rates"),
            OsStr::new("--listen"),
            OsStr::new(listen),
        ];
        if let Some(cpu) = &cpu {
            args.extend([OsStr::new("--cpu"), OsStr::new(cpu)]);
        }
        if let Some(file) = &ca_out {
            args.extend([
                OsStr::new("--tls"),
                OsStr::new("--ca-out"),
                file.path().as_os_str(),
            ]);
            if let Some(identity) = identity {
                args.extend([OsStr::new("--tls-identity"), identity.as_os_str()]);
            }
        }
        let streams;
        if let Serving::Https {
            resumption,
            max_concurrent_streams,
        } = serving
        {
            if !resumption {
                args.push(OsStr::new("--no-resumption"));
            }
            if let Some(limit) = max_concurrent_streams {
                streams = limit.to_string();
                args.extend([OsStr::new("--max-concurrent-streams"), OsStr::new(&streams)]);
            }
        }
        let (process, base_url) = ChildProcess::spawn("mock-rates", exe, &args, READY_PREFIX)?;
        let ca_pem = match &ca_out {
            // Written before the child announced itself; read once, then not left behind.
            Some(file) => {
                let pem = std::fs::read(file.path()).map_err(|source| ChildError::Spawn {
                    name: "mock-rates",
                    source,
                })?;
                Some(Arc::from(pem))
            }
            None => None,
        };
        Ok(Self {
            base_url,
            ca_pem,
            foreign: false,
            process: Some(process),
            hosted: None,
        })
    }

    /// A mock-rates on threads of the bench's own process, with `settings`: for a suite whose
    /// measured work runs in another process (the cost suite's children under callgrind), so
    /// that the server's work never mixes into it either way.
    ///
    /// # Errors
    /// The server cannot start.
    pub fn hosted(settings: Settings) -> io::Result<Self> {
        let server = mock_rates::MockServer::start(settings)?;
        Ok(Self {
            base_url: server.base_url(),
            ca_pem: server.ca_pem().map(|pem| Arc::from(pem.as_bytes())),
            foreign: false,
            process: None,
            hosted: Some(server),
        })
    }

    /// The CA of a mock over TLS (of a foreign server: the one given with `--ca-file`).
    pub fn ca_pem(&self) -> Option<&Arc<[u8]>> {
        self.ca_pem.as_ref()
    }

    /// A server someone else runs.
    pub fn external(base_url: &str) -> Self {
        Self {
            base_url: base_url.trim_end_matches('/').to_owned(),
            ca_pem: None,
            foreign: false,
            process: None,
            hosted: None,
        }
    }

    /// A server that serves the Free Forex answer but is not mock-rates (`--upstream-url`):
    /// over `https://`, its clients trust `ca_pem` besides the system's roots. It has no
    /// admin endpoint: [`MockEndpoint::admin`] makes no call to it, and every counter read is
    /// `None`.
    pub fn foreign(base_url: &str, ca_pem: Option<Arc<[u8]>>) -> Self {
        Self {
            base_url: base_url.trim_end_matches('/').to_owned(),
            ca_pem,
            foreign: true,
            process: None,
            hosted: None,
        }
    }

    /// Whether this is a server that is not mock-rates (see [`MockEndpoint::foreign`]).
    pub fn is_foreign(&self) -> bool {
        self.foreign
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The address it listens on, read from its base URL (`http://ADDR`).
    pub fn address(&self) -> Option<SocketAddr> {
        self.base_url
            .split_once("://")
            .and_then(|(_, address)| address.parse().ok())
    }

    /// Whether this endpoint is the bench's own (a child process, or hosted), not one given
    /// by URL.
    pub fn is_child(&self) -> bool {
        self.process.is_some() || self.hosted.is_some()
    }

    /// The child's CPU clock; `None` for a mock the bench did not start as a process.
    pub fn cpu(&self) -> Option<&ProcessCpu> {
        self.process.as_ref().map(ChildProcess::cpu)
    }

    /// Its admin endpoints: counters and faults; for a foreign server, none (every call fails
    /// without a request).
    pub fn admin(&self) -> MockAdmin<'_> {
        if self.foreign {
            MockAdmin::unavailable(&self.base_url)
        } else {
            MockAdmin::new(&self.base_url, self.ca_pem.as_deref())
        }
    }
}

/// A TLS identity for mock-rates children to serve (see [`MockEndpoint::spawn_at`]), written
/// for them to read to a file of the temporary directory that only its owner can read (it
/// holds a private key), removed when this is dropped.
#[derive(Debug)]
pub struct IdentityFile {
    file: NamedTempFile,
}

impl IdentityFile {
    /// A fresh identity, written.
    ///
    /// # Errors
    /// It cannot be made or written.
    pub fn generate() -> io::Result<Self> {
        let identity = TlsIdentity::generate()?;
        let json = serde_json::to_vec(&identity).map_err(io::Error::other)?;
        // `tempfile` makes it readable by its owner only.
        let file = scratch::temp_file_with("mock-identity", "json", &json)?;
        Ok(Self { file })
    }

    pub fn path(&self) -> &Path {
        self.file.path()
    }
}

/// Reads an identity written by [`IdentityFile::generate`].
fn read_identity(path: &Path) -> io::Result<TlsIdentity> {
    let json = std::fs::read(path)?;
    serde_json::from_slice(&json).map_err(|error| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: not a TLS identity: {error}", path.display()),
        )
    })
}

/// How a mock-rates child serves TLS.
#[derive(Debug)]
pub struct TlsChild<'a> {
    /// Where its CA is written before the address is announced.
    pub ca_out: &'a Path,
    /// Whether session resumption is allowed.
    pub resumption: bool,
    /// Each HTTP/2 connection's stream limit.
    pub max_concurrent_streams: Option<u32>,
    /// The identity to serve (see [`IdentityFile`]); `None` makes a fresh one.
    pub identity: Option<&'a Path>,
}

/// The child's side: serve mock-rates on `listen` until stdin closes or the parent dies; over
/// TLS as `tls` says when given.
pub fn run_child(
    listen: SocketAddr,
    cpu: Option<usize>,
    tls: Option<&TlsChild<'_>>,
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
    let tls_settings = tls
        .map(|tls| {
            Ok::<_, io::Error>(TlsSettings {
                resumption: tls.resumption,
                max_concurrent_streams: tls.max_concurrent_streams,
                identity: tls.identity.map(read_identity).transpose()?,
                ..TlsSettings::default()
            })
        })
        .transpose()?;
    let state = MockState::try_new(Settings {
        tls: tls_settings,
        ..Settings::default()
    })?;
    if let (Some(tls), Some(pem)) = (tls, state.ca_pem()) {
        std::fs::write(tls.ca_out, pem)?;
    }
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(listen).await?;
        child::announce(READY_PREFIX, listener.local_addr()?, tls.is_some())?;
        let (closed, stdin_closed) = tokio::sync::oneshot::channel::<()>();
        child::on_parent_gone(move || {
            let _ = closed.send(());
        })?;
        let shutdown = async {
            let _ = stdin_closed.await;
        };
        mock_rates::serve(listener, state, shutdown).await
    })
}
