//! The servers the bench drives: mock-rates and the payment service, each either the bench's
//! own child process or one given by URL.

pub mod api;
pub mod child;
pub mod mock;

pub use api::ApiEndpoint;
pub use mock::{MockEndpoint, Serving};

use crate::model::Protocol;

/// What a suite that drives the payment service uses over one protocol: the service, and the
/// mock-rates it calls over that protocol.
#[derive(Clone, Copy, Debug)]
pub struct Stack<'a> {
    pub protocol: Protocol,
    pub mock: &'a MockEndpoint,
    pub api: &'a ApiEndpoint,
}
