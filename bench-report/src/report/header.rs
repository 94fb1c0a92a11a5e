//! The header above the tables: where the run was taken, and its settings, one fact a line.

use std::fmt::Write as _;

#[cfg(test)]
use bench_model::TlsServer;
use bench_model::{
    ClientName, Environment, FanoutMode, FanoutSettings, FaultsSettings, LoadSettings, Origin,
    Protocol, ResilienceSettings, Results, Run, RunSettings, Server, Servers, SuiteName, TlsRole,
};

/// The header's lines, without decoration; a build other than release is said first.
pub fn lines(results: &Results) -> Vec<String> {
    let environment = &results.environment;
    let mut lines: Vec<String> = (!environment.build_profile.starts_with("release"))
        .then(|| {
            format!(
                "WARNING: a {} build was measured (--debug-build): its figures are not what the \
                 libraries do in a release build, and its ratios are not theirs either",
                environment.build_profile
            )
        })
        .into_iter()
        .collect();
    lines.extend(environment_lines(environment));
    lines.extend(settings_lines(&results.settings, &results.servers));
    lines
}

/// The header in a few lines: the debug-build warning where there is one, the bench and the
/// machine, the toolchain, and the suites with their clients.
pub fn brief_lines(results: &Results) -> Vec<String> {
    let environment = &results.environment;
    let settings = &results.settings;
    let mut lines: Vec<String> = lines(results)
        .into_iter()
        .take_while(|line| line.starts_with("WARNING"))
        .collect();
    lines.push(format!(
        "bench {}, started {}: {}, {} logical cores, {}",
        environment.bench_version,
        environment.started_utc,
        environment.cpu_model,
        environment.logical_cores,
        environment.os
    ));
    lines.push(format!(
        "{}, {} build",
        environment.rustc, environment.build_profile
    ));
    // An upstream given by URL is what the run measures: named here too.
    lines.extend(crate::report::upstream::header_lines(
        settings.foreign_upstream.as_ref(),
    ));
    let plan = settings.plan();
    let mut clients: Vec<ClientName> = settings
        .protocols
        .iter()
        .flat_map(|&protocol| plan.clients_over(protocol))
        .collect();
    clients.sort_unstable();
    clients.dedup();
    let clients = clients.len();
    lines.push(format!(
        "{} ({}), {clients} client{} over {}{}; every setting, version and server in report.md \
         (or --tables)",
        match settings.suites.len() {
            1 => "1 suite".to_owned(),
            count => format!("{count} suites"),
        },
        settings
            .suites
            .iter()
            .map(|suite| suite.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        if clients == 1 { "" } else { "s" },
        settings
            .protocols
            .iter()
            .map(|protocol| protocol.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        if settings.quick { " (--quick)" } else { "" },
    ));
    lines
}

/// The header's lines, without decoration.
fn environment_lines(environment: &Environment) -> Vec<String> {
    let cores = match environment.physical_cores {
        Some(physical) => format!(
            "{} logical and {physical} physical cores",
            environment.logical_cores
        ),
        None => format!("{} logical cores", environment.logical_cores),
    };
    let crates = environment
        .crates
        .iter()
        .map(|entry| format!("{} {}", entry.name, entry.version))
        .collect::<Vec<_>>()
        .join(", ");
    vec![
        format!(
            "bench {}, started {}",
            environment.bench_version, environment.started_utc
        ),
        format!("OS: {} ({})", environment.os, environment.kernel),
        format!(
            "CPU: {}, {cores}; load average at start {} (1, 5, 15 min)",
            environment.cpu_model,
            environment.load_average.as_deref().unwrap_or("unknown")
        ),
        format!(
            "{}, {} build, {}",
            environment.rustc, environment.build_profile, environment.target
        ),
        format!("Crates: {crates}"),
        format!(
            "TLS libraries at run time: {}",
            if environment.tls_libraries.is_empty() {
                "not recorded".to_owned()
            } else {
                environment.tls_libraries.join("; ")
            }
        ),
    ]
}

/// The run's settings, one line each, for the header: the suites and clients, then a line
/// per selected suite.
fn settings_lines(settings: &Run, servers: &Servers) -> Vec<String> {
    let names = |items: Vec<&str>| items.join(", ");
    let plan = settings.plan();
    let clients: Vec<String> = settings
        .protocols
        .iter()
        .map(|&protocol| {
            let over: Vec<&str> = plan
                .clients_over(protocol)
                .into_iter()
                .map(ClientName::as_str)
                .collect();
            let unable: Vec<&str> = plan
                .unable(protocol)
                .into_iter()
                .map(ClientName::as_str)
                .collect();
            if unable.is_empty() {
                format!("over {protocol} {}", over.join(", "))
            } else {
                format!(
                    "over {protocol} {} (not {}: HTTP/1.1 only)",
                    over.join(", "),
                    unable.join(", ")
                )
            }
        })
        .collect();
    let protocols = names(
        settings
            .protocols
            .iter()
            .map(|protocol| protocol.as_str())
            .collect(),
    );
    let mut lines = crate::report::upstream::header_lines(settings.foreign_upstream.as_ref());
    lines.push(format!(
        "Suites: {}; clients {}{}; each figure the verdict reads in {} rounds spread over its \
         suite",
        names(settings.suites.iter().map(|suite| suite.as_str()).collect()),
        clients.join("; "),
        if settings.quick { " (--quick)" } else { "" },
        settings.rounds
    ));
    if settings.suites.contains(&SuiteName::Latency) {
        lines.push(latency_line(settings, servers, &protocols));
    }
    if settings.suites.contains(&SuiteName::Connections) {
        lines.push(connections_line(settings));
    }
    if settings.suites.contains(&SuiteName::Decode) {
        lines.push(format!(
            "decode: {} samples of about {} ms per method and body",
            settings.samples, settings.decode_sample_ms
        ));
    }
    if settings.suites.contains(&SuiteName::Load) {
        lines.push(format!("{} (over {protocols})", load_line(&settings.load)));
    }
    if settings.suites.contains(&SuiteName::Fanout) {
        let fanout_protocols = plan.protocols(SuiteName::Fanout);
        let mut modes = String::new();
        if fanout_protocols.iter().any(|protocol| protocol.is_tls()) {
            modes.push_str("; over TLS concurrent groups only");
        }
        if let Some(limit) = settings
            .fanout
            .h2_stream_limit
            .filter(|_| fanout_protocols.contains(&Protocol::H2))
        {
            let _ = write!(modes, "; over h2 again with a stream limit of {limit}");
        }
        lines.push(format!(
            "{} (over {protocols}{modes})",
            fanout_line(&settings.fanout)
        ));
    }
    if settings.suites.contains(&SuiteName::Faults) {
        lines.push(faults_line(&settings.faults));
    }
    if settings.suites.contains(&SuiteName::Resilience) {
        lines.push(resilience_line(&settings.resilience));
    }
    if settings.suites.iter().any(|suite| suite.needs_api()) {
        lines.push(format!(
            "payment service: {}; mock-rates: {}",
            servers
                .api
                .as_ref()
                .map_or_else(|| settings.api.clone(), where_it_ran),
            mock_at(settings, servers)
        ));
    }
    if servers.tls.is_empty() {
        // A run before the servers were recorded apart said them in this line.
        if let Some(https) = &settings.https_servers {
            lines.push(format!("over TLS: {https}"));
        }
    } else {
        lines.push(format!("over TLS: {}", tls_line(settings, servers)));
    }
    lines
}

/// Where a server ran, as the header says it.
fn where_it_ran(server: &Server) -> String {
    match server.origin {
        Origin::Child => format!("child process at {}", server.url),
        Origin::Given => server.url.clone(),
        Origin::Upstream => format!("none: the upstream is {} (--upstream-url)", server.url),
    }
}

/// Where mock-rates ran: recorded, or as a run before the record said it.
fn mock_at(settings: &RunSettings, servers: &Servers) -> String {
    servers
        .mock
        .as_ref()
        .map_or_else(|| settings.mock.clone(), where_it_ran)
}

/// The servers over TLS of the suites that drive the service.
fn tls_line(settings: &RunSettings, servers: &Servers) -> String {
    let mock = servers
        .tls
        .iter()
        .find(|server| server.role == TlsRole::Mock)
        .map_or("", |server| server.url.as_str());
    let mut parts = Vec::new();
    for server in &servers.tls {
        let url = &server.url;
        match server.role {
            TlsRole::Mock if settings.foreign_upstream.is_none() => parts.push(format!(
                "mock-rates serving TLS (h2 and http/1.1 by ALPN): child process at {url}"
            )),
            TlsRole::Api {
                protocol,
                upstream_ca,
            } => parts.push(if settings.foreign_upstream.is_some() {
                let trust = if upstream_ca {
                    "rates.ca_file: --ca-file's CA"
                } else {
                    "the system's roots only"
                };
                format!(
                    "payment service over {protocol}: child process at {url} (rates.base_url: \
                     {mock}; {trust})"
                )
            } else {
                format!(
                    "payment service over {protocol}: child process at {url} (rates.ca_file: \
                     the mock's CA)"
                )
            }),
            TlsRole::LimitedMock { stream_limit } => {
                let api = servers
                    .tls
                    .iter()
                    .find(|server| server.role == TlsRole::LimitedApi { stream_limit })
                    .map_or("", |server| server.url.as_str());
                parts.push(format!(
                    "fanout over h2 with a stream limit of {stream_limit}: mock-rates at {url}, \
                     payment service at {api}"
                ));
            }
            // Said with their mock (a given upstream's mock is the upstream: said above).
            TlsRole::Mock | TlsRole::LimitedApi { .. } => {}
        }
    }
    parts.join("; ")
}

/// The latency suite's line.
fn latency_line(settings: &RunSettings, servers: &Servers, protocols: &str) -> String {
    format!(
        "latency: over {protocols}; {} warm-up calls, then {} samples x {} calls per \
             client, interleaved, in rounds{}; mock-rates: {}; {}",
        settings.warmup_calls,
        settings.samples,
        settings.calls_per_sample,
        if settings.foreign_upstream.is_some() {
            ""
        } else {
            ", a minimal client beside them"
        },
        mock_at(settings, servers),
        settings.latency_cpu.map_or_else(
            || "not pinned (--no-pin)".to_owned(),
            |cpu| {
                if settings.foreign_upstream.is_some() {
                    format!("the bench pinned to CPU {cpu} (the upstream is not the bench's)")
                } else {
                    format!(
                        "pinned to CPU {cpu} (with its own mock-rates, unless --mock-url), then \
                         over http once more unpinned"
                    )
                }
            },
        )
    )
}

/// The resilience suite's line.
fn resilience_line(sizes: &ResilienceSettings) -> String {
    let seconds = |ms: u64| ms as f64 / 1_000.0;
    format!(
        "resilience ({}; {}): capacity in rounds, each a ramp of {} s steps, then confirmation \
         stretches of {} s; restart at {} RPS, {} s down; overload \
         at {}% of capacity for {} s; {} slow connections beside {} RPS for {} s per client; \
         soak at {}% of capacity for {} s per client, {} s of it warm-up",
        if sizes.full {
            "full sizes"
        } else {
            "short sizes; --resilience-full for the full ones"
        },
        if sizes.over_tls {
            "over http, and over https and h2 against a mock-rates over TLS of its own"
        } else {
            "over http; --resilience-tls for https and h2"
        },
        seconds(sizes.ramp_step_ms),
        seconds(sizes.confirm_ms),
        sizes.restart_rps,
        seconds(sizes.restart_outage_ms),
        sizes.overload_percent,
        seconds(sizes.overload_ms),
        sizes.slow_connections,
        sizes.slow_rps,
        seconds(sizes.slow_phase_ms),
        sizes.soak_percent,
        seconds(sizes.soak_ms),
        seconds(sizes.soak_warmup_ms)
    )
}

/// The connections suite's line.
fn connections_line(settings: &Run) -> String {
    let sizes = &settings.connections;
    let protocols: Vec<&str> = settings
        .plan()
        .protocols(SuiteName::Connections)
        .iter()
        .map(|protocol| protocol.as_str())
        .collect();
    format!(
        "connections: over {}; per client and mode, and per client build: up to {} warm-up \
         calls, then {} samples of about {} ms (calls per sample from the warm-up's mean, 1 to \
         {}), interleaved; mock-rates: {}, {}",
        protocols.join(", "),
        sizes.warmup_calls,
        sizes.samples,
        sizes.sample_ms,
        sizes.max_calls_per_sample,
        if settings.mock.starts_with("child process") {
            "its own (over https one with session resumption and one without)"
        } else if settings.foreign_upstream.is_some() {
            "none, the upstream given (over https without new_connection_full)"
        } else {
            "the one given (https left out)"
        },
        settings.latency_cpu.map_or_else(
            || "not pinned (--no-pin)".to_owned(),
            |cpu| format!("pinned to CPU {cpu}"),
        )
    )
}

/// The settings line for the header.
fn load_line(load: &LoadSettings) -> String {
    format!(
        "load: open model at {} RPS for {} s per scenario after {} s of warm-up, in rounds, \
         each request bounded by {} s",
        load.rps,
        load.duration_ms as f64 / 1_000.0,
        load.warmup_ms as f64 / 1_000.0,
        load.timeout_ms as f64 / 1_000.0
    )
}

/// The fanout suite's line.
fn fanout_line(fanout: &FanoutSettings) -> String {
    let sizes: Vec<String> = fanout.group_sizes.iter().map(u32::to_string).collect();
    let sequential: Vec<String> = fanout
        .sizes_of(FanoutMode::Sequential)
        .iter()
        .map(u32::to_string)
        .collect();
    let jitter = if fanout.upstream_jitter_ms > 0 {
        format!(" + 0..={} ms jitter", fanout.upstream_jitter_ms)
    } else {
        String::new()
    };
    format!(
        "fanout: upstream latency {} ms{jitter}; groups of {} (in sequence {}); each concurrent \
         group sent {}x, each sequential group {}x (median shown)",
        fanout.upstream_latency_ms,
        sizes.join(", "),
        sequential.join(", "),
        fanout.repetitions,
        fanout.sequential_repetitions
    )
}

/// The faults suite's line.
fn faults_line(settings: &FaultsSettings) -> String {
    let faults: Vec<&str> = settings.faults.iter().map(|case| case.as_str()).collect();
    let timeout = settings.timeout_ms.map_or_else(
        || "the service's own (rates.timeout_ms)".to_owned(),
        |ms| format!("{ms} ms (its own api child)"),
    );
    format!(
        "faults: {} through POST /payments/{{client}}; upstream timeout {timeout}; storm of \
         {} payments per client under rotating faults, then the fd check",
        faults.join(", "),
        settings.storm_requests
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_debug_build_is_said_first_and_a_release_one_is_not() {
        let mut results = Results::new(
            bench_model::test_rows::environment("now"),
            bench_model::test_rows::default_settings(),
        );
        results.environment.build_profile = "debug (opt-level=0, debug=true)".to_owned();
        let debug = lines(&results);
        assert!(
            debug[0].starts_with("WARNING: a debug (opt-level=0, debug=true) build was measured"),
            "{debug:?}"
        );
        results.environment.build_profile = "release (opt-level=3, debug=true)".to_owned();
        let release = lines(&results);
        assert!(release[0].starts_with("bench "), "{release:?}");
        assert!(!release.iter().any(|line| line.contains("WARNING")));
    }

    #[test]
    fn the_servers_are_said_from_the_record_or_as_an_older_run_said_them() {
        let mut results = Results::new(
            bench_model::test_rows::environment("now"),
            bench_model::test_rows::default_settings(),
        );
        let child = |url: &str| Server {
            url: url.to_owned(),
            origin: Origin::Child,
        };
        results.servers = Servers {
            mock: Some(child("http://127.0.0.1:1")),
            api: Some(Server {
                url: "http://127.0.0.1:2".to_owned(),
                origin: Origin::Given,
            }),
            tls: vec![
                TlsServer {
                    role: TlsRole::Mock,
                    url: "https://127.0.0.1:3".to_owned(),
                },
                TlsServer {
                    role: TlsRole::Api {
                        protocol: Protocol::H2,
                        upstream_ca: true,
                    },
                    url: "http://127.0.0.1:4".to_owned(),
                },
                TlsServer {
                    role: TlsRole::LimitedMock { stream_limit: 8 },
                    url: "https://127.0.0.1:5".to_owned(),
                },
                TlsServer {
                    role: TlsRole::LimitedApi { stream_limit: 8 },
                    url: "http://127.0.0.1:6".to_owned(),
                },
            ],
        };
        let text = lines(&results).join("\n");
        for said in [
            "payment service: http://127.0.0.1:2; mock-rates: child process at http://127.0.0.1:1",
            "over TLS: mock-rates serving TLS (h2 and http/1.1 by ALPN): child process at \
             https://127.0.0.1:3; payment service over h2: child process at http://127.0.0.1:4 \
             (rates.ca_file: the mock's CA); fanout over h2 with a stream limit of 8: mock-rates \
             at https://127.0.0.1:5, payment service at http://127.0.0.1:6",
        ] {
            assert!(text.contains(said), "{said}\n{text}");
        }
        // A run before the record: its settings' lines.
        results.servers = Servers::default();
        results.settings.edit(|settings| {
            settings.mock = "child process at http://127.0.0.1:7".to_owned();
            settings.https_servers = Some("an older line".to_owned());
        });
        let text = lines(&results).join("\n");
        assert!(
            text.contains("mock-rates: child process at http://127.0.0.1:7"),
            "{text}"
        );
        assert!(text.contains("over TLS: an older line"), "{text}");
    }
}
