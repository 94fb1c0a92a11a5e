//! The comparison of the rates adapters: suites that measure, reports that present.
//!
//! [`main`] parses the command line and either runs the suites ([`run`]) or, as a hidden
//! sub-command, serves mock-rates or the payment service for a parent bench process. This is
//! the runner: the command line, the suites, the servers and the bench's own clients. The
//! record of a run is the `bench-model` crate, its reports and verdict the `bench-report`
//! crate (which links no HTTP client); Cargo keeps the arrows one way:
//! `bench` -> `bench-report` -> `bench-model`, and `bench` -> `bench-model`.

pub mod affinity;
pub mod alloc;
pub mod cli;
pub mod clients;
pub mod env;
pub mod error;
pub mod measure;
pub mod process;
mod release;
mod run;
pub mod servers;
pub mod suites;
pub mod upstream;

pub use run::{RunOutput, main, run};
