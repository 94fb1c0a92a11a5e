//! What a run started (or was given) for its suites, as recorded in results.json: typed, so
//! that the report words it. The settings say what the run asked for; this says where each
//! server ran once it was up.

use serde::{Deserialize, Serialize};

use crate::Protocol;

/// The servers of a run. Runs recorded before it (schema 2) described them in the settings'
/// `mock`, `api` and `https_servers` lines instead, which the report still reads.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Servers {
    /// mock-rates over plain HTTP, when a suite needs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mock: Option<Server>,
    /// The payment service calling it, when a suite drives the service over http.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<Server>,
    /// Over TLS, for the suites that drive the service over https and h2.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tls: Vec<TlsServer>,
}

impl Servers {
    /// Whether no server is recorded: a run before schema 3, or one that needed none.
    pub fn is_empty(&self) -> bool {
        self.mock.is_none() && self.api.is_none() && self.tls.is_empty()
    }
}

/// One server: where it listened, and whose it was.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Server {
    pub url: String,
    pub origin: Origin,
}

/// Whose a server was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// A child process of the bench's.
    Child,
    /// Given by URL (`--mock-url`, `--api-url`): nothing of its process is the bench's.
    Given,
    /// The server of `--upstream-url`, which the bench did not start.
    Upstream,
}

/// A server of the suites that drive the service over TLS.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TlsServer {
    pub role: TlsRole,
    pub url: String,
}

/// What a server over TLS was for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum TlsRole {
    /// mock-rates serving TLS, h2 and http/1.1 by ALPN (or, against `--upstream-url`, that
    /// server).
    Mock,
    /// A payment service whose clients call the mock over `protocol`; `upstream_ca` whether it
    /// trusts a CA besides the system's roots (the mock's, or `--ca-file`'s).
    Api {
        protocol: Protocol,
        upstream_ca: bool,
    },
    /// The fanout suite's mock-rates with a stream limit over h2, and its service.
    LimitedMock {
        stream_limit: u32,
    },
    LimitedApi {
        stream_limit: u32,
    },
}
