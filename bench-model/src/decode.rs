//! The decode suite's ways of decoding, bodies and rows.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::Noise;

/// One way to decode the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecodeMethod {
    /// `rates_common::decode_quotes`: `from_slice` into borrowed types, exact decimal rates.
    BorrowedTyped,
    /// `from_slice` into owned types: `String` keys, `f64` rates.
    OwnedTyped,
    /// `from_slice` into `serde_json::Value`.
    Value,
    /// `from_reader` over the bytes into the owned types.
    FromReader,
    /// `String::from_utf8(body.to_vec())`, then `from_str` into the owned types.
    TextThenParse,
}

impl DecodeMethod {
    /// Every way, the ratio's baseline (the adapters' way) first.
    pub const ALL: [DecodeMethod; 5] = [
        DecodeMethod::BorrowedTyped,
        DecodeMethod::OwnedTyped,
        DecodeMethod::Value,
        DecodeMethod::FromReader,
        DecodeMethod::TextThenParse,
    ];

    /// The baseline of the Ratio column, and the adapters' own way.
    pub const BASELINE: DecodeMethod = DecodeMethod::BorrowedTyped;

    /// The name in results.json.
    pub fn id(self) -> &'static str {
        match self {
            DecodeMethod::BorrowedTyped => "borrowed_typed",
            DecodeMethod::OwnedTyped => "owned_typed",
            DecodeMethod::Value => "value",
            DecodeMethod::FromReader => "from_reader",
            DecodeMethod::TextThenParse => "text_then_parse",
        }
    }

    /// What the way does, for the report.
    pub fn description(self) -> &'static str {
        match self {
            DecodeMethod::BorrowedTyped => {
                "from_slice into borrowed types, exact decimals (rates_common::decode_quotes, what the adapters use)"
            }
            DecodeMethod::OwnedTyped => "from_slice into owned types (String keys, f64 rates)",
            DecodeMethod::Value => "from_slice into serde_json::Value",
            DecodeMethod::FromReader => "from_reader over the bytes into the owned types",
            DecodeMethod::TextThenParse => {
                "String::from_utf8(body.to_vec()) then from_str into the owned types"
            }
        }
    }
}

impl fmt::Display for DecodeMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// The bodies decoded: the latency suite's answer, and one with every pair mock-rates knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DecodeBody {
    /// EURUSD and USDJPY: what the latency suite's call gets back.
    Small,
    /// Every pair mock-rates quotes.
    Large,
}

impl DecodeBody {
    pub const ALL: [DecodeBody; 2] = [DecodeBody::Small, DecodeBody::Large];

    pub fn as_str(self) -> &'static str {
        match self {
            DecodeBody::Small => "small",
            DecodeBody::Large => "large",
        }
    }
}

impl fmt::Display for DecodeBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One way on one body, with its figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecodeRow {
    pub method: DecodeMethod,
    pub body: DecodeBody,
    pub body_bytes: usize,
    pub pairs: usize,
    /// Mean of the sample means, nanoseconds per decode.
    pub mean_ns: Option<f64>,
    /// Half-width of the 99.9% confidence interval of `mean_ns`.
    pub error_ns: Option<f64>,
    pub stddev_ns: Option<f64>,
    /// Median of the sample means (a sample is a batch, so single decodes are not timed).
    pub median_ns: Option<f64>,
    /// Mean of the per-sample ratios to `borrowed_typed` on the same body.
    pub ratio: Option<f64>,
    pub ratio_sd: Option<f64>,
    pub allocs_per_op: f64,
    pub bytes_per_op: f64,
    pub decodes_per_sample: u64,
    /// Each sample's mean in sample order: the raw observations behind Mean, Error and Ratio.
    pub sample_means_ns: Vec<Option<f64>>,
    /// The noise checks of the sample means (times in ns); absent from older results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<Noise>,
}
