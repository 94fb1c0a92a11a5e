//! Running the bench: the command line in, the servers started, the suites run, the tables
//! printed and the files written.

use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser as _;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::cli::{self, Cli, Command};
use crate::error::BenchError;
use crate::model::Results;
use crate::servers::{self, ApiEndpoint, MockEndpoint};
use crate::suites::{self, SuiteContext};
use crate::{baseline, env, report};

/// The process entry point.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Api {
            listen,
            rates_url,
            parent_pid,
        }) => match servers::api::run_child(listen, &rates_url, parent_pid) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("api: {error}");
                ExitCode::FAILURE
            }
        },
        Some(Command::MockRates {
            listen,
            cpu,
            tls,
            ca_out,
            no_resumption,
            parent_pid,
        }) => match servers::mock::run_child(
            listen,
            cpu,
            ca_out.as_deref().filter(|_| tls),
            !no_resumption,
            parent_pid,
        ) {
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
    let mut settings = cli::resolve(cli);
    // Read the baseline first: a bad file should fail before minutes of measuring.
    let baseline = cli.baseline.as_deref().map(baseline::load).transpose()?;
    let started = OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .unwrap_or_else(|_| OffsetDateTime::now_utc());
    let environment = env::collect(started.format(&Rfc3339).unwrap_or_default());

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
    print(&report::header(&environment, &settings));
    if let Some(mock) = &mock
        && let Err(error) = mock.admin().stats()
    {
        eprintln!("bench: connection counts unavailable: {error}");
    }

    let mut results = Results::new(environment, settings.clone());
    let context = SuiteContext {
        settings: &settings,
        mock: mock.as_ref(),
        api: api.as_ref(),
    };
    for &suite in &settings.suites {
        suites::run(suite, &context, &mut results)?;
    }
    drop(api);
    drop(mock);

    results.baseline = baseline.map(|baseline| baseline.compare(&results.latency, &results.decode));
    print(&report::terminal(&results));

    let dir = cli.out.clone().unwrap_or_else(|| {
        target_dir()
            .join("bench-results")
            .join(directory_stamp(started))
    });
    std::fs::create_dir_all(&dir).map_err(|source| BenchError::io(&dir, source))?;
    report::json::write(&results, &dir.join("results.json"))?;
    let charts = report::write_charts(&results, &dir)?;
    let markdown = report::markdown(&results, &charts);
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
