//! The suite's own servers over one protocol: a mock-rates it can kill and start again, and a
//! payment service calling it, started clean; and beside them a second service with a
//! mock-rates of its own, the other side of the paired capacity (see
//! [`capacity`](super::capacity)). Over https and h2 the mocks serve a TLS identity made for
//! the suite, which the restarted mock serves again, so that the service, trusting that CA,
//! goes on trusting the mock after the restart.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::BenchError;
use crate::servers::{ApiEndpoint, IdentityFile, MockEndpoint};
use crate::suites::load::http::ReadyScenario;
use bench_model::{ClientName, Protocol};

/// A client over a protocol: whose row a part makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientOverProtocol {
    pub client: ClientName,
    pub protocol: Protocol,
}

/// The servers of one protocol.
#[derive(Debug)]
pub struct Servers {
    pub protocol: Protocol,
    /// The bench executable, which the mock is started again from.
    pub exe: PathBuf,
    /// `None` while the mock is down, or when it could not start again.
    pub mock: Option<MockEndpoint>,
    pub api: ApiEndpoint,
    /// The second service and its own mock, which only the capacities drive.
    pub second: Service,
    /// Over TLS, the identity the mocks serve (its file is removed on drop).
    pub identity: Option<IdentityFile>,
}

/// A payment service and the mock-rates it calls.
#[derive(Debug)]
pub struct Service {
    pub mock: MockEndpoint,
    pub api: ApiEndpoint,
}

impl Service {
    /// A mock-rates serving `protocol` (over TLS with `identity`) and a service calling it:
    /// over TLS trusting its CA through `rates.ca_file`, its clients built for the protocol's
    /// HTTP version.
    fn start(
        exe: &Path,
        protocol: Protocol,
        identity: Option<&IdentityFile>,
    ) -> Result<Self, BenchError> {
        let Some(identity) = identity else {
            let mock = MockEndpoint::spawn(exe)?;
            let api = ApiEndpoint::spawn(exe, mock.base_url())?;
            return Ok(Self { mock, api });
        };
        let mock = MockEndpoint::spawn_with_identity(exe, identity)?;
        let api = ApiEndpoint::spawn_over_tls(
            exe,
            &mock,
            crate::suites::adapters::http_version(protocol),
        )?;
        Ok(Self { mock, api })
    }
}

impl Servers {
    /// Starts the two services over `protocol`, each with its mock-rates: over plain HTTP; or
    /// over TLS with the suite's identity.
    pub fn start(exe: &Path, protocol: Protocol) -> Result<Self, BenchError> {
        let identity = if protocol.is_tls() {
            Some(IdentityFile::generate().map_err(|error| {
                BenchError::Resilience(format!("cannot make mock-rates' TLS identity: {error}"))
            })?)
        } else {
            None
        };
        let Service { mock, api } = Service::start(exe, protocol, identity.as_ref())?;
        let second = Service::start(exe, protocol, identity.as_ref())?;
        Ok(Self {
            protocol,
            exe: exe.to_owned(),
            mock: Some(mock),
            api,
            second,
            identity,
        })
    }

    /// Service `side` (0: the one every part drives, 1: the second) and its mock, if up.
    pub fn side(&self, side: usize) -> (&ApiEndpoint, Option<&MockEndpoint>) {
        if side == 0 {
            (&self.api, self.mock.as_ref())
        } else {
            (&self.second.api, Some(&self.second.mock))
        }
    }

    /// Holds both services to `cpus` of CPU time per `period_us`.
    pub fn limit_cpu(&mut self, cpus: f64, period_us: u64) -> Result<(), String> {
        self.api.limit_cpu(cpus, period_us)?;
        self.second.api.limit_cpu(cpus, period_us)
    }

    /// Lets both services go from their CPU limits.
    pub fn unlimit_cpu(&mut self) -> Result<(), String> {
        let first = self.api.unlimit_cpu();
        self.second.api.unlimit_cpu().and(first)
    }

    /// The service's process id, which the suite reads memory, descriptors and CPU from.
    pub fn pid(&self) -> Result<u32, BenchError> {
        self.api
            .pid()
            .ok_or_else(|| BenchError::Resilience("the service has no process id".to_owned()))
    }

    /// Each of `clients` with its payments target on service `side` (see [`Self::side`]), in
    /// table order.
    pub fn targets(
        &self,
        side: usize,
        clients: &[ClientName],
    ) -> Result<Vec<(ClientName, Arc<ReadyScenario>)>, BenchError> {
        clients
            .iter()
            .map(|&name| Ok((name, self.target(side, name)?)))
            .collect()
    }

    /// `client`'s payments target on service `side` (see [`Self::side`]).
    pub fn target(
        &self,
        side: usize,
        client: ClientName,
    ) -> Result<Arc<ReadyScenario>, BenchError> {
        let base_url = self.side(side).0.base_url();
        ReadyScenario::new(base_url, bench_model::Scenario::Payments(client)).map(Arc::new)
    }

    /// `client` over this protocol.
    pub fn subject(&self, client: ClientName) -> ClientOverProtocol {
        ClientOverProtocol {
            client,
            protocol: self.protocol,
        }
    }
}
