//! The load suite's section: its tables, the targets and whether the run met them, and the
//! charts (latency by percentile, and second by second). Nothing here measures.

mod bodies;
mod tables;
mod targets;

use crate::report::format::unable_note;
use crate::report::load::bodies::{LARGE_BODY_NOTE, large_body_table};
use crate::report::load::tables::load_tables;
use crate::report::load::targets::{TARGETS_NOTE, TargetCheck, targets_table};
use crate::report::reasons;
use crate::report::section::{Part, Section};
use crate::report::upstream::not_measured_notes;
use bench_model::{LoadRow, Protocol, Results, SuiteName};

/// The section, when the suite ran; `charts` are the SVG files written beside report.md.
pub fn section(results: &Results, charts: &[String]) -> Option<Section> {
    if results.load.is_empty() {
        return None;
    }
    let rows = &results.load;
    let mut section = Section::suite(SuiteName::Load).with(Part::Prose(LOAD_INTRO.to_owned()));
    for table in load_tables(rows) {
        section = section.with(Part::Table(table));
    }
    if let Some(table) = large_body_table(rows) {
        section = section
            .with(Part::Table(table))
            .with(Part::Prose(LARGE_BODY_NOTE.to_owned()));
    } else if let Some(large) = results.settings.load.large_body {
        section = section.with(Part::Prose(format!(
            "Payments with a {} answer: not measured in this run (they need mock-rates and a \
             payment service of the bench's own, over http).",
            bench_model::size_name(large.bytes)
        )));
    }
    let ordinary: Vec<LoadRow> = rows
        .iter()
        .filter(|row| row.body_bytes.is_none())
        .cloned()
        .collect();
    if !ordinary.is_empty() {
        let met = ordinary
            .iter()
            .filter(|row| TargetCheck::of(row).all())
            .count();
        section = section
            .with(Part::Table(targets_table(&ordinary)))
            .with(Part::Prose(TARGETS_NOTE.to_owned()))
            .with(Part::Prose(format!(
                "**{met} of {} scenarios met every target.**",
                ordinary.len()
            )));
    }
    section = section.with_charts(charts, "load");
    let mut notes = first_errors(rows);
    notes.extend(not_measured_notes(rows.iter().map(|row| {
        let why = row.not_measured.as_ref();
        (
            row.label(),
            why.map(|why| reasons::not_counted(why, row.protocol)),
        )
    })));
    notes.extend(unable_note(
        &results.settings,
        SuiteName::Load,
        Protocol::H2,
    ));
    Some(section.with_notes(notes))
}

/// The first failure of each row that had one.
fn first_errors(rows: &[LoadRow]) -> Vec<String> {
    rows.iter()
        .filter_map(|row| {
            let error = row.first_error.as_ref()?;
            Some(format!(
                "{}: {} of {} requests failed; first: {error}",
                row.label(),
                row.fail,
                row.ok + row.fail
            ))
        })
        .collect()
}

const LOAD_INTRO: &str = "\
Open model, as NBomber's `inject` and wrk2 run it: each scenario's requests leave on a fixed
timetable whatever the service does, from a generator in the bench process (a multi-thread
tokio runtime and hyper-util's pooled HTTP/1.1 client with TCP_NODELAY; a new connection
whenever no idle one is free). Each scenario's time is split into rounds, taken in turn with
the other scenarios' (every scenario's round 1, then every scenario's round 2, ...), each after
an unrecorded warm-up at the same rate; the row is the rounds together, and **By round** shows
the CPU per request of each, whose spread is that figure's noise in the verdict.
Every request is awaited, its response read whole and checked: status 200, and for payments a
JSON body naming the scenario's client and the currencies sent. Payments cycle through
EUR->USD (direct EURUSD), GBP->EUR (inverse of EURGBP), JPY->USD (inverse of USDJPY) and
EUR->JPY (cross: EURUSD and USDJPY in one upstream call).

- **Latency** is measured from each request's *intended* send time, so a stall of the service
  or of the generator shows in every request it delayed (no coordinated omission); only
  successful requests are timed. Percentiles come from an HDR histogram (3 significant
  digits, nearest rank); **uncorrected** latency runs from the actual send.
- **RPS** is successful responses per second over the run: its timetable, or until the last
  response if that came later.
- **Sent late** counts requests that left more than 1 ms after they were due; **Skipped**, those
  never sent because 1024 were already in flight.
- **API CPU** is the api process's user + system time during the run, every thread of it,
  read from a cgroup the bench puts it in (to the nanosecond; where no cgroup can be made, the
  sum of its live threads' /proc schedstat);
  **API peak RSS** its peak resident memory during the run (VmHWM after a reset), and **RSS
  growth** that peak over its resident memory when the run started: the scenarios of a
  protocol share one api process, and memory an earlier scenario left allocated stays in every
  later peak, so growth is the scenario's own; NA for an api the bench did not start.
  **Busy after** is how long the api stayed busy (over 10% of a CPU) once the run ended,
  before the suite went on: calls left running, e.g. past their requests' timeouts (each
  round waits for the api to go idle, up to 10 s). **Mock
  connections** are the TCP connections mock-rates accepted during the run (connections kept
  from the warm-up are not new); **Calls/connection** is upstream calls per new connection.
- **over https**: the same scenarios against a payment service of the bench's own whose
  upstream is a mock-rates serving TLS (its CA given with `rates.ca_file`); every client with
  each of its TLS backends. `/health/live` is not repeated there: the service itself is called
  in the clear either way. Its TLS table gives the handshakes mock-rates counted (one per
  connection), and its cost table the https row against the same library's http row.
";

#[cfg(test)]
mod tests {
    use crate::report::load::tables::load_tables;
    use crate::report::load::targets::{TargetCheck, targets_table};
    use bench_model::test_rows::load_row as row;
    use bench_model::{ClientName, LoadRow, NegotiatedTls, Protocol};

    #[test]
    fn judges_every_target() {
        let health = TargetCheck::of(&row(None, 480.0, 900.0, 0));
        assert!(health.all());
        assert!((health.p99_target_us - 1_000.0).abs() < f64::EPSILON);
        // 1.5 ms is over the health target but under the payments one.
        assert!(!TargetCheck::of(&row(None, 480.0, 1_500.0, 0)).p99_within);
        assert!(TargetCheck::of(&row(Some(ClientName::Ureq), 480.0, 1_500.0, 0)).all());
        // 1% of 480 is 4.8: 475.3 and 484.7 are in, 475.1 is out.
        assert!(TargetCheck::of(&row(Some(ClientName::Awc), 475.3, 100.0, 0)).rps_within);
        assert!(TargetCheck::of(&row(Some(ClientName::Awc), 484.7, 100.0, 0)).rps_within);
        assert!(!TargetCheck::of(&row(Some(ClientName::Awc), 475.1, 100.0, 0)).rps_within);
        let failed = TargetCheck::of(&row(Some(ClientName::Awc), 480.0, 100.0, 1));
        assert!(!failed.no_failures && !failed.all());
    }

    #[test]
    fn tables_show_every_scenario() {
        let rows = [
            row(None, 480.0, 900.0, 0),
            row(Some(ClientName::Hyper), 479.0, 2_500.0, 2),
        ];
        let tables = load_tables(&rows);
        assert_eq!(tables.len(), 4);
        let main = tables[0].render();
        assert!(main.contains("| GET /health/live"), "{main}");
        assert!(main.contains("0.900 ms"), "{main}");
        assert!(tables[2].render().contains("all reused"));
        let targets = targets_table(&rows).render();
        assert!(targets.contains("2.50 ms < 2 ms: NOT met"), "{targets}");
        assert!(targets.contains("480.0 of 480: met"), "{targets}");
    }

    fn over_https(client: ClientName, handshakes: u64, cpu_s: f64) -> LoadRow {
        LoadRow {
            protocol: Protocol::Https,
            tls: Some(NegotiatedTls {
                backend: "native-tls".to_owned(),
                provider: "OpenSSL (system)".to_owned(),
                version: "TLSv1.3".to_owned(),
                handshakes,
                http_version: "HTTP/1.1".to_owned(),
            }),
            pool_bound: Some(200),
            mock_tls_handshakes: Some(0),
            api_cpu_s: Some(cpu_s),
            ..row(Some(client), 480.0, 1_000.0, 0)
        }
    }

    #[test]
    fn https_rows_get_their_tls_their_bound_and_their_cost_against_the_librarys_http_row() {
        let mut http = row(Some(ClientName::Reqwest), 480.0, 900.0, 0);
        http.api_cpu_s = Some(0.96);
        let rows = [
            http,
            over_https(ClientName::ReqwestNativeTls, 2, 1.44),
            over_https(ClientName::UreqNativeTls, 201, 4.8),
        ];
        let tables = load_tables(&rows);
        assert_eq!(tables.len(), 6, "the four tables, TLS and TLS cost");
        let main = tables[0].render();
        assert!(
            main.contains("| POST /payments/reqwest-native-tls over https"),
            "{main}"
        );
        let tls = tables[4].render();
        assert!(
            tls.contains("native-tls (OpenSSL (system)) TLSv1.3"),
            "{tls}"
        );
        assert!(tls.contains("| 201 |") || tls.contains(" 201 "), "{tls}");
        assert!(tls.contains("| NO "), "over the bound: {tls}");
        // reqwest-native-tls against reqwest over http: 300 us against 200 us per request;
        // ureq-native-tls has no ureq http row, so no cost row.
        let cost = tables[5].render();
        assert!(cost.contains("| reqwest-native-tls "), "{cost}");
        assert!(
            cost.contains("200.0 us") && cost.contains("300.0 us"),
            "{cost}"
        );
        assert!(cost.contains("1.50x"), "{cost}");
        assert!(!cost.contains("ureq-native-tls"), "{cost}");
        // A handshake count over the pool bound misses the target.
        assert_eq!(TargetCheck::of(&rows[1]).handshakes_within, Some(true));
        assert_eq!(TargetCheck::of(&rows[2]).handshakes_within, Some(false));
        assert!(!TargetCheck::of(&rows[2]).all());
        assert_eq!(TargetCheck::of(&rows[0]).handshakes_within, None);
        let targets = targets_table(&rows).render();
        assert!(targets.contains("201 <= 200: NOT met"), "{targets}");
        // Plain HTTP rows alone get no TLS tables.
        assert_eq!(load_tables(&rows[..1]).len(), 4);
    }

    #[test]
    fn a_larger_answer_is_set_beside_the_ordinary_one_and_kept_out_of_the_targets() {
        let mut results = crate::report::fanout::test_rows::results("360");
        let mut ordinary = row(Some(ClientName::Hyper), 480.0, 900.0, 0);
        ordinary.api_cpu_s = Some(0.96);
        let large = LoadRow {
            body_bytes: Some(1024 * 1024),
            target_rps: 50,
            ok: 500,
            api_cpu_s: Some(1.5),
            // 500 payments, 3 ms of the service's CPU each; its p99 misses the 2 ms target.
            ..row(Some(ClientName::Hyper), 50.0, 9_000.0, 0)
        };
        results.load = vec![ordinary.clone(), large.clone()];
        let markdown = super::section(&results, &[]).expect("rows").markdown();
        assert!(
            markdown.contains("480 RPS for 10.0 s per scenario (with a 1 MiB answer: 50 RPS)"),
            "{markdown}"
        );
        assert!(
            markdown.contains("| POST /payments/hyper, 1 MiB answer "),
            "{markdown}"
        );
        let bodies = markdown
            .lines()
            .find(|line| line.starts_with("| hyper "))
            .expect("a row of the larger answer's table");
        // 1.5 s over 500 payments against 0.96 s over 4 800: 3 000 us against 200 us.
        assert!(
            bodies.contains("3000 us") && bodies.contains("200 us") && bodies.contains("15.0x"),
            "{bodies}"
        );
        assert!(
            markdown.contains("**1 of 1 scenarios met every target.**"),
            "the larger answer is not held to the targets: {markdown}"
        );
        // Asked for and not measured: said so.
        results.settings.edit(|settings| {
            settings.load.large_body = Some(bench_model::LargeBody {
                bytes: 1024 * 1024,
                rps: 50,
            });
        });
        results.load = vec![ordinary];
        let markdown = super::section(&results, &[]).expect("rows").markdown();
        assert!(
            markdown.contains("Payments with a 1 MiB answer: not measured in this run"),
            "{markdown}"
        );
    }
}
