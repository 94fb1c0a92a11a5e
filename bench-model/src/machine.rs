//! The machine: what it was doing while a suite ran, sampled during it, and what it can do
//! that a suite needs.

use serde::{Deserialize, Serialize};

use crate::SuiteName;

/// The machine during one suite, from /proc/stat and /proc/loadavg sampled through it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MachineLoad {
    pub suite: SuiteName,
    /// How long the suite ran.
    pub seconds: f64,
    /// Readings taken (one per interval).
    pub readings: u32,
    /// Share of all CPUs' time spent busy (neither idle nor waiting for I/O), in percent.
    pub busy_percent: Option<f64>,
    /// Share of all CPUs' time the hypervisor gave to someone else (steal), in percent: over
    /// the suite, and the worst interval.
    pub steal_percent: Option<f64>,
    pub steal_percent_max: Option<f64>,
    /// The highest 1-minute load average read.
    pub load1_max: Option<f64>,
}

/// What the machine can do that a suite needs, read while the run is decided and recorded in
/// its settings (`settings.machine`).
// Each is a yes or no the machine answers, kept as such in results.json.
#[allow(clippy::struct_excessive_bools)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MachineAbilities {
    /// Root, which network namespaces (the resolution suite) and cgroups (a CPU quota or
    /// budget) need.
    pub root: bool,
    /// `ip netns` (iproute2): the resolution suite's namespace.
    pub ip_netns: bool,
    /// valgrind's callgrind: the cost suite.
    pub valgrind: bool,
    /// wrk: what the resilience suite holds its generator against.
    pub wrk: bool,
}
