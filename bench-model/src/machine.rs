//! What the machine was doing while a suite ran, sampled during it.

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
