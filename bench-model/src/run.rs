//! The run decided once: the settings that the command line, the upstream and the machine
//! left, frozen, with the plan made from them. The runner decides it before anything is
//! measured and hands it to the servers and the suites; a saved run's reports read the same
//! record back from results.json, which stores the settings (the plan follows from them). No
//! one changes a setting or makes a plan after this.

use std::ops::Deref;

use serde::{Deserialize, Serialize};

use crate::{RunPlan, RunSettings};

/// A run's settings, frozen, and its plan. It reads as its settings (`run.rounds`), and
/// results.json holds it as the settings alone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "RunSettings", into = "RunSettings")]
pub struct Run {
    settings: RunSettings,
    plan: RunPlan,
}

impl Run {
    /// What each suite measures, decided with the settings.
    pub fn plan(&self) -> &RunPlan {
        &self.plan
    }

    /// The settings, as results.json records them.
    pub fn settings(&self) -> &RunSettings {
        &self.settings
    }
}

impl From<RunSettings> for Run {
    /// The one place a plan is made: from settings that are final.
    fn from(settings: RunSettings) -> Self {
        let plan = RunPlan::of(&settings);
        Self { settings, plan }
    }
}

impl From<Run> for RunSettings {
    fn from(run: Run) -> Self {
        run.settings
    }
}

impl Deref for Run {
    type Target = RunSettings;

    fn deref(&self) -> &RunSettings {
        &self.settings
    }
}

#[cfg(any(test, feature = "fixtures"))]
impl Run {
    /// For tests: the run decided again with `change` made to its settings.
    pub fn edit(&mut self, change: impl FnOnce(&mut RunSettings)) {
        let mut settings = self.settings.clone();
        change(&mut settings);
        *self = Self::from(settings);
    }
}
