//! The suites: each a module with a type of the one [`Suite`] shape, which reads the run and
//! the servers it needs and gives back its rows. Adding one is a `SuiteName` variant (with
//! what it needs), a module here, its line in [`run`], its rows in [`bench_model::Results`] and
//! its section in `bench-report`.

pub(crate) mod adapters;
pub mod adoption;
mod bare;
mod calibration;
pub mod connections;
pub mod cost;
pub mod decode;
pub mod fanout;
pub mod faults;
pub mod idle;
pub mod latency;
pub mod load;
pub mod memory;
mod progress;
pub mod releases;
pub mod resilience;
pub mod resolution;
pub mod shape;
pub(crate) mod shuffle;
mod tls;
pub mod wan;

pub use adapters::catalogue;
pub use shape::{Outcome, Suite, SuiteContext};

use crate::error::BenchError;
use bench_model::{NotRun, NotRunWhy, Results, SuiteName, SuitePart};

/// Runs `suite` and stores its rows, or why it did not run, in `results`: a suite the plan
/// skips is not started.
///
/// # Errors
/// The suite could not be measured (see [`Suite::run`]).
pub fn run(
    suite: SuiteName,
    context: &SuiteContext<'_>,
    results: &mut Results,
) -> Result<(), BenchError> {
    if let Some(skip) = context.settings.plan().skipped(suite) {
        not_run(results, suite, None, NotRunWhy::Planned { skip });
        return Ok(());
    }
    match suite {
        SuiteName::Latency => run_one::<latency::Latency>(context, results),
        SuiteName::Connections => run_one::<connections::Connections>(context, results),
        SuiteName::Decode => run_one::<decode::Decode>(context, results),
        SuiteName::Cost => run_one::<cost::suite::Cost>(context, results),
        SuiteName::Load => run_one::<load::Load>(context, results),
        SuiteName::Fanout => run_one::<fanout::Fanout>(context, results),
        SuiteName::Faults => run_one::<faults::Faults>(context, results),
        SuiteName::Resilience => run_one::<resilience::Resilience>(context, results),
        SuiteName::Memory => run_one::<memory::Memory>(context, results),
        SuiteName::Idle => run_one::<idle::Idle>(context, results),
        SuiteName::Resolution => run_one::<resolution::Resolution>(context, results),
        SuiteName::Dependencies => run_one::<adoption::Dependencies>(context, results),
        SuiteName::Releases => run_one::<releases::Releases>(context, results),
        SuiteName::Adoption => run_one::<adoption::Adoption>(context, results),
        SuiteName::Wan => run_one::<wan::Wan>(context, results),
    }
}

/// Runs `S`, and records its rows, or why it or a part of it did not run.
fn run_one<S: Suite>(context: &SuiteContext<'_>, results: &mut Results) -> Result<(), BenchError> {
    match S::run(context)? {
        Outcome::Ran(rows) => {
            for (part, why) in S::store(rows, results) {
                not_run(results, S::NAME, Some(part), why);
            }
        }
        Outcome::NotRun(why) => not_run(results, S::NAME, None, why),
    }
    Ok(())
}

/// Records that `suite` (or `part` of it) did not run, and says so on stderr.
pub(crate) fn not_run(
    results: &mut Results,
    suite: SuiteName,
    part: Option<SuitePart>,
    why: NotRunWhy,
) {
    eprintln!(
        "bench: {}",
        bench_report::report::not_run_line(suite, part, &why)
    );
    results.not_run.push(NotRun { suite, part, why });
}
