//! Integration tests: a real server on a loopback port, driven with raw HTTP over std
//! sockets, plain or inside rustls.

mod admin;
mod binary;
mod faults;
mod fidelity;
mod helpers;
mod http2;
mod http2_conformance;
mod keep_alive;
mod large;
mod live;
mod protocol;
mod shutdown;
mod tls;
mod tls_client;
