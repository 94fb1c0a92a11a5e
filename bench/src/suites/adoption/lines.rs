//! An adapter's lines of code: what the seed called its boilerplate.

use std::path::Path;

use bench_model::ClientName;

/// Lines of `adapters/<library>/src/*.rs` that are code: blank lines, comment lines and each
/// file's `#[cfg(test)]` module (from that line to the end) not counted. `None` when the
/// sources are not there (a bench built elsewhere).
pub fn adapter(workspace: &Path, library: ClientName) -> Option<u32> {
    let dir = workspace
        .join("adapters")
        .join(library.as_str())
        .join("src");
    let mut total = 0;
    for entry in std::fs::read_dir(dir).ok()? {
        let path = entry.ok()?.path();
        if path.extension().is_some_and(|extension| extension == "rs") {
            total += code_lines(&std::fs::read_to_string(path).ok()?);
        }
    }
    Some(total)
}

fn code_lines(source: &str) -> u32 {
    let mut count = 0;
    for line in source.lines().map(str::trim) {
        if line == "#[cfg(test)]" {
            break;
        }
        if !line.is_empty() && !line.starts_with("//") {
            count += 1;
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_blank_lines_and_tests_are_not_code() {
        let source = "//! A module.\n\nuse std::io;\n\n/// A doc.\nfn f() {\n    // why\n    g();\n}\n\n#[cfg(test)]\nmod tests {\n    fn t() {}\n}\n";
        assert_eq!(code_lines(source), 4);
    }

    #[test]
    fn this_workspace_s_adapters_are_counted() {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let hyper = adapter(&workspace, ClientName::Hyper).unwrap();
        assert!(hyper > 50, "{hyper}");
        assert_eq!(adapter(Path::new("/nonexistent"), ClientName::Hyper), None);
    }
}
