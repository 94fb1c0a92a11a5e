//! What a suite that can fail to run as a whole gives back.

use bench_model::NotRunWhy;

/// What a suite did: its rows, or why it did not run.
#[derive(Debug)]
pub enum Outcome<Rows> {
    Ran(Rows),
    NotRun(NotRunWhy),
}
