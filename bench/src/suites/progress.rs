//! The progress bar every suite shows while it works.

use indicatif::{ProgressBar, ProgressStyle};

use bench_model::SuiteName;

/// A progress bar on stderr (hidden when stderr is not a terminal). It has no ticker thread
/// and is only touched between samples, so drawing it never lands in a measurement.
pub fn progress_bar(suite: SuiteName, length: u64) -> ProgressBar {
    let bar = ProgressBar::new(length);
    if let Ok(style) = ProgressStyle::with_template(
        "{prefix:>8} [{elapsed_precise}] {bar:32.cyan/blue} {percent:>3}% {msg}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix(suite.as_str());
    bar
}
