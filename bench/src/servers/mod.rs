//! The servers the bench drives: mock-rates and the payment service, each either the bench's
//! own child process or one given by URL.

pub mod api;
pub mod child;
pub mod mock;

pub use api::ApiEndpoint;
pub use mock::{IdentityFile, MockEndpoint, Serving};

use bench_model::Protocol;

/// What a suite that drives the payment service uses over one protocol: the service, and the
/// mock-rates it calls over that protocol.
#[derive(Clone, Copy, Debug)]
pub struct Stack<'a> {
    pub protocol: Protocol,
    pub mock: &'a MockEndpoint,
    pub api: &'a ApiEndpoint,
    /// Over h2: the mock's SETTINGS_MAX_CONCURRENT_STREAMS, when it sends one.
    pub stream_limit: Option<u32>,
}

/// The servers over TLS of the suites that drive the payment service: one mock-rates serving
/// TLS (HTTP/2 and HTTP/1.1 by ALPN) for a service whose clients speak HTTP/1.1 (`https`) and
/// one whose clients speak HTTP/2 (`h2`), and for the fanout suite a second mock with a
/// stream limit, and a service over h2 calling it.
#[derive(Debug)]
pub struct TlsServers {
    pub mock: MockEndpoint,
    pub https: Option<ApiEndpoint>,
    pub h2: Option<ApiEndpoint>,
    /// The stream limit, its mock and its service.
    pub limited: Option<(u32, MockEndpoint, ApiEndpoint)>,
}

impl TlsServers {
    /// Its stacks, in table order: https, h2, h2 with the stream limit.
    pub fn stacks(&self) -> Vec<Stack<'_>> {
        let mut stacks = Vec::new();
        for (protocol, api) in [(Protocol::Https, &self.https), (Protocol::H2, &self.h2)] {
            if let Some(api) = api {
                stacks.push(Stack {
                    protocol,
                    mock: &self.mock,
                    api,
                    stream_limit: None,
                });
            }
        }
        if let Some((limit, mock, api)) = &self.limited {
            stacks.push(Stack {
                protocol: Protocol::H2,
                mock,
                api,
                stream_limit: Some(*limit),
            });
        }
        stacks
    }
}
