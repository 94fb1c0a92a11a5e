//! The suite's own servers over one protocol: a mock-rates it can kill and start again, and a
//! payment service calling it, started clean. Over https and h2 the mock serves a TLS
//! identity made for the suite, which the restarted mock serves again, so that the service,
//! trusting that CA, goes on trusting the mock after the restart.

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
    /// Over TLS, the identity the mock serves (its file is removed on drop).
    pub identity: Option<IdentityFile>,
}

impl Servers {
    /// Starts a mock-rates serving `protocol` and a service calling it: over plain HTTP; or
    /// over TLS with the suite's identity, the service trusting its CA through
    /// `rates.ca_file` and its clients built for the protocol's HTTP version.
    pub fn start(exe: &Path, protocol: Protocol) -> Result<Self, BenchError> {
        let (mock, identity) = if protocol.is_tls() {
            let identity = IdentityFile::generate().map_err(|error| {
                BenchError::Resilience(format!("cannot make mock-rates' TLS identity: {error}"))
            })?;
            (
                MockEndpoint::spawn_with_identity(exe, &identity)?,
                Some(identity),
            )
        } else {
            (MockEndpoint::spawn(exe)?, None)
        };
        let api = if protocol.is_tls() {
            ApiEndpoint::spawn_over_tls(
                exe,
                &mock,
                crate::suites::adapters::http_version(protocol),
            )?
        } else {
            ApiEndpoint::spawn(exe, mock.base_url())?
        };
        Ok(Self {
            protocol,
            exe: exe.to_owned(),
            mock: Some(mock),
            api,
            identity,
        })
    }

    /// The service's process id, which the suite reads memory, descriptors and CPU from.
    pub fn pid(&self) -> Result<u32, BenchError> {
        self.api
            .pid()
            .ok_or_else(|| BenchError::Resilience("the service has no process id".to_owned()))
    }

    /// Each of `clients` with its payments target on this service, in table order.
    pub fn targets(
        &self,
        clients: &[ClientName],
    ) -> Result<Vec<(ClientName, Arc<ReadyScenario>)>, BenchError> {
        clients
            .iter()
            .map(|&name| {
                ReadyScenario::new(self.api.base_url(), bench_model::Scenario::Payments(name))
                    .map(|target| (name, Arc::new(target)))
            })
            .collect()
    }

    /// `client` over this protocol.
    pub fn subject(&self, client: ClientName) -> ClientOverProtocol {
        ClientOverProtocol {
            client,
            protocol: self.protocol,
        }
    }
}
