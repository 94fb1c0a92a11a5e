//! The `mock-rates` binary: flags and environment in, a running server out.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use mock_rates::{
    AdminToken, ContentType, DnsServer, DnsSettings, FaultMode, Faults, Framing, IdleTimeout,
    MockState, Settings, TimestampUnit, TlsSettings, serve,
};

/// A local exchange-rate server in the Free Forex API's format, with faults on demand.
///
/// Every flag but --probe can also be set with an environment variable `MOCK_RATES_<FLAG>`.
#[derive(Debug, Parser)]
#[command(name = "mock-rates", version, about)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "each is an on/off switch of the command line, as clap reads it"
)]
struct Cli {
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, env = "MOCK_RATES_LISTEN", default_value = "127.0.0.1:8081")]
    listen: String,
    /// Content type of /api/live answers (the real API sends html).
    #[arg(long, env = "MOCK_RATES_CONTENT_TYPE", value_enum, default_value_t = ContentType::Json)]
    content_type: ContentType,
    /// Send /api/live bodies with Transfer-Encoding: chunked instead of Content-Length.
    #[arg(long, env = "MOCK_RATES_CHUNKED", value_parser = clap::builder::BoolishValueParser::new())]
    chunked: bool,
    /// Unit of rate timestamps.
    #[arg(long, env = "MOCK_RATES_TIMESTAMP", value_enum, default_value_t = TimestampUnit::Seconds)]
    timestamp: TimestampUnit,
    /// Fault injected into /api/live answers.
    #[arg(long, env = "MOCK_RATES_FAULT", value_enum, default_value_t = FaultMode::None)]
    fault: FaultMode,
    /// Chance in percent that a request gets the fault.
    #[arg(long, env = "MOCK_RATES_FAULT_PERCENT", default_value_t = 100,
          value_parser = clap::value_parser!(u8).range(0..=100))]
    fault_percent: u8,
    /// Status sent by the `status` fault.
    #[arg(long, env = "MOCK_RATES_FAULT_STATUS", default_value_t = 500,
          value_parser = clap::value_parser!(u16).range(200..=599))]
    fault_status: u16,
    /// Delay added to every /api/live answer, in milliseconds.
    #[arg(long, env = "MOCK_RATES_LATENCY_MS", default_value_t = 0)]
    latency_ms: u64,
    /// Extra random delay, uniform in 0..=jitter, in milliseconds.
    #[arg(long, env = "MOCK_RATES_JITTER_MS", default_value_t = 0)]
    jitter_ms: u64,
    /// Seed of the generator behind fault percentages and jitter.
    #[arg(long, env = "MOCK_RATES_SEED", default_value_t = 42)]
    seed: u64,
    /// Idle keep-alive timeout in seconds (0 closes after every answer).
    #[arg(long, env = "MOCK_RATES_KEEP_ALIVE_SECS", default_value_t = 5)]
    keep_alive_secs: u64,
    /// Close connections idle this long (no request in flight, none being read), in place of
    /// the keep-alive: HTTP/1.1 with a bare close, HTTP/2 with GOAWAY then a close. Also
    /// `PUT /__admin/idle-timeout` at run time. Unset: the keep-alive alone decides.
    #[arg(long, env = "MOCK_RATES_IDLE_TIMEOUT_MS", value_name = "MS",
          value_parser = clap::value_parser!(u64).range(1..=IdleTimeout::MAX_MS))]
    idle_timeout_ms: Option<u64>,
    /// Serve HTTPS, with a CA and a certificate for localhost and 127.0.0.1 made at start.
    #[arg(long, env = "MOCK_RATES_TLS", value_parser = clap::builder::BoolishValueParser::new())]
    tls: bool,
    /// Refuse TLS session resumption, so every connection pays a full handshake.
    #[arg(long, env = "MOCK_RATES_NO_RESUMPTION", requires = "tls",
          value_parser = clap::builder::BoolishValueParser::new())]
    no_resumption: bool,
    /// Offer only HTTP/1.1 by ALPN, not h2, so clients that insist on HTTP/2 are refused.
    #[arg(long, env = "MOCK_RATES_NO_HTTP2", requires = "tls",
          value_parser = clap::builder::BoolishValueParser::new())]
    no_http2: bool,
    /// SETTINGS_MAX_CONCURRENT_STREAMS of each HTTP/2 connection (128 when unset, as nginx).
    #[arg(long, env = "MOCK_RATES_MAX_CONCURRENT_STREAMS", value_name = "N", requires = "tls",
          value_parser = clap::value_parser!(u32).range(1..))]
    max_concurrent_streams: Option<u32>,
    /// Write the CA's certificate (PEM) to this file before announcing the address.
    #[arg(long, env = "MOCK_RATES_CA_OUT", value_name = "PATH", requires = "tls")]
    ca_out: Option<PathBuf>,
    /// The token `/__admin/*` requires of every peer (`Authorization: Bearer TOKEN`). Without
    /// one, the admin endpoints answer loopback peers only: give one to reconfigure a mock that
    /// listens beyond loopback from elsewhere.
    #[arg(
        long,
        env = "MOCK_RATES_ADMIN_TOKEN",
        value_name = "TOKEN",
        hide_env_values = true
    )]
    admin_token: Option<String>,
    /// Also answer DNS on this UDP address: every A question for any name gets --dns-answer,
    /// AAAA questions no address (for resolution tests: point a resolv.conf at it).
    #[arg(long, env = "MOCK_RATES_DNS_LISTEN", value_name = "ADDR")]
    dns_listen: Option<std::net::SocketAddr>,
    /// The address every DNS A question gets.
    #[arg(
        long,
        env = "MOCK_RATES_DNS_ANSWER",
        default_value = "127.0.0.1",
        requires = "dns_listen"
    )]
    dns_answer: std::net::Ipv4Addr,
    /// How long each DNS answer waits, in milliseconds.
    #[arg(
        long,
        env = "MOCK_RATES_DNS_DELAY_MS",
        default_value_t = 0,
        requires = "dns_listen"
    )]
    dns_delay_ms: u64,
    /// Tokio worker threads.
    #[arg(long, env = "MOCK_RATES_THREADS", default_value_t = 2,
          value_parser = clap::value_parser!(u16).range(1..))]
    threads: u16,
    /// Instead of serving, GET this URL once and exit 0 on a 200 (for health checks).
    // No environment variable on purpose: one set in a container would stop the server starting.
    #[arg(long, value_name = "URL")]
    probe: Option<String>,
}

impl Cli {
    fn settings(&self) -> Settings {
        Settings {
            content_type: self.content_type,
            framing: if self.chunked {
                Framing::Chunked
            } else {
                Framing::ContentLength
            },
            timestamp_unit: self.timestamp,
            faults: Faults {
                mode: self.fault,
                percent: self.fault_percent,
                status: self.fault_status,
                latency_ms: self.latency_ms,
                jitter_ms: self.jitter_ms,
            },
            seed: self.seed,
            keep_alive: Duration::from_secs(self.keep_alive_secs),
            idle_timeout: self.idle_timeout_ms.map(Duration::from_millis),
            tls: self.tls.then_some(TlsSettings {
                resumption: !self.no_resumption,
                http2: !self.no_http2,
                max_concurrent_streams: self.max_concurrent_streams,
                ..TlsSettings::default()
            }),
            admin_token: self.admin_token.clone().and_then(AdminToken::new),
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(message) = cli.settings().faults.validate() {
        eprintln!("mock-rates: invalid faults: {message}");
        return ExitCode::from(2);
    }
    if let Some(url) = &cli.probe {
        return health_probe::run("mock-rates", url);
    }
    if cli.admin_token.as_deref() == Some("") {
        eprintln!(
            "mock-rates: --admin-token (MOCK_RATES_ADMIN_TOKEN) is empty; give a token or none"
        );
        return ExitCode::from(2);
    }
    // Logs go to stderr: stdout carries only the line the bench parses.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!(%error, listen = %cli.listen, "mock-rates failed");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: &Cli) -> std::io::Result<()> {
    // Kept until the server stops; dropping it stops the DNS server too.
    let _dns = cli
        .dns_listen
        .map(|addr| {
            let server = DnsServer::start(
                addr,
                DnsSettings {
                    answer: cli.dns_answer,
                    delay: Duration::from_millis(cli.dns_delay_ms),
                    ..DnsSettings::default()
                },
            )?;
            tracing::info!(addr = %server.addr(), "answering DNS");
            Ok::<_, std::io::Error>(server)
        })
        .transpose()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(usize::from(cli.threads))
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(&cli.listen).await?;
        let addr = listener.local_addr()?;
        let stop = stop_signal()?;
        let settings = cli.settings();
        tracing::info!(?settings, "settings");
        if settings.admin_token.is_none() && !addr.ip().is_loopback() {
            tracing::info!(
                %addr,
                "no --admin-token: the admin endpoints answer loopback peers only"
            );
        }
        let state = MockState::try_new(settings)?;
        if let (Some(pem), Some(path)) = (state.ca_pem(), &cli.ca_out) {
            // Written before the announce line, so whoever reads that line finds the file.
            std::fs::write(path, pem).map_err(|error| {
                std::io::Error::new(
                    error.kind(),
                    format!("could not write the CA to {}: {error}", path.display()),
                )
            })?;
        }
        let scheme = if state.ca_pem().is_some() {
            "https"
        } else {
            "http"
        };
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "mock-rates listening on {scheme}://{addr}")?;
        stdout.flush()?;
        drop(stdout);
        serve(listener, state, stop).await?;
        tracing::info!("mock-rates stopped");
        Ok(())
    })
}

/// Resolves on Ctrl-C or SIGTERM (what `docker stop` sends).
///
/// The handlers are installed when this is called, not when the future is first polled, so
/// a signal sent right after the address is announced stops the server instead of killing it.
#[cfg(unix)]
fn stop_signal() -> std::io::Result<impl Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
    })
}

/// Resolves on Ctrl-C.
#[cfg(not(unix))]
fn stop_signal() -> std::io::Result<impl Future<Output = ()>> {
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}
