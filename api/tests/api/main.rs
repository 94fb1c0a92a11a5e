//! API integration tests: a real server on 127.0.0.1:0 driven over HTTP, with mock-rates
//! in-process as the upstream. One binary, one module per area.

mod batch;
mod clients;
mod embedded_mock;
mod errors;
mod fuzz;
mod headers;
mod helpers;
mod https;
mod openapi;
mod payments;
mod shutdown;
mod wire;
