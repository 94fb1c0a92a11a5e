//! The payment service: actix-web routes, configuration, telemetry and wiring of the five
//! rates adapters. `main.rs` only loads settings and runs [`startup::Application`].

pub mod configuration;
pub mod metrics;
pub mod openapi;
pub mod problem;
pub mod readiness;
pub mod registry;
pub mod request_head;
pub mod routes;
pub mod startup;
pub mod state;
pub mod telemetry;
