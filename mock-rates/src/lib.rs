//! A local exchange-rate server in the Free Forex API's format, over HTTP/1.1, or HTTPS with
//! HTTP/1.1 and HTTP/2, with fidelity switches and faults.

mod admin;
mod connection;
mod dns;
mod exchange;
mod faults;
mod history;
mod identity;
// Only for the fuzz targets in `fuzz/`.
#[doc(hidden)]
pub mod fuzzing;
mod http;
mod http2;
mod rates;
mod reply;
mod routes;
mod server;
mod settings;
mod state;
mod stats;
mod timing;
mod tls;

pub use dns::{DnsCounts, DnsServer, DnsSettings};
pub use faults::{FaultMode, Faults};
pub use identity::TlsIdentity;
pub use rates::{rate_table, rate_text};
pub use server::{MockServer, serve};
pub use settings::{
    AdminToken, ContentType, Framing, IdleClose, IdleTimeout, Settings, TimestampUnit, TlsSettings,
};
pub use state::MockState;
pub use stats::Stats;
