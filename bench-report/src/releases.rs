//! What upgrading changed: each release of a library against its newest, figure by figure,
//! judged with the verdict's noise rules: the same rule a figure of its kind gets when the
//! verdict ranks clients (a timed call: its rounds apart and past 10%; instructions: past 5%;
//! allocations: its rounds apart; build time measured once: past 10%; stripped size: past 1%;
//! crates: any difference). A half-closing peer is judged by what the client did, not by a
//! margin: a client that burns most of the hold spins, one that does not waits.

use bench_model::stats::quantile::lower_median;
use bench_model::{
    ClientName, Judged, Protocol, ReleaseChange, ReleaseFigure, ReleaseMeasure, ReleaseRow,
    ReleasesResults,
};

use crate::verdict::criteria::{CLOSE, INSTRUCTIONS, ONCE, TIMED};
use crate::verdict::{Better, Figure, NoiseRule, Resolution, compare, resolution};

/// What is compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compared {
    Figure(ReleaseMeasure, Protocol),
    BuildTime,
    BinarySize,
    Crates,
}

impl Compared {
    /// `per-call latency, h2`, `binary size`.
    pub fn name(self) -> String {
        match self {
            Self::Figure(measure, protocol) => format!("{}, {protocol}", measure.name()),
            Self::BuildTime => "clean build time".to_owned(),
            Self::BinarySize => "binary size".to_owned(),
            Self::Crates => "crates".to_owned(),
        }
    }

    fn rule(self) -> NoiseRule {
        match self {
            Self::Figure(ReleaseMeasure::Instructions, _) => INSTRUCTIONS,
            Self::Figure(ReleaseMeasure::Allocations, _) => NoiseRule::Rounds,
            Self::Figure(_, _) => TIMED,
            Self::BuildTime => ONCE,
            Self::BinarySize => CLOSE,
            Self::Crates => NoiseRule::Exact,
        }
    }
}

/// How an upgrade turned out for one figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// The newest release is better beyond the noise (faster, fewer, smaller; waits where
    /// the older spun).
    Better,
    /// Worse beyond the noise.
    Worse,
    /// Within the noise (or the same behaviour).
    Tie,
}

impl Call {
    /// `faster`, `slower`, `a tie`, in the measure's words.
    pub fn word(self, compared: Compared) -> &'static str {
        let timed = match compared {
            Compared::Figure(measure, _) => measure.timed(),
            Compared::BuildTime => true,
            Compared::BinarySize | Compared::Crates => false,
        };
        match (self, compared) {
            (Self::Tie, _) => "a tie",
            (Self::Better, Compared::Figure(ReleaseMeasure::HalfCloseCpu, _)) => "stopped spinning",
            (Self::Worse, Compared::Figure(ReleaseMeasure::HalfCloseCpu, _)) => "spins",
            (Self::Better, Compared::BinarySize) => "smaller",
            (Self::Worse, Compared::BinarySize) => "larger",
            (Self::Better, _) if timed => "faster",
            (Self::Worse, _) if timed => "slower",
            (Self::Better, _) => "fewer",
            (Self::Worse, _) => "more",
        }
    }
}

/// One figure of one release against the newest.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub library: String,
    /// The older release, and the newest it is compared with.
    pub from: String,
    pub to: String,
    pub compared: Compared,
    pub from_value: f64,
    pub to_value: f64,
    /// (to - from) / from: what upgrading changes, negative when the figure went down.
    pub change: f64,
    pub call: Call,
    /// The smallest margin the rule could have called between these two.
    pub resolution: Resolution,
}

impl Change {
    /// `-12% faster`, `+35% slower`, `a tie (+3%, calls from 10%)`.
    pub fn describe(&self) -> String {
        // A change under 1% (an allocation in one call of hundreds) keeps its decimals.
        let percent = self.change * 100.0;
        let change = if percent != 0.0 && percent.abs() < 1.0 {
            format!("{percent:+.2}%")
        } else {
            format!("{percent:+.0}%")
        };
        match self.call {
            Call::Tie => format!(
                "a tie ({change}, calls from {})",
                self.resolution.describe()
            ),
            call => format!("{change} {}", call.word(self.compared)),
        }
    }
}

/// A CPU time over the held body past this share of the hold is a spin: a client that waits
/// takes a millisecond or two.
pub const SPIN_SHARE: f64 = 0.5;

/// Every comparison of every library's releases with its newest that built: the figures both
/// have, the build, size and crates.
pub fn changes(releases: &ReleasesResults) -> Vec<Change> {
    let hold_ms = releases
        .settings
        .as_ref()
        .map_or(1_000.0, |settings| settings.hold_ms as f64);
    let mut changes = Vec::new();
    for library in releases.libraries() {
        let Some(newest) = releases.newest(library) else {
            continue;
        };
        for row in releases.of(library) {
            if row.release == newest.release || row.failed.is_some() {
                continue;
            }
            changes.extend(compare_rows(row, newest, hold_ms));
        }
    }
    changes
}

fn compare_rows(from: &ReleaseRow, to: &ReleaseRow, hold_ms: f64) -> Vec<Change> {
    let mut changes = Vec::new();
    for measure in ReleaseMeasure::ALL {
        for protocol in Protocol::ALL {
            let (Some(a), Some(b)) = (from.figure(measure, protocol), to.figure(measure, protocol))
            else {
                continue;
            };
            let compared = Compared::Figure(measure, protocol);
            let change = if measure == ReleaseMeasure::HalfCloseCpu {
                behaviour(a, b, hold_ms)
            } else {
                margin(compared, rounds_of(a), rounds_of(b))
            };
            if let Some((call, resolution, from_value, to_value)) = change {
                changes.push(change_of(
                    from, to, compared, call, resolution, from_value, to_value,
                ));
            }
        }
    }
    if let (Some(a), Some(b)) = (&from.build, &to.build) {
        let built = [
            (Compared::BuildTime, a.build_wall_s, b.build_wall_s),
            (
                Compared::BinarySize,
                a.binary_bytes as f64,
                b.binary_bytes as f64,
            ),
            (Compared::Crates, f64::from(a.crates), f64::from(b.crates)),
        ];
        for (compared, from_value, to_value) in built {
            if let Some((call, resolution, from_value, to_value)) =
                margin(compared, Some(vec![from_value]), Some(vec![to_value]))
            {
                changes.push(change_of(
                    from, to, compared, call, resolution, from_value, to_value,
                ));
            }
        }
    }
    changes
}

fn change_of(
    from: &ReleaseRow,
    to: &ReleaseRow,
    compared: Compared,
    call: Call,
    resolution: Resolution,
    from_value: f64,
    to_value: f64,
) -> Change {
    Change {
        library: from.library.clone(),
        from: from.release.clone(),
        to: to.release.clone(),
        compared,
        from_value,
        to_value,
        change: if from_value == 0.0 {
            0.0
        } else {
            (to_value - from_value) / from_value
        },
        call,
        resolution,
    }
}

fn rounds_of(figure: &ReleaseFigure) -> Option<Vec<f64>> {
    figure.value().map(|_| figure.rounds.clone())
}

/// A lower-is-better figure of both releases judged under its rule.
fn margin(
    compared: Compared,
    from: Option<Vec<f64>>,
    to: Option<Vec<f64>>,
) -> Option<(Call, Resolution, f64, f64)> {
    let (from, to) = (from?, to?);
    let figure = |rounds: Vec<f64>| {
        let value = rounds.iter().sum::<f64>() / rounds.len() as f64;
        Figure {
            // A carrier: the comparison reads only the values.
            client: ClientName::Hyper,
            value,
            // A figure measured once has no rounds to spread.
            rounds: if rounds.len() > 1 { rounds } else { Vec::new() },
            half_width: None,
            shown: String::new(),
        }
    };
    let (from, to) = (figure(from), figure(to));
    if !from.value.is_finite() || !to.value.is_finite() {
        return None;
    }
    let rule = compared.rule();
    // Equal figures are never decisive: a margin of nothing beats no rule.
    let newest_lower = to.value < from.value;
    let (lower, higher) = if newest_lower {
        (&to, &from)
    } else {
        (&from, &to)
    };
    let (_, decisive) = compare(lower, higher, Better::Lower, rule);
    let call = match (decisive, newest_lower) {
        (false, _) => Call::Tie,
        (true, true) => Call::Better,
        (true, false) => Call::Worse,
    };
    Some((call, resolution(&from, &to, rule), from.value, to.value))
}

/// The releases suite's figures of this run against a baseline's: each release's figure
/// matched by library, release, figure and protocol, judged as releases are judged against
/// each other.
pub fn against_baseline(then: &ReleasesResults, now: &ReleasesResults) -> Vec<ReleaseChange> {
    let hold_ms = now
        .settings
        .as_ref()
        .map_or(1_000.0, |settings| settings.hold_ms as f64);
    let mut changes = Vec::new();
    for row in &now.rows {
        let Some(old) = then
            .rows
            .iter()
            .find(|old| old.library == row.library && old.release == row.release)
        else {
            continue;
        };
        for change in compare_rows(old, row, hold_ms) {
            let unit = match change.compared {
                Compared::Figure(measure, _) => measure.unit(),
                Compared::BuildTime => "s",
                Compared::BinarySize => "B",
                Compared::Crates => "",
            };
            changes.push(ReleaseChange {
                release: row.label(),
                figure: change.compared.name(),
                unit: unit.to_owned(),
                value: Judged {
                    baseline: change.from_value,
                    now: change.to_value,
                    significant: Some(change.call != Call::Tie),
                    rule: change.describe(),
                },
            });
        }
    }
    changes
}

/// The half-close scenario: whether each release spun (its CPU over the hold past
/// [`SPIN_SHARE`] of it, in its median round), and what upgrading changed of that.
fn behaviour(
    from: &ReleaseFigure,
    to: &ReleaseFigure,
    hold_ms: f64,
) -> Option<(Call, Resolution, f64, f64)> {
    let (from_value, to_value) = (from.value()?, to.value()?);
    let spins = |figure: &ReleaseFigure| spins(figure, hold_ms);
    let call = match (spins(from), spins(to)) {
        (false, true) => Call::Worse,
        (true, false) => Call::Better,
        _ => Call::Tie,
    };
    Some((call, Resolution::Margin(SPIN_SHARE), from_value, to_value))
}

/// Whether a half-close figure shows a spin: its median round's CPU past [`SPIN_SHARE`] of
/// the hold. The lower median: a spin is claimed only when more than half the rounds spun
/// (every saved run has an odd count of rounds, where the medians agree).
pub fn spins(figure: &ReleaseFigure, hold_ms: f64) -> bool {
    if figure.not_measured.is_some() {
        return false;
    }
    lower_median(&mut figure.rounds.clone()).is_some_and(|median| median > SPIN_SHARE * hold_ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::{ReleaseBuild, ReleasesSettings};

    fn figure(measure: ReleaseMeasure, protocol: Protocol, rounds: &[f64]) -> ReleaseFigure {
        ReleaseFigure {
            measure,
            protocol,
            rounds: rounds.to_vec(),
            version: None,
            outcome: None,
            not_measured: None,
        }
    }

    fn row(release: &str, figures: Vec<ReleaseFigure>, binary_bytes: u64) -> ReleaseRow {
        ReleaseRow {
            library: "hyper".to_owned(),
            release: release.to_owned(),
            api: String::new(),
            tls: String::new(),
            why: None,
            stack: Vec::new(),
            build: Some(ReleaseBuild {
                build_wall_s: 40.0,
                build_cpu_s: 70.0,
                binary_bytes,
                crates: 60,
            }),
            failed: None,
            figures,
        }
    }

    fn results(rows: Vec<ReleaseRow>) -> ReleasesResults {
        ReleasesResults {
            settings: Some(ReleasesSettings {
                rounds: 3,
                calls: 100,
                warmup: 10,
                fresh_calls: 10,
                concurrency: 100,
                large_bytes: 1 << 20,
                hold_ms: 1_000,
                instruction_calls: vec![50, 150, 250],
                cargo: String::new(),
                jobs: 2,
                cpu: Some(1),
            }),
            rows,
            skipped: None,
        }
    }

    fn find(changes: &[Change], from: &str, compared: Compared) -> Change {
        changes
            .iter()
            .find(|change| change.from == from && change.compared == compared)
            .cloned()
            .unwrap_or_else(|| panic!("{from} {compared:?} not compared: {changes:?}"))
    }

    use ReleaseMeasure::{Allocations, HalfCloseCpu, Instructions, Latency};

    #[test]
    fn each_release_is_judged_against_the_newest_beyond_the_noise() {
        let changes = changes(&results(vec![
            row(
                "1.8.0",
                vec![
                    figure(Latency, Protocol::Http, &[80.0, 81.0, 82.0]),
                    figure(Instructions, Protocol::Http, &[100_000.0, 100_100.0]),
                ],
                3_000_000,
            ),
            row(
                "1.10.0",
                vec![
                    figure(Latency, Protocol::Http, &[60.5, 61.0, 61.5]),
                    figure(Instructions, Protocol::Http, &[98_000.0, 98_100.0]),
                ],
                3_000_000,
            ),
            row(
                "1.13.0",
                vec![
                    figure(Latency, Protocol::Http, &[60.0, 61.0, 62.0]),
                    figure(Instructions, Protocol::Http, &[80_000.0, 80_100.0]),
                ],
                3_200_000,
            ),
        ]));
        let latency = Compared::Figure(Latency, Protocol::Http);
        let instructions = Compared::Figure(Instructions, Protocol::Http);
        // 81 -> 61: 25% faster, rounds apart and past the 10% band.
        let upgrade = find(&changes, "1.8.0", latency);
        assert_eq!(
            (upgrade.call, upgrade.to.as_str()),
            (Call::Better, "1.13.0")
        );
        assert!(
            upgrade.describe().starts_with("-25% faster"),
            "{}",
            upgrade.describe()
        );
        // 61 -> 61: a tie, with what it could have called.
        let tie = find(&changes, "1.10.0", latency);
        assert_eq!(tie.call, Call::Tie);
        assert!(
            tie.describe().starts_with("a tie (+0%, calls from"),
            "{}",
            tie.describe()
        );
        // 98 050 -> 80 050 instructions: 18% fewer, past the 5% band.
        assert_eq!(find(&changes, "1.10.0", instructions).call, Call::Better);
        // 3.0 MB -> 3.2 MB: 6.7% larger, past the 1% band.
        let size = find(&changes, "1.8.0", Compared::BinarySize);
        assert_eq!(size.call, Call::Worse);
        assert_eq!(size.call.word(Compared::BinarySize), "larger");
        // The same crates: a tie; nothing is compared with itself.
        assert_eq!(find(&changes, "1.8.0", Compared::Crates).call, Call::Tie);
        assert!(changes.iter().all(|change| change.from != "1.13.0"));
    }

    #[test]
    fn a_change_under_one_percent_keeps_its_decimals() {
        let changes = changes(&results(vec![
            row(
                "3.3.0",
                vec![figure(Allocations, Protocol::Http, &[42.98, 42.98])],
                1,
            ),
            row(
                "3.5.2",
                vec![figure(Allocations, Protocol::Http, &[43.0, 43.0])],
                1,
            ),
        ]));
        let change = find(
            &changes,
            "3.3.0",
            Compared::Figure(Allocations, Protocol::Http),
        );
        // Counted exactly in every round: even 0.05% is beyond their noise, and says so.
        assert_eq!(change.describe(), "+0.05% more");
    }

    #[test]
    fn a_margin_within_the_band_is_a_tie_even_with_rounds_apart() {
        let changes = changes(&results(vec![
            row(
                "0.12.4",
                vec![figure(Latency, Protocol::H2, &[100.0, 100.5])],
                1,
            ),
            row(
                "0.13.5",
                vec![figure(Latency, Protocol::H2, &[94.0, 94.5])],
                1,
            ),
        ]));
        // 6% apart, rounds apart, but within the 10% a timed figure moved between runs.
        assert_eq!(
            find(&changes, "0.12.4", Compared::Figure(Latency, Protocol::H2)).call,
            Call::Tie
        );
    }

    #[test]
    fn a_spin_on_the_half_close_is_a_behaviour_not_a_margin() {
        let half_close = Compared::Figure(HalfCloseCpu, Protocol::Http);
        let changes = changes(&results(vec![
            row(
                "1.9.0",
                vec![figure(HalfCloseCpu, Protocol::Http, &[0.4, 1.2, 0.3])],
                1,
            ),
            row(
                "1.10.0",
                vec![figure(
                    HalfCloseCpu,
                    Protocol::Http,
                    &[990.0, 1_001.0, 985.0],
                )],
                1,
            ),
            row(
                "1.13.0",
                vec![figure(HalfCloseCpu, Protocol::Http, &[0.2, 0.6, 0.3])],
                1,
            ),
        ]));
        // 0.6 ms -> 0.4 ms is no change of behaviour, though the rounds moved.
        assert_eq!(find(&changes, "1.9.0", half_close).call, Call::Tie);
        let fixed = find(&changes, "1.10.0", half_close);
        assert_eq!(fixed.call, Call::Better);
        assert_eq!(fixed.call.word(half_close), "stopped spinning");
    }

    #[test]
    fn a_spin_is_claimed_only_when_more_than_half_the_rounds_spun() {
        let spun = |rounds: &[f64]| spins(&figure(HalfCloseCpu, Protocol::Http, rounds), 1_000.0);
        assert!(spun(&[990.0, 0.4, 985.0]));
        assert!(!spun(&[990.0, 0.4, 0.3]));
        // Two rounds of four: the lower median is a round that waited.
        assert!(!spun(&[990.0, 0.4, 985.0, 0.3]));
        assert!(spun(&[990.0, 0.4, 985.0, 980.0]));
        assert!(!spun(&[]));
    }

    #[test]
    fn a_later_run_is_compared_release_by_release_with_its_baseline() {
        let then = results(vec![row(
            "1.8.0",
            vec![figure(Latency, Protocol::Http, &[80.0, 81.0, 82.0])],
            3_000_000,
        )]);
        let now = results(vec![
            row(
                "1.8.0",
                vec![figure(Latency, Protocol::Http, &[60.0, 61.0, 62.0])],
                3_000_000,
            ),
            row("1.13.0", Vec::new(), 3_000_000),
        ]);
        let changes = against_baseline(&then, &now);
        let latency = changes
            .iter()
            .find(|change| change.figure == "per-call latency, http")
            .unwrap();
        assert_eq!(latency.release, "hyper 1.8.0");
        assert_eq!(latency.value.significant, Some(true));
        assert!(
            latency.value.rule.contains("faster"),
            "{}",
            latency.value.rule
        );
        // Only the release both runs have; its size the same.
        assert!(changes.iter().all(|change| change.release == "hyper 1.8.0"));
        let size = changes
            .iter()
            .find(|change| change.figure == "binary size")
            .unwrap();
        assert_eq!(size.value.significant, Some(false));
    }

    #[test]
    fn a_release_that_failed_or_a_figure_not_measured_is_not_compared() {
        let mut failed = row(
            "1.8.0",
            vec![figure(Latency, Protocol::Http, &[1.0, 1.0])],
            1,
        );
        failed.failed = Some(bench_model::ReleaseFailure::Build {
            error: "...".to_owned(),
        });
        let mut h2 = figure(Latency, Protocol::H2, &[]);
        h2.not_measured = Some(bench_model::FigureNotMeasured::WrongVersion {
            version: "HTTP/1.1".to_owned(),
        });
        let changes = changes(&results(vec![
            failed,
            row("2.12.1", vec![h2], 1),
            row("3.5.2", vec![figure(Latency, Protocol::H2, &[5.0, 5.0])], 1),
        ]));
        assert!(changes.iter().all(|change| change.from != "1.8.0"));
        assert!(
            changes
                .iter()
                .all(|change| change.compared != Compared::Figure(Latency, Protocol::H2))
        );
    }
}
