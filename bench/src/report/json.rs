//! results.json, written from the run's record.

use std::fs;
use std::path::Path;

use crate::error::BenchError;
use crate::model::Results;

pub fn write(results: &Results, path: &Path) -> Result<(), BenchError> {
    let mut text = serde_json::to_string_pretty(results).map_err(BenchError::Json)?;
    text.push('\n');
    fs::write(path, text).map_err(|source| BenchError::io(path, source))
}

/// Reads a results.json written by this bench.
pub fn read(path: &Path) -> Result<Results, BenchError> {
    let text = fs::read_to_string(path).map_err(|source| BenchError::io(path, source))?;
    serde_json::from_str(&text).map_err(BenchError::Json)
}
