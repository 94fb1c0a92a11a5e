//! The payment service (`api`) in its own process (the hidden `__api` sub-command; see
//! [`crate::servers::child`]), pointed at the bench's mock-rates, or one given by URL.

use std::ffi::OsStr;
use std::io;
use std::net::SocketAddr;
use std::path::Path;

use api::configuration::Settings;
use api::startup::Application;
use rates_common::HttpVersion;

use crate::measure::process::ProcessCpu;
use crate::process::scratch;
use crate::servers::child::{self, ChildError, ChildProcess, Wrapper};
use crate::servers::mock::MockEndpoint;

/// What the child prints on stdout once it listens, followed by its base URL.
const READY_PREFIX: &str = "api listening on ";

/// A payment service the bench drives over HTTP.
#[derive(Debug)]
pub struct ApiEndpoint {
    base_url: String,
    /// Kept for its `Drop`, which stops the child.
    process: Option<ChildProcess>,
}

impl ApiEndpoint {
    /// Starts `exe __api` on a free loopback port, its rates upstream at `rates_url`, and waits
    /// until it listens. `APP__*` variables in the bench's environment reach the child, so any
    /// service setting can be changed for a run.
    pub fn spawn(exe: &Path, rates_url: &str) -> Result<Self, ChildError> {
        Self::spawn_with_env(exe, rates_url, &[])
    }

    /// [`ApiEndpoint::spawn`] with `env` set for the child only, e.g.
    /// `[("APP__RATES__TIMEOUT_MS", "500")]` for a suite that needs other service settings.
    pub fn spawn_with_env(
        exe: &Path,
        rates_url: &str,
        env: &[(&str, &str)],
    ) -> Result<Self, ChildError> {
        Self::spawn_wrapped(None, exe, rates_url, env)
    }

    /// [`ApiEndpoint::spawn_with_env`] with the service's process run by `wrapper` (the
    /// cost suite's callgrind).
    pub fn spawn_wrapped(
        wrapper: Option<&Wrapper>,
        exe: &Path,
        rates_url: &str,
        env: &[(&str, &str)],
    ) -> Result<Self, ChildError> {
        let args = [
            OsStr::new("__api"),
            OsStr::new("--listen"),
            OsStr::new("127.0.0.1:0"),
            OsStr::new("--rates-url"),
            OsStr::new(rates_url),
        ];
        // Also as the setting itself: the service checks its settings as it loads them
        // (`rates.http_version = "2"` needs an https:// base URL), before `--rates-url`.
        let mut env = env.to_vec();
        env.push(("APP__RATES__BASE_URL", rates_url));
        let (process, base_url) =
            ChildProcess::spawn_wrapped("api", wrapper, exe, &args, &env, READY_PREFIX)?;
        Ok(Self {
            base_url,
            process: Some(process),
        })
    }

    /// [`ApiEndpoint::spawn`] with `mock`, a mock-rates over TLS, as its upstream, trusting
    /// the mock's CA through `rates.ca_file` (`APP__RATES__CA_FILE`) as a user would, its
    /// clients speaking `http_version` (`APP__RATES__HTTP_VERSION`); see
    /// [`ApiEndpoint::spawn_trusting`].
    ///
    /// # Errors
    /// `mock` serves plain HTTP, the CA cannot be written, or the service does not start.
    pub fn spawn_over_tls(
        exe: &Path,
        mock: &MockEndpoint,
        http_version: HttpVersion,
    ) -> Result<Self, ChildError> {
        let ca = mock.ca_pem().ok_or_else(|| ChildError::Spawn {
            name: "api",
            source: io::Error::other(format!(
                "{} serves plain HTTP: no CA to give the service",
                mock.base_url()
            )),
        })?;
        Self::spawn_trusting(exe, mock.base_url(), Some(&ca[..]), http_version)
    }

    /// [`ApiEndpoint::spawn`] with the `https://` upstream at `rates_url`, trusting the
    /// system's roots and `ca_pem`, when given, through `rates.ca_file`
    /// (`APP__RATES__CA_FILE`) as a user would, its clients speaking `http_version`
    /// (`APP__RATES__HTTP_VERSION`). The CA is written to a file of the temporary directory
    /// and removed once the service has read it (it reads it while building its clients,
    /// before it listens).
    ///
    /// # Errors
    /// The CA cannot be written, or the service does not start.
    pub fn spawn_trusting(
        exe: &Path,
        rates_url: &str,
        ca_pem: Option<&[u8]>,
        http_version: HttpVersion,
    ) -> Result<Self, ChildError> {
        Self::spawn_trusting_wrapped(None, exe, rates_url, ca_pem, http_version, &[])
    }

    /// [`ApiEndpoint::spawn_trusting`] with the service's process run by `wrapper` (the WAN
    /// suite's `ip netns exec`) and `env` set for it besides.
    ///
    /// # Errors
    /// The CA cannot be written, or the service does not start.
    pub fn spawn_trusting_wrapped(
        wrapper: Option<&Wrapper>,
        exe: &Path,
        rates_url: &str,
        ca_pem: Option<&[u8]>,
        http_version: HttpVersion,
        env: &[(&str, &str)],
    ) -> Result<Self, ChildError> {
        let mut env = env.to_vec();
        env.push(("APP__RATES__HTTP_VERSION", http_version.as_str()));
        let Some(ca) = ca_pem else {
            return Self::spawn_wrapped(wrapper, exe, rates_url, &env);
        };
        let file =
            scratch::temp_file_with("api-ca", "pem", ca).map_err(|source| ChildError::Spawn {
                name: "api",
                source,
            })?;
        let ca_file = file.path().to_string_lossy().into_owned();
        env.push(("APP__RATES__CA_FILE", ca_file.as_str()));
        let spawned = Self::spawn_wrapped(wrapper, exe, rates_url, &env);
        drop(file);
        spawned
    }

    /// A service someone else runs (e.g. docker compose).
    pub fn external(base_url: &str) -> Self {
        Self {
            base_url: base_url.trim_end_matches('/').to_owned(),
            process: None,
        }
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The child's process id, for CPU, memory and file-descriptor readings from /proc;
    /// `None` for a service the bench did not start.
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(ChildProcess::pid)
    }

    /// The service's CPU clock; `None` for a service the bench did not start.
    pub fn cpu(&self) -> Option<&ProcessCpu> {
        self.process.as_ref().map(ChildProcess::cpu)
    }

    /// Holds the service to `cpus` CPUs, a CFS quota per period of `period_us` (see
    /// [`ProcessCpu::limit`]); fails, saying why, for a service the bench did not start or where
    /// no cgroup can be made.
    pub fn limit_cpu(&mut self, cpus: f64, period_us: u64) -> Result<(), String> {
        self.process
            .as_mut()
            .ok_or_else(|| "the service was not started by the bench".to_owned())?
            .cpu_mut()
            .limit(cpus, period_us)
    }

    /// Lifts the quota of [`ApiEndpoint::limit_cpu`].
    pub fn unlimit_cpu(&mut self) -> Result<(), String> {
        self.process
            .as_mut()
            .map_or(Ok(()), |process| process.cpu_mut().unlimit())
    }
}

/// The child's side: run the service on `listen` with `rates_url` as its upstream until the
/// parent goes away. Settings otherwise come from `config/default.toml` and `APP__*`. Logging is
/// off unless `RUST_LOG` is set, so that log lines are not part of what is measured.
pub fn run_child(listen: SocketAddr, rates_url: &str, parent_pid: Option<u32>) -> io::Result<()> {
    crate::alloc::stop_counting();
    child::die_with_parent();
    if child::orphaned(parent_pid) {
        return Ok(());
    }
    let mut settings = Settings::load().map_err(io::Error::other)?;
    settings.server.host = listen.ip().to_string();
    settings.server.port = listen.port();
    rates_url.clone_into(&mut settings.rates.base_url);
    if std::env::var_os("RUST_LOG").is_some() {
        api::telemetry::init(settings.log.format);
    }
    actix_rt::System::new().block_on(async move {
        let application = Application::build(&settings).map_err(io::Error::other)?;
        child::announce(
            READY_PREFIX,
            SocketAddr::new(listen.ip(), application.port()),
            false,
        )?;
        child::on_parent_gone(|| std::process::exit(0))?;
        application.run_until_stopped().await
    })
}
