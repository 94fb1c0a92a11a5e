//! Running the bench: the command line in, the servers started, the suites run, the tables
//! printed and the files written.

use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser as _;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::cli::{Cli, Command, MockChild};
use crate::error::BenchError;
use crate::measure::machine::Sampler;
use crate::servers::mock::TlsChild;
use crate::servers::{self, MockEndpoint, TlsServers};
use crate::suites::{self, SuiteContext};
use crate::upstream;
use bench_report::{baseline, report};

use crate::{env, release};
use bench_model::{NotRunWhy, Results, SuiteName, SuitePart};

mod decide;
mod progress;
mod start;

use decide::{Decided, decide};
use start::{record_servers, start_api, start_mock, start_tls_servers};

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
        Some(Command::MockRates(child)) => serve_mock(&child),
        Some(Command::Report {
            results,
            out,
            tables,
        }) => match rerender(&results, out.as_deref(), tables) {
            Ok(_) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("bench: {error}");
                ExitCode::FAILURE
            }
        },
        Some(Command::Verdict { results, out }) => match compare_runs(&results, out.as_deref()) {
            Ok(text) => {
                print(&text);
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("bench: {error}");
                ExitCode::FAILURE
            }
        },
        Some(Command::Cost {
            client,
            url,
            ca_file,
            http2,
            calls,
        }) => match suites::cost::run_child(client, &url, ca_file.as_deref(), http2, calls) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("cost: {error}");
                ExitCode::FAILURE
            }
        },
        Some(Command::Memory {
            client,
            url,
            ca_file,
            http2,
            burst,
            settle_ms,
        }) => match suites::memory::run_child(
            client,
            &url,
            ca_file.as_deref(),
            http2,
            burst,
            settle_ms,
        ) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("memory: {error}");
                ExitCode::FAILURE
            }
        },
        Some(Command::Resolution { settings, clients }) => {
            match suites::resolution::inside::run_child(&settings, &clients) {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => {
                    eprintln!("resolution: {error}");
                    ExitCode::FAILURE
                }
            }
        }
        None if release::IS_DEBUG_BUILD && !cli.debug_build => {
            let error = release::run_release_instead();
            eprintln!(
                "bench: could not run the release bench through cargo ({error}); build it with \
                 `cargo build --release -p bench`, or pass --debug-build to measure this debug \
                 build"
            );
            ExitCode::FAILURE
        }
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
    // Read the baseline first: a bad file should fail before minutes of measuring.
    let baseline = cli.baseline.as_deref().map(baseline::load).transpose()?;
    let Decided { run, upstream } = decide(cli)?;
    let started = OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .unwrap_or_else(|_| OffsetDateTime::now_utc());
    let environment = env::collect(started.format(&Rfc3339).unwrap_or_default());

    let mock = if let Some(upstream) = &upstream {
        Some(MockEndpoint::foreign(
            &upstream.target.url,
            upstream.ca_pem.clone(),
        ))
    } else if run.plan().needs_mock() {
        Some(start_mock(cli.mock_url.as_deref())?)
    } else {
        None
    };
    // Against an https:// upstream the service is only called over https and h2, by the
    // services of `start_tls_servers`: the plan has no suite drive it over http.
    let api = match (&mock, run.plan().needs_api()) {
        (Some(mock), true) => Some(start_api(cli.api_url.as_deref(), mock.base_url())?),
        _ => None,
    };
    let tls = match &upstream {
        Some(upstream) => {
            upstream::start_tls_servers(&run, &upstream.target, upstream.ca_pem.as_ref())?
        }
        None => start_tls_servers(&run)?,
    };
    let mut results = Results::new(environment, run);
    results.servers = record_servers(mock.as_ref(), api.as_ref(), tls.as_ref());
    let history = target_dir().join("bench-results");
    let mut progress = progress::Progress::new(&results, &history);
    print(&if cli.tables {
        report::header(&results)
    } else {
        report::header_brief(&results)
    });
    print(&format!("{}\n", progress.opening()));
    if let Some(mock) = mock.as_ref().filter(|mock| !mock.is_foreign())
        && let Err(error) = mock.admin().stats()
    {
        eprintln!("bench: connection counts unavailable: {error}");
    }

    let run = results.settings.clone();
    let context = SuiteContext {
        settings: &run,
        mock: mock.as_ref(),
        api: api.as_ref(),
        tls: tls.as_ref().map(TlsServers::stacks).unwrap_or_default(),
    };
    let mut sampler = Sampler::start();
    for &suite in &run.suites {
        print(&format!("{}\n", progress.starting(suite)));
        let _ = sampler.take(suite);
        suites::run(suite, &context, &mut results)?;
        results.machine.push(sampler.take(suite));
    }
    print(&format!("{}\n", progress.finished()));
    drop(sampler);
    drop(context);
    drop(tls);
    drop(api);
    drop(mock);

    results.baseline = baseline.map(|baseline| baseline.compare(&results));
    let dir = cli
        .out
        .clone()
        .unwrap_or_else(|| history.join(directory_stamp(started)));
    std::fs::create_dir_all(&dir).map_err(|source| BenchError::io(&dir, source))?;
    // Before the report is printed: the verdict printed and the one written are the same.
    keep_adoption(&mut results, &dir);
    let results_path = dir.join("results.json");
    report::json::write(&results, &results_path)?;
    // The terminal and the files are rendered once, from results.json as written and read
    // back, as `bench report` renders them: serde_json's default float parsing can land a last
    // bit off the value written, and a figure at a rounding boundary (364.125 us) would then
    // print apart.
    let results = report::json::read(&results_path)?;
    let rendering = report::Rendering::of(&results);
    write_report(&rendering, &dir)?;
    print_answer(&rendering, &dir, cli.tables);
    Ok(RunOutput { results, dir })
}

/// The adoption figures kept across runs on this machine: a run that built the probes stores
/// them; a run that did not takes the stored ones when nothing they depend on changed, and
/// says why not otherwise (in the report, beside how to run the suite).
fn keep_adoption(results: &mut Results, dir: &Path) {
    let target = target_dir();
    if results.settings.suites.contains(&SuiteName::Adoption) {
        if let Err(why) = suites::adoption::store_measured(
            &results.settings,
            &results.environment,
            &results.adoption,
            (&target, dir),
        ) {
            eprintln!("bench: adoption: not stored for later runs: {why}");
        }
        return;
    }
    match suites::adoption::stored(&results.settings, &results.environment, &target) {
        Ok(Some(stored)) => {
            if let Some(from) = &stored.stored_from {
                eprintln!(
                    "bench: adoption: the figures of the run of {} ({}), stored on this \
                     machine, decide the adoption criteria: nothing they depend on changed",
                    from.measured_utc, from.run
                );
            }
            results.adoption = stored;
        }
        Ok(None) => {}
        Err(error) => suites::not_run(
            results,
            SuiteName::Adoption,
            Some(SuitePart::StoredAdoption),
            NotRunWhy::Failed { error },
        ),
    }
}

/// report.md, report.html and the charts of `rendering`, into `dir`; the charts' file names.
fn write_report(rendering: &report::Rendering, dir: &Path) -> Result<Vec<String>, BenchError> {
    let charts = report::write_charts(rendering, dir)?;
    let markdown = report::markdown(rendering, &charts);
    let report_path = dir.join("report.md");
    std::fs::write(&report_path, markdown)
        .map_err(|source| BenchError::io(&report_path, source))?;
    let inline = charts
        .iter()
        .map(|name| {
            let path = dir.join(name);
            std::fs::read_to_string(&path)
                .map(|svg| report::Chart {
                    name: name.clone(),
                    svg,
                })
                .map_err(|source| BenchError::io(&path, source))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let html_path = dir.join("report.html");
    std::fs::write(&html_path, report::html(rendering, &inline))
        .map_err(|source| BenchError::io(&html_path, source))?;
    Ok(charts)
}

/// The answer of `rendering`, whose report is in `dir`; with `tables` every table before it.
fn print_answer(rendering: &report::Rendering, dir: &Path, tables: bool) {
    if tables {
        print(&report::terminal(rendering));
    }
    print(&report::answer(rendering, dir));
}

/// `bench report RESULTS.json`: a saved run's report and charts written again into `out` (or
/// beside the file), and its answer printed (with `tables`, its header and tables too); the
/// directory written.
fn rerender(path: &Path, out: Option<&Path>, tables: bool) -> Result<PathBuf, BenchError> {
    let results = report::json::read(path)?;
    let dir = out.map_or_else(
        || {
            path.parent()
                .filter(|parent| !parent.as_os_str().is_empty())
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
        },
        Path::to_path_buf,
    );
    std::fs::create_dir_all(&dir).map_err(|source| BenchError::io(&dir, source))?;
    print(&if tables {
        report::header(&results)
    } else {
        report::header_brief(&results)
    });
    let rendering = report::Rendering::of(&results);
    write_report(&rendering, &dir)?;
    print_answer(&rendering, &dir, tables);
    Ok(dir)
}

/// `bench verdict A.json B.json ...`: the runs' verdicts side by side, printed, and written as
/// Markdown to `out` when given.
fn compare_runs(paths: &[PathBuf], out: Option<&Path>) -> Result<String, BenchError> {
    let runs = paths
        .iter()
        .map(|path| report::json::read(path))
        .collect::<Result<Vec<_>, _>>()?;
    let labels: Vec<String> = paths
        .iter()
        .zip(&runs)
        .map(|(path, results)| format!("{} ({})", path.display(), results.environment.started_utc))
        .collect();
    let section = report::agreement(&runs, &labels);
    if let Some(out) = out {
        std::fs::write(out, section.markdown()).map_err(|source| BenchError::io(out, source))?;
    }
    Ok(section.terminal())
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

/// The hidden `__mock-rates` sub-command: mock-rates served in this process.
fn serve_mock(child: &MockChild) -> ExitCode {
    let tls = child
        .ca_out
        .as_deref()
        .filter(|_| child.tls)
        .map(|ca_out| TlsChild {
            ca_out,
            resumption: !child.no_resumption,
            max_concurrent_streams: child.max_concurrent_streams,
            identity: child.tls_identity.as_deref(),
        });
    match servers::mock::run_child(child.listen, child.cpu, tls.as_ref(), child.parent_pid) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mock-rates: {error}");
            ExitCode::FAILURE
        }
    }
}
