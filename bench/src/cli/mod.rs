//! The command line, and the run settings it resolves to: each suite's own flags resolve
//! through that suite's `settings::resolve`; this module only composes them.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::suites::{connections, fanout, faults, load, resilience};
use bench_model::{
    ClientName, CostSettings, IdleSettings, LargeBody, LoadSettings, MemorySettings, Protocol,
    ResolutionSettings, RunSettings, ServiceCostSettings, SuiteName, WanSettings,
};

#[cfg(test)]
mod fixtures;
mod parse;

pub use parse::{BodySize, DEFAULT_BODIES, DEFAULT_LOAD_BODY};
use parse::{call_counts, parse_body_size};

/// Compares the rates adapters (awc, reqwest, ureq, isahc, and hyper-util as the baseline,
/// each with its TLS backends) through the `RatesProvider` port, against local mock-rates
/// servers started as child processes. With no flags it runs every suite but adoption and
/// releases at its default size, prints the pick per use case (and with --tables every
/// table), and writes results.json, report.md, report.html and SVG charts. `--adoption` adds
/// the adoption suite's clean builds. How long a run and each suite take, measured: README.md
/// ("How long") and docs/suites.md.
#[derive(Debug, Parser)]
#[command(name = "bench", version, args_conflicts_with_subcommands = true)]
#[allow(clippy::struct_excessive_bools)] // command-line switches are bools
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Run this suite (repeat the flag for several). Default: every suite but adoption and
    /// releases.
    #[arg(long = "suite", value_enum, value_name = "NAME")]
    pub suites: Vec<SuiteName>,

    /// Add the adoption suite to the suites run (by default, or by --suite): a clean release
    /// build of a probe per client and TLS backend.
    #[arg(long)]
    pub adoption: bool,

    /// The releases suite's releases, `library@version` from its catalogue, comma-separated
    /// (`ureq@2.12.1,ureq@3.5.2`). Default: every release it knows of the run's clients'
    /// libraries (`bench --suite releases` lists them in its section).
    #[arg(long, value_delimiter = ',', value_name = "LIBRARY@VERSION")]
    pub releases: Vec<String>,

    /// The WAN suite's link profiles, comma-separated, in order: zone (1 ms round trip),
    /// region (30 ms), continent (100 ms, 0.1% loss), lossy (50 ms, 2% loss in bursts),
    /// partition (30 ms, 3 s of total loss during the payments), forgetful (30 ms, flows idle
    /// over 5 s forgotten). [default: all six; --quick: forgetful]
    #[arg(long, value_delimiter = ',', value_name = "PROFILE",
          value_parser = clap::builder::PossibleValuesParser::new(wan_link::Profile::NAMES))]
    pub wan_profiles: Vec<String>,

    /// Smoke run (for CI; most of its time goes to the cost suite's start-ups under callgrind
    /// and the resilience suite): 20 warm-up calls, 5 samples x 100 calls, 10 ms decode
    /// samples, no second round for noisy decode rows; connections in 3 samples of about 5
    /// ms; memory in 2 rounds; idle with 4 calls per gap; resolution with 10 calls; cost runs
    /// of 20 and 420 calls and 150 payments in 2 rounds; load at 200 RPS for 1 s; fanout
    /// groups of 5 and 20 at 20 ms, sent once; faults with a 500 ms upstream timeout and a
    /// storm of 40 payments per client; resilience with 0.5 s outages, 1 s overloads and
    /// 3 s soaks. Explicit size flags still win.
    #[arg(long)]
    pub quick: bool,

    /// Measure this binary even if it is a debug build. Without it a debug-built bench (as
    /// `cargo run -p bench` makes) builds and runs the release one through cargo instead, and
    /// says so; with it the report says at the top that its figures are a debug build's.
    #[arg(long)]
    pub debug_build: bool,

    /// Print the whole header before the run, and the verdict's criteria and every suite's
    /// tables after it, as report.md holds them. Without it the terminal shows a short header,
    /// a line per suite, and the answer: the pick per use case, what was not decided, and
    /// where the report is.
    #[arg(long)]
    pub tables: bool,

    /// Write results.json, report.md, report.html and the SVG charts into DIR.
    /// [default: <target dir>/bench-results/<UTC time>/]
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// latency: calls per sample, per client. [default: 1000; --quick: 100]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub iterations: Option<u32>,

    /// Samples per client (latency) and per decode path and body (decode); Error needs at
    /// least 2. [default: 30; --quick: 5]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub samples: Option<u32>,

    /// decode: when a row's samples drift (their first and last thirds differ by more than
    /// their Error), show two modes (mvalue) or are skewed by outliers (a stretch on a busy
    /// machine), measure every row of the suite again, at most N more rounds; a row still
    /// noisy after them is marked. [default: 1; --quick: 0]
    #[arg(long, value_name = "N")]
    pub remeasure: Option<u32>,

    /// latency, connections, load and the resilience suite's capacity: the rounds each figure
    /// is measured in, spread over the suite (every client's round 1, then every client's
    /// round 2, ...). What a figure moves between rounds is its noise: the verdict calls a
    /// margin only when the clients' rounds do not overlap, so with 1 it calls none.
    /// [default: 3]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=20))]
    pub rounds: Option<u32>,

    /// latency: un-timed warm-up calls per client before its first sample. [default: 200;
    /// --quick: 20]
    #[arg(long, value_name = "N")]
    pub warmup: Option<u32>,

    /// latency: larger answers each client is also called for over http, beside the ordinary
    /// one (about 120 bytes), comma-separated sizes in bytes, or with k (KiB) or m (MiB): the
    /// same pairs with a history of points, from mock-rates' /size/N (1 byte to 8 MiB). `none`
    /// for none. Not against a mock or upstream given by URL. [default: 16k,1m]
    #[arg(long, value_delimiter = ',', value_name = "SIZES", value_parser = parse_body_size)]
    pub bodies: Option<Vec<BodySize>>,

    /// load: the payments scenarios run again over http, each upstream answer this large
    /// (bytes, or with k or m; `none` for none): the same pairs with a history of points, from
    /// mock-rates' /size/N, through a payment service of the suite's own that accepts it. Not
    /// with --mock-url, --api-url or --upstream-url. [default: 1m]
    #[arg(long, value_name = "SIZE", value_parser = parse_body_size)]
    pub load_body: Option<BodySize>,

    /// load: payments per second with the larger answer (--load-body). [default: 50; --quick:
    /// 25]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub load_body_rps: Option<u32>,

    /// Clients to compare, comma-separated, in table order; keep hyper for the Ratio column.
    /// Each named client is measured over every protocol. [default: every client with its
    /// library's default TLS backend, and over https also awc-openssl, reqwest-native-tls and
    /// ureq-native-tls]
    #[arg(long, value_enum, value_delimiter = ',', value_name = "NAMES")]
    pub clients: Vec<ClientName>,

    /// The protocols each client is measured over, comma-separated: http (HTTP/1.1 in the
    /// clear; every suite), https (HTTP/1.1 over TLS, against a mock-rates of the bench's own
    /// with a CA made at start, and for load and fanout a payment service of its own pointed at
    /// it; skipped with --mock-url; suites: latency, connections, memory, cost, load and
    /// fanout; resilience with --resilience-tls), h2 (HTTP/2 over TLS by ALPN, likewise; not
    /// ureq, which speaks HTTP/1.1 only; suites: latency, memory, cost, load and fanout;
    /// resilience with --resilience-tls). [default: http,https,h2]
    #[arg(
        long = "protocol",
        value_enum,
        value_delimiter = ',',
        value_name = "NAMES"
    )]
    pub protocols: Vec<Protocol>,

    /// An earlier results.json: print each row's change against it, with the test that
    /// decides whether it counts: latency and decode means against the combined Error, cost
    /// against 1% of each run's count; load means against 3.29 standard errors (a lower
    /// bound: requests are not independent), failures as counts (none against some always
    /// counts); fanout medians by a
    /// Mann-Whitney U test at 0.001 (7 repetitions each needed), failures and connections as
    /// counts; fault outcomes exactly, their time only past 1.5x the timeout. Connections rows and
    /// capacities are not compared (`bench verdict` holds runs side by side); a suite missing
    /// from FILE is left out.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,

    /// Use an already-running mock-rates at URL (e.g. http://127.0.0.1:8081) instead of
    /// starting one. Connection counts need its /__admin/stats endpoint; for a mock started
    /// with --admin-token, set MOCK_RATES_ADMIN_TOKEN to the same token.
    #[arg(long, value_name = "URL")]
    pub mock_url: Option<String>,

    /// Use an already-running payment service at URL (e.g. http://127.0.0.1:8080, or the
    /// compose stack's http://api:8080) instead of starting one. Its upstream should be the
    /// mock given by --mock-url, so the suites can set faults and latency there.
    #[arg(long, value_name = "URL")]
    pub api_url: Option<String>,

    /// latency and connections: do not pin the suite (the bench's thread and its own
    /// mock-rates) to one CPU. Pinning is the default because cross-CPU wake-ups make unpinned
    /// samples bimodal on small machines; see the report.
    #[arg(long)]
    pub no_pin: bool,

    /// cost: calls of each client's shortest and longest run under callgrind, comma-separated
    /// (a third runs halfway); their difference is what is divided by: the larger, the less
    /// the start-up's own noise weighs per call. [default: 100,1100; --quick: 20,420]
    #[arg(long, value_name = "LOW,HIGH", value_parser = call_counts)]
    pub cost_calls: Option<(u32, u32)>,

    /// cost: payments per client and round through the whole service (the api's process under
    /// callgrind, its instructions per payment); 0 leaves that part out. [default: 400;
    /// --quick: 150]
    #[arg(long, value_name = "N")]
    pub service_payments: Option<u32>,

    #[command(flatten)]
    pub connections: connections::settings::ConnectionsArgs,

    #[command(flatten)]
    pub fanout: fanout::settings::FanoutArgs,

    #[command(flatten)]
    pub faults: faults::settings::FaultsArgs,

    #[command(flatten)]
    pub load: load::settings::LoadArgs,

    #[command(flatten)]
    pub resilience: resilience::settings::ResilienceArgs,

    #[command(flatten)]
    pub upstream: crate::upstream::UpstreamArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write report.md, report.html and the charts of a saved run again, from its
    /// results.json, without measuring anything; the answer is printed (and the tables with
    /// --tables).
    Report {
        /// The results.json of an earlier run.
        results: std::path::PathBuf,
        /// Print the whole header and every table too.
        #[arg(long)]
        tables: bool,
        /// Where to write report.md, report.html and the charts. [default: the results file's
        /// directory]
        #[arg(long, value_name = "DIR")]
        out: Option<std::path::PathBuf>,
    },
    /// The verdicts of several saved runs side by side: which picks and which "beyond the
    /// noise" claims every run agrees on, how far each criterion moved between the runs, and
    /// the verdict of the runs together (every run's rounds pooled). Nothing is measured.
    Verdict {
        /// Two to eight results.json of the same build, in the order they ran.
        #[arg(required = true, num_args = 2..=8)]
        results: Vec<std::path::PathBuf>,
        /// Also write the tables as Markdown to this file.
        #[arg(long, value_name = "FILE")]
        out: Option<std::path::PathBuf>,
    },
    /// Internal: serve the payment service in this process (the bench starts itself this way).
    #[command(name = "__api", hide = true)]
    Api {
        /// Address to bind; port 0 picks a free one.
        #[arg(long, default_value = "127.0.0.1:0")]
        listen: SocketAddr,
        /// The rates upstream (mock-rates) the service calls.
        #[arg(long)]
        rates_url: String,
        /// Exit at once if this process is not our parent any more.
        #[arg(long)]
        parent_pid: Option<u32>,
    },
    /// Internal: make `calls` calls through one adapter and print what they allocated (the cost
    /// suite runs this under callgrind).
    #[command(name = "__cost", hide = true)]
    Cost {
        /// The client to build.
        #[arg(long, value_enum)]
        client: ClientName,
        /// The mock-rates to call.
        #[arg(long)]
        url: String,
        /// Its CA, for a mock over TLS.
        #[arg(long, value_name = "PATH")]
        ca_file: Option<std::path::PathBuf>,
        /// Speak HTTP/2 to it (`rates.http_version = "2"`; needs --ca-file's TLS).
        #[arg(long, requires = "ca_file")]
        http2: bool,
        /// Calls to make.
        #[arg(long)]
        calls: u32,
    },
    /// Internal: build one adapter, call it once and then `burst` times at once, and print
    /// this process's memory before, built, after the call and with the pool warm (the memory
    /// suite runs this once per client, protocol and round).
    #[command(name = "__memory", hide = true)]
    Memory {
        /// The client to build.
        #[arg(long, value_enum)]
        client: ClientName,
        /// The mock-rates to call.
        #[arg(long)]
        url: String,
        /// Its CA, for a mock over TLS.
        #[arg(long, value_name = "PATH")]
        ca_file: Option<std::path::PathBuf>,
        /// Speak HTTP/2 to it (`rates.http_version = "2"`; needs --ca-file's TLS).
        #[arg(long, requires = "ca_file")]
        http2: bool,
        /// Concurrent calls of the burst.
        #[arg(long)]
        burst: u32,
        /// Wait after the last answer before each reading (ms).
        #[arg(long)]
        settle_ms: u64,
    },
    /// Internal: the resolution suite's calls, inside the network namespace it made; prints
    /// the rows as JSON.
    #[command(name = "__resolution", hide = true)]
    Resolution {
        /// The suite's settings, as JSON.
        #[arg(long)]
        settings: String,
        /// The clients to measure.
        #[arg(long, value_enum, value_delimiter = ',', required = true)]
        clients: Vec<ClientName>,
    },
    /// Internal: serve mock-rates in this process (the bench starts itself this way).
    #[command(name = "__mock-rates", hide = true)]
    MockRates(MockChild),
}

/// The hidden `__mock-rates` sub-command's flags.
#[derive(Clone, Debug, clap::Args)]
pub struct MockChild {
    /// Address to bind; port 0 picks a free one.
    #[arg(long, default_value = "127.0.0.1:0")]
    pub listen: SocketAddr,
    /// Run on this CPU only (the latency suite's own mock).
    #[arg(long)]
    pub cpu: Option<usize>,
    /// Serve HTTPS with a CA made at start, written as PEM to `--ca-out`.
    #[arg(long, requires = "ca_out")]
    pub tls: bool,
    /// Where `--tls` writes its CA.
    #[arg(long, value_name = "PATH")]
    pub ca_out: Option<std::path::PathBuf>,
    /// With `--tls`: refuse session resumption, so that every handshake is a full one.
    #[arg(long, requires = "tls")]
    pub no_resumption: bool,
    /// With `--tls`: the HTTP/2 connections' SETTINGS_MAX_CONCURRENT_STREAMS.
    #[arg(long, requires = "tls", value_name = "N")]
    pub max_concurrent_streams: Option<u32>,
    /// With `--tls`: serve the identity (CA, certificate and key, JSON) in this file
    /// rather than a fresh one, as a mock restarted in place.
    #[arg(long, requires = "tls", value_name = "PATH")]
    pub tls_identity: Option<std::path::PathBuf>,
    /// Exit at once if this process is not our parent any more.
    #[arg(long)]
    pub parent_pid: Option<u32>,
}

/// The run's settings: every flag given, else its default (or `--quick`'s).
pub fn resolve(cli: &Cli) -> RunSettings {
    let (memory, idle, resolution) = count_suites(cli.quick);
    let (warmup, samples, iterations, decode_sample_ms) = if cli.quick {
        (20, 5, 100, 10)
    } else {
        (200, 30, 1000, 50)
    };
    RunSettings {
        catalogue: crate::suites::catalogue(),
        suites: {
            let mut suites = if cli.suites.is_empty() {
                SuiteName::ALL.to_vec()
            } else {
                cli.suites.clone()
            };
            if cli.adoption {
                suites.push(SuiteName::Adoption);
            }
            dedup(&suites)
        },
        clients: if cli.clients.is_empty() {
            ClientName::ALL.to_vec()
        } else {
            dedup(&cli.clients)
        },
        clients_named: !cli.clients.is_empty(),
        protocols: if cli.protocols.is_empty() {
            Protocol::ALL.to_vec()
        } else {
            dedup(&cli.protocols)
        },
        quick: cli.quick,
        warmup_calls: cli.warmup.unwrap_or(warmup),
        samples: cli.samples.unwrap_or(samples),
        calls_per_sample: cli.iterations.unwrap_or(iterations),
        latency_body_sizes: match &cli.bodies {
            None => DEFAULT_BODIES.to_vec(),
            Some(sizes) => sizes.iter().filter_map(|size| size.0).collect(),
        },
        remeasure: cli.remeasure.unwrap_or(u32::from(!cli.quick)),
        rounds: cli.rounds.unwrap_or(3),
        decode_sample_ms,
        mock: cli
            .mock_url
            .clone()
            .unwrap_or_else(|| "child process".to_owned()),
        api: cli
            .api_url
            .clone()
            .unwrap_or_else(|| "child process".to_owned()),
        https_servers: None,
        // Set by `upstream::GivenUpstream::restrict` for a run with --upstream-url.
        foreign_upstream: None,
        // Read by the run's decision (`run::decide`), once.
        machine: None,
        latency_cpu: if cli.no_pin {
            None
        } else {
            crate::affinity::latency_cpu().ok()
        },
        cost: CostSettings {
            calls: match cli.cost_calls {
                Some(calls) => calls,
                None if cli.quick => (20, 420),
                None => (100, 1100),
            },
            service: match cli.service_payments {
                Some(0) => None,
                payments => Some(ServiceCostSettings {
                    payments: payments.unwrap_or(if cli.quick { 150 } else { 400 }),
                    in_flight: 8,
                    rounds: if cli.quick { 2 } else { 3 },
                    warmup: if cli.quick { 40 } else { 100 },
                }),
            },
        },
        connections: connections::settings::resolve(&cli.connections, cli.quick),
        fanout: fanout::settings::resolve(&cli.fanout, cli.quick),
        faults: faults::settings::resolve(&cli.faults, cli.quick),
        load: LoadSettings {
            large_body: match cli.load_body {
                Some(BodySize(None)) => None,
                size => Some(LargeBody {
                    bytes: size.and_then(|size| size.0).unwrap_or(DEFAULT_LOAD_BODY),
                    rps: cli.load_body_rps.unwrap_or(if cli.quick { 25 } else { 50 }),
                }),
            },
            ..load::settings::resolve(&cli.load, cli.quick)
        },
        resilience: resilience::settings::resolve(&cli.resilience, cli.quick),
        memory,
        idle,
        resolution,
        releases: cli.releases.clone(),
        wan: wan_settings(cli),
    }
}

/// The settings of the suites whose figures are counts (memory, idle, resolution): fewer
/// rounds and calls with `--quick`.
fn count_suites(quick: bool) -> (MemorySettings, IdleSettings, ResolutionSettings) {
    (
        MemorySettings {
            rounds: if quick { 2 } else { 3 },
            ..MemorySettings::default()
        },
        IdleSettings {
            calls_per_gap: if quick { 4 } else { 8 },
            ..IdleSettings::default()
        },
        ResolutionSettings {
            calls: if quick { 10 } else { 50 },
            ..ResolutionSettings::default()
        },
    )
}

/// The WAN suite's settings: the profiles named, else all of them (`--quick`: the forgetful
/// one, which has every kind of figure: the cold payment, the stretch, the batch and a
/// recovery); `--quick` sends shorter stretches and calibrates with fewer packets.
fn wan_settings(cli: &Cli) -> WanSettings {
    let default = WanSettings::default();
    let profiles = if !cli.wan_profiles.is_empty() {
        dedup(&cli.wan_profiles)
    } else if cli.quick {
        vec!["forgetful".to_owned()]
    } else {
        wan_link::Profile::NAMES.map(str::to_owned).to_vec()
    };
    if cli.quick {
        WanSettings {
            profiles,
            stretch_ms: 2_000,
            round_trips: 15,
            datagrams: 2_000,
            ..default
        }
    } else {
        WanSettings {
            profiles,
            ..default
        }
    }
}

/// Keeps the first of each repeated value, in order.
fn dedup<T: PartialEq + Clone>(values: &[T]) -> Vec<T> {
    let mut unique = Vec::with_capacity(values.len());
    for value in values {
        if !unique.contains(value) {
            unique.push(value.clone());
        }
    }
    unique
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    /// What the run plan measures over `protocol`, as `--help` and docs/suites.md say it:
    /// "suites: latency, cost, load and fanout; resilience with --resilience-tls".
    fn suites_phrase(protocol: Protocol) -> String {
        let (always, asked) = bench_model::plan::suites_over(protocol);
        let names: Vec<&str> = always.iter().map(|suite| suite.as_str()).collect();
        let (last, first) = names
            .split_last()
            .expect("some suite runs over every protocol");
        let mut phrase = format!("suites: {} and {last}", first.join(", "));
        for suite in asked {
            phrase = format!("{phrase}; {suite} with --resilience-tls");
        }
        phrase
    }

    #[test]
    fn help_and_docs_say_what_the_plan_runs_over_each_protocol() {
        let help = Cli::command()
            .get_arguments()
            .find(|arg| arg.get_long() == Some("protocol"))
            .and_then(|arg| arg.get_help().map(ToString::to_string))
            .expect("--protocol has help");
        let one_line = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
        let docs = one_line(include_str!("../../../docs/suites.md"));
        let help = one_line(&help);
        for protocol in [Protocol::Https, Protocol::H2] {
            let phrase = suites_phrase(protocol);
            let said = help
                .split(&format!("{protocol} ("))
                .nth(1)
                .expect("the help names the protocol");
            assert!(
                said.contains(&phrase),
                "--help over {protocol}: want {phrase:?} in {said:?}"
            );
            assert!(
                docs.contains(&format!("Over `{protocol}` the {phrase}.")),
                "docs/suites.md over {protocol}: want {phrase:?}"
            );
        }
        assert!(docs.contains("Every suite runs over `http`."));
        assert_eq!(
            bench_model::plan::suites_over(Protocol::Http).0.len(),
            SuiteName::ALL.len() + 1
        );
    }

    #[test]
    fn the_wan_suite_takes_every_profile_unless_told() {
        let profiles = |args: &[&str]| {
            let mut all = vec!["bench"];
            all.extend_from_slice(args);
            resolve(&Cli::parse_from(all)).wan.profiles
        };
        assert_eq!(profiles(&[]), wan_link::Profile::NAMES.map(str::to_owned));
        assert_eq!(profiles(&["--quick"]), ["forgetful"]);
        assert_eq!(
            profiles(&["--wan-profiles", "lossy,zone,lossy"]),
            ["lossy", "zone"]
        );
    }

    #[test]
    fn body_sizes_are_read_in_bytes_kib_and_mib() {
        let bodies = |args: &[&str]| {
            let mut all = vec!["bench"];
            all.extend_from_slice(args);
            resolve(&Cli::parse_from(all)).latency_body_sizes
        };
        assert_eq!(bodies(&[]), DEFAULT_BODIES);
        assert_eq!(
            bodies(&["--bodies", "512,16k,2M"]),
            [512, 16_384, 2_097_152]
        );
        assert!(bodies(&["--bodies", "none"]).is_empty());
        for bad in ["0", "9m", "ten", "-1", "k"] {
            assert!(
                Cli::try_parse_from(["bench", "--bodies", bad]).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn the_load_suites_larger_answer_has_a_size_and_a_rate_of_its_own() {
        let large = |args: &[&str]| {
            let mut all = vec!["bench"];
            all.extend_from_slice(args);
            resolve(&Cli::parse_from(all)).load.large_body
        };
        let (bytes, rps) = (DEFAULT_LOAD_BODY, 50);
        assert_eq!(large(&[]), Some(LargeBody { bytes, rps }));
        assert_eq!(large(&["--quick"]), Some(LargeBody { bytes, rps: 25 }));
        assert_eq!(
            large(&["--load-body", "64k", "--load-body-rps", "10"]),
            Some(LargeBody {
                bytes: 65_536,
                rps: 10
            })
        );
        assert_eq!(large(&["--load-body", "none"]), None);
        assert!(Cli::try_parse_from(["bench", "--load-body-rps", "0"]).is_err());
    }

    #[test]
    fn defaults_quick_and_overrides() {
        let defaults = resolve(&Cli::parse_from(["bench"]));
        assert_eq!(defaults.suites, SuiteName::ALL.to_vec());
        assert_eq!(defaults.clients, ClientName::ALL.to_vec());
        assert!(!defaults.clients_named);
        assert_eq!(
            bench_model::Run::from(defaults.clone())
                .plan()
                .clients_over(Protocol::Http),
            [
                ClientName::Hyper,
                ClientName::Awc,
                ClientName::Reqwest,
                ClientName::Ureq,
                ClientName::ReqwestBlocking,
                ClientName::Isahc
            ]
        );
        assert_eq!(
            bench_model::Run::from(defaults.clone())
                .plan()
                .clients_over(Protocol::Https),
            ClientName::ALL
                .into_iter()
                .filter(|client| client.setting_of().is_none())
                .collect::<Vec<_>>()
        );
        assert_eq!(
            (
                defaults.warmup_calls,
                defaults.samples,
                defaults.calls_per_sample
            ),
            (200, 30, 1000)
        );
        let quick = resolve(&Cli::parse_from([
            "bench",
            "--quick",
            "--samples",
            "2",
            "--suite",
            "decode",
            "--suite",
            "decode",
            "--clients",
            "ureq,hyper,ureq",
        ]));
        assert!(quick.quick);
        assert_eq!((quick.warmup_calls, quick.samples), (20, 2));
        assert_eq!((quick.calls_per_sample, quick.decode_sample_ms), (100, 10));
        assert_eq!(quick.suites, vec![SuiteName::Decode]);
        assert_eq!(quick.clients, vec![ClientName::Ureq, ClientName::Hyper]);
        let named = resolve(&Cli::parse_from([
            "bench",
            "--clients",
            "hyper,ureq-native-tls",
        ]));
        assert_eq!(
            bench_model::Run::from(named.clone())
                .plan()
                .clients_over(Protocol::Http),
            [ClientName::Hyper, ClientName::UreqNativeTls]
        );
        assert!(Cli::try_parse_from(["bench", "--samples", "0"]).is_err());
        assert!(Cli::try_parse_from(["bench", "--clients", "curl"]).is_err());
        assert!(Cli::try_parse_from(["bench", "--group-sizes", "0"]).is_err());
        assert!(Cli::try_parse_from(["bench", "--upstream-latency-ms", "0"]).is_err());
        assert_eq!(
            resolve(&Cli::parse_from(["bench", "--cost-calls", "60,10"]))
                .cost
                .calls,
            (10, 60)
        );
        assert_eq!(defaults.cost.calls, (100, 1100));
        assert_eq!(quick.cost.calls, (20, 420));
        for wrong in ["10", "10,10", "0,5", "a,5"] {
            assert!(
                Cli::try_parse_from(["bench", "--cost-calls", wrong]).is_err(),
                "{wrong}"
            );
        }
    }

    #[test]
    fn the_hidden_mock_command_parses() {
        let cli = Cli::parse_from(["bench", "__mock-rates", "--listen", "127.0.0.1:0"]);
        assert!(matches!(
            cli.command,
            Some(Command::MockRates(MockChild {
                no_resumption: false,
                ..
            }))
        ));
        let tls = [
            "__mock-rates",
            "--tls",
            "--ca-out",
            "ca.pem",
            "--no-resumption",
        ];
        let cli = Cli::parse_from(std::iter::once("bench").chain(tls));
        assert!(matches!(
            cli.command,
            Some(Command::MockRates(MockChild {
                tls: true,
                no_resumption: true,
                ..
            }))
        ));
        // Resumption is a TLS matter.
        assert!(Cli::try_parse_from(["bench", "__mock-rates", "--no-resumption"]).is_err());
    }
}
