//! The releases suite: one client library across its own releases, each built as a probe of its
//! own (its own lock file) and measured the same way against the same mock-rates.

use serde::{Deserialize, Serialize};

use crate::{FigureNotMeasured, Protocol, ReleaseFailure, ReleasesSkipped};

/// What the releases suite measured, and how.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReleasesResults {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<ReleasesSettings>,
    /// One row per (library, release), in the catalogue's order: each library's releases
    /// oldest first, its newest last.
    #[serde(default)]
    pub rows: Vec<ReleaseRow>,
    /// Why the suite could not run at all, when it could not.
    #[serde(
        default,
        deserialize_with = "crate::reasons::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub skipped: Option<ReleasesSkipped>,
}

impl ReleasesResults {
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty() && self.skipped.is_none() && self.settings.is_none()
    }

    /// The libraries with rows, in row order.
    pub fn libraries(&self) -> Vec<&str> {
        let mut libraries: Vec<&str> = Vec::new();
        for row in &self.rows {
            if !libraries.contains(&row.library.as_str()) {
                libraries.push(&row.library);
            }
        }
        libraries
    }

    /// `library`'s rows, oldest release first.
    pub fn of(&self, library: &str) -> Vec<&ReleaseRow> {
        self.rows
            .iter()
            .filter(|row| row.library == library)
            .collect()
    }

    /// The row every other release of `library` is compared with: its newest that built.
    pub fn newest(&self, library: &str) -> Option<&ReleaseRow> {
        self.of(library)
            .into_iter()
            .filter(|row| row.failed.is_none())
            .max_by(|a, b| compare_versions(&a.release, &b.release))
    }
}

/// Orders two release numbers (`0.12.4` < `0.12.28` < `0.13.0`); a part that is not a number
/// sorts as text.
pub fn compare_versions(a: &str, b: &str) -> std::cmp::Ordering {
    let parts = |version: &str| -> Vec<(u64, String)> {
        version
            .split(['.', '-', '+'])
            .map(|part| (part.parse().unwrap_or(u64::MAX), part.to_owned()))
            .collect()
    };
    parts(a).cmp(&parts(b))
}

/// How the suite measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReleasesSettings {
    /// Rounds of every timed scenario, interleaved across the releases of a library.
    pub rounds: u32,
    /// Pooled calls timed per round (after `warmup` calls on the same client).
    pub calls: u32,
    pub warmup: u32,
    /// New-connection calls timed per round.
    pub fresh_calls: u32,
    /// Calls at once, and the size of each answer, in the concurrent scenario.
    pub concurrency: u32,
    pub large_bytes: u64,
    /// How long the half-close scenario holds its request body open.
    pub hold_ms: u64,
    /// The calls of the callgrind runs whose differences give instructions per call.
    pub instruction_calls: Vec<u32>,
    /// `cargo -V`, and `-j` of the clean builds.
    pub cargo: String,
    pub jobs: usize,
    /// The CPU every probe and the suite's mocks ran on (the latency suite's); `None` when
    /// they were not pinned.
    #[serde(default)]
    pub cpu: Option<usize>,
}

/// One release of one library.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReleaseRow {
    /// The library as users name it: `hyper`, `reqwest`, `ureq`, `isahc`, `awc`.
    pub library: String,
    /// The release pinned (`=X`), as resolved.
    pub release: String,
    /// What the probe calls through: `hyper 1 + hyper-util legacy client`.
    pub api: String,
    /// The TLS stack it was built with, as resolved: `rustls 0.23.35 (aws-lc-rs 1.15.1)`.
    pub tls: String,
    /// Why this release is in the list (a tracker report it bears on), when one is: the
    /// catalogue's own note, written with the catalogue, not a reason a run found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The versions resolved under it: hyper, h2, hyper-util, rustls, the crypto provider...
    #[serde(default)]
    pub stack: Vec<ResolvedCrate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<ReleaseBuild>,
    /// Why it has no figures: `does not build: ...`, `the probe failed: ...`.
    #[serde(
        default,
        deserialize_with = "crate::reasons::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub failed: Option<ReleaseFailure>,
    #[serde(default)]
    pub figures: Vec<ReleaseFigure>,
}

impl ReleaseRow {
    /// `hyper 1.8.0`.
    pub fn label(&self) -> String {
        format!("{} {}", self.library, self.release)
    }

    /// Its figure of `measure` over `protocol`, measured or not.
    pub fn figure(&self, measure: ReleaseMeasure, protocol: Protocol) -> Option<&ReleaseFigure> {
        self.figures
            .iter()
            .find(|figure| figure.measure == measure && figure.protocol == protocol)
    }

    /// The version of `name` resolved under it.
    pub fn resolved(&self, name: &str) -> Option<&str> {
        self.stack
            .iter()
            .find(|krate| krate.name == name)
            .map(|krate| krate.version.as_str())
    }
}

/// A crate and the version resolved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResolvedCrate {
    pub name: String,
    pub version: String,
}

/// A release's clean build.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReleaseBuild {
    pub build_wall_s: f64,
    pub build_cpu_s: f64,
    /// The stripped release binary of the probe (harness and library).
    pub binary_bytes: u64,
    /// Packages in its resolved tree for this platform, the probe not counted.
    pub crates: u32,
}

/// What one figure measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReleaseMeasure {
    /// Mean time of a pooled call, in microseconds.
    Latency,
    /// Rust heap allocations per pooled call (every thread).
    Allocations,
    /// Mean time of a call on a new connection (the pool keeps none), in microseconds.
    NewConnection,
    /// Instructions per pooled call under callgrind.
    Instructions,
    /// Wall time of the concurrent calls of large answers, in milliseconds.
    ConcurrentWall,
    /// The slowest of those calls, in milliseconds: the tail a stall shows in.
    ConcurrentSlowest,
    /// The process's CPU time over those calls, in milliseconds.
    ConcurrentCpu,
    /// The process's CPU time over a call whose peer half-closed while its body was held
    /// open, in milliseconds.
    HalfCloseCpu,
}

impl ReleaseMeasure {
    /// In table order.
    pub const ALL: [ReleaseMeasure; 8] = [
        ReleaseMeasure::Latency,
        ReleaseMeasure::Allocations,
        ReleaseMeasure::NewConnection,
        ReleaseMeasure::Instructions,
        ReleaseMeasure::ConcurrentWall,
        ReleaseMeasure::ConcurrentSlowest,
        ReleaseMeasure::ConcurrentCpu,
        ReleaseMeasure::HalfCloseCpu,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::Latency => "per-call latency",
            Self::Allocations => "allocations per call",
            Self::NewConnection => "new connection per call",
            Self::Instructions => "instructions per call",
            Self::ConcurrentWall => "concurrent large answers, all done",
            Self::ConcurrentSlowest => "concurrent large answers, slowest call",
            Self::ConcurrentCpu => "concurrent large answers, CPU",
            Self::HalfCloseCpu => "half-closing peer, CPU while held",
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            Self::Latency | Self::NewConnection => "us",
            Self::Allocations | Self::Instructions => "",
            Self::ConcurrentWall
            | Self::ConcurrentSlowest
            | Self::ConcurrentCpu
            | Self::HalfCloseCpu => "ms",
        }
    }

    /// Whether it is a time (which the machine moves between runs) rather than a count.
    pub fn timed(self) -> bool {
        !matches!(self, Self::Allocations | Self::Instructions)
    }
}

/// One figure of one release: its value in each round, or why it has none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReleaseFigure {
    pub measure: ReleaseMeasure,
    pub protocol: Protocol,
    /// One value per round, in the measure's unit.
    #[serde(default)]
    pub rounds: Vec<f64>,
    /// The HTTP version the answers came over (`HTTP/2`), as the library reported it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// What the call ended with (the half-close scenario): `failed: connection closed ...`, as
    /// the probe reported it (the library's own words): evidence, not a reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// Why there is no figure: `does not speak h2 ...`, `failed: ...`.
    #[serde(
        default,
        deserialize_with = "crate::reasons::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub not_measured: Option<FigureNotMeasured>,
}

impl ReleaseFigure {
    /// The figure over the run: the mean of its rounds; `None` without rounds.
    pub fn value(&self) -> Option<f64> {
        if self.not_measured.is_some() || self.rounds.is_empty() {
            return None;
        }
        Some(self.rounds.iter().sum::<f64>() / self.rounds.len() as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_order_by_number_not_text() {
        use std::cmp::Ordering::Less;
        assert_eq!(compare_versions("0.12.4", "0.12.28"), Less);
        assert_eq!(compare_versions("0.12.28", "0.13.0"), Less);
        assert_eq!(compare_versions("0.14.32", "1.8.0"), Less);
        assert_eq!(compare_versions("1.8.1", "1.10.0"), Less);
    }

    #[test]
    fn the_newest_that_built_is_the_base() {
        let row = |release: &str, failed: Option<&str>| ReleaseRow {
            library: "hyper".to_owned(),
            release: release.to_owned(),
            api: String::new(),
            tls: String::new(),
            why: None,
            stack: Vec::new(),
            build: None,
            failed: failed.map(|error| ReleaseFailure::Build {
                error: error.to_owned(),
            }),
            figures: Vec::new(),
        };
        let results = ReleasesResults {
            settings: None,
            rows: vec![
                row("0.14.32", None),
                row("1.10.0", None),
                row("1.13.0", Some("does not build")),
                row("1.8.0", None),
            ],
            skipped: None,
        };
        assert_eq!(results.newest("hyper").unwrap().release, "1.10.0");
        assert_eq!(results.libraries(), vec!["hyper"]);
        assert!(results.newest("ureq").is_none());
    }

    #[test]
    fn a_figure_without_rounds_or_not_measured_has_no_value() {
        let figure = ReleaseFigure {
            measure: ReleaseMeasure::Latency,
            protocol: Protocol::Http,
            rounds: vec![10.0, 12.0],
            version: None,
            outcome: None,
            not_measured: None,
        };
        assert_eq!(figure.value(), Some(11.0));
        let none = ReleaseFigure {
            not_measured: Some(FigureNotMeasured::WrongVersion {
                version: "HTTP/1.1".to_owned(),
            }),
            ..figure.clone()
        };
        assert_eq!(none.value(), None);
        assert_eq!(
            ReleaseFigure {
                rounds: Vec::new(),
                ..figure
            }
            .value(),
            None
        );
    }
}
