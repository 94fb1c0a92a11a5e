//! The servers the bench drives: mock-rates and the payment service, each either the bench's
//! own child process or one given by URL.

pub mod api;
pub mod child;
pub mod mock;

pub use api::ApiEndpoint;
pub use mock::{MockEndpoint, Serving};
