//! The comparison of the five rates adapters: suites that measure, reports that present.
//!
//! `main` parses the command line and either runs the suites ([`run`]) or, as the hidden
//! `__mock-rates` sub-command, serves mock-rates for a parent bench process.

pub mod affinity;
pub mod alloc;
pub mod api_process;
pub mod baseline;
pub mod child;
pub mod cli;
pub mod clients;
pub mod env;
pub mod mock_process;
pub mod report;
pub mod stats;
pub mod suites;

use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser as _;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::api_process::ApiEndpoint;
use crate::cli::{Cli, Command, RunSettings};
use crate::env::Environment;
use crate::mock_process::{MockEndpoint, MockError};
use crate::report::json::Results;
use crate::suites::{SuiteContext, SuiteName};

/// Why a run stopped.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(transparent)]
    Mock(#[from] MockError),
    #[error("the {0} suite needs mock-rates, and none was started")]
    NoMock(SuiteName),
    #[error("the {0} suite needs the payment service, and none was started")]
    NoApi(SuiteName),
    #[error("--api-url must be an http:// URL, got {0:?}")]
    ApiUrl(String),
    #[error(transparent)]
    Child(#[from] crate::child::ChildError),
    #[error("--mock-url must be an http:// URL, got {0:?}")]
    MockUrl(String),
    #[error(transparent)]
    Build(#[from] rates_common::BuildError),
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
    #[error("cannot write results.json: {0}")]
    Json(#[source] serde_json::Error),
    #[error("baseline: {0}")]
    Baseline(String),
    #[error("decode suite: {0}")]
    Decode(String),
    #[error("faults suite: {0}")]
    Faults(String),
    #[error("load suite: {0}")]
    Load(String),
    #[error("cannot draw chart {0}")]
    Chart(String),
}

impl BenchError {
    pub fn io(path: &Path, source: io::Error) -> Self {
        Self::Io {
            path: path.display().to_string(),
            source,
        }
    }
}

/// The process entry point.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Api {
            listen,
            rates_url,
            parent_pid,
        }) => match api_process::run_child(listen, &rates_url, parent_pid) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("api: {error}");
                ExitCode::FAILURE
            }
        },
        Some(Command::MockRates {
            listen,
            cpu,
            parent_pid,
        }) => match mock_process::run_child(listen, cpu, parent_pid) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("mock-rates: {error}");
                ExitCode::FAILURE
            }
        },
        None => match run(&cli) {
            Ok(_) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("bench: {error}");
                ExitCode::FAILURE
            }
        },
    }
}

/// What a finished run left behind.
#[derive(Debug)]
pub struct RunOutput {
    pub results: Results,
    pub dir: PathBuf,
}

/// Runs the selected suites, prints the tables and writes the files.
pub fn run(cli: &Cli) -> Result<RunOutput, BenchError> {
    let mut settings = RunSettings::from_cli(cli);
    // Read the baseline first: a bad file should fail before minutes of measuring.
    let baseline = cli.baseline.as_deref().map(baseline::load).transpose()?;
    let started = OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .unwrap_or_else(|_| OffsetDateTime::now_utc());
    let environment = Environment::collect(started.format(&Rfc3339).unwrap_or_default());

    let needs_api = settings.suites.iter().any(|suite| suite.needs_api());
    let mock = if needs_api || settings.suites.iter().any(|suite| suite.needs_mock()) {
        Some(start_mock(cli.mock_url.as_deref())?)
    } else {
        None
    };
    if let Some(mock) = mock.as_ref().filter(|mock| mock.is_child()) {
        settings.mock = format!("child process at {}", mock.base_url());
    }
    let api = match (&mock, needs_api) {
        (Some(mock), true) => Some(start_api(cli.api_url.as_deref(), mock.base_url())?),
        _ => None,
    };
    if let Some(api) = api.as_ref().filter(|api| api.pid().is_some()) {
        settings.api = format!("child process at {}", api.base_url());
    }
    print(&report::terminal::header(&environment, &settings));
    if let Some(mock) = &mock
        && let Err(error) = mock.stats()
    {
        eprintln!("bench: connection counts unavailable: {error}");
    }

    let mut results = Results::new(environment, settings.clone());
    let context = SuiteContext {
        settings: &settings,
        mock: mock.as_ref(),
        api: api.as_ref(),
    };
    for suite in &settings.suites {
        suite.run(&context, &mut results)?;
    }
    drop(api);
    drop(mock);

    results.baseline = baseline.map(|baseline| baseline.compare(&results.latency, &results.decode));
    print(&report::terminal::tables(&results));

    let dir = cli.out.clone().unwrap_or_else(|| {
        target_dir()
            .join("bench-results")
            .join(directory_stamp(started))
    });
    std::fs::create_dir_all(&dir).map_err(|source| BenchError::io(&dir, source))?;
    report::json::write(&results, &dir.join("results.json"))?;
    let charts = report::svg::write_charts(&results, &dir)?;
    let markdown = report::markdown::render(&results, &charts);
    let report_path = dir.join("report.md");
    std::fs::write(&report_path, markdown)
        .map_err(|source| BenchError::io(&report_path, source))?;
    print(&format!(
        "\nWrote {} (results.json, report.md, {})\n",
        dir.display(),
        charts.join(", ")
    ));
    Ok(RunOutput { results, dir })
}

fn start_mock(url: Option<&str>) -> Result<MockEndpoint, BenchError> {
    match url {
        Some(url) if url.starts_with("http://") => Ok(MockEndpoint::external(url)),
        Some(url) => Err(BenchError::MockUrl(url.to_owned())),
        None => {
            let exe = std::env::current_exe()
                .map_err(|source| BenchError::io(Path::new("the bench executable"), source))?;
            Ok(MockEndpoint::spawn(&exe)?)
        }
    }
}

fn start_api(url: Option<&str>, rates_url: &str) -> Result<ApiEndpoint, BenchError> {
    match url {
        Some(url) if url.starts_with("http://") => Ok(ApiEndpoint::external(url)),
        Some(url) => Err(BenchError::ApiUrl(url.to_owned())),
        None => {
            let exe = std::env::current_exe()
                .map_err(|source| BenchError::io(Path::new("the bench executable"), source))?;
            Ok(ApiEndpoint::spawn(&exe, rates_url)?)
        }
    }
}

fn print(text: &str) {
    let mut stdout = io::stdout().lock();
    // A closed stdout (`bench | head`) must not abort the run: the files are still written.
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

/// `2026-05-01T12-30-45Z`: sortable, and no colons for the file systems that refuse them.
fn directory_stamp(time: OffsetDateTime) -> String {
    format!(
        "{:04}-{:02}-{:02}T{:02}-{:02}-{:02}Z",
        time.year(),
        u8::from(time.month()),
        time.day(),
        time.hour(),
        time.minute(),
        time.second()
    )
}

/// Cargo's target directory: `CARGO_TARGET_DIR`, else the nearest ancestor of this executable
/// holding Cargo's `CACHEDIR.TAG`, else `./target`.
fn target_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(dir);
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            exe.ancestors()
                .skip(1)
                .find(|dir| dir.join("CACHEDIR.TAG").is_file())
                .map(Path::to_path_buf)
        })
        .unwrap_or_else(|| PathBuf::from("target"))
}
