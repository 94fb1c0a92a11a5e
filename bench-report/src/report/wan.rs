//! The WAN suite's section: each profile's link calibrated against its configuration, then per
//! profile, client and protocol the payments across it, and what a partition or a forgotten
//! flow did to them.

use crate::report::not_run;
use crate::report::section::{Part, Section};
use crate::report::table::{Align, Table};
use bench_model::{Results, SuiteName, WanLink, WanRow};

/// The section, when the suite ran or was skipped.
pub fn section(results: &Results) -> Option<Section> {
    if let Some(why) = not_run::suite_not_run(results, SuiteName::Wan) {
        return Some(
            Section::suite(SuiteName::Wan).with(Part::Text(format!("wan: skipped: {why}"))),
        );
    }
    let wan = &results.wan;
    if wan.is_empty() {
        return None;
    }
    let mut section = Section::suite(SuiteName::Wan).with(Part::Table(links(&wan.links)));
    for link in &wan.links {
        let rows: Vec<&WanRow> = wan
            .rows
            .iter()
            .filter(|row| row.profile == link.profile)
            .collect();
        if link.is_refused() {
            section = section.with(Part::Text(format!(
                "{}: refused, its payments not measured: {}",
                link.profile,
                refusal(link)
            )));
        } else if !rows.is_empty() {
            section = section.with(Part::Table(payments(link, &rows)));
        }
    }
    let recovered: Vec<&WanRow> = wan
        .rows
        .iter()
        .filter(|row| row.recovery.is_some())
        .collect();
    if !recovered.is_empty() {
        section = section.with(Part::Table(recoveries(&recovered)));
    }
    Some(
        section
            .with_notes(failures(&wan.rows))
            .with(Part::Prose(HOW.to_owned())),
    )
}

fn links(links: &[WanLink]) -> Table {
    Table {
        title: "wan: each profile's link, measured against its configuration just before its \
                payments"
            .to_owned(),
        columns: vec![
            ("Profile", Align::Left),
            ("Round trip", Align::Right),
            ("Bound", Align::Right),
            ("Taken off", Align::Right),
            ("TCP connect", Align::Right),
            ("UDP echo", Align::Right),
            ("Loss", Align::Right),
            ("Lost up", Align::Right),
            ("Lost down", Align::Right),
            ("Relay CPU/packet", Align::Right),
            ("Steal", Align::Right),
            ("Honoured", Align::Left),
        ],
        rows: links
            .iter()
            .map(|link| {
                vec![
                    link.profile.clone(),
                    ms(link.configured_rtt_ms),
                    ms(link.bound_ms),
                    ms(link.excess_ms),
                    ms(link.connect_rtt_ms),
                    ms(link.echo_rtt_ms),
                    share(link.loss_configured),
                    share(link.loss_up),
                    share(link.loss_down),
                    link.relay_cpu_us_per_packet
                        .map_or_else(|| "not measured".to_owned(), |us| format!("{us:.1} us")),
                    link.steal_percent
                        .map_or_else(|| "not measured".to_owned(), |steal| format!("{steal:.1}%")),
                    match (link.is_refused(), link.attempts) {
                        (true, attempts) => format!("no ({attempts} tries)"),
                        (false, 1) => "yes".to_owned(),
                        (false, attempts) => format!("yes, try {attempts}"),
                    },
                ]
            })
            .collect(),
    }
}

/// Each check the link failed, with its median against the configured round trip and the
/// bound: `TCP connect: median 1.141 ms against 1.000 ms configured, 0.141 ms off (bound 0.100
/// ms)`.
fn refusal(link: &WanLink) -> String {
    link.refused
        .iter()
        .map(|&check| {
            let measured = link.measured_ms(check);
            format!(
                "{}: median {measured:.3} ms against {:.3} ms configured, {:.3} ms off (bound \
                 {:.3} ms)",
                check.as_str(),
                link.configured_rtt_ms,
                (measured - link.configured_rtt_ms).abs(),
                link.bound_ms
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn payments(link: &WanLink, rows: &[&WanRow]) -> Table {
    let first = rows.first();
    let stretch = first.map_or(0, |row| row.payments);
    Table {
        title: format!(
            "wan, {}: per client and protocol, the cold payment's set-up in round trips of {}, \
             {stretch} payments on a timetable (latency from each one's due time), and a \
             concurrent batch",
            link.profile,
            ms(link.connect_rtt_ms)
        ),
        columns: vec![
            ("Client", Align::Left),
            ("Protocol", Align::Left),
            ("Cold", Align::Right),
            ("Warm", Align::Right),
            ("Set-up RTTs", Align::Right),
            ("P50", Align::Right),
            ("P99", Align::Right),
            ("Max", Align::Right),
            ("Failed", Align::Left),
            ("Connections/1000", Align::Right),
            ("Handshakes/1000", Align::Right),
            ("Batch", Align::Right),
            ("Batch connections", Align::Right),
        ],
        rows: rows
            .iter()
            .map(|row| {
                let batch = row.batch.as_ref();
                vec![
                    row.client.to_string(),
                    row.protocol.to_string(),
                    optional_ms(row.cold_ms),
                    optional_ms(row.warm_ms),
                    row.set_up_round_trips()
                        .map_or_else(|| "not measured".to_owned(), |n| format!("{n:.1}")),
                    optional_ms(row.p50_ms),
                    optional_ms(row.p99_ms),
                    optional_ms(row.max_ms),
                    failed(row),
                    per_1000(row.connections_per_1000),
                    if row.protocol.is_tls() {
                        per_1000(row.handshakes_per_1000)
                    } else {
                        "no TLS".to_owned()
                    },
                    batch.map_or_else(
                        || "not measured".to_owned(),
                        |batch| match batch.wall_ms {
                            Some(wall) => ms(wall),
                            None => {
                                format!("{} of {} failed", batch.size - batch.succeeded, batch.size)
                            }
                        },
                    ),
                    batch
                        .and_then(|batch| batch.connections)
                        .map_or_else(|| "not counted".to_owned(), |n| n.to_string()),
                ]
            })
            .collect(),
    }
}

fn recoveries(rows: &[&WanRow]) -> Table {
    Table {
        title: "wan: after a partition (from its end) and after flows a middlebox forgot \
                (from the stretch's start): payments lost, the first answered, the last failed, \
                and packets the client sent on forgotten flows"
            .to_owned(),
        columns: vec![
            ("Profile", Align::Left),
            ("Client", Align::Left),
            ("Protocol", Align::Left),
            ("Event", Align::Left),
            ("Lost", Align::Right),
            ("First success", Align::Right),
            ("Last failure", Align::Right),
            ("Packets on dead flows", Align::Right),
        ],
        rows: rows
            .iter()
            .filter_map(|row| {
                let recovery = row.recovery.as_ref()?;
                Some(vec![
                    row.profile.clone(),
                    row.client.to_string(),
                    row.protocol.to_string(),
                    format!("{} ({})", recovery.event.as_str(), ms(recovery.event_ms)),
                    format!("{} of {}", recovery.lost, row.payments),
                    recovery
                        .first_success_ms
                        .map_or_else(|| "none".to_owned(), ms),
                    recovery
                        .last_failure_ms
                        .map_or_else(|| "none".to_owned(), ms),
                    recovery.packets_on_dead_flows.to_string(),
                ])
            })
            .collect(),
    }
}

/// `none`, or each reason with its count: `504: 3, timeout: 1`.
fn failed(row: &WanRow) -> String {
    if row.failures.is_empty() {
        return "none".to_owned();
    }
    row.failures
        .iter()
        .map(|(why, count)| format!("{why}: {count}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A line per row with a failure: the first error, as the service or the generator gave it.
fn failures(rows: &[WanRow]) -> Vec<String> {
    rows.iter()
        .filter_map(|row| {
            let error = row.first_error.as_deref()?;
            Some(format!(
                "{} {} over {}: {}; first: {}",
                row.profile,
                row.client,
                row.protocol,
                failed(row),
                error.chars().take(200).collect::<String>()
            ))
        })
        .collect()
}

fn ms(value: f64) -> String {
    if value >= 100.0 {
        format!("{value:.0} ms")
    } else {
        format!("{value:.1} ms")
    }
}

fn optional_ms(value: Option<f64>) -> String {
    value.map_or_else(|| "not measured".to_owned(), ms)
}

fn per_1000(value: Option<f64>) -> String {
    value.map_or_else(|| "not counted".to_owned(), |n| format!("{n:.1}"))
}

fn share(value: f64) -> String {
    format!("{:.2}%", value * 100.0)
}

const HOW: &str = "The link is a relay in the bench's process between two TUN devices, each in \
    a network namespace of the suite's own (the service's, 10.77.0.1, and the upstream's, \
    10.77.0.2), holding every packet until its due time and dropping by the profile's loss, \
    partition and middlebox, as mahimahi does. Before each profile's payments the relay's and \
    the two stacks' own excess is measured through a 1 ms link and taken off the profile's \
    delays (**Taken off**); the round trip is then measured by TCP connects and UDP echoes, \
    and a profile whose medians are off the configured round trip by more than its **Bound** \
    (5% or 0.1 ms) is measured once more, and refused if it misses again; **Steal** is the \
    share of the machine's CPU time the hypervisor took while that last measurement ran (a \
    refusal beside much of it is the machine's moment, not the link's). **Lost up/down** is \
    over numbered datagrams each way at 5 000 a second. Per protocol a fresh payment service \
    of one worker in the service's namespace calls mock-rates in the upstream's by its \
    address (so no DNS question is asked: not measured); before the clients, a payment \
    through a client not measured there pays the process's first TLS connection. **Cold** is \
    each client's first payment through it (its pool empty), **Warm** the median of the next \
    five, and **Set-up RTTs** their difference in round trips: 1 for TCP, 2 for TCP and TLS \
    1.3. The timetable's payments are answered 200 \
    with the right body or counted **Failed** by why (the service's 502 and 504, or the \
    generator's). **Connections/1000** and **Handshakes/1000** are what mock-rates accepted \
    during them. The batch is one `POST /payments/{client}/batch` of concurrent payments, its \
    wall time as the service measured it, and the connections it opened. The service keeps \
    idle upstream connections 60 s and mock-rates 300 s, so that on the forgetful profile \
    every pool holds connections the middlebox forgot (after 5 s idle) when the stretch \
    starts: a payment sent on one waits for the service's 2 s upstream timeout.";

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::{
        ClientName, Protocol, WanBatch, WanCheck, WanEvent, WanRecovery, WanResults,
    };

    fn row(profile: &str, client: ClientName, recovery: Option<WanRecovery>) -> WanRow {
        WanRow {
            profile: profile.to_owned(),
            client,
            protocol: Protocol::Https,
            rtt_ms: 30.0,
            cold_ms: Some(92.0),
            warm_ms: Some(31.0),
            payments: 60,
            ok: 58,
            failures: [("504".to_owned(), 2)].into(),
            first_error: Some("upstream timed out".to_owned()),
            p50_ms: Some(31.5),
            p99_ms: Some(2_040.0),
            p99_every_ms: Some(2_040.0),
            max_ms: Some(2_050.0),
            round_p99_ms: Vec::new(),
            connections_per_1000: Some(33.3),
            round_connections_per_1000: Vec::new(),
            handshakes_per_1000: Some(33.3),
            batch: Some(WanBatch {
                size: 70,
                succeeded: 70,
                wall_ms: Some(95.0),
                connections: Some(69),
                first_error: None,
            }),
            recovery,
        }
    }

    fn link(profile: &str, refused: &[WanCheck]) -> WanLink {
        WanLink {
            profile: profile.to_owned(),
            configured_rtt_ms: 30.0,
            bound_ms: 1.5,
            excess_ms: 0.2,
            connect_rtt_ms: 30.1,
            echo_rtt_ms: 30.1,
            loss_configured: 0.0,
            loss_up: 0.0,
            loss_down: 0.0,
            datagrams: 10_000,
            relay_cpu_us_per_packet: Some(31.0),
            refused: refused.to_vec(),
            attempts: if refused.is_empty() { 1 } else { 2 },
            steal_percent: Some(0.4),
        }
    }

    #[test]
    fn the_section_shows_each_honoured_profile_its_payments_and_each_recovery() {
        let mut results = Results::new(
            bench_model::test_rows::environment("now"),
            bench_model::test_rows::default_settings(),
        );
        results.wan = WanResults {
            links: vec![
                link("forgetful", &[]),
                WanLink {
                    configured_rtt_ms: 1.0,
                    bound_ms: 0.1,
                    connect_rtt_ms: 1.141,
                    ..link("zone", &[WanCheck::TcpConnect])
                },
            ],
            rows: vec![row(
                "forgetful",
                ClientName::Hyper,
                Some(WanRecovery {
                    event: WanEvent::Forgotten,
                    event_ms: 6_100.0,
                    lost: 2,
                    first_success_ms: Some(31.0),
                    last_failure_ms: Some(2_040.0),
                    packets_on_dead_flows: 6,
                }),
            )],
        };
        let section = section(&results).expect("a section");
        let text = format!("{section:?}");
        assert!(text.contains("Set-up RTTs"), "{text}");
        // (92 - 31) / 30 round trips.
        assert!(text.contains("\"2.0\""), "{text}");
        assert!(text.contains("504: 2"), "{text}");
        assert!(text.contains("forgotten (6100 ms)"), "{text}");
        assert!(text.contains("2 of 60"), "{text}");
        assert!(
            text.contains(
                "zone: refused, its payments not measured: TCP connect: median 1.141 ms against \
                 1.000 ms configured, 0.141 ms off (bound 0.100 ms)"
            ),
            "{text}"
        );
        assert!(text.contains("upstream timed out"), "{text}");
    }

    #[test]
    fn no_rows_no_section() {
        let results = Results::new(
            bench_model::test_rows::environment("now"),
            bench_model::test_rows::default_settings(),
        );
        assert!(section(&results).is_none());
    }
}
