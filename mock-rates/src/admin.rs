//! `/__admin/*`: read and change faults, read and reset counters (or only the HTTP/2 peaks),
//! fetch the CA. Never faulted.

use serde::Serialize;

use crate::exchange::{Outcome, Request, Responder};
use crate::faults::Faults;
use crate::http::Method;
use crate::state::MockState;

pub(crate) fn handle(request: &Request<'_>, state: &MockState, out: &mut Vec<u8>) -> Outcome {
    let responder = Responder::new(request);
    match (request.path, request.method) {
        ("/__admin/faults", Method::Get) => responder.json(200, &state.faults(), out),
        ("/__admin/faults", Method::Put) => match parse_faults(request.body) {
            Ok(faults) => {
                state.set_faults(faults.clone());
                tracing::info!(?faults, "faults changed");
                responder.json(200, &faults, out)
            }
            Err(detail) => responder.problem(400, &detail, &[], out),
        },
        ("/__admin/faults", _) => responder.method_not_allowed("GET, PUT", out),
        ("/__admin/stats", Method::Get) => responder.json(200, &state.stats(), out),
        ("/__admin/reset", Method::Post) => {
            state.reset();
            responder.json(200, &Done { status: "reset" }, out)
        }
        ("/__admin/reset-peaks", Method::Post) => {
            state.reset_peaks();
            responder.json(
                200,
                &Done {
                    status: "peaks reset",
                },
                out,
            )
        }
        ("/__admin/reset" | "/__admin/reset-peaks", _) => responder.method_not_allowed("POST", out),
        ("/__admin/ca", Method::Get) => match state.ca_pem() {
            Some(pem) => responder.bytes(200, "application/x-pem-file", pem.as_bytes(), out),
            None => responder.problem(404, "TLS is off: there is no CA", &[], out),
        },
        ("/__admin/stats" | "/__admin/ca", _) => responder.method_not_allowed("GET", out),
        _ => responder.problem(404, "no such admin resource", &[], out),
    }
}

#[derive(Serialize)]
struct Done {
    status: &'static str,
}

fn parse_faults(body: &[u8]) -> Result<Faults, String> {
    let faults: Faults =
        serde_json::from_slice(body).map_err(|error| format!("invalid faults JSON: {error}"))?;
    faults.validate()?;
    Ok(faults)
}
