//! The base: the same decode of a body read from stdin, with no HTTP client.

mod common;

use std::io::Read as _;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut body = Vec::new();
    let read = std::io::stdin()
        .read_to_end(&mut body)
        .map_err(|error| format!("reading stdin: {error}"));
    common::finish(read.and_then(|_| common::rate(200, &body)))
}
