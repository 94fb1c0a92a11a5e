//! The clients a worker can use, by name: every client of the catalogue (`rates_catalogue`)
//! that speaks the configured HTTP version. Each actix worker builds its own instances once, at
//! start: awc requires it (its client is not `Send`), and the others do the same for fairness.

use std::borrow::Cow;
use std::rc::Rc;
use std::sync::{Arc, LazyLock};

use application::RatesProvider;
use rates_catalogue::{Adapter, CLIENTS};
use rates_common::{BuildError, ClientSettings};

use crate::metrics::{Instrumented, Metrics};
use crate::readiness::Readiness;

/// Every client's name, as an unknown-client problem lists them (borrowed: no allocation).
pub static VALID_CLIENTS: LazyLock<Vec<Cow<'static, str>>> = LazyLock::new(|| {
    CLIENTS
        .iter()
        .map(|client| Cow::Borrowed(client.name.as_str()))
        .collect()
});

/// One worker's rates providers, keyed by client name.
pub struct ClientRegistry {
    clients: Vec<(&'static str, Rc<dyn RatesProvider>)>,
}

impl ClientRegistry {
    /// Builds one instance of every adapter with the same settings, each wrapped so that its
    /// upstream calls are measured in `metrics` and mark the upstream alive in `readiness`.
    /// A client that does not speak the settings' HTTP version (ureq, with "2") is left out:
    /// its payments answer "unknown client", and `GET /clients` says why.
    pub fn build(
        settings: &ClientSettings,
        metrics: &Arc<Metrics>,
        readiness: &Arc<Readiness>,
    ) -> Result<Self, BuildError> {
        let adapters = rates_catalogue::speaking(settings.http_version)
            .map(|client| {
                let adapter = client.build(settings)?;
                // ureq's blocking-pool slots go into the metrics of the worker that owns them.
                if let Adapter::Ureq(ureq) = &adapter {
                    metrics.track_blocking_pool(ureq.blocking_slots().clone());
                }
                Ok((client.name.as_str(), adapter.into_shared()))
            })
            .collect::<Result<Vec<_>, BuildError>>()?;
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
