//! Files and directories the bench hands to a child or a tool (a CA, a profile, a script, a
//! scratch project), in the temporary directory, named `bench-<what>-<random>` so that one
//! left behind by a killed bench says whose it is; each is removed when its guard drops.

use std::io;

use tempfile::{Builder, NamedTempFile, TempDir};

/// A new empty file `bench-<what>-XXXXXX.<extension>`, readable by its owner only.
pub fn temp_file(what: &str, extension: &str) -> io::Result<NamedTempFile> {
    Builder::new()
        .prefix(&format!("bench-{what}-"))
        .suffix(&format!(".{extension}"))
        .tempfile()
}

/// A new empty file like [`temp_file`], holding `contents`.
pub fn temp_file_with(what: &str, extension: &str, contents: &[u8]) -> io::Result<NamedTempFile> {
    use io::Write as _;
    let mut file = temp_file(what, extension)?;
    file.write_all(contents)?;
    file.flush()?;
    Ok(file)
}

/// A new empty directory `bench-<what>-XXXXXX`, removed with what it holds.
pub fn temp_dir(what: &str) -> io::Result<TempDir> {
    Builder::new().prefix(&format!("bench-{what}-")).tempdir()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_files_are_named_for_the_bench_and_removed_on_drop() {
        let file = temp_file_with("scratch-test", "pem", b"contents").unwrap();
        let path = file.path().to_owned();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("bench-scratch-test-"), "{name}");
        assert_eq!(path.extension().unwrap(), "pem");
        assert_eq!(std::fs::read(&path).unwrap(), b"contents");
        drop(file);
        assert!(!path.exists());

        let dir = temp_dir("scratch-test").unwrap();
        let path = dir.path().to_owned();
        std::fs::write(path.join("inside"), b"x").unwrap();
        drop(dir);
        assert!(!path.exists());
    }
}
