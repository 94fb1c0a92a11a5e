//! The bench's HTTP clients of the servers it drives, other than the load generator: one typed
//! client of the payment service and one of mock-rates' admin endpoints. Neither is ever in a
//! measured call's path.

pub mod api;
mod loopback;
pub mod mock_admin;

pub use api::ApiClient;
pub use mock_admin::{Counted, FaultsGuard, MockAdmin, MockError};
