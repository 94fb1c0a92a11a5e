//! Large answers: the live answer for the pairs asked for, followed by a history of their
//! earlier quotes, padded to exactly the size asked for. Each (pairs, size) is built once and
//! its bytes shared by every answer after, so a 1 MB answer costs no more to make than a small
//! one.
//!
//! `{"rates":{"EURUSD":{"rate":1.16025,"timestamp":T}},"history":[{"EURUSD":{"rate":1.16025,
//! "timestamp":T-60}},...],"code":200}`: `rates` and `code` are what a client reads, exactly as
//! in the small answer; `history` is a member a Free Forex decoder does not know and skips.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

use bytes::{Bytes, BytesMut};

use crate::rates::write_quotes;
use crate::settings::TimestampUnit;

/// Largest size an answer may be asked for.
pub(crate) const MAX_SIZE: usize = 8 * 1024 * 1024;
/// Most bytes of large answers kept; the oldest are dropped first.
const CACHE_BYTES: usize = 64 * 1024 * 1024;
/// The gap between two points of the history, in seconds.
const STEP_SECONDS: u64 = 60;

/// Large answers already built, by pairs and size.
#[derive(Debug)]
pub(crate) struct SizedAnswers {
    /// Most bytes of answers kept.
    bound: usize,
    entries: Mutex<Cache>,
}

impl Default for SizedAnswers {
    fn default() -> Self {
        Self {
            bound: CACHE_BYTES,
            entries: Mutex::default(),
        }
    }
}

#[derive(Debug, Default)]
struct Cache {
    entries: VecDeque<Entry>,
    bytes: usize,
}

#[derive(Debug)]
struct Entry {
    pairs: Vec<(&'static str, &'static str)>,
    size: usize,
    body: Bytes,
}

impl SizedAnswers {
    /// The answer for `pairs` of `size` bytes, built (quoting `timestamp` in `unit`) unless an
    /// earlier request already built it: its quotes then carry that request's time.
    pub(crate) fn get(
        &self,
        pairs: &[(&'static str, &'static str)],
        size: usize,
        timestamp: u64,
        unit: TimestampUnit,
    ) -> Bytes {
        if let Some(body) = self.lock().find(pairs, size) {
            return body;
        }
        // Built outside the lock: another request for the same answer may build it too, and
        // the first one stored is kept.
        let body = build(pairs, size, timestamp, unit);
        let mut cache = self.lock();
        if let Some(body) = cache.find(pairs, size) {
            return body;
        }
        while cache.bytes + body.len() > self.bound {
            match cache.entries.pop_front() {
                Some(old) => cache.bytes -= old.body.len(),
                None => break,
            }
        }
        cache.bytes += body.len();
        cache.entries.push_back(Entry {
            pairs: pairs.to_vec(),
            size,
            body: body.clone(),
        });
        body
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        // The cache is consistent after every statement: a panic elsewhere need not spread.
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Cache {
    fn find(&self, pairs: &[(&'static str, &'static str)], size: usize) -> Option<Bytes> {
        self.entries
            .iter()
            .find(|entry| entry.size == size && entry.pairs == pairs)
            .map(|entry| entry.body.clone())
    }
}

/// The answer for `pairs`, exactly `size` bytes long when `size` is larger than the ordinary
/// answer (which is sent as it is otherwise): as many points of history as fit, then spaces
/// before the closing brace.
pub(crate) fn build(
    pairs: &[(&'static str, &'static str)],
    size: usize,
    timestamp: u64,
    unit: TimestampUnit,
) -> Bytes {
    const TAIL: &[u8] = b"],\"code\":200";
    let mut body = BytesMut::with_capacity(size.max(64));
    body.extend_from_slice(b"{\"rates\":");
    write_quotes(pairs, timestamp, &mut body);
    let ordinary = body.len() + b",\"code\":200}".len();
    if size <= ordinary {
        body.extend_from_slice(b",\"code\":200}");
        return body.freeze();
    }
    let step = match unit {
        TimestampUnit::Seconds => STEP_SECONDS,
        TimestampUnit::Millis => STEP_SECONDS * 1000,
    };
    let with_history = body.len() + b",\"history\":[".len() + TAIL.len() + b"}".len();
    if with_history <= size {
        body.extend_from_slice(b",\"history\":[");
        let mut point = BytesMut::new();
        for earlier in 1u64.. {
            point.clear();
            if earlier > 1 {
                point.extend_from_slice(b",");
            }
            write_quotes(
                pairs,
                timestamp.saturating_sub(earlier.saturating_mul(step)),
                &mut point,
            );
            if body.len() + point.len() + TAIL.len() + 1 > size {
                break;
            }
            body.extend_from_slice(&point);
        }
        body.extend_from_slice(TAIL);
    } else {
        body.extend_from_slice(b",\"code\":200");
    }
    // JSON allows any whitespace between tokens.
    body.resize(size - 1, b' ');
    body.extend_from_slice(b"}");
    body.freeze()
}

#[cfg(test)]
mod tests {
    use domain::{Currency, CurrencyPair};

    use super::*;
    use crate::rates::rate_text;

    fn pairs(symbols: &[&'static str]) -> Vec<(&'static str, &'static str)> {
        symbols
            .iter()
            .map(|symbol| (*symbol, rate_text(symbol).unwrap()))
            .collect()
    }

    fn pair(symbol: &str) -> CurrencyPair {
        CurrencyPair::new(
            Currency::parse(&symbol[..3]).unwrap(),
            Currency::parse(&symbol[3..]).unwrap(),
        )
    }

    const NOW: u64 = 1_764_680_000;

    #[test]
    fn a_large_answer_has_the_exact_size_and_the_adapters_read_it() {
        let asked = pairs(&["EURUSD", "USDJPY"]);
        for size in [1_000, 65_536, 1_048_576] {
            let body = build(&asked, size, NOW, TimestampUnit::Seconds);
            assert_eq!(body.len(), size);
            let quotes =
                rates_common::decode_quotes(&body, &[pair("EURUSD"), pair("USDJPY")]).unwrap();
            let eurusd = quotes.get(&pair("EURUSD")).unwrap();
            assert_eq!(eurusd.rate.to_string(), "1.16025");
            assert_eq!(
                eurusd.timestamp.unix_millis(),
                i64::try_from(NOW * 1000).unwrap()
            );
            let usdjpy = quotes.get(&pair("USDJPY")).unwrap();
            assert_eq!(usdjpy.rate.to_string(), "156.4295");
            let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
            let history = json["history"].as_array().unwrap();
            assert!(
                history.len() > (size - 200) / 200,
                "{} points",
                history.len()
            );
            assert_eq!(
                history[1]["USDJPY"]["timestamp"],
                NOW - 2 * STEP_SECONDS,
                "a point a minute"
            );
            assert_eq!(json["code"], 200);
        }
    }

    #[test]
    fn a_history_in_milliseconds_steps_by_a_minute_too() {
        let body = build(
            &pairs(&["EURUSD"]),
            4_096,
            NOW * 1000,
            TimestampUnit::Millis,
        );
        let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            json["history"][0]["EURUSD"]["timestamp"],
            NOW * 1000 - 60_000
        );
        rates_common::decode_quotes(&body, &[pair("EURUSD")]).unwrap();
    }

    #[test]
    fn sizes_below_a_history_are_padded_or_left_as_they_are() {
        let asked = pairs(&["EURUSD"]);
        let ordinary = build(&asked, 1, NOW, TimestampUnit::Seconds);
        assert_eq!(
            std::str::from_utf8(&ordinary).unwrap(),
            format!(r#"{{"rates":{{"EURUSD":{{"rate":1.16025,"timestamp":{NOW}}}}},"code":200}}"#)
        );
        // Between the ordinary answer and one with an empty history: spaces only.
        let padded = build(&asked, ordinary.len() + 5, NOW, TimestampUnit::Seconds);
        assert_eq!(padded.len(), ordinary.len() + 5);
        assert!(padded.ends_with(b"200     }"), "{padded:?}");
        rates_common::decode_quotes(&padded, &[pair("EURUSD")]).unwrap();
    }

    #[test]
    fn an_answer_is_built_once_per_pairs_and_size() {
        let answers = SizedAnswers::default();
        let asked = pairs(&["EURUSD", "USDJPY"]);
        let first = answers.get(&asked, 10_000, NOW, TimestampUnit::Seconds);
        // A later request gets the same bytes (with the first request's time), not a copy.
        let again = answers.get(&asked, 10_000, NOW + 5, TimestampUnit::Seconds);
        assert_eq!(first.as_ptr(), again.as_ptr());
        let other_size = answers.get(&asked, 10_001, NOW, TimestampUnit::Seconds);
        let other_pairs = answers.get(&pairs(&["EURUSD"]), 10_000, NOW, TimestampUnit::Seconds);
        assert_ne!(first.as_ptr(), other_size.as_ptr());
        assert_ne!(first.as_ptr(), other_pairs.as_ptr());
    }

    #[test]
    fn the_cache_keeps_within_its_bound() {
        let answers = SizedAnswers {
            bound: 50_000,
            ..SizedAnswers::default()
        };
        let asked = pairs(&["EURUSD"]);
        for index in 0..10 {
            answers.get(&asked, 20_000 - index, NOW, TimestampUnit::Seconds);
        }
        let cache = answers.lock();
        assert!(cache.bytes <= 50_000);
        assert_eq!(
            cache.bytes,
            cache
                .entries
                .iter()
                .map(|entry| entry.body.len())
                .sum::<usize>()
        );
        assert_eq!(cache.entries.len(), 2, "the two latest");
        assert_eq!(cache.entries[1].size, 20_000 - 9);
    }
}
