//! The settings the reports' tests start from (`bench_model::test_rows::default_settings`
//! and `quick_settings`) are files in the model crate, which cannot parse a command line: this
//! test keeps them what `bench` and `bench --quick` resolve. `BLESS=1 cargo test -p bench
//! fixtures` rewrites them after a change to the flags' defaults.

use std::path::Path;

use clap::Parser as _;

use super::{Cli, resolve};

#[test]
fn the_fixtures_are_what_the_command_line_resolves() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-model/src/fixtures");
    for (args, file) in [
        (&["bench"][..], "default-settings.json"),
        (&["bench", "--quick"][..], "quick-settings.json"),
    ] {
        let resolved = serde_json::to_value(resolve(&Cli::parse_from(args))).unwrap();
        let path = dir.join(file);
        if std::env::var_os("BLESS").is_some() {
            let text = serde_json::to_string_pretty(&resolved).unwrap() + "\n";
            std::fs::write(&path, text).unwrap();
        }
        let kept: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            resolved,
            kept,
            "{} is not what `{}` resolves; `BLESS=1 cargo test -p bench fixtures` rewrites it",
            path.display(),
            args.join(" ")
        );
    }
}
