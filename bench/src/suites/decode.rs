//! Suite `decode`: one Free Forex body decoded five ways, time and allocations per decode.
//!
//! Each way ends with the rate and timestamp of every requested pair in hand, so they do
//! comparable work. The first is the adapters' own [`rates_common::decode_quotes`], which also
//! turns every rate into an exact decimal and builds the domain's `Quotes`: it does the most
//! work of the five.
//!
//! A single decode takes about a microsecond, near the clock's resolution, so each sample
//! times a batch of decodes sized by a pilot run to last about `decode_sample_ms`, as
//! BenchmarkDotNet does, and divides. Samples are interleaved across ways and bodies.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use domain::{Currency, CurrencyPair};
use serde::Deserialize;

use crate::alloc::AllocSnapshot;
use crate::error::BenchError;
use crate::suites::shape::{Outcome, Suite, SuiteContext};
use bench_model::{NotRunWhy, Results, SuitePart};
use indicatif::ProgressBar;

use crate::suites::progress::progress_bar;
use bench_model::noise;
use bench_model::stats::quantile::median;
use bench_model::stats::summary::{SampleSummary, ratio_mean_sd};
use bench_model::{DecodeBody, DecodeMethod, DecodeRow, Noise, Run, SuiteName};

/// Decodes `body` and looks up every requested pair; the number of quotes found.
fn decode(method: DecodeMethod, body: &[u8], wanted: &Wanted) -> Result<usize, String> {
    match method {
        DecodeMethod::BorrowedTyped => rates_common::decode_quotes(body, &wanted.pairs)
            .map(|quotes| black_box(quotes).len())
            .map_err(|error| error.to_string()),
        DecodeMethod::OwnedTyped => serde_json::from_slice::<OwnedBody>(body)
            .map_err(|error| error.to_string())
            .and_then(|decoded| decoded.lookup(wanted)),
        DecodeMethod::Value => serde_json::from_slice::<serde_json::Value>(body)
            .map_err(|error| error.to_string())
            .and_then(|decoded| lookup_value(&decoded, wanted)),
        DecodeMethod::FromReader => serde_json::from_reader::<_, OwnedBody>(body)
            .map_err(|error| error.to_string())
            .and_then(|decoded| decoded.lookup(wanted)),
        DecodeMethod::TextThenParse => String::from_utf8(body.to_vec())
            .map_err(|error| error.to_string())
            .and_then(|text| {
                serde_json::from_str::<OwnedBody>(&text).map_err(|error| error.to_string())
            })
            .and_then(|decoded| decoded.lookup(wanted)),
    }
}

/// The pairs a body answers, as the domain and as the symbols the untyped ways look up.
struct Wanted {
    pairs: Vec<CurrencyPair>,
    symbols: Vec<String>,
}

/// The naive owned shape of a Free Forex body.
#[derive(Deserialize)]
struct OwnedBody {
    #[serde(default)]
    rates: Option<HashMap<String, OwnedQuote>>,
    #[serde(default)]
    code: Option<i64>,
    #[serde(default)]
    message: Option<String>,
}

#[derive(Deserialize)]
struct OwnedQuote {
    rate: f64,
    timestamp: i64,
}

impl OwnedBody {
    fn lookup(&self, wanted: &Wanted) -> Result<usize, String> {
        let (Some(rates), Some(200) | None) = (&self.rates, self.code) else {
            return Err(self
                .message
                .clone()
                .unwrap_or_else(|| "no rates".to_owned()));
        };
        for symbol in &wanted.symbols {
            let quote = rates
                .get(symbol)
                .ok_or_else(|| format!("no rate for {symbol}"))?;
            black_box((quote.rate, quote.timestamp));
        }
        Ok(wanted.symbols.len())
    }
}

fn lookup_value(value: &serde_json::Value, wanted: &Wanted) -> Result<usize, String> {
    let rates = value.get("rates").ok_or("no rates")?;
    for symbol in &wanted.symbols {
        let quote = rates
            .get(symbol)
            .ok_or_else(|| format!("no rate for {symbol}"))?;
        let rate = quote.get("rate").and_then(serde_json::Value::as_f64);
        let timestamp = quote.get("timestamp").and_then(serde_json::Value::as_i64);
        black_box(
            rate.zip(timestamp)
                .ok_or_else(|| format!("bad quote for {symbol}"))?,
        );
    }
    Ok(wanted.symbols.len())
}

/// A Free Forex body to decode.
#[derive(Debug)]
pub struct Body {
    pub name: DecodeBody,
    pub bytes: Vec<u8>,
    pub pairs: Vec<CurrencyPair>,
}

/// The latency suite's answer (EURUSD and USDJPY) and one with every pair mock-rates knows.
pub fn bodies() -> Vec<Body> {
    let table = mock_rates::rate_table();
    let small: Vec<(&str, &str)> = ["EURUSD", "USDJPY"]
        .iter()
        .filter_map(|symbol| mock_rates::rate_text(symbol).map(|rate| (*symbol, rate)))
        .collect();
    vec![
        body(DecodeBody::Small, &small),
        body(DecodeBody::Large, table),
    ]
}

/// A realistic timestamp, in seconds as the real API sends it (2025-12-01T00:00:00Z).
const TIMESTAMP: u64 = 1_764_547_200;

fn body(name: DecodeBody, entries: &[(&str, &str)]) -> Body {
    let mut text = String::from("{\"rates\":{");
    let mut pairs = Vec::with_capacity(entries.len());
    for (index, (symbol, rate)) in entries.iter().enumerate() {
        if index > 0 {
            text.push(',');
        }
        let _ = write!(
            text,
            "\"{symbol}\":{{\"rate\":{rate},\"timestamp\":{TIMESTAMP}}}"
        );
        // A pair whose currency the domain does not know stays in the body, unrequested.
        if let (Some(base), Some(quote)) = (symbol.get(..3), symbol.get(3..))
            && let (Ok(base), Ok(quote)) = (Currency::parse(base), Currency::parse(quote))
        {
            pairs.push(CurrencyPair::new(base, quote));
        }
    }
    text.push_str("},\"code\":200}");
    Body {
        name,
        bytes: text.into_bytes(),
        pairs,
    }
}

struct DecodePath<'a> {
    method: DecodeMethod,
    body: &'a Body,
    wanted: &'a Wanted,
    decodes_per_sample: u64,
    sample_means_ns: Vec<Option<f64>>,
    decodes: u64,
    allocated: AllocSnapshot,
    /// Rounds of samples taken: 1, or more when a noisy row was measured again.
    rounds: u32,
}

impl DecodePath<'_> {
    /// The noise checks on this round's sample means.
    fn noise(&self) -> Noise {
        let means: Vec<f64> = self.sample_means_ns.iter().flatten().copied().collect();
        Noise {
            rounds: self.rounds,
            ..noise::check(&means)
        }
    }
}
/// The decode suite (see the module's documentation).
#[derive(Debug)]
pub struct Decode;

impl Suite for Decode {
    const NAME: SuiteName = SuiteName::Decode;
    type Rows = Vec<DecodeRow>;

    fn run(context: &SuiteContext<'_>) -> Result<Outcome<Vec<DecodeRow>>, BenchError> {
        self::run(context.settings).map(Outcome::Ran)
    }

    fn store(rows: Vec<DecodeRow>, results: &mut Results) -> Vec<(SuitePart, NotRunWhy)> {
        results.decode = rows;
        Vec::new()
    }
}

/// Runs the suite.
pub fn run(settings: &Run) -> Result<Vec<DecodeRow>, BenchError> {
    let bodies = bodies();
    let wanted: Vec<Wanted> = bodies
        .iter()
        .map(|body| Wanted {
            pairs: body.pairs.clone(),
            symbols: body.pairs.iter().map(ToString::to_string).collect(),
        })
        .collect();
    let target = Duration::from_millis(u64::from(settings.decode_sample_ms));
    let subjects_count = (bodies.len() * DecodeMethod::ALL.len()) as u64;
    let bar = progress_bar(
        SuiteName::Decode,
        subjects_count * (1 + u64::from(settings.samples)),
    );

    let mut subjects = Vec::new();
    for (body, wanted) in bodies.iter().zip(&wanted) {
        for method in DecodeMethod::ALL {
            bar.set_message(format!("pilot {} {}", method.id(), body.name));
            let found = decode(method, &body.bytes, wanted).map_err(|error| {
                BenchError::Decode(format!("{} on {}: {error}", method.id(), body.name))
            })?;
            if found != body.pairs.len() {
                return Err(BenchError::Decode(format!(
                    "{} on {} found {found} of {} pairs",
                    method.id(),
                    body.name,
                    body.pairs.len()
                )));
            }
            subjects.push(DecodePath {
                method,
                body,
                wanted,
                decodes_per_sample: calibrate(method, &body.bytes, wanted, target),
                sample_means_ns: Vec::with_capacity(settings.samples as usize),
                decodes: 0,
                allocated: AllocSnapshot::default(),
                rounds: 1,
            });
            bar.inc(1);
        }
    }

    sample_round(&mut subjects, settings, &bar);
    // Noisy rows are measured again, every subject with them so that each Ratio still pairs
    // samples taken side by side; at most `remeasure` more rounds.
    for _ in 0..settings.remeasure {
        let noisy = subjects
            .iter()
            .filter(|subject| subject.noise().flagged())
            .count();
        if noisy == 0 {
            break;
        }
        eprintln!(
            "bench: decode: {noisy} rows noisy (drift, several modes or skewed by outliers); \
             measuring every row again"
        );
        bar.inc_length(subjects_count * u64::from(settings.samples));
        for subject in &mut subjects {
            subject.sample_means_ns.clear();
            subject.decodes = 0;
            subject.allocated = AllocSnapshot::default();
            subject.rounds += 1;
        }
        sample_round(&mut subjects, settings, &bar);
    }
    bar.finish_and_clear();

    Ok(subjects
        .iter()
        .map(|subject| {
            let baseline = subjects.iter().find(|other| {
                other.method == DecodeMethod::BASELINE && other.body.name == subject.body.name
            });
            summarize(subject, baseline)
        })
        .collect())
}

/// One round: `settings.samples` samples of every subject, interleaved.
fn sample_round(subjects: &mut [DecodePath<'_>], settings: &Run, bar: &ProgressBar) {
    let count = subjects.len();
    for sample in 0..settings.samples as usize {
        for offset in 0..count {
            let subject = &mut subjects[(sample + offset) % count];
            bar.set_message(format!(
                "sample {}/{} {} {}",
                sample + 1,
                settings.samples,
                subject.method.id(),
                subject.body.name
            ));
            let allocated_before = AllocSnapshot::now();
            let elapsed = time_batch(
                subject.method,
                &subject.body.bytes,
                subject.wanted,
                subject.decodes_per_sample,
            );
            let allocated = AllocSnapshot::now().since(allocated_before);
            subject.allocated.allocations += allocated.allocations;
            subject.allocated.bytes += allocated.bytes;
            subject.decodes += subject.decodes_per_sample;
            subject.sample_means_ns.push(Some(
                elapsed.as_nanos() as f64 / subject.decodes_per_sample as f64,
            ));
            bar.inc(1);
        }
    }
}

/// Decodes `decodes` times back to back; the whole batch's duration.
fn time_batch(method: DecodeMethod, body: &[u8], wanted: &Wanted, decodes: u64) -> Duration {
    let start = Instant::now();
    for _ in 0..decodes {
        // Hidden from the optimizer on both sides: the input may change, the output is used.
        let _ = black_box(decode(method, black_box(body), black_box(wanted)));
    }
    start.elapsed()
}

/// How many decodes make a sample of about `target`, from a pilot of at least `target` / 2
/// (which also warms caches and the allocator up).
fn calibrate(method: DecodeMethod, body: &[u8], wanted: &Wanted, target: Duration) -> u64 {
    let pilot = target / 2;
    let mut decodes = 1_u64;
    loop {
        let elapsed = time_batch(method, body, wanted, decodes);
        if elapsed >= pilot || decodes >= 1 << 30 {
            let per_decode = elapsed.as_nanos().max(1) as f64 / decodes as f64;
            return ((target.as_nanos() as f64 / per_decode) as u64).max(1);
        }
        decodes *= 2;
    }
}

fn summarize(subject: &DecodePath<'_>, baseline: Option<&DecodePath<'_>>) -> DecodeRow {
    let means: Vec<f64> = subject.sample_means_ns.iter().flatten().copied().collect();
    let summary = SampleSummary::of(&means);
    let mut sorted = means.clone();
    sorted.sort_by(f64::total_cmp);
    let ratio = baseline
        .and_then(|baseline| ratio_mean_sd(&subject.sample_means_ns, &baseline.sample_means_ns));
    let per_decode = |total: u64| {
        if subject.decodes == 0 {
            0.0
        } else {
            total as f64 / subject.decodes as f64
        }
    };
    DecodeRow {
        method: subject.method,
        body: subject.body.name,
        body_bytes: subject.body.bytes.len(),
        pairs: subject.body.pairs.len(),
        mean_ns: summary.map(|s| s.mean),
        error_ns: summary.and_then(|s| s.error),
        stddev_ns: summary.and_then(|s| s.std_dev),
        median_ns: median(&sorted),
        ratio: ratio.map(|(mean, _)| mean),
        ratio_sd: ratio.map(|(_, sd)| sd),
        allocs_per_op: per_decode(subject.allocated.allocations),
        bytes_per_op: per_decode(subject.allocated.bytes),
        decodes_per_sample: subject.decodes_per_sample,
        sample_means_ns: subject.sample_means_ns.clone(),
        noise: Some(subject.noise()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_way_decodes_both_bodies_alike() {
        for body in bodies() {
            assert!(
                body.pairs.len() >= 2,
                "{} has {} pairs",
                body.name,
                body.pairs.len()
            );
            let wanted = Wanted {
                pairs: body.pairs.clone(),
                symbols: body.pairs.iter().map(ToString::to_string).collect(),
            };
            for method in DecodeMethod::ALL {
                assert_eq!(
                    decode(method, &body.bytes, &wanted),
                    Ok(body.pairs.len()),
                    "{} on {}",
                    method.id(),
                    body.name
                );
            }
        }
    }

    #[test]
    fn the_small_body_is_the_latency_calls_answer() {
        let small = &bodies()[0];
        assert_eq!(small.name, DecodeBody::Small);
        assert_eq!(
            String::from_utf8_lossy(&small.bytes),
            r#"{"rates":{"EURUSD":{"rate":1.16025,"timestamp":1764547200},"USDJPY":{"rate":156.4295,"timestamp":1764547200}},"code":200}"#
        );
    }

    #[test]
    fn every_way_rejects_a_body_without_the_pair() {
        let wanted = Wanted {
            pairs: vec![CurrencyPair::new(Currency::EUR, Currency::USD)],
            symbols: vec!["EURUSD".to_owned()],
        };
        let body = br#"{"rates":{"GBPUSD":{"rate":1.3,"timestamp":1}},"code":200}"#;
        for method in DecodeMethod::ALL {
            assert!(decode(method, body, &wanted).is_err(), "{}", method.id());
        }
    }
}
