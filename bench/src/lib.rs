//! The comparison of the rates adapters: suites that measure, reports that present.
//!
//! [`main`] parses the command line and either runs the suites ([`run`]) or, as a hidden
//! sub-command, serves mock-rates or the payment service for a parent bench process. The
//! arrows between the modules go one way: `cli` -> `suites` -> `model` <- `report`.

pub mod affinity;
pub mod alloc;
pub mod baseline;
pub mod cli;
pub mod clients;
pub mod cpu;
pub mod env;
pub mod error;
pub mod machine;
pub mod model;
pub mod noise;
pub mod process_cpu;
mod release;
pub mod report;
mod run;
pub mod servers;
pub mod stats;
pub mod suites;
pub mod upstream;
pub mod verdict;

pub use run::{RunOutput, main, run};
