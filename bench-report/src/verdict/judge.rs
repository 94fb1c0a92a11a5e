//! The judging itself: a criterion's figures ranked, the two best compared, and the margin
//! held against the noise.

use bench_model::stats::spread::{range, relative_margin, relative_range};
use bench_model::{ClientName, Protocol, size_name};

/// What a client is judged on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Criterion {
    Latency(Protocol),
    /// Per-call latency over http for a larger answer, of so many bytes.
    LatencyOfAnswer(u64),
    Capacity,
    /// The capacity with the service held to a CPU quota, in millicpus.
    CapacityUnderQuota(u32),
    CpuPerRequest,
    /// The service's CPU per payment as a ratio to the reference's, measured beside it at the
    /// same rate in the same stretches (the resilience suite's paired capacity ramps).
    CpuBeside,
    /// The service's CPU per payment with a larger upstream answer, of so many bytes.
    CpuPerRequestOfAnswer(u64),
    /// The whole service's CPU instructions per payment under callgrind (the cost suite).
    InstructionsPerPayment,
    Instructions(Protocol),
    /// Memory a client holds with its pool warm, in a process of its own (the memory suite).
    Memory(Protocol),
    Allocations(Protocol),
    Handshake,
    Construction,
    Fanout,
    Faults,
    /// Calls that failed when the upstream's idle close met their request (the idle suite's
    /// forced race).
    IdleRace,
    /// The same with the client's idle timeout below the server's: the setting that keeps a
    /// connection from being reused as the server closes it.
    IdleRaceBelow,
    /// DNS questions per new connection to the upstream by name (the resolution suite).
    DnsQuestions,
    /// The 99th percentile of payments across the WAN suite's lossy link, over https.
    WanP99,
    /// New connections per 1 000 of those payments.
    WanConnections,
    /// Payments lost after a middlebox forgot the pool's connections, over https.
    WanLost,
    /// From the start of those payments to the first answered.
    WanFirstSuccess,
    BuildTime,
    BinarySize,
    Dependencies,
}

impl Criterion {
    pub fn name(self) -> String {
        match self {
            Self::Latency(protocol) => format!("Per-call latency, {protocol}"),
            Self::LatencyOfAnswer(bytes) => {
                format!("Per-call latency, http, {} answer", size_name(bytes))
            }
            Self::Capacity => "Capacity".to_owned(),
            Self::CapacityUnderQuota(millicpus) => {
                format!("Capacity at {} CPU", f64::from(millicpus) / 1_000.0)
            }
            Self::CpuPerRequest => "CPU per request".to_owned(),
            Self::CpuBeside => "CPU per payment beside hyper".to_owned(),
            Self::CpuPerRequestOfAnswer(bytes) => {
                format!("CPU per request, {} answer", size_name(bytes))
            }
            Self::InstructionsPerPayment => "Instructions per payment, whole service".to_owned(),
            Self::Instructions(protocol) => format!("Instructions per call, {protocol}"),
            Self::Memory(protocol) => format!("Memory held, pool warm, {protocol}"),
            Self::Allocations(protocol) => format!("Allocations per call, {protocol}"),
            Self::Handshake => "New connection per call (full TLS handshake)".to_owned(),
            Self::Construction => "Client construction".to_owned(),
            Self::Fanout => "Fan-out".to_owned(),
            Self::Faults => "Behaviour under faults".to_owned(),
            Self::IdleRace => "Calls lost to an idle close".to_owned(),
            Self::IdleRaceBelow => {
                "Calls lost to an idle close, idle timeout below the server's".to_owned()
            }
            Self::DnsQuestions => "DNS questions per new connection".to_owned(),
            Self::WanP99 => "P99 across a lossy WAN link, https".to_owned(),
            Self::WanConnections => "New connections across a lossy WAN link, https".to_owned(),
            Self::WanLost => "Payments lost to a forgotten flow, https".to_owned(),
            Self::WanFirstSuccess => "First success after a forgotten flow, https".to_owned(),
            Self::BuildTime => "Build time".to_owned(),
            Self::BinarySize => "Binary size".to_owned(),
            Self::Dependencies => "Dependencies".to_owned(),
        }
    }

    /// The name in a few words, for a clause of the terminal's pick table: `latency http`,
    /// `instructions/payment`.
    pub fn short(self) -> String {
        match self {
            Self::Latency(protocol) => format!("latency {protocol}"),
            Self::LatencyOfAnswer(bytes) => format!("latency http {}", size_name(bytes)),
            Self::Capacity => "capacity".to_owned(),
            Self::CapacityUnderQuota(millicpus) => {
                format!("capacity at {} CPU", f64::from(millicpus) / 1_000.0)
            }
            Self::CpuPerRequest => "CPU/request".to_owned(),
            Self::CpuBeside => "CPU/payment beside hyper".to_owned(),
            Self::CpuPerRequestOfAnswer(bytes) => format!("CPU/request {}", size_name(bytes)),
            Self::InstructionsPerPayment => "instructions/payment".to_owned(),
            Self::Instructions(protocol) => format!("instructions/call {protocol}"),
            Self::Memory(protocol) => format!("heap held {protocol}"),
            Self::Allocations(protocol) => format!("allocations/call {protocol}"),
            Self::Handshake => "new connection".to_owned(),
            Self::Construction => "construction".to_owned(),
            Self::Fanout => "fan-out".to_owned(),
            Self::Faults => "faults".to_owned(),
            Self::IdleRace | Self::IdleRaceBelow => "calls lost to idle close".to_owned(),
            Self::DnsQuestions => "DNS questions".to_owned(),
            Self::WanP99 => "p99 across a lossy link".to_owned(),
            Self::WanConnections => "connections across a lossy link".to_owned(),
            Self::WanLost => "payments lost to a forgotten flow".to_owned(),
            Self::WanFirstSuccess => "first success after a forgotten flow".to_owned(),
            Self::BuildTime => "build time".to_owned(),
            Self::BinarySize => "binary size".to_owned(),
            Self::Dependencies => "crates".to_owned(),
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

/// What a margin must beat to count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NoiseRule {
    /// The figure was measured in rounds spread over the run (and, across runs, in each run):
    /// the ranges of the two clients' rounds must not overlap, and where the figures carry a
    /// 99.9% confidence interval, neither may those; and the margin must exceed what either
    /// figure moved between its rounds (three rounds of two equal figures fall apart by chance
    /// one time in ten; a margin past their own spread as well rarely). With fewer than two
    /// rounds there is no claim.
    Rounds,
    /// As `Rounds`, for a figure whose rounds within a run agree more closely than runs do
    /// (callgrind's counts): the margin must also exceed this fraction, the most the figure
    /// was seen to move between runs of one build.
    RoundsAndBand(f64),
    /// Measured once, a timed figure whose between-run movement a run cannot see: the margin
    /// must exceed this fraction.
    Once(f64),
    /// Figures that do not move between builds or runs beyond a trace (stripped sizes): the
    /// margin must exceed this fraction.
    Band(f64),
    /// Counts: any difference counts.
    Exact,
}

impl NoiseRule {
    /// The rule in a few words, for the table.
    pub fn describe(self) -> String {
        match self {
            Self::Rounds => {
                "ranges of the rounds (and 99.9% CIs) must not overlap, the margin past each \
                 one's spread"
                    .to_owned()
            }
            Self::RoundsAndBand(band) => format!(
                "ranges of the rounds must not overlap, and ties within {:.0}% (between runs)",
                band * 100.0
            ),
            Self::Once(band) => format!("measured once: ties within {:.0}%", band * 100.0),
            Self::Band(band) => format!("ties within {:.0}%", band * 100.0),
            Self::Exact => "counts: any difference".to_owned(),
        }
    }
}

/// One client's figure for a criterion.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub client: ClientName,
    /// The figure over the whole run (or runs).
    pub value: f64,
    /// The same figure, round by round: what it moved by between rounds is its noise. Empty
    /// for a figure measured once.
    pub rounds: Vec<f64>,
    /// The half-width of the figure's 99.9% confidence interval within the run, where it has
    /// one.
    pub half_width: Option<f64>,
    /// The figure as the table shows it.
    pub shown: String,
}

impl Figure {
    /// The rounds with a finite value.
    fn finite_rounds(&self) -> Vec<f64> {
        self.rounds
            .iter()
            .copied()
            .filter(|v| v.is_finite())
            .collect()
    }

    /// The lowest and highest round, with at least two rounds.
    pub fn range(&self) -> Option<(f64, f64)> {
        range(&self.finite_rounds())
    }

    /// How far the rounds spread, as a fraction of the figure: (highest - lowest) / figure; 0
    /// for rounds that did not move, a figure of 0 included (a count of none in every round).
    pub fn spread(&self) -> Option<f64> {
        let rounds = self.finite_rounds();
        match range(&rounds)? {
            (low, high) if high <= low => Some(0.0),
            _ => relative_range(&rounds, self.value),
        }
    }
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
    /// Clients the run measured for this criterion whose figure is no figure (a soak refuted
    /// the capacity, calls failed, a row could not be checked), each with why. They are not
    /// ranked; a pick among candidates that include one is not decided.
    pub left_out: Vec<(ClientName, String)>,
    /// Of those, the figures that are a bound on what they left out: a capacity its soak
    /// refuted is at best the figure claimed. A client beaten beyond the noise even at its
    /// claimed figure does not hold up a pick.
    pub claimed: Vec<Figure>,
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
    /// The judgement with `left_out` (clients whose figure is no figure, with why) added.
    #[must_use]
    pub fn leaving_out(mut self, left_out: Vec<(ClientName, String)>) -> Self {
        self.left_out.extend(left_out);
        // Every client measured and none with a figure: the run measured it, so say why each
        // is no figure rather than how to run the suite.
        if let Outcome::NotMeasured(how) = &mut self.outcome
            && !self.left_out.is_empty()
        {
            *how = format!(
                "no client has a figure in this run: {}",
                self.left_out
                    .iter()
                    .map(|(client, why)| format!("{client} ({why})"))
                    .collect::<Vec<_>>()
                    .join("; ")
            );
        }
        self
    }

    /// The judgement with `claimed` (figures of left-out clients that are at best what they
    /// claim) added.
    #[must_use]
    pub fn claiming(mut self, claimed: Vec<Figure>) -> Self {
        self.claimed.extend(claimed);
        self
    }

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

    /// The most any ranked figure moved between its rounds, as a fraction of the figure:
    /// this criterion's measured noise in this run. `None` for figures measured once.
    pub fn spread(&self) -> Option<f64> {
        self.order()
            .iter()
            .filter_map(Figure::spread)
            .fold(None, |most, spread| {
                Some(most.map_or(spread, |most: f64| most.max(spread)))
            })
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
    let margin = relative_margin(low, high);
    let decisive = match rule {
        NoiseRule::Exact => high > low,
        NoiseRule::Once(band) | NoiseRule::Band(band) => margin > band,
        NoiseRule::Rounds => rounds_apart(better_one, other, better, margin),
        NoiseRule::RoundsAndBand(band) => {
            margin > band && rounds_apart(better_one, other, better, margin)
        }
    };
    (margin, decisive)
}

/// The smallest margin a rule could call beyond the noise between two figures measured as
/// these were: what a tie between them could not see.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Resolution {
    /// Counts: any difference is called.
    AnyDifference,
    /// A margin at least this large (a fraction of the lower figure) would have been called.
    Margin(f64),
    /// The figures cannot carry a claim at all (fewer than two rounds).
    NoClaim,
}

impl Resolution {
    /// `12%`, `any difference`, `no claim`.
    pub fn describe(self) -> String {
        match self {
            // A rule that needs a margin past a spread of nothing calls any difference.
            Self::AnyDifference | Self::Margin(0.0) => "any difference".to_owned(),
            Self::Margin(margin) if margin.is_finite() => format!("{:.0}%", margin * 100.0),
            Self::Margin(_) | Self::NoClaim => "no claim".to_owned(),
        }
    }
}

/// The smallest margin `rule` would call between `one` and `other` if their rounds and
/// intervals kept their measured shapes and only their distance changed. Under the rounds
/// rules the margin must exceed each figure's spread between rounds, the lower figure's rounds
/// (and interval) must end below the higher's: with `u` how far the lower figure's highest
/// round lies above it and `d` how far the higher's lowest lies below it (fractions of each),
/// that is a margin past `(1 + u) / (1 - d) - 1`.
pub fn resolution(one: &Figure, other: &Figure, rule: NoiseRule) -> Resolution {
    let rounds = || -> Option<f64> {
        let (lower, higher) = if one.value <= other.value {
            (one, other)
        } else {
            (other, one)
        };
        let spreads = lower.spread()?.max(higher.spread()?);
        let apart = |lower_top: f64, higher_bottom: f64| {
            let up = (lower_top - lower.value) / lower.value;
            let down = (higher.value - higher_bottom) / higher.value;
            if down >= 1.0 {
                f64::INFINITY
            } else {
                (1.0 + up) / (1.0 - down) - 1.0
            }
        };
        let ranges = apart(lower.range()?.1, higher.range()?.0);
        let intervals = match (lower.half_width, higher.half_width) {
            (Some(low), Some(high)) => apart(lower.value + low, higher.value - high),
            _ => 0.0,
        };
        (lower.value > 0.0).then(|| spreads.max(ranges).max(intervals))
    };
    match rule {
        NoiseRule::Exact => Resolution::AnyDifference,
        NoiseRule::Once(band) | NoiseRule::Band(band) => Resolution::Margin(band),
        NoiseRule::Rounds => rounds().map_or(Resolution::NoClaim, Resolution::Margin),
        NoiseRule::RoundsAndBand(band) => rounds().map_or(Resolution::NoClaim, |margin| {
            Resolution::Margin(margin.max(band))
        }),
    }
}

impl Judgement {
    /// What this run could call between its two best figures: the margin a tie between them
    /// did not reach. `None` when it was not measured.
    pub fn resolution(&self) -> Option<Resolution> {
        match &self.outcome {
            Outcome::NotMeasured(_) => None,
            Outcome::Alone(figure) => Some(resolution(figure, figure, self.rule)),
            Outcome::Ranked(ranking) => {
                Some(resolution(&ranking.best, &ranking.runner_up, self.rule))
            }
        }
    }
}

/// Whether the two figures' rounds, and their 99.9% confidence intervals where both have one,
/// do not overlap, and `margin` exceeds the spread of each one's rounds.
fn rounds_apart(better_one: &Figure, other: &Figure, better: Better, margin: f64) -> bool {
    let spread = |figure: &Figure| figure.spread().unwrap_or(f64::INFINITY);
    margin > spread(better_one).max(spread(other))
        && apart(better_one.range(), other.range(), better)
        && match (better_one.half_width, other.half_width) {
            (Some(a), Some(b)) => apart(
                Some((better_one.value - a, better_one.value + a)),
                Some((other.value - b, other.value + b)),
                better,
            ),
            _ => true,
        }
}

/// Whether the interval of the better figure lies wholly on its better side of the other's.
fn apart(better_one: Option<(f64, f64)>, other: Option<(f64, f64)>, better: Better) -> bool {
    match (better_one, other) {
        (Some((a_low, a_high)), Some((b_low, b_high))) => match better {
            Better::Lower => a_high < b_low,
            Better::Higher => a_low > b_high,
        },
        _ => false,
    }
}
