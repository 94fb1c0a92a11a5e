//! The run decided once, before anything is measured: the command line's settings, narrowed
//! to what a given upstream can take, frozen with their plan. Nothing after this writes a
//! setting or makes a plan; what the run then starts is recorded apart ([`bench_model::Servers`]).

use crate::cli::{self, Cli};
use crate::error::BenchError;
use crate::process;
use crate::upstream::{self, GivenUpstream, Prepared};
use bench_model::{MachineAbilities, Run, Tool};

/// The run, and the upstream given with `--upstream-url`, ready.
#[derive(Debug)]
pub(super) struct Decided {
    pub run: Run,
    pub upstream: Option<Prepared>,
}

/// Decides the run of `cli`.
///
/// # Errors
/// The upstream's flags cannot be used, or it cannot be reached over any protocol asked for.
pub(super) fn decide(cli: &Cli) -> Result<Decided, BenchError> {
    let mut settings = cli::resolve(cli);
    let upstream = match GivenUpstream::from_args(&cli.upstream)? {
        Some(target) => Some(upstream::prepare(target, &mut settings)?),
        None => None,
    };
    settings.machine = Some(abilities());
    Ok(Decided {
        run: Run::from(settings),
        upstream,
    })
}

/// What this machine can do that a suite needs.
fn abilities() -> MachineAbilities {
    let installed = |tool| process::tool(tool).is_ok();
    MachineAbilities {
        root: nix::unistd::geteuid().is_root(),
        ip_netns: installed(Tool::Ip),
        valgrind: installed(Tool::Valgrind),
        wrk: installed(Tool::Wrk),
    }
}
