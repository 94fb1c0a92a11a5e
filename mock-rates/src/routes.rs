//! Which answer each request gets, as data: the connection's writer sends it.

use std::time::{SystemTime, UNIX_EPOCH};

use bytes::{Bytes, BytesMut};

use crate::admin;
use crate::exchange::{Answer, AnswerFault, Outcome, Request, Routed};
use crate::faults::FaultMode;
use crate::history;
use crate::http::Method;
use crate::rates::{self, PairsQuery};
use crate::settings::TimestampUnit;
use crate::state::MockState;

/// Routes one request. `scratch` is the connection's buffer for answer bodies: a body made
/// in it is split off as [`Bytes`], and its room is reused once the answer has been sent.
pub(crate) fn handle(request: &Request<'_>, state: &MockState, scratch: &mut BytesMut) -> Routed {
    // `/size/N/api/live` is `/api/live?size=N` for clients that only take a base URL.
    let (path, size_in_path) = match request.path.strip_prefix("/size/") {
        Some(rest) => match rest.find('/') {
            Some(end) => (&rest[end..], Some(&rest[..end])),
            None => (request.path, None),
        },
        None => (request.path, None),
    };
    match path {
        "/api/live" if request.method == Method::Get => {
            let size = size_in_path.or_else(|| {
                request
                    .query
                    .and_then(|query| rates::query_param(query, "size"))
            });
            match size.map(parse_size).transpose() {
                Ok(size) => live(request, state, scratch, size),
                Err(answer) => answer.into(),
            }
        }
        "/health" if request.method == Method::Get && size_in_path.is_none() => Answer::bytes(
            200,
            "application/json",
            Bytes::from_static(br#"{"status":"ok"}"#),
        )
        .into(),
        "/api/live" => Answer::method_not_allowed(&[("allow", "GET")]).into(),
        "/health" if size_in_path.is_none() => {
            Answer::method_not_allowed(&[("allow", "GET")]).into()
        }
        path if path.starts_with("/__admin/") && size_in_path.is_none() => {
            admin::handle(request, state).into()
        }
        _ => Answer::problem(404, "no such resource", &[]).into(),
    }
}

/// The size asked for an answer: 1 to [`history::MAX_SIZE`] bytes.
fn parse_size(text: &str) -> Result<usize, Answer> {
    match text.parse::<usize>() {
        Ok(size)
            if (1..=history::MAX_SIZE).contains(&size)
                && text.bytes().all(|byte| byte.is_ascii_digit()) =>
        {
            Ok(size)
        }
        _ => Err(Answer::problem(
            400,
            &format!(
                "size must be a number of bytes from 1 to {}",
                history::MAX_SIZE
            ),
            &[],
        )),
    }
}

fn live(
    request: &Request<'_>,
    state: &MockState,
    scratch: &mut BytesMut,
    size: Option<usize>,
) -> Routed {
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
    let pairs = rates::parse_pairs(request.query);
    let timestamp = timestamp(state.timestamp_unit());
    // Error answers (code 1001, 1002) keep their own size.
    let mut body = if let (PairsQuery::Known(known), Some(size)) = (&pairs, size) {
        state.sized_answer(known, size, timestamp)
    } else {
        rates::write_live_body(&pairs, timestamp, scratch);
        scratch.split().freeze()
    };
    if decision.fault == Some(FaultMode::Malformed) {
        // Correctly framed, but cut in the middle of the JSON and ending in markup.
        scratch.extend_from_slice(&body[..body.len() / 2]);
        scratch.extend_from_slice(b"<html>");
        body = scratch.split().freeze();
    }
    routed(Outcome::Answer(Answer {
        framing: state.framing(),
        fault,
        ..Answer::bytes(200, state.content_type().header_value(), body)
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
