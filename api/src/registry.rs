//! The clients a worker can use, by name. Each actix worker builds its own instances once, at
//! start: awc requires it (its client is not `Send`), and the others do the same for fairness.

use std::borrow::Cow;
use std::rc::Rc;
use std::sync::Arc;

use application::RatesProvider;
use rates_awc::AwcRates;
use rates_common::{BuildError, ClientSettings};
use rates_hyper::HyperRates;
use rates_isahc::IsahcRates;
use rates_reqwest::ReqwestRates;
use rates_ureq::UreqRates;

use crate::metrics::{Instrumented, Metrics};
use crate::readiness::Readiness;

/// Names of every client, in the order they are listed.
pub const CLIENT_NAMES: [&str; 5] = [
    HyperRates::NAME,
    AwcRates::NAME,
    ReqwestRates::NAME,
    UreqRates::NAME,
    IsahcRates::NAME,
];

/// [`CLIENT_NAMES`] as an unknown-client problem lists them (borrowed: no allocation).
pub static VALID_CLIENTS: [Cow<'static, str>; 5] = [
    Cow::Borrowed(CLIENT_NAMES[0]),
    Cow::Borrowed(CLIENT_NAMES[1]),
    Cow::Borrowed(CLIENT_NAMES[2]),
    Cow::Borrowed(CLIENT_NAMES[3]),
    Cow::Borrowed(CLIENT_NAMES[4]),
];

/// One worker's rates providers, keyed by client name.
pub struct ClientRegistry {
    clients: Vec<(&'static str, Rc<dyn RatesProvider>)>,
}

impl ClientRegistry {
    /// Builds one instance of every adapter with the same settings, each wrapped so that its
    /// upstream calls are measured in `metrics` and mark the upstream alive in `readiness`.
    pub fn build(
        settings: &ClientSettings,
        metrics: &Arc<Metrics>,
        readiness: &Arc<Readiness>,
    ) -> Result<Self, BuildError> {
        let adapters: Vec<(&'static str, Rc<dyn RatesProvider>)> = vec![
            (HyperRates::NAME, Rc::new(HyperRates::new(settings)?)),
            (AwcRates::NAME, Rc::new(AwcRates::new(settings)?)),
            (ReqwestRates::NAME, Rc::new(ReqwestRates::new(settings)?)),
            (UreqRates::NAME, {
                let ureq = UreqRates::new(settings)?;
                metrics.track_blocking_pool(ureq.blocking_slots().clone());
                Rc::new(ureq)
            }),
            (IsahcRates::NAME, Rc::new(IsahcRates::new(settings)?)),
        ];
        let clients = adapters
            .into_iter()
            .map(|(name, adapter)| {
                let measured: Rc<dyn RatesProvider> = Rc::new(Instrumented::new(
                    adapter,
                    name,
                    Arc::clone(metrics),
                    Arc::clone(readiness),
                ));
                (name, measured)
            })
            .collect();
        Ok(Self { clients })
    }

    /// A registry with no clients: every payment answers "unknown client". Used only if a
    /// worker fails to build what start-up already built once successfully.
    pub fn empty() -> Self {
        Self {
            clients: Vec::new(),
        }
    }

    /// The provider for `name` and its canonical (static) name.
    pub fn get(&self, name: &str) -> Option<(&'static str, Rc<dyn RatesProvider>)> {
        self.clients
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(known, provider)| (*known, Rc::clone(provider)))
    }
}

impl std::fmt::Debug for ClientRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.clients.iter().map(|(name, _)| name))
            .finish()
    }
}
