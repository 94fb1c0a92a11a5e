//! Which answer each request gets, as data: the connection's writer sends it.

use std::time::{SystemTime, UNIX_EPOCH};

use bytes::{Bytes, BytesMut};

use crate::admin;
use crate::exchange::{Answer, AnswerFault, Outcome, Request, Routed};
use crate::faults::FaultMode;
use crate::http::Method;
use crate::rates;
use crate::settings::TimestampUnit;
use crate::state::MockState;

/// Routes one request. `scratch` is the connection's buffer for answer bodies: a body made
/// in it is split off as [`Bytes`], and its room is reused once the answer has been sent.
pub(crate) fn handle(request: &Request<'_>, state: &MockState, scratch: &mut BytesMut) -> Routed {
    match request.path {
        "/api/live" if request.method == Method::Get => live(request, state, scratch),
        "/health" if request.method == Method::Get => Answer::bytes(
            200,
            "application/json",
            Bytes::from_static(br#"{"status":"ok"}"#),
        )
        .into(),
        "/api/live" | "/health" => Answer::method_not_allowed(&[("allow", "GET")]).into(),
        path if path.starts_with("/__admin/") => admin::handle(request, state).into(),
        _ => Answer::problem(404, "no such resource", &[]).into(),
    }
}

fn live(request: &Request<'_>, state: &MockState, scratch: &mut BytesMut) -> Routed {
    let decision = state.live_decision();
    let routed = |outcome| Routed {
        delay: decision.delay,
        outcome,
    };
    let fault = match decision.fault {
        None | Some(FaultMode::None | FaultMode::Malformed) => None,
        Some(FaultMode::Eof) => Some(AnswerFault::HeadOnly),
        Some(FaultMode::Truncated) => Some(AnswerFault::HalfBody),
        Some(FaultMode::Drip) => Some(AnswerFault::Drip),
        Some(FaultMode::Status) => {
            let retry_after: &'static [(&'static str, &'static str)] = if decision.status == 503 {
                &[("retry-after", "1")]
            } else {
                &[]
            };
            return routed(Outcome::Answer(Answer::problem(
                decision.status,
                "injected fault",
                retry_after,
            )));
        }
        Some(FaultMode::Reset) => return routed(Outcome::Reset),
        Some(FaultMode::Hang) => return routed(Outcome::Hang),
        Some(FaultMode::Goaway) => return routed(Outcome::GoAway),
        Some(FaultMode::Refused) => return routed(Outcome::Refuse),
    };
    rates::write_live_body(
        &rates::parse_pairs(request.query),
        timestamp(state.timestamp_unit()),
        scratch,
    );
    if decision.fault == Some(FaultMode::Malformed) {
        // Correctly framed, but cut in the middle of the JSON and ending in markup.
        scratch.truncate(scratch.len() / 2);
        scratch.extend_from_slice(b"<html>");
    }
    routed(Outcome::Answer(Answer {
        framing: state.framing(),
        fault,
        ..Answer::bytes(
            200,
            state.content_type().header_value(),
            scratch.split().freeze(),
        )
    }))
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
