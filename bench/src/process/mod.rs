//! The one way the bench starts a process (the model: hyperfine's `Executor`): a [`Cmd`]
//! names the program, its arguments, environment, working directory, stdin and a deadline;
//! [`Cmd::run`] waits for it and returns its status, output and wall time, or a typed
//! [`RunError`]; [`Cmd::spawn`] starts a long-running child ([`Running`]) such as a server.
//!
//! Every child is the leader of a process group of its own, and that whole group is killed
//! with SIGKILL when the deadline passes, when its leader exits (nothing it started outlives
//! it), when the [`Running`] guard drops, and when the bench is interrupted (SIGINT, SIGTERM:
//! a signal thread, in `group`). The external tools the bench drives are found in one place
//! ([`tool()`]), and the files and directories it hands to them are made by [`scratch`].

mod command;
mod group;
pub mod namespace;
pub mod scratch;
pub mod tool;

pub use command::{Cmd, Finished, Input, Output, RunError, Running, first_line};
pub use namespace::Namespace;
pub use tool::{Found, Missing, MissingCause, Tool, tool};
