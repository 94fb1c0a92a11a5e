//! One round of a release's scenarios, each a run of its probe, its JSON line read and checked;
//! and its instructions per call under callgrind.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::project::Probe;
use super::upstreams::Upstreams;
use crate::process::{Cmd, Found, Missing, RunError};
use crate::suites::cost::{parse_totals, under_callgrind};
use bench_model::{FigureNotMeasured, Protocol, ReleaseFigure, ReleaseMeasure, ReleasesSettings};

/// The most one run of a probe may take (a hundred 1 MiB answers, a held body) before it is
/// stopped and its figure is a failure.
const RUN_LIMIT: Duration = Duration::from_secs(120);
/// Under callgrind, fifty times slower.
const CALLGRIND_LIMIT: Duration = Duration::from_secs(600);

/// What one figure gathered over the rounds.
#[derive(Debug, Default)]
struct Gathered {
    rounds: Vec<f64>,
    version: Option<String>,
    outcome: Option<String>,
    /// The first failure: a figure with a failed round is no figure.
    failed: Option<FigureNotMeasured>,
}

/// A release's figures as the rounds gather them.
#[derive(Debug, Default)]
pub struct Measured {
    figures: BTreeMap<(u8, u8), (ReleaseMeasure, Protocol, Gathered)>,
}

impl Measured {
    fn entry(&mut self, measure: ReleaseMeasure, protocol: Protocol) -> &mut Gathered {
        let key = (
            ReleaseMeasure::ALL
                .iter()
                .position(|&m| m == measure)
                .unwrap_or(0) as u8,
            Protocol::ALL
                .iter()
                .position(|&p| p == protocol)
                .unwrap_or(0) as u8,
        );
        &mut self
            .figures
            .entry(key)
            .or_insert_with(|| (measure, protocol, Gathered::default()))
            .2
    }

    fn add(&mut self, measure: ReleaseMeasure, protocol: Protocol, value: f64) {
        let gathered = self.entry(measure, protocol);
        if gathered.failed.is_none() {
            gathered.rounds.push(value);
        }
    }

    fn fail(&mut self, measures: &[ReleaseMeasure], protocol: Protocol, why: &FigureNotMeasured) {
        for &measure in measures {
            let gathered = self.entry(measure, protocol);
            gathered.failed.get_or_insert_with(|| why.clone());
            gathered.rounds.clear();
        }
    }

    /// The figures, in table order.
    pub fn figures(self) -> Vec<ReleaseFigure> {
        self.figures
            .into_values()
            .map(|(measure, protocol, gathered)| ReleaseFigure {
                measure,
                protocol,
                rounds: gathered.rounds,
                version: gathered.version,
                outcome: gathered.outcome,
                not_measured: gathered.failed,
            })
            .collect()
    }
}

/// The version a protocol's answers must come over; an h2 answer over HTTP/1.1 means the
/// release does not negotiate HTTP/2 with its defaults.
fn expected_version(protocol: Protocol) -> &'static str {
    match protocol {
        Protocol::Http | Protocol::Https => "HTTP/1.1",
        Protocol::H2 => "HTTP/2",
    }
}

/// Why an answer's version is not the protocol's, when it is not.
fn wrong_version(protocol: Protocol, version: &str) -> Option<FigureNotMeasured> {
    (version != expected_version(protocol)).then(|| FigureNotMeasured::WrongVersion {
        version: version.to_owned(),
    })
}

/// One round of every scenario of `probe`.
pub fn round(
    probe: &Probe,
    upstreams: &Upstreams,
    settings: &ReleasesSettings,
    measured: &mut Measured,
) {
    use ReleaseMeasure::{
        Allocations, ConcurrentCpu, ConcurrentSlowest, ConcurrentWall, HalfCloseCpu, Latency,
        NewConnection,
    };
    let number = |value: u32| value.to_string();
    for protocol in Protocol::ALL {
        let (url, ca) = upstreams.rates(protocol);
        let mut args = vec![
            "pooled".to_owned(),
            "--url".to_owned(),
            url.clone(),
            "--calls".to_owned(),
            number(settings.calls),
            "--warmup".to_owned(),
            number(settings.warmup),
        ];
        with_ca(&mut args, ca);
        match run(&probe.binary, &args, RUN_LIMIT).and_then(|out| checked(out, protocol)) {
            Ok(out) => {
                measured.add(Latency, protocol, field(&out, "mean_ns") / 1e3);
                measured.add(Allocations, protocol, field(&out, "allocations_per_call"));
                measured.entry(Latency, protocol).version = version(&out);
            }
            Err(why) => measured.fail(&[Latency, Allocations], protocol, &why),
        }
    }

    let (url, ca) = upstreams.rates(Protocol::Https);
    let mut args = vec![
        "fresh".to_owned(),
        "--url".to_owned(),
        url,
        "--calls".to_owned(),
        number(settings.fresh_calls),
        "--warmup".to_owned(),
        "2".to_owned(),
    ];
    with_ca(&mut args, ca);
    match run(&probe.binary, &args, RUN_LIMIT).and_then(|out| checked(out, Protocol::Https)) {
        Ok(out) => {
            measured.add(NewConnection, Protocol::Https, field(&out, "mean_ns") / 1e3);
            measured.entry(NewConnection, Protocol::Https).version = version(&out);
        }
        Err(why) => measured.fail(&[NewConnection], Protocol::Https, &why),
    }

    for protocol in [Protocol::Http, Protocol::H2] {
        let (url, ca) = upstreams.rates(protocol);
        let mut args = vec![
            "concurrent".to_owned(),
            "--url".to_owned(),
            format!("{url}&size={}", settings.large_bytes),
            "--concurrency".to_owned(),
            number(settings.concurrency),
            "--expect-bytes".to_owned(),
            settings.large_bytes.to_string(),
        ];
        with_ca(&mut args, ca);
        let all = [ConcurrentWall, ConcurrentSlowest, ConcurrentCpu];
        match run(&probe.binary, &args, RUN_LIMIT).and_then(|out| checked(out, protocol)) {
            Ok(out) => {
                measured.add(ConcurrentWall, protocol, field(&out, "wall_ns") / 1e6);
                measured.add(ConcurrentSlowest, protocol, field(&out, "max_ns") / 1e6);
                measured.add(ConcurrentCpu, protocol, field(&out, "cpu_ns") / 1e6);
                measured.entry(ConcurrentWall, protocol).version = version(&out);
            }
            Err(why) => measured.fail(&all, protocol, &why),
        }
    }

    let heads = upstreams.half_closing.heads();
    let args = vec![
        "half-close".to_owned(),
        "--url".to_owned(),
        upstreams.half_closing.url(),
        "--hold-ms".to_owned(),
        settings.hold_ms.to_string(),
    ];
    let outcome = run(&probe.binary, &args, RUN_LIMIT).and_then(|out| {
        if upstreams.half_closing.heads() == heads {
            Err(FigureNotMeasured::NeverReached)
        } else {
            Ok(out)
        }
    });
    match outcome {
        Ok(out) => {
            measured.add(HalfCloseCpu, Protocol::Http, field(&out, "cpu_ns") / 1e6);
            measured.entry(HalfCloseCpu, Protocol::Http).outcome =
                out["outcome"].as_str().map(str::to_owned);
        }
        Err(why) => measured.fail(&[HalfCloseCpu], Protocol::Http, &why),
    }
}

fn with_ca(args: &mut Vec<String>, ca: Option<&Path>) {
    if let Some(ca) = ca {
        args.push("--ca".to_owned());
        args.push(ca.display().to_string());
    }
}

fn field(out: &Value, name: &str) -> f64 {
    out[name].as_f64().unwrap_or(f64::NAN)
}

fn version(out: &Value) -> Option<String> {
    out["version"].as_str().map(str::to_owned)
}

/// The output, when its answers came over the protocol's version.
fn checked(out: Value, protocol: Protocol) -> Result<Value, FigureNotMeasured> {
    match out["version"]
        .as_str()
        .and_then(|v| wrong_version(protocol, v))
    {
        Some(why) => Err(why),
        None => Ok(out),
    }
}

/// Runs the probe with `args` for at most `limit`; its JSON line, or why there is none (its
/// own error line: `not measured: ...` where its API cannot do the scenario).
fn run(binary: &Path, args: &[String], limit: Duration) -> Result<Value, FigureNotMeasured> {
    run_command(&Cmd::new(binary).args(args), limit)
}

fn run_command(command: &Cmd, limit: Duration) -> Result<Value, FigureNotMeasured> {
    let (success, status, out, err) = match command.clone().deadline(limit).run() {
        Ok(finished) => (
            finished.success(),
            finished.status.to_string(),
            finished.stdout_text(),
            finished.stderr_text(),
        ),
        // Its JSON error line, when it printed one before it was killed, still says why.
        Err(RunError::Killed {
            signal,
            stdout,
            stderr,
            ..
        }) => (
            false,
            format!("killed by signal {signal}"),
            String::from_utf8_lossy(&stdout).into_owned(),
            String::from_utf8_lossy(&stderr).into_owned(),
        ),
        Err(error) => {
            return Err(FigureNotMeasured::ProbeNotRun {
                error: error.to_string(),
            });
        }
    };
    let line = out.lines().rev().find(|line| line.starts_with('{'));
    let value: Option<Value> = line.and_then(|line| serde_json::from_str(line).ok());
    match value {
        Some(value) if value.get("error").is_some() => Err(FigureNotMeasured::Probe {
            error: value["error"].as_str().unwrap_or("an error").to_owned(),
        }),
        Some(value) if success => Ok(value),
        _ => Err(FigureNotMeasured::ProbeFailed {
            status,
            stderr: err.lines().rev().take(4).collect::<Vec<_>>().join(" / "),
        }),
    }
}

/// Instructions per pooled call over http: callgrind counts the probe's whole run at each of
/// `settings.instruction_calls`; the difference between consecutive runs over their calls is
/// one round (start-up, the client's construction and the warm-up cancel out).
pub fn instructions(
    probe: &Probe,
    upstreams: &Upstreams,
    settings: &ReleasesSettings,
    valgrind: Result<&Found, &Missing>,
    scratch: &Path,
    measured: &mut Measured,
) {
    let measure = ReleaseMeasure::Instructions;
    let Ok(valgrind) = valgrind else {
        measured.fail(&[measure], Protocol::Http, &FigureNotMeasured::NoValgrind);
        return;
    };
    let (url, _) = upstreams.rates(Protocol::Http);
    let mut totals = Vec::new();
    for &calls in &settings.instruction_calls {
        let profile = scratch.join(format!("callgrind-{calls}.out"));
        let command = under_callgrind(valgrind, &profile)
            .arg("--quiet")
            .arg(&probe.binary)
            .args(["pooled", "--url", &url, "--warmup", "10", "--calls"])
            .arg(calls.to_string());
        let counted = run_command(&command, CALLGRIND_LIMIT).and_then(|_| {
            let text =
                std::fs::read_to_string(&profile).map_err(|error| FigureNotMeasured::Profile {
                    error: error.to_string(),
                })?;
            parse_totals(&text).ok_or(FigureNotMeasured::NoTotals)
        });
        let _ = std::fs::remove_file(&profile);
        match counted {
            Ok(total) => totals.push((calls, total)),
            Err(why) => {
                let why = FigureNotMeasured::Callgrind {
                    failure: Box::new(why),
                };
                measured.fail(&[measure], Protocol::Http, &why);
                return;
            }
        }
    }
    for pair in totals.windows(2) {
        let (calls, total) = pair[0];
        let (more_calls, more_total) = pair[1];
        measured.add(
            measure,
            Protocol::Http,
            (more_total as f64 - total as f64) / f64::from(more_calls - calls),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_h2_answer_over_http_1_1_is_not_an_h2_figure() {
        assert!(wrong_version(Protocol::H2, "HTTP/2").is_none());
        assert_eq!(
            wrong_version(Protocol::H2, "HTTP/1.1"),
            Some(FigureNotMeasured::WrongVersion {
                version: "HTTP/1.1".to_owned()
            })
        );
        assert!(wrong_version(Protocol::Https, "HTTP/1.1").is_none());
        assert!(wrong_version(Protocol::Http, "HTTP/2").is_some());
    }

    #[test]
    fn a_failed_round_leaves_no_figure_and_says_why() {
        let mut measured = Measured::default();
        measured.add(ReleaseMeasure::Latency, Protocol::Http, 50.0);
        let why = FigureNotMeasured::Probe {
            error: "status 500".to_owned(),
        };
        measured.fail(&[ReleaseMeasure::Latency], Protocol::Http, &why);
        measured.add(ReleaseMeasure::Latency, Protocol::Http, 51.0);
        measured.add(ReleaseMeasure::Latency, Protocol::Https, 70.0);
        let figures = measured.figures();
        assert_eq!(figures.len(), 2);
        assert_eq!(figures[0].protocol, Protocol::Http);
        assert!(figures[0].rounds.is_empty());
        assert_eq!(figures[0].not_measured, Some(why));
        assert_eq!(figures[1].rounds, vec![70.0]);
    }
}
