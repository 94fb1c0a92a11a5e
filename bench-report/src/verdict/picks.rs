//! The use cases: each a rule over the criteria, applied to this run's judgements. A rule that
//! needs a figure the run did not measure decides nothing: the pick says so, and how to
//! measure it.

use std::fmt;

use crate::verdict::judge::{
    Criterion, Figure, Judgement, Outcome, Resolution, compare, rank, resolution,
};
use crate::verdict::settings::{idle_timeout_setting, setting};
use bench_model::{ClientName, Protocol};

/// One use case's pick: among the libraries as users get them, and among them with each
/// library's documented settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Pick {
    pub use_case: &'static str,
    /// Among the pairs (library and TLS backend) as shipped: no setting row is a candidate.
    pub choice: Choice,
    /// The rule, and how this run's figures made the pick, in one line.
    pub reason: String,
    /// The reason in one short clause, for the terminal's pick table: `2% apart on
    /// instructions/payment: a tie`.
    pub brief: String,
    /// When not decided: what the run lacks, and the flag that measures it.
    pub undecided: Option<String>,
    /// The same rule with each library's documented settings as candidates too.
    pub configured: Configured,
    /// The criteria the rule weighs, as the run judged them.
    pub deciding: Deciding,
}

/// The criteria a use case's rule weighs: its first, and the one that breaks a tie on it.
/// `None` where the rule has none, or where the run holds no judgement of it (a CPU quota it
/// did not run).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Deciding {
    pub first: Option<Criterion>,
    pub tie_break: Option<Criterion>,
}

impl Deciding {
    fn of(first: Option<&Judgement>, tie_break: Option<&Judgement>) -> Self {
        Self {
            first: first.map(|judgement| judgement.criterion),
            tie_break: tie_break.map(|judgement| judgement.criterion),
        }
    }
}

/// A use case's pick with each library's documented settings: the rows of an adapter setting
/// the run measured (`reqwest-hickory-dns`, `reqwest-retry`, ...) are candidates beside their
/// pairs, and where the idle suite measured a client with its idle timeout below the server's,
/// that figure stands for the client when it is the better one.
#[derive(Clone, Debug, PartialEq)]
pub struct Configured {
    pub choice: Choice,
    pub reason: String,
    /// As [`Pick::brief`].
    pub brief: String,
    /// As [`Pick::undecided`].
    pub undecided: Option<String>,
}

/// Which candidates a use case weighs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Weighed {
    /// The pairs as users get them.
    AsShipped,
    /// The pairs and every row of a documented setting, and the idle timeout below the server's.
    AsConfigured,
}

/// One use case decided one way.
#[derive(Clone, Debug, PartialEq)]
struct Decided {
    use_case: &'static str,
    choice: Choice,
    reason: String,
    /// The reason in one short clause.
    brief: String,
    /// When not decided: what is missing, and how to measure it (the reason after its rule).
    undecided: Option<String>,
    /// When the choice came from the tie-break: the clients tied on the rule's first
    /// criterion, in table order.
    tie_broken: Option<Vec<ClientName>>,
    /// The criteria the rule weighed.
    deciding: Deciding,
}

/// What a rule decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    Client(ClientName),
    /// Clients the rule cannot tell apart, every figure it uses measured: a declared tie.
    Tie(Vec<ClientName>),
    /// The run lacks a figure the rule (or its tie-break) needs.
    NotDecided,
}

impl Choice {
    /// The client picked, when one was.
    pub fn client(&self) -> Option<ClientName> {
        match self {
            Self::Client(client) => Some(*client),
            Self::Tie(_) | Self::NotDecided => None,
        }
    }
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Client(client) => write!(f, "{client}"),
            Self::Tie(clients) => write!(f, "a tie: {}", names(clients)),
            Self::NotDecided => f.write_str("not decided in this run"),
        }
    }
}

/// Every use case, in the table's order: as shipped, and with documented settings. In a
/// `--quick` run (`quick`) a tie on a rule's first criterion is left unbroken (see
/// [`unbroken_when_quick`]).
pub fn pick_all(criteria: &[Judgement], quick: bool) -> Vec<Pick> {
    let shipped = decide(criteria, Weighed::AsShipped, quick);
    let configured = decide(criteria, Weighed::AsConfigured, quick);
    shipped
        .into_iter()
        .zip(configured)
        .map(|(shipped, configured)| Pick {
            use_case: shipped.use_case,
            choice: shipped.choice,
            reason: shipped.reason,
            brief: shipped.brief,
            undecided: shipped.undecided,
            deciding: shipped.deciding,
            configured: Configured {
                choice: configured.choice,
                reason: configured.reason,
                brief: configured.brief,
                undecided: configured.undecided,
            },
        })
        .collect()
}

/// Every use case decided among the candidates `weighed` names.
fn decide(criteria: &[Judgement], weighed: Weighed, quick: bool) -> Vec<Decided> {
    let find = |criterion: Criterion| criteria.iter().find(|j| j.criterion == criterion);
    let capacity = find(Criterion::Capacity);
    // The service use cases' tie-break: see `ASYNC_RULE`.
    let cpu_beside = find(Criterion::CpuBeside);
    // As shipped, the picks are among the pairs as users get them: a row of an adapter
    // setting is shown beside its pair, not picked. As configured, it is a candidate.
    let pairs = || {
        ClientName::ALL
            .into_iter()
            .filter(move |client| weighed == Weighed::AsConfigured || client.setting_of().is_none())
    };
    let idle_configured = (weighed == Weighed::AsConfigured)
        .then(|| with_idle_setting(find(Criterion::IdleRace)?, find(Criterion::IdleRaceBelow)))
        .flatten();
    let idle_below: Vec<ClientName> = idle_configured
        .as_ref()
        .map(|(_, below)| below.clone())
        .unwrap_or_default();
    let idle_configured = idle_configured.map(|(judgement, _)| judgement);
    let idle = idle_configured
        .as_ref()
        .or_else(|| find(Criterion::IdleRace));
    let async_clients: Vec<ClientName> = pairs().filter(|client| !client.is_blocking()).collect();
    let blocking: Vec<ClientName> = pairs()
        .filter(|client| client.is_blocking_capable())
        .collect();
    let every: Vec<ClientName> = pairs().collect();
    vec![
        choose(
            "A high-throughput async service",
            ASYNC_RULE,
            &async_clients,
            find(Criterion::InstructionsPerPayment),
            cpu_beside,
        ),
        on_actix(capacity, &every),
        under_a_cpu_limit(criteria, &every),
        choose(
            IDLE_CLOSE,
            "the fewest calls lost when the upstream's idle close meets a request (the race \
             forced), a tie broken by the least CPU per payment beside hyper",
            &every,
            idle,
            cpu_beside,
        ),
        choose(
            "A service calling many hosts",
            "the fewest DNS questions per new connection (a slow resolver adds its time to \
             each), a tie broken by the least CPU per payment beside hyper",
            &every,
            find(Criterion::DnsQuestions),
            cpu_beside,
        ),
        choose(
            ACROSS_A_WAN,
            ACROSS_A_WAN_RULE,
            &async_clients,
            find(Criterion::WanP99),
            find(Criterion::WanConnections),
        ),
        choose(
            BEHIND_A_NAT,
            BEHIND_A_NAT_RULE,
            &every,
            find(Criterion::WanLost),
            find(Criterion::WanFirstSuccess),
        ),
        choose(
            "Blocking or CLI code",
            "the lowest per-call latency over http among clients callable without an async \
             runtime (ureq, reqwest-blocking, isahc), a tie broken by fewer crates",
            &blocking,
            find(Criterion::Latency(Protocol::Http)),
            find(Criterion::Dependencies),
        ),
        choose(
            "The smallest binary",
            "the smallest stripped probe, a tie broken by fewer crates",
            &every,
            find(Criterion::BinarySize),
            find(Criterion::Dependencies),
        ),
        choose(
            "The fastest builds",
            "the shortest clean release build of the probe, a tie broken by fewer crates",
            &every,
            find(Criterion::BuildTime),
            find(Criterion::Dependencies),
        ),
        choose(
            "A service with a small memory budget",
            "the least memory held with the pool warm over https (heap in use, in a process of \
             its own), a tie broken by fewer crates",
            &every,
            find(Criterion::Memory(Protocol::Https)),
            find(Criterion::Dependencies),
        ),
    ]
    .into_iter()
    .map(|decided| finish(decided, criteria, weighed, quick, &idle_below))
    .collect()
}

const IDLE_CLOSE: &str = "An upstream that closes idle connections";
const ACROSS_A_WAN: &str = "An upstream across a WAN";
const ACROSS_A_WAN_RULE: &str = "the lowest 99th percentile of payments across a lossy link (50 \
                                 ms, 2% of packets lost in bursts) over https among async \
                                 clients, a tie broken by fewer new connections";
const BEHIND_A_NAT: &str = "An upstream behind a NAT or load balancer";
const BEHIND_A_NAT_RULE: &str = "the fewest payments lost after a middlebox forgot the pool's \
                                 idle connection, over https, a tie broken by the soonest first \
                                 success";

/// A use case decided, its reason completed: a quick run's first tie left unbroken, what
/// still separates tied clients, and (with settings) each setting named; `idle_below` are the
/// clients whose idle-close figure is the one with their idle timeout below the server's.
fn finish(
    decided: Decided,
    criteria: &[Judgement],
    weighed: Weighed,
    quick: bool,
    idle_below: &[ClientName],
) -> Decided {
    let decided = if quick {
        unbroken_when_quick(decided)
    } else {
        decided
    };
    let decided = Decided {
        reason: with_what_separates(&decided, criteria),
        ..decided
    };
    match weighed {
        Weighed::AsShipped => decided,
        Weighed::AsConfigured => {
            // The idle timeout below the server's is a setting of the idle use case alone.
            let idle_below: &[ClientName] = if decided.use_case == IDLE_CLOSE {
                idle_below
            } else {
                &[]
            };
            Decided {
                reason: with_setting_named(&decided, idle_below),
                ..decided
            }
        }
    }
}

/// `clients` in the table's order, so that the same tie reads the same in every run.
fn in_table_order(mut clients: Vec<ClientName>) -> Vec<ClientName> {
    clients.sort_by_key(|client| ClientName::ALL.iter().position(|known| known == client));
    clients
}

/// In a `--quick` run, a pick the tie-break made becomes the tie on the rule's first criterion
/// it broke, the tie-break's word kept in the reason: a quick run's short rounds leave ties on
/// timed figures that a default run resolves (per-call latency: reqwest-blocking and ureq tied
/// in a quick run, ureq then picked by fewer crates, where every default run had
/// reqwest-blocking faster beyond the noise), so its tie-break would pick against the default
/// run. Left unbroken, a quick run's answer is the default run's or a wider tie.
fn unbroken_when_quick(decided: Decided) -> Decided {
    let Some(tied) = decided.tie_broken.clone() else {
        return decided;
    };
    let broke_it = match &decided.choice {
        Choice::Client(client) => format!("picks {client}"),
        Choice::Tie(clients) => format!("narrows it to {}", names(clients)),
        Choice::NotDecided => return decided,
    };
    Decided {
        reason: format!(
            "{}. A --quick run leaves the first tie unbroken (its short rounds cannot tell \
             apart clients a default run can): the tie-break {broke_it} here, not a claim of \
             this run",
            decided.reason
        ),
        brief: format!(
            "{}; --quick leaves the tie unbroken",
            decided.brief.split("; ").next().unwrap_or_default()
        ),
        choice: Choice::Tie(tied),
        ..decided
    }
}

/// The high-throughput async service's rule. What a payment costs the service decides,
/// counted (it repeats within 0.4% between runs). The tie-break is what a payment costs the
/// service's CPU measured in time, kernel included, as a ratio to hyper's on a second service
/// driven beside it at the same rate in the same stretches (the resilience suite): the
/// capacity it stands for moved 30-48% between runs on a 2-vCPU VM, too much to call a 10%
/// difference, where the paired ratio moved at most 3% between runs for all but one client
/// (2026-12-07, `bb11281`, Intel Xeon VM). The idle-close and many-hosts rules break their
/// ties the same way.
const ASYNC_RULE: &str = "the fewest instructions per payment across the whole service among \
                          async clients (what each payment costs its CPU), a tie broken by the \
                          least CPU per payment beside hyper";

/// The most criteria a tie's reason names as separating its clients.
const SEPARATING: usize = 4;

/// For a declared tie, the reason with what the run's other criteria still separate among the
/// tied clients beyond the noise (the best of them on each, against the next), or that none
/// does: what a reader who must still choose can weigh.
fn with_what_separates(decided: &Decided, criteria: &[Judgement]) -> String {
    let Choice::Tie(tied) = &decided.choice else {
        return decided.reason.clone();
    };
    let separating: Vec<String> = criteria
        .iter()
        .filter_map(|judgement| {
            let figures = among(Some(judgement), tied);
            let (best, next) = (figures.first()?, figures.get(1)?);
            let (margin, decisive) = compare(best, next, judgement.better, judgement.rule);
            decisive.then(|| {
                format!(
                    "{} {} against {} {} on {} ({})",
                    best.client,
                    best.shown,
                    next.client,
                    next.shown,
                    judgement.criterion.phrase(),
                    percent(margin)
                )
            })
        })
        .collect();
    if separating.is_empty() {
        return format!(
            "{}. No criterion of this run separates {} beyond the noise",
            decided.reason,
            names(tied)
        );
    }
    let more = separating.len().saturating_sub(SEPARATING);
    format!(
        "{}. Still separating them, beyond the noise: {}{}",
        decided.reason,
        separating[..separating.len().min(SEPARATING)].join("; "),
        if more > 0 {
            format!("; and {more} more in the criteria table")
        } else {
            String::new()
        }
    )
}

/// For a pick of a setting row, the reason with the setting named, so that a reader can copy
/// it; `idle_below` are the clients whose figure is the one with their idle timeout below the
/// server's.
fn with_setting_named(decided: &Decided, idle_below: &[ClientName]) -> String {
    let settings: Vec<String> = match &decided.choice {
        Choice::Client(client) => vec![*client],
        Choice::Tie(clients) => clients.clone(),
        Choice::NotDecided => Vec::new(),
    }
    .into_iter()
    .filter_map(|client| {
        let mut named: Vec<String> = setting(client).map(str::to_owned).into_iter().collect();
        if idle_below.contains(&client) {
            named.push(format!(
                "its idle timeout below the server's ({})",
                idle_timeout_setting(client)
            ));
        }
        (!named.is_empty()).then(|| format!("{client}: {}", named.join(", and ")))
    })
    .collect();
    if settings.is_empty() {
        decided.reason.clone()
    } else {
        format!("{}; the setting: {}", decided.reason, settings.join("; "))
    }
}

/// The idle race with each client's better figure of its two idle timeouts: its own
/// setting (above the server's) or one below the server's, named in the figure; and the
/// clients whose figure is the one below.
fn with_idle_setting(
    above: &Judgement,
    below: Option<&Judgement>,
) -> Option<(Judgement, Vec<ClientName>)> {
    let below = below?;
    let mut lowered = Vec::new();
    let figures: Vec<Figure> = above
        .order()
        .iter()
        .map(|figure| {
            match below
                .order()
                .iter()
                .find(|other| other.client == figure.client && other.value < figure.value)
            {
                Some(better) => {
                    lowered.push(figure.client);
                    Figure {
                        shown: format!("{} with its idle timeout below the server's", better.shown),
                        ..better.clone()
                    }
                }
                None => figure.clone(),
            }
        })
        .collect();
    let judgement = Judgement {
        outcome: rank(figures, above.better, above.rule)?,
        source: format!(
            "{}; or, where lower, with the client's idle timeout below the server's",
            above.source
        ),
        ..above.clone()
    };
    Some((judgement, lowered))
}

/// The figures of `judgement` among `candidates`, best first.
fn among<'a>(judgement: Option<&'a Judgement>, candidates: &[ClientName]) -> Vec<&'a Figure> {
    judgement
        .map(|judgement| {
            judgement
                .order()
                .iter()
                .filter(|figure| candidates.contains(&figure.client))
                .collect()
        })
        .unwrap_or_default()
}

fn not_measured(judgement: Option<&Judgement>) -> String {
    match judgement.map(|judgement| &judgement.outcome) {
        Some(Outcome::NotMeasured(how)) => how.clone(),
        _ => "no candidate was measured in this run".to_owned(),
    }
}

/// As [`among`], owned; a row of an adapter setting that `judgement` has no figure for takes
/// its pair's, said so in the figure: a tie-break the setting row was not measured on (the
/// resolution suite's hickory-dns row has no capacity of its own) is decided on its library as
/// shipped.
fn among_or_pair(judgement: Option<&Judgement>, candidates: &[ClientName]) -> Vec<Figure> {
    let found = among(judgement, candidates);
    let mut figures: Vec<Figure> = found.iter().map(|figure| (*figure).clone()).collect();
    for &client in candidates {
        if found.iter().any(|figure| figure.client == client) {
            continue;
        }
        let Some(pair) = client.setting_of() else {
            continue;
        };
        if let Some(figure) = among(judgement, &[pair]).first() {
            figures.push(Figure {
                client,
                shown: format!(
                    "{} ({pair}'s; the setting's own not measured)",
                    figure.shown
                ),
                ..(*figure).clone()
            });
        }
    }
    let better = judgement.map(|judgement| judgement.better);
    figures.sort_by(|a, b| {
        let order = a.value.total_cmp(&b.value);
        match better {
            Some(crate::verdict::judge::Better::Higher) => order.reverse(),
            _ => order,
        }
    });
    figures
}

/// Why `judgement` cannot rank `candidates`: the candidates the run measured whose figure is
/// no figure (their place in the order is unknown, so no pick among them holds), unless
/// `best` beats one beyond the noise even at the figure it claimed.
fn left_out(
    judgement: &Judgement,
    candidates: &[ClientName],
    best: Option<&Figure>,
) -> Option<String> {
    // Runs pooled may hold a claim of the client's per run: every one must be beaten.
    let beaten_anyway = |client: ClientName| {
        let mut claims = judgement
            .claimed
            .iter()
            .filter(|figure| figure.client == client)
            .peekable();
        claims.peek().is_some()
            && best.is_some_and(|best| {
                claims.all(|claimed| compare(best, claimed, judgement.better, judgement.rule).1)
            })
    };
    let mine: Vec<String> = judgement
        .left_out
        .iter()
        .filter(|(client, _)| candidates.contains(client) && !beaten_anyway(*client))
        .map(|(client, why)| format!("{client} ({why})"))
        .collect();
    (!mine.is_empty()).then(|| {
        format!(
            "{} no figure for {} in this run: {}",
            if mine.len() == 1 {
                "a candidate has"
            } else {
                "candidates have"
            },
            judgement.criterion.phrase(),
            mine.join("; ")
        )
    })
}

fn names(clients: &[ClientName]) -> String {
    clients
        .iter()
        .map(|client| client.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The figures among `figures` that the first does not beat beyond the noise, itself first.
fn tied_with_best<'a>(figures: &[&'a Figure], judgement: &Judgement) -> Vec<&'a Figure> {
    let Some(best) = figures.first() else {
        return Vec::new();
    };
    figures
        .iter()
        .filter(|figure| !compare(best, figure, judgement.better, judgement.rule).1)
        .copied()
        .collect()
}

/// The best candidate by `primary`; among those it does not beat beyond the noise, the best by
/// `tiebreak` beyond its noise. A tie on both is declared; a tie-break the run did not measure
/// decides nothing.
fn choose(
    use_case: &'static str,
    rule: &str,
    candidates: &[ClientName],
    primary: Option<&Judgement>,
    tiebreak: Option<&Judgement>,
) -> Decided {
    Decided {
        deciding: Deciding::of(primary, tiebreak),
        ..chosen(use_case, rule, candidates, primary, tiebreak)
    }
}

/// As [`choose`], the criteria it weighed not yet named.
fn chosen(
    use_case: &'static str,
    rule: &str,
    candidates: &[ClientName],
    primary: Option<&Judgement>,
    tiebreak: Option<&Judgement>,
) -> Decided {
    let pick = |choice: Choice, detail: String, brief: String| {
        decided(use_case, rule, choice, detail, brief)
    };
    let figures = among(primary, candidates);
    let (Some(judgement), Some(best)) = (primary, figures.first()) else {
        return pick(
            Choice::NotDecided,
            not_measured(primary),
            unmeasured_brief(primary),
        );
    };
    let short = judgement.criterion.short();
    if let Some(why) = left_out(judgement, candidates, Some(best)) {
        return pick(
            Choice::NotDecided,
            why,
            format!("{short}: a candidate has no figure"),
        );
    }
    let Some(second) = figures.get(1) else {
        return pick(
            Choice::Client(best.client),
            format!(
                "{} {}, the only candidate measured",
                best.client, best.shown
            ),
            format!("{short} {}, the only one measured", best.shown),
        );
    };
    let (margin, decisive) = compare(best, second, judgement.better, judgement.rule);
    if decisive {
        return pick(
            Choice::Client(best.client),
            format!(
                "{} {} against {} {} ({}, beyond the noise)",
                best.client,
                best.shown,
                second.client,
                second.shown,
                percent(margin)
            ),
            against(&short, best, second, margin),
        );
    }
    let tied_figures = tied_with_best(&figures, judgement);
    let tied: Vec<ClientName> = tied_figures.iter().map(|figure| figure.client).collect();
    let tie = format!(
        "{} tie on {} ({})",
        names(&tied),
        judgement.criterion.phrase(),
        tie_resolution(&tied_figures, judgement)
    );
    let tie_brief = format!("{} apart on {short}", apart(&tied_figures, judgement));
    let tie = Tie {
        clients: tied,
        reason: tie,
        brief: tie_brief,
    };
    break_tie(use_case, rule, &tie, tiebreak)
}

/// A use case decided: `detail` is how this run's figures made the choice under `rule`.
fn decided(
    use_case: &'static str,
    rule: &str,
    choice: Choice,
    detail: String,
    brief: String,
) -> Decided {
    Decided {
        use_case,
        reason: format!("{rule}: {detail}"),
        undecided: (choice == Choice::NotDecided).then_some(detail),
        choice,
        brief,
        tie_broken: None,
        deciding: Deciding::default(),
    }
}

/// Clients a rule's first criterion tied, with the tie in words (long and brief).
struct Tie {
    clients: Vec<ClientName>,
    reason: String,
    brief: String,
}

/// The tie broken by `tiebreak` beyond its noise, or declared when it ties too; not decided
/// when a tied client has no figure for it.
fn break_tie(
    use_case: &'static str,
    rule: &str,
    tie: &Tie,
    tiebreak: Option<&Judgement>,
) -> Decided {
    let pick = |choice: Choice, detail: String, brief: String| {
        decided(use_case, rule, choice, detail, brief)
    };
    let Tie {
        clients: tied,
        reason: tie,
        brief: tie_brief,
    } = tie;
    let Some(tiebreak) = tiebreak else {
        return pick(
            Choice::NotDecided,
            format!(
                "{tie}; the tie-break was not measured: {}",
                not_measured(None)
            ),
            format!("{tie_brief}: a tie; {}", unmeasured_brief(None)),
        );
    };
    let broken_owned = among_or_pair(Some(tiebreak), tied);
    let broken: Vec<&Figure> = broken_owned.iter().collect();
    // A tied client the tie-break has no figure for (a capacity its soak refuted, a row that
    // failed) does not hold the pick up: the tie-break decides among those it measured, and
    // the reason names each one left out, with its figure and why.
    let missing: Vec<ClientName> = tied
        .iter()
        .copied()
        .filter(|client| broken.iter().all(|figure| figure.client != *client))
        .collect();
    let left = left_out_of_tie_break(tiebreak, &missing);
    let left_brief = if missing.is_empty() {
        String::new()
    } else {
        format!("; {} left out", names(&missing))
    };
    let tiebreak_short = tiebreak.criterion.short();
    if broken.is_empty() {
        let (detail, brief) = none_measured(tie, tie_brief, tiebreak, &left);
        return pick(Choice::NotDecided, detail, brief);
    }
    let first_tie = in_table_order(tied.clone());
    if let [only] = broken[..] {
        return Decided {
            tie_broken: Some(first_tie),
            ..pick(
                Choice::Client(only.client),
                format!(
                    "{tie}; {}: {} {}, the only one of them with a figure{left}",
                    tiebreak.criterion.phrase(),
                    only.client,
                    only.shown
                ),
                format!(
                    "{tie_brief}: a tie; {tiebreak_short} {}, the only one measured{left_brief}",
                    only.shown
                ),
            )
        };
    }
    let (winner, next) = (broken[0], broken[1]);
    let (margin, decisive) = compare(winner, next, tiebreak.better, tiebreak.rule);
    // `first_tie`: the clients the tie-break chose among, in table order, for a run that
    // leaves the tie unbroken (see `unbroken_when_quick`).
    if decisive {
        return Decided {
            tie_broken: Some(first_tie),
            ..pick(
                Choice::Client(winner.client),
                format!(
                    "{tie}; {}: {} {} against {} {} ({}, beyond the noise){left}",
                    tiebreak.criterion.phrase(),
                    winner.client,
                    winner.shown,
                    next.client,
                    next.shown,
                    percent(margin)
                ),
                format!(
                    "{tie_brief}: a tie; {}{left_brief}",
                    against(&tiebreak_short, winner, next, margin)
                ),
            )
        };
    }
    let still_figures = tied_with_best(&broken, tiebreak);
    let still = in_table_order(still_figures.iter().map(|figure| figure.client).collect());
    Decided {
        tie_broken: (still.len() < first_tie.len()).then_some(first_tie),
        ..pick(
            Choice::Tie(still.clone()),
            format!(
                "{tie}; {} tie on {} too ({}){}{left}",
                names(&still),
                tiebreak.criterion.phrase(),
                tie_resolution(&still_figures, tiebreak),
                borrowed(&broken, &still, tiebreak)
            ),
            format!(
                "{tie_brief}, {} on {tiebreak_short}: a tie{left_brief}",
                apart(&still_figures, tiebreak)
            ),
        )
    }
}

/// The reason and its brief when `tiebreak` has a figure for none of the tied clients: how to
/// measure it, or (`left`) why each measured one is no figure.
fn none_measured(tie: &str, tie_brief: &str, tiebreak: &Judgement, left: &str) -> (String, String) {
    if tiebreak.left_out.is_empty() {
        (
            format!(
                "{tie}; the tie-break was not measured: {}",
                not_measured(Some(tiebreak))
            ),
            format!("{tie_brief}: a tie; {}", unmeasured_brief(Some(tiebreak))),
        )
    } else {
        (
            format!("{tie}{left}"),
            format!(
                "{tie_brief}: a tie; {}: no figure for any of them",
                tiebreak.criterion.short()
            ),
        )
    }
}

/// The tied clients `missing` from `tiebreak`, each with its figure and why it is no figure
/// (`judgement.left_out`), or that the run did not measure it: `; left out of the tie-break,
/// no figure for capacity: reqwest-blocking (6500 RPS, but its soak ...)`, or nothing.
fn left_out_of_tie_break(tiebreak: &Judgement, missing: &[ClientName]) -> String {
    if missing.is_empty() {
        return String::new();
    }
    let each: Vec<String> = missing
        .iter()
        .map(|client| {
            let why = tiebreak
                .left_out
                .iter()
                .find(|(left, _)| left == client)
                .map_or("not measured in this run", |(_, why)| why.as_str());
            format!("{client} ({why})")
        })
        .collect();
    format!(
        "; left out of the tie-break, no figure for {}: {}",
        tiebreak.criterion.phrase(),
        each.join("; ")
    )
}

/// `best` against `next` on a criterion named `short`, in a clause: `latency http 30.9 us
/// against ureq 41.1 us (+33%)`.
fn against(short: &str, best: &Figure, next: &Figure, margin: f64) -> String {
    let clause = format!(
        "{short} {} against {} {}",
        best.shown, next.client, next.shown
    );
    // Against a best of zero a margin has no size: the figures say it.
    if margin.is_finite() {
        format!("{clause} ({})", percent(margin))
    } else {
        clause
    }
}

/// How far apart the first and last of `tied` are: `2%`.
fn apart(tied: &[&Figure], judgement: &Judgement) -> String {
    match (tied.first(), tied.last()) {
        (Some(best), Some(edge)) => {
            let (margin, _) = compare(best, edge, judgement.better, judgement.rule);
            percent(margin).trim_start_matches('+').to_owned()
        }
        _ => "0%".to_owned(),
    }
}

/// A criterion the run did not measure, in a clause: `binary size not measured`.
fn unmeasured_brief(judgement: Option<&Judgement>) -> String {
    judgement.map_or_else(
        || "not measured".to_owned(),
        |judgement| format!("{} not measured", judgement.criterion.short()),
    )
}

/// For a tie on a tie-break, the setting rows among `still` whose figure in `broken` is their
/// pair's (the setting's own not measured), said where the figures are not shown: ` (... )`,
/// or nothing.
fn borrowed(broken: &[&Figure], still: &[ClientName], tiebreak: &Judgement) -> String {
    let borrowed: Vec<String> = broken
        .iter()
        .filter(|figure| still.contains(&figure.client))
        .filter_map(|figure| {
            let pair = figure.client.setting_of()?;
            among(Some(tiebreak), &[figure.client])
                .is_empty()
                .then(|| format!("{}'s is {pair}'s, its own not measured", figure.client))
        })
        .collect();
    if borrowed.is_empty() {
        String::new()
    } else {
        format!(" ({})", borrowed.join("; "))
    }
}

/// What a tie could not see, and who sits at its edge: "within the noise: this run calls 12%
/// or more; reqwest, 9% behind hyper, at the edge". The edge is the tied figure farthest from
/// the best, with the margin this run could have called between the two.
fn tie_resolution(tied: &[&Figure], judgement: &Judgement) -> String {
    let (Some(best), Some(edge)) = (tied.first(), tied.last()) else {
        return "within the noise".to_owned();
    };
    let calls = resolution(best, edge, judgement.rule);
    let (margin, _) = compare(best, edge, judgement.better, judgement.rule);
    let calls = match calls {
        Resolution::Margin(margin) if margin > 0.0 => {
            format!("this run calls {} or more", calls.describe())
        }
        Resolution::Margin(_) | Resolution::AnyDifference => {
            "this run calls any difference".to_owned()
        }
        Resolution::NoClaim => "this run can call no margin".to_owned(),
    };
    if tied.len() > 2 {
        format!(
            "within the noise: {calls}; {}, {} behind {}, at the edge",
            edge.client,
            percent(margin).trim_start_matches('+'),
            best.client
        )
    } else {
        format!(
            "within the noise: {}, {} apart; {calls}",
            edge.client,
            percent(margin).trim_start_matches('+')
        )
    }
}

/// The highest capacity under the smallest CPU quota the run measured, a tie broken by the
/// fewer instructions per payment (what a quota's CPU time buys); not decided when no quota
/// was measured.
fn under_a_cpu_limit(criteria: &[Judgement], candidates: &[ClientName]) -> Decided {
    let use_case = "A service under a CPU limit";
    let rule = "the highest capacity under the smallest CPU quota measured, a tie broken by the \
                fewer instructions per payment across the whole service";
    let smallest = criteria
        .iter()
        .filter(|judgement| matches!(judgement.criterion, Criterion::CapacityUnderQuota(_)))
        .min_by_key(|judgement| match judgement.criterion {
            Criterion::CapacityUnderQuota(millicpus) => millicpus,
            _ => u32::MAX,
        });
    let instructions = criteria
        .iter()
        .find(|judgement| judgement.criterion == Criterion::InstructionsPerPayment);
    if smallest.is_none() {
        let undecided = "not in this run: the resilience suite with a CPU quota (--suite \
                         resilience --cpu-quota 1,0.5; root and a cgroup file system)";
        return Decided {
            use_case,
            tie_broken: None,
            choice: Choice::NotDecided,
            reason: format!("{rule}: {undecided}"),
            brief: "capacity under a CPU quota not measured".to_owned(),
            undecided: Some(undecided.to_owned()),
            deciding: Deciding::of(None, instructions),
        };
    }
    choose(use_case, rule, candidates, smallest, instructions)
}

/// awc, on actix's own runtime, unless another client's capacity beats it beyond the noise.
fn on_actix(capacity: Option<&Judgement>, candidates: &[ClientName]) -> Decided {
    let use_case = "A service already on actix-web";
    let rule = "awc (it runs on actix's own runtime, no second one), unless another client's \
                capacity beats it beyond the noise";
    let decided = |choice: Choice, detail: String, brief: String| Decided {
        deciding: Deciding::of(capacity, None),
        ..decided(use_case, rule, choice, detail, brief)
    };
    let figures = among(capacity, candidates);
    let awc = figures
        .iter()
        .find(|figure| figure.client.library_default() == ClientName::Awc);
    let (Some(judgement), Some(best), Some(awc)) = (capacity, figures.first(), awc) else {
        let detail = if figures.is_empty() {
            format!(
                "awc's capacity, or the others', was not measured in this run ({})",
                not_measured(capacity)
            )
        } else {
            // Others were measured, awc was not: the pick is awc's to keep or lose.
            let measured: Vec<String> = figures
                .iter()
                .map(|figure| figure.client.to_string())
                .collect();
            format!(
                "awc's capacity was not measured in this run (measured: {}; awc in --clients \
                 decides it)",
                measured.join(", ")
            )
        };
        return decided(
            Choice::NotDecided,
            detail,
            "capacity not measured".to_owned(),
        );
    };
    if let Some(why) = left_out(judgement, candidates, Some(awc)) {
        return decided(
            Choice::NotDecided,
            why,
            "capacity: a candidate has no figure".to_owned(),
        );
    }
    let (margin, decisive) = compare(best, awc, judgement.better, judgement.rule);
    if best.client != awc.client && decisive {
        decided(
            Choice::Client(best.client),
            format!(
                "{} {} against {} {} ({}, beyond the noise)",
                best.client,
                best.shown,
                awc.client,
                awc.shown,
                percent(margin)
            ),
            against("capacity", best, awc, margin),
        )
    } else if best.client == awc.client {
        decided(
            Choice::Client(awc.client),
            format!("{} has the highest, {}", awc.client, awc.shown),
            format!("on actix's runtime; the highest capacity, {}", awc.shown),
        )
    } else {
        decided(
            Choice::Client(awc.client),
            format!(
                "{} {} is within the noise of {}'s {}",
                awc.client, awc.shown, best.client, best.shown
            ),
            format!(
                "on actix's runtime; capacity {} apart from {}: a tie",
                percent(margin).trim_start_matches('+'),
                best.client
            ),
        )
    }
}

/// A margin as `+25%`.
pub fn percent(margin: f64) -> String {
    if margin.is_finite() {
        format!("{:+.0}%", margin * 100.0)
    } else {
        "any".to_owned()
    }
}
