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
