//! The reports of a run, read from the record alone (`bench-model`): the terminal, Markdown and
//! HTML report with its charts, the verdict (criteria, picks, and the agreement of several
//! runs) and the comparison with a baseline run. It links no HTTP client, so `bench report
//! results.json` and every report test build without the service's stack.

pub mod baseline;
mod error;
pub mod releases;
pub mod report;
pub mod verdict;

pub use error::ReportError;
