//! report.md: the header, the tables, the charts and how to read them.

use std::fmt::Write as _;

use crate::report::json::Results;
use crate::report::{
    TimeFormat, baseline_table, bodies_in_order, decode_tables, format_bytes, format_count,
    latency_table, settings_lines,
};
use crate::suites::decode::{DecodeMethod, DecodeRow};

/// The whole report; `charts` are the SVG file names written beside it.
pub fn render(results: &Results, charts: &[String]) -> String {
    let mut out = String::from("# HTTP clients through the rates port: bench results\n\n");
    for line in results
        .environment
        .header_lines()
        .into_iter()
        .chain(settings_lines(&results.settings))
    {
        let _ = writeln!(out, "- {line}");
    }

    if !results.latency.is_empty() {
        let table = latency_table(&results.latency);
        let _ = write!(out, "\n## {}\n\n{}\n", table.title, table.render());
        out.push_str(
            "Each call is `fetch_quotes(&[EURUSD, USDJPY])` through `RatesProvider`, awaited and \
             checked (both pairs present) before the next; one reused client per adapter, all in \
             one actix runtime. Allocated/op and Allocs/op count the Rust heap only: **libcurl's \
             own malloc (isahc) is not counted**, nor are kernel socket buffers. They include the \
             port's boxed future (async-trait), the same one allocation for every client. \
             Connections are the TCP connections mock-rates accepted during the client's warm-up \
             and samples: 1 means every call reused one connection.\n",
        );
        if results.settings.latency_cpu.is_some() {
            out.push_str(
                "\nThe suite ran pinned to one CPU, the bench's thread, the clients' own threads \
                 (ureq's blocking pool, isahc's curl thread) and its own mock-rates alike: on a \
                 small machine a call whose client and server sit on different CPUs pays for a \
                 cross-CPU wake-up that changes from sample to sample (unpinned, one sample of \
                 hyper averaged 20 us and the next 50 us), which would drown the clients' \
                 differences. Pinned, client and server take turns on the CPU, so each figure \
                 includes the mock's share of the work, the same for every client. `--no-pin` \
                 measures unpinned.\n",
            );
        }
        for row in &results.latency {
            if let Some(error) = &row.first_error {
                let _ = writeln!(
                    out,
                    "\n**{}**: {} of {} calls failed; the first: `{error}`",
                    row.client, row.failures, row.calls
                );
            }
        }
        push_charts(&mut out, charts, "latency");
    }

    if !results.decode.is_empty() {
        out.push_str("\n## decode\n\nThe ways, each ending with every pair's rate and timestamp in hand:\n\n");
        for method in DecodeMethod::ALL {
            let _ = writeln!(out, "- `{}`: {}", method.id(), method.description());
        }
        for table in decode_tables(&results.decode) {
            let _ = write!(out, "\n### {}\n\n{}", table.title, table.render());
        }
        out.push('\n');
        for line in decode_verdicts(&results.decode) {
            let _ = writeln!(out, "- {line}");
        }
        push_charts(&mut out, charts, "decode");
    }

    out.push_str(&crate::report::load::markdown_section(results, charts));
    out.push_str(&crate::report::fanout::markdown_section(results, charts));
    out.push_str(&crate::report::faults::markdown_section(results));

    if let Some(comparison) = &results.baseline {
        let table = baseline_table(comparison);
        let _ = write!(
            out,
            "\n## Change against the baseline\n\nBaseline: `{}`{}. A change is real when it \
             exceeds the combined Error, sqrt(Error_then^2 + Error_now^2).\n\n{}",
            comparison.file,
            comparison
                .baseline_started_utc
                .as_ref()
                .map(|started| format!(", started {started}"))
                .unwrap_or_default(),
            table.render()
        );
    }

    out.push_str(HOW_TO_READ);
    out
}

fn push_charts(out: &mut String, charts: &[String], prefix: &str) {
    let mine: Vec<&String> = charts
        .iter()
        .filter(|name| name.starts_with(prefix))
        .collect();
    if mine.is_empty() {
        return;
    }
    out.push('\n');
    for name in mine {
        let _ = writeln!(out, "![{name}]({name})");
    }
}

/// One line per body: which way won (and which are within its Error), which allocated least,
/// and where the adapters' way stands.
pub fn decode_verdicts(rows: &[DecodeRow]) -> Vec<String> {
    bodies_in_order(rows)
        .into_iter()
        .filter_map(|body| {
            let body_rows: Vec<&DecodeRow> = rows.iter().filter(|row| row.body == body).collect();
            verdict(body, &body_rows)
        })
        .collect()
}

/// Why the adapters' way can lose on time.
const EXTRA_WORK: &str =
    "it also turns every rate into an exact decimal and builds the domain's Quotes";

fn verdict(body: &str, rows: &[&DecodeRow]) -> Option<String> {
    let adapters = DecodeMethod::BorrowedTyped.id();
    let time = TimeFormat::for_means_ns(rows.iter().map(|row| row.mean_ns));
    let fastest = rows
        .iter()
        .filter(|row| row.mean_ns.is_some())
        .min_by(|a, b| mean_or_max(a).total_cmp(&mean_or_max(b)))?;
    let fewest_bytes = rows
        .iter()
        .min_by(|a, b| a.bytes_per_op.total_cmp(&b.bytes_per_op))?;
    let fewest_allocations = rows
        .iter()
        .min_by(|a, b| a.allocs_per_op.total_cmp(&b.allocs_per_op))?;
    let tied: Vec<String> = rows
        .iter()
        .filter(|row| row.method != fastest.method && within_error(row, fastest))
        .map(|row| format!("`{}`", row.method))
        .collect();
    let mut line = format!(
        "{body} body: fastest `{}` ({})",
        fastest.method,
        time.format_ns(fastest.mean_ns)
    );
    if !tied.is_empty() {
        let _ = write!(line, ", with {} within its Error", tied.join(", "));
    }
    let leanest: &[(&str, &DecodeRow)] = if fewest_allocations.method == fewest_bytes.method {
        &[("fewest allocations and bytes", fewest_allocations)]
    } else {
        &[
            ("fewest allocations", fewest_allocations),
            ("fewest bytes", fewest_bytes),
        ]
    };
    for (what, row) in leanest {
        let _ = write!(
            line,
            "; {what} `{}` ({} allocations, {})",
            row.method,
            format_count(row.allocs_per_op),
            format_bytes(row.bytes_per_op)
        );
    }
    let _ = write!(line, ". The adapters use `{adapters}`");
    match rows.iter().find(|row| row.method == adapters) {
        Some(ours) if ours.method == fastest.method || within_error(ours, fastest) => {
            line.push_str(", as fast as any.");
        }
        Some(ours) => {
            let times = mean_or_max(ours) / mean_or_max(fastest);
            let _ = write!(line, ", {times:.2}x the fastest: {EXTRA_WORK}.");
        }
        None => line.push('.'),
    }
    Some(line)
}

fn mean_or_max(row: &DecodeRow) -> f64 {
    row.mean_ns.unwrap_or(f64::MAX)
}

/// Whether two rows' means differ by no more than their combined Error.
fn within_error(row: &DecodeRow, other: &DecodeRow) -> bool {
    match (row.mean_ns, other.mean_ns) {
        (Some(a), Some(b)) => {
            let combined = row
                .error_ns
                .unwrap_or(0.0)
                .hypot(other.error_ns.unwrap_or(0.0));
            (a - b).abs() <= combined
        }
        _ => false,
    }
}

const HOW_TO_READ: &str = "
## How to read this

- **Mean** is the mean of the sample means; a sample is a batch of calls (latency) or decodes
  (decode). **StdDev** is the standard deviation of those sample means.
- **Error** is half the width of the 99.9% confidence interval of the Mean, as BenchmarkDotNet
  reports it: t(0.9995, n-1) x StdDev / sqrt(n) over n samples. With few samples t is large
  (12.9 for 4 samples, 4.78 for 10), so Error is wide; NA means a single sample. Two means
  whose difference is within their combined Error are not shown to differ.
- **Median** and **P99** (latency) are over every successful call of every sample; P99 uses the
  nearest-rank method (an observed call time). In decode, single decodes are too short to time,
  so Median is the median of the sample means.
- **Ratio** is computed per sample: each sample's mean divided by the baseline's sample of the
  same index (hyper for latency, `borrowed_typed` for decode), then the mean (Ratio) and
  standard deviation (RatioSD) of those ratios. Samples are interleaved across clients, so the
  two samples of a pair ran close in time and share the machine's noise. Ratio is therefore not
  the ratio of the Means; when samples are noisy (see StdDev) the two can differ a lot.
- **Allocated/op** and **Allocs/op** come from a counting global allocator around each sample,
  over all threads of the bench (mock-rates runs in its own process and is not counted). They
  cover the Rust heap only: memory libcurl allocates with its own malloc (isahc) and kernel
  socket buffers are not counted. A realloc counts as one allocation of its new size.
- **Connections** are the TCP connections mock-rates accepted during a client's warm-up and
  samples: 1 means one connection served every call.
- **Failures** are calls that returned an error or lacked a pair; they are never timed.
";

#[cfg(test)]
mod tests {
    use super::*;

    fn row(method: &str, mean: f64, bytes: f64) -> DecodeRow {
        DecodeRow {
            method: method.to_owned(),
            body: "small".to_owned(),
            body_bytes: 120,
            pairs: 2,
            mean_ns: Some(mean),
            error_ns: Some(1.0),
            stddev_ns: Some(1.0),
            median_ns: Some(mean),
            ratio: Some(1.0),
            ratio_sd: Some(0.0),
            allocs_per_op: 2.0,
            bytes_per_op: bytes,
            decodes_per_sample: 1000,
            sample_means_ns: vec![Some(mean)],
        }
    }

    #[test]
    fn names_the_winner_per_body() {
        let verdicts = decode_verdicts(&[
            row("borrowed_typed", 500.0, 100.0),
            row("value", 900.0, 2000.0),
        ]);
        assert_eq!(verdicts.len(), 1);
        assert_eq!(
            verdicts[0],
            "small body: fastest `borrowed_typed` (500.00 ns); fewest allocations and bytes \
             `borrowed_typed` (2.0 allocations, 100 B). The adapters use `borrowed_typed`, as \
             fast as any."
        );
    }

    #[test]
    fn ties_within_the_combined_error_and_says_why_the_adapters_lose() {
        let mut close = row("value", 505.0, 900.0);
        close.error_ns = Some(10.0);
        let verdicts = decode_verdicts(&[row("borrowed_typed", 500.0, 100.0), close]);
        assert!(
            verdicts[0].contains("with `value` within its Error"),
            "{}",
            verdicts[0]
        );

        let verdicts = decode_verdicts(&[
            row("borrowed_typed", 1000.0, 100.0),
            row("owned_typed", 505.0, 200.0),
        ]);
        assert!(
            verdicts[0].starts_with("small body: fastest `owned_typed`"),
            "{}",
            verdicts[0]
        );
        assert!(!verdicts[0].contains("within its Error"), "{}", verdicts[0]);
        assert!(verdicts[0].contains("1.98x the fastest"), "{}", verdicts[0]);
    }
}
