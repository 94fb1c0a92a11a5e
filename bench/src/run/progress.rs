//! The run's progress on stdout, a line as each suite starts (so a log shows it too, where the
//! suites' own bars on stderr are hidden): the suite, its share of the run and the time left,
//! estimated from how long each suite took in the newest earlier run of this machine of the
//! same size (`--quick` or not), else from a run on a 2-vCPU VM.

use std::path::Path;
use std::time::{Duration, Instant};

use bench_model::{Results, SuiteName};
use bench_report::report;

/// How long each suite took, in seconds, measured on a 2-vCPU Intel Xeon VM (the median of
/// three default runs of `29aed10` and a `--quick` run of it, 2026-12-07; adoption and releases
/// from their own runs there): the estimate when this machine has no earlier run of the suite.
fn typical_seconds(suite: SuiteName, quick: bool) -> f64 {
    let (default, quick_run) = match suite {
        SuiteName::Dependencies => (2.0, 2.0),
        SuiteName::Latency => (83.0, 5.0),
        SuiteName::Connections => (44.0, 6.0),
        SuiteName::Memory => (36.0, 19.0),
        SuiteName::Idle => (44.0, 22.0),
        SuiteName::Resolution => (6.0, 2.0),
        SuiteName::Decode => (28.0, 1.0),
        SuiteName::Cost => (197.0, 165.0),
        SuiteName::Load => (104.0, 42.0),
        SuiteName::Fanout => (67.0, 19.0),
        SuiteName::Faults => (18.0, 9.0),
        SuiteName::Resilience => (388.0, 215.0),
        SuiteName::Adoption => (720.0, 720.0),
        SuiteName::Releases => (1_580.0, 1_580.0),
        // Three runs of the WAN suite with every profile honoured (AMD EPYC VM, 2026-12-07:
        // 843, 842 and 842 s) and a quick run with its defaults (65 s).
        SuiteName::Wan => (842.0, 65.0),
    };
    if quick { quick_run } else { default }
}

/// Where the estimates came from.
#[derive(Clone, Debug, PartialEq)]
enum Source {
    /// An earlier run on this machine, started then.
    EarlierRun(String),
    Typical,
}

/// The run's suites with how long each is expected to take, and how the run is going.
#[derive(Debug)]
pub struct Progress {
    expected: Vec<(SuiteName, f64)>,
    source: Source,
    started: Instant,
    /// Expected seconds of the suites already run.
    expected_done: f64,
    next: usize,
}

impl Progress {
    /// The estimate for `results`' suites, from the newest earlier run in `history` (the
    /// directory of the runs' result directories) of the same size that ran them.
    pub fn new(results: &Results, history: &Path) -> Self {
        let suites = &results.settings.suites;
        let quick = results.settings.quick;
        let earlier = earlier_run(history, quick);
        let measured = |suite: SuiteName| {
            earlier.as_ref().and_then(|run| {
                run.machine
                    .iter()
                    .find(|load| load.suite == suite)
                    .map(|load| load.seconds)
            })
        };
        let from_earlier = suites.iter().all(|&suite| measured(suite).is_some());
        let expected = suites
            .iter()
            .map(|&suite| {
                let seconds = if from_earlier { measured(suite) } else { None };
                (
                    suite,
                    seconds.unwrap_or_else(|| typical_seconds(suite, quick)),
                )
            })
            .collect();
        Self {
            expected,
            source: match earlier.filter(|_| from_earlier) {
                Some(run) => Source::EarlierRun(run.environment.started_utc),
                None => Source::Typical,
            },
            started: Instant::now(),
            expected_done: 0.0,
            next: 0,
        }
    }

    /// The line that opens the run: how long it is expected to take, and from what.
    pub fn opening(&self) -> String {
        format!(
            "Expected: about {} of suites ({})",
            minutes(self.total()),
            match &self.source {
                Source::EarlierRun(started) => {
                    format!("as long as the run of {started} on this machine took")
                }
                Source::Typical => "as long as a run took on a 2-vCPU VM".to_owned(),
            }
        )
    }

    /// The line as `suite` starts: its place, its share of the run and the time left.
    pub fn starting(&mut self, suite: SuiteName) -> String {
        let index = self
            .expected
            .iter()
            .position(|(known, _)| *known == suite)
            .unwrap_or(self.next);
        self.next = index + 1;
        let total = self.total();
        let mine = self
            .expected
            .get(index)
            .map_or(0.0, |(_, seconds)| *seconds);
        let elapsed = self.started.elapsed().as_secs_f64();
        // The run so far against its estimate: a slower machine stretches the rest alike.
        let pace = if self.expected_done > 30.0 {
            (elapsed / self.expected_done).clamp(0.5, 2.0)
        } else {
            1.0
        };
        let left = (total - self.expected_done) * pace;
        self.expected_done += mine;
        format!(
            "[{}/{}] {suite}: about {:.0}% of the run; {} elapsed, about {} left",
            index + 1,
            self.expected.len(),
            if total > 0.0 {
                mine / total * 100.0
            } else {
                0.0
            },
            minutes(elapsed),
            minutes(left)
        )
    }

    /// The line after the last suite: how long the suites took.
    pub fn finished(&self) -> String {
        format!(
            "Suites done in {} (expected about {})",
            minutes(self.started.elapsed().as_secs_f64()),
            minutes(self.total())
        )
    }

    fn total(&self) -> f64 {
        self.expected.iter().map(|(_, seconds)| seconds).sum()
    }
}

/// The newest run in `history` of the same size (`quick`) that `report::json` reads.
fn earlier_run(history: &Path, quick: bool) -> Option<Results> {
    let mut dirs: Vec<_> = std::fs::read_dir(history)
        .ok()?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.join("results.json").is_file())
        .collect();
    // The directories are named by their UTC start, so the newest sorts last.
    dirs.sort();
    dirs.iter()
        .rev()
        .take(10)
        .filter_map(|dir| report::json::read(&dir.join("results.json")).ok())
        .find(|run| run.settings.quick == quick && !run.machine.is_empty())
}

/// `seconds` as `12 min` (or `40 s` under a minute).
fn minutes(seconds: f64) -> String {
    let duration = Duration::from_secs_f64(seconds.max(0.0));
    if duration.as_secs() < 60 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{} min", (seconds / 60.0).round())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::MachineLoad;

    fn results(suites: &[SuiteName], quick: bool) -> Results {
        let mut settings = bench_model::test_rows::default_settings();
        settings.suites = suites.to_vec();
        settings.quick = quick;
        Results::new(
            bench_model::test_rows::environment("2026-12-07T02:00:00Z"),
            settings,
        )
    }

    #[test]
    fn without_an_earlier_run_the_typical_times_give_each_share() {
        let dir = tempfile::tempdir().unwrap();
        let mut progress = Progress::new(
            &results(&[SuiteName::Latency, SuiteName::Cost], false),
            dir.path(),
        );
        assert!(
            progress.opening().contains("a 2-vCPU VM"),
            "{}",
            progress.opening()
        );
        let first = progress.starting(SuiteName::Latency);
        // 83 of 83 + 197 seconds.
        assert!(
            first.starts_with("[1/2] latency: about 30% of the run;"),
            "{first}"
        );
        assert!(first.ends_with("about 5 min left"), "{first}");
        let second = progress.starting(SuiteName::Cost);
        assert!(
            second.starts_with("[2/2] cost: about 70% of the run;"),
            "{second}"
        );
    }

    #[test]
    fn an_earlier_run_of_the_same_size_on_this_machine_sets_the_estimate() {
        let dir = tempfile::tempdir().unwrap();
        let mut earlier = results(&[SuiteName::Latency, SuiteName::Cost], true);
        earlier.environment.started_utc = "2026-12-07T01:00:00Z".to_owned();
        earlier.machine = [(SuiteName::Latency, 30.0), (SuiteName::Cost, 90.0)]
            .into_iter()
            .map(|(suite, seconds)| MachineLoad {
                suite,
                seconds,
                readings: 1,
                busy_percent: None,
                steal_percent: None,
                steal_percent_max: None,
                load1_max: None,
            })
            .collect();
        let run = dir.path().join("2026-12-07T01-00-00Z");
        std::fs::create_dir_all(&run).unwrap();
        report::json::write(&earlier, &run.join("results.json")).unwrap();

        let mut progress = Progress::new(
            &results(&[SuiteName::Latency, SuiteName::Cost], true),
            dir.path(),
        );
        assert!(
            progress
                .opening()
                .contains("the run of 2026-12-07T01:00:00Z"),
            "{}",
            progress.opening()
        );
        let first = progress.starting(SuiteName::Latency);
        assert!(first.contains("about 25% of the run"), "{first}");
        assert!(first.ends_with("about 2 min left"), "{first}");
        // A default run does not take a quick run's times.
        let default = Progress::new(
            &results(&[SuiteName::Latency, SuiteName::Cost], false),
            dir.path(),
        );
        assert!(default.opening().contains("a 2-vCPU VM"));
    }
}
