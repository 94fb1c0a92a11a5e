//! Which answer each request gets, written into the connection's output buffer.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::admin;
use crate::exchange::{Buffers, Outcome, Request, Responder};
use crate::faults::FaultMode;
use crate::http::Method;
use crate::rates;
use crate::reply::Reply;
use crate::settings::{Framing, TimestampUnit};
use crate::state::MockState;

pub(crate) async fn handle(
    request: &Request<'_>,
    state: &MockState,
    buffers: &mut Buffers,
) -> Outcome {
    let responder = Responder::new(request);
    match request.path {
        "/api/live" if request.method == Method::Get => live(request, state, buffers).await,
        "/health" if request.method == Method::Get => {
            responder.json(200, &Health { status: "ok" }, &mut buffers.out)
        }
        "/api/live" | "/health" => responder.method_not_allowed("GET", &mut buffers.out),
        path if path.starts_with("/__admin/") => admin::handle(request, state, &mut buffers.out),
        _ => responder.problem(404, "no such resource", &[], &mut buffers.out),
    }
}

#[derive(Serialize)]
struct Health {
    status: &'static str,
}

async fn live(request: &Request<'_>, state: &MockState, buffers: &mut Buffers) -> Outcome {
    let decision = state.live_decision();
    if !decision.delay.is_zero() {
        tokio::time::sleep(decision.delay).await;
    }
    let Buffers { out, body } = buffers;
    body.clear();
    rates::write_live_body(
        &rates::parse_pairs(request.query),
        timestamp(state.timestamp_unit()),
        body,
    );
    let responder = Responder::new(request);
    let reply = Reply {
        status: 200,
        content_type: state.content_type().header_value(),
        // HTTP/1.0 clients cannot read chunked bodies.
        framing: if request.http10 {
            Framing::ContentLength
        } else {
            state.framing()
        },
        connection: responder.connection_header(),
        extra_headers: &[],
    };
    // Broken answers do not announce the close: the client should be surprised by it.
    let broken = Reply {
        framing: Framing::ContentLength,
        connection: None,
        ..reply
    };
    match decision.fault {
        None | Some(FaultMode::None) => {
            reply.write(body, out);
            responder.done()
        }
        Some(FaultMode::Status) => {
            let retry_after: &[(&str, &str)] = if decision.status == 503 {
                &[("Retry-After", "1")]
            } else {
                &[]
            };
            responder.problem(decision.status, "injected fault", retry_after, out)
        }
        Some(FaultMode::Reset) => Outcome::Reset,
        Some(FaultMode::Eof) => {
            broken.write_head(body.len(), out);
            Outcome::Reply { close: true }
        }
        Some(FaultMode::Truncated) => {
            broken.write_head(body.len(), out);
            out.extend_from_slice(&body[..body.len() / 2]);
            Outcome::Reply { close: true }
        }
        Some(FaultMode::Malformed) => {
            let mut malformed = body[..body.len() / 2].to_vec();
            malformed.extend_from_slice(b"<html>");
            reply.write(&malformed, out);
            responder.done()
        }
        Some(FaultMode::Drip) => {
            Reply {
                framing: Framing::Chunked,
                ..broken
            }
            .write_head(0, out);
            Outcome::Drip
        }
        Some(FaultMode::Hang) => Outcome::Hang,
        Some(FaultMode::Goaway) => Outcome::GoAway,
        Some(FaultMode::Refused) => Outcome::Refuse,
    }
}

fn timestamp(unit: TimestampUnit) -> u64 {
    // A clock before 1970 is not worth failing a request over.
    let since_epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    match unit {
        TimestampUnit::Seconds => since_epoch.as_secs(),
        TimestampUnit::Millis => u64::try_from(since_epoch.as_millis()).unwrap_or(u64::MAX),
    }
}
