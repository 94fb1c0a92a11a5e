//! results.json, written from the run's record.

use std::fs;
use std::path::Path;

use crate::ReportError;
use bench_model::{Results, SCHEMA_VERSION, SCHEMA_VERSIONS_READ};

/// A results.json this bench wrote (a schema version it reads), read back whole.
///
/// # Errors
/// The file cannot be read, is not a results.json, or has another schema version.
pub fn read(path: &Path) -> Result<Results, ReportError> {
    let text = fs::read_to_string(path).map_err(|source| ReportError::io(path, source))?;
    let results: Results = serde_json::from_str(&text).map_err(|error| {
        ReportError::Report(format!("{} is not a results.json: {error}", path.display()))
    })?;
    if !SCHEMA_VERSIONS_READ.contains(&results.schema_version) {
        return Err(ReportError::Report(format!(
            "{} has schema_version {}, this bench reads {} to {SCHEMA_VERSION}",
            path.display(),
            results.schema_version,
            SCHEMA_VERSIONS_READ.start()
        )));
    }
    Ok(results)
}

pub fn write(results: &Results, path: &Path) -> Result<(), ReportError> {
    let mut text = serde_json::to_string_pretty(results).map_err(ReportError::Json)?;
    text.push('\n');
    fs::write(path, text).map_err(|source| ReportError::io(path, source))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_reads_back_the_same_and_other_files_are_refused() {
        let settings = bench_model::test_rows::default_settings();
        let results = Results::new(bench_model::test_rows::environment("now"), settings);
        let dir = std::env::temp_dir().join(format!("bench-json-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("results.json");
        write(&results, &path).unwrap();
        assert_eq!(read(&path).unwrap(), results);
        // A run of schema 2 reads: its sentences ignored, its plan made from its settings.
        let mut older = serde_json::to_value(&results).unwrap();
        older["schema_version"] = 2.into();
        older["cost_skipped"] = "valgrind is not installed".into();
        older["settings"]["mock"] = "child process at http://127.0.0.1:9".into();
        std::fs::write(&path, older.to_string()).unwrap();
        let read_back = read(&path).unwrap();
        assert_eq!(read_back.schema_version, 2);
        assert!(read_back.not_run.is_empty());
        assert_eq!(read_back.settings.plan(), results.settings.plan());
        std::fs::write(&path, "{\"schema_version\": 1}").unwrap();
        let refused = read(&path).unwrap_err().to_string();
        assert!(refused.contains("is not a results.json"), "{refused}");
        let mut newer = serde_json::to_value(&results).unwrap();
        newer["schema_version"] = 99.into();
        std::fs::write(&path, newer.to_string()).unwrap();
        let refused = read(&path).unwrap_err().to_string();
        assert!(refused.contains("schema_version 99"), "{refused}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
