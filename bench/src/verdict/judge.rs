//! The judging itself: a criterion's figures ranked, the two best compared, and the margin
//! held against the noise.

use crate::model::{ClientName, Protocol};

/// What a client is judged on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Criterion {
    Latency(Protocol),
    Capacity,
    CpuPerRequest,
    Instructions(Protocol),
    PeakMemory,
    Allocations(Protocol),
    Handshake,
    Construction,
    Fanout,
    Faults,
    BuildTime,
    BinarySize,
    Dependencies,
}

impl Criterion {
    pub fn name(self) -> String {
        match self {
            Self::Latency(protocol) => format!("Per-call latency, {protocol}"),
            Self::Capacity => "Capacity".to_owned(),
            Self::CpuPerRequest => "CPU per request".to_owned(),
            Self::Instructions(protocol) => format!("Instructions per call, {protocol}"),
            Self::PeakMemory => "Peak memory".to_owned(),
            Self::Allocations(protocol) => format!("Allocations per call, {protocol}"),
            Self::Handshake => "New connection per call (full TLS handshake)".to_owned(),
            Self::Construction => "Client construction".to_owned(),
            Self::Fanout => "Fan-out".to_owned(),
            Self::Faults => "Behaviour under faults".to_owned(),
            Self::BuildTime => "Build time".to_owned(),
            Self::BinarySize => "Binary size".to_owned(),
            Self::Dependencies => "Dependencies".to_owned(),
        }
    }

    /// The name inside a sentence: `capacity`, `per-call latency, http`, `CPU per request`.
    pub fn phrase(self) -> String {
        let name = self.name();
        let acronym = name
            .split(' ')
            .next()
            .is_some_and(|word| word.len() > 1 && word.chars().all(|c| c.is_ascii_uppercase()));
        if acronym {
            return name;
        }
        let mut chars = name.chars();
        chars.next().map_or_else(String::new, |first| {
            first.to_lowercase().chain(chars).collect()
        })
    }
}

/// Whether less or more of a figure is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Better {
    Lower,
    Higher,
}

/// What a margin must beat to count: the figures' own spread, or a stated band for figures
/// measured once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NoiseRule {
    /// Each figure carries the half-width of its 99.9% confidence interval: the intervals must
    /// not overlap.
    Interval,
    /// Each figure carries the range of its repetitions: the ranges must not overlap.
    Range,
    /// One measurement each, of a timed figure: the margin must exceed this fraction.
    Once(f64),
    /// Figures that repeat closely (averages over thousands of calls, sizes): the margin must
    /// exceed this fraction.
    Band(f64),
    /// A ramp of steps of this factor, whose capacities moved by a step between runs: the
    /// margin must exceed one step.
    Step(f64),
    /// Counts: any difference counts.
    Exact,
}

impl NoiseRule {
    /// The rule in a few words, for the table.
    pub fn describe(self) -> String {
        match self {
            Self::Interval => "99.9% CIs must not overlap".to_owned(),
            Self::Range => "ranges of the repetitions must not overlap".to_owned(),
            Self::Once(band) => format!("measured once: ties within {:.0}%", band * 100.0),
            Self::Band(band) => format!("ties within {:.0}%", band * 100.0),
            Self::Step(step) => format!("ramp steps of x{step:.2}: one step apart is a tie"),
            Self::Exact => "counts: any difference".to_owned(),
        }
    }
}

/// One client's figure for a criterion.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub client: ClientName,
    pub value: f64,
    /// The noise around it, where it has one: the CI half-width (Interval) or the range
    /// (Range).
    pub spread: Spread,
    /// The figure as the table shows it.
    pub shown: String,
}

/// The noise measured around one figure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Spread {
    None,
    HalfWidth(f64),
    Range(f64, f64),
}

/// One criterion judged.
#[derive(Clone, Debug, PartialEq)]
pub struct Judgement {
    pub criterion: Criterion,
    /// What the figure is, where it comes from: `mean per call, latency suite, http`.
    pub source: String,
    pub better: Better,
    pub rule: NoiseRule,
    pub outcome: Outcome,
}

/// How a criterion came out.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The run has no figure for it; how to get one.
    NotMeasured(String),
    /// One client only.
    Alone(Figure),
    Ranked(Ranking),
}

/// The two best clients of a criterion.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranking {
    pub best: Figure,
    pub runner_up: Figure,
    /// How far apart the two are, as a fraction of the better figure (0.25: the runner-up
    /// takes 25% more time, or the best has 25% more capacity).
    pub margin: f64,
    /// Whether the margin beats the noise; a tie when not.
    pub decisive: bool,
    /// Every client, best first.
    pub order: Vec<Figure>,
}

impl Judgement {
    /// The figures best first, when it was measured.
    pub fn order(&self) -> &[Figure] {
        match &self.outcome {
            Outcome::Ranked(ranking) => &ranking.order,
            Outcome::Alone(figure) => std::slice::from_ref(figure),
            Outcome::NotMeasured(_) => &[],
        }
    }

    /// `client`'s figure, when it has one.
    pub fn figure(&self, client: ClientName) -> Option<&Figure> {
        self.order().iter().find(|figure| figure.client == client)
    }
}

/// Ranks `figures` (best first) and judges the two best under `rule`.
pub fn rank(mut figures: Vec<Figure>, better: Better, rule: NoiseRule) -> Option<Outcome> {
    figures.retain(|figure| figure.value.is_finite());
    figures.sort_by(|a, b| {
        let order = a.value.total_cmp(&b.value);
        match better {
            Better::Lower => order,
            Better::Higher => order.reverse(),
        }
    });
    let mut iter = figures.iter();
    let best = iter.next()?.clone();
    let Some(runner_up) = iter.next().cloned() else {
        return Some(Outcome::Alone(best));
    };
    let (margin, decisive) = compare(&best, &runner_up, better, rule);
    Some(Outcome::Ranked(Ranking {
        best,
        runner_up,
        margin,
        decisive,
        order: figures,
    }))
}

/// The margin of `better_one` over `other` (a fraction of the better figure), and whether it
/// beats the noise under `rule`.
pub fn compare(
    better_one: &Figure,
    other: &Figure,
    better: Better,
    rule: NoiseRule,
) -> (f64, bool) {
    let (low, high) = match better {
        Better::Lower => (better_one.value, other.value),
        Better::Higher => (other.value, better_one.value),
    };
    let margin = if low > 0.0 {
        high / low - 1.0
    } else if high > low {
        f64::INFINITY
    } else {
        0.0
    };
    let decisive = match rule {
        NoiseRule::Exact => high > low,
        NoiseRule::Once(band) | NoiseRule::Band(band) => margin > band,
        // Adjacent steps differ by exactly one factor (rounded): that is a tie.
        NoiseRule::Step(step) => high / low > step * 1.05,
        NoiseRule::Interval => match (better_one.spread, other.spread) {
            (Spread::HalfWidth(a), Spread::HalfWidth(b)) => match better {
                Better::Lower => better_one.value + a < other.value - b,
                Better::Higher => better_one.value - a > other.value + b,
            },
            _ => false,
        },
        NoiseRule::Range => match (better_one.spread, other.spread) {
            (Spread::Range(a_low, a_high), Spread::Range(b_low, b_high)) => match better {
                Better::Lower => a_high < b_low,
                Better::Higher => a_low > b_high,
            },
            _ => false,
        },
    };
    (margin, decisive)
}
