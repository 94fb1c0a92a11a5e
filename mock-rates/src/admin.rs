//! `/__admin/*`: read and change faults and the idle timeout, read and reset counters (or only
//! the HTTP/2 peaks), fetch the CA. Never faulted.

use serde::Serialize;

use crate::exchange::{Answer, Request};
use crate::faults::Faults;
use crate::http::Method;
use crate::settings::IdleTimeout;
use crate::state::MockState;

pub(crate) fn handle(request: &Request<'_>, state: &MockState) -> Answer {
    match access(
        state.admin_token(),
        request.peer_loopback,
        request.authorization,
    ) {
        Access::Granted => {}
        Access::NeedsToken => {
            return Answer::problem(
                401,
                "the admin endpoints need this mock's token: Authorization: Bearer TOKEN",
                &[("www-authenticate", "Bearer realm=\"mock-rates admin\"")],
            );
        }
        Access::LoopbackOnly => {
            return Answer::problem(
                403,
                "without --admin-token (MOCK_RATES_ADMIN_TOKEN), the admin endpoints answer \
                 loopback peers only",
                &[],
            );
        }
    }
    match (request.path, request.method) {
        ("/__admin/faults", Method::Get) => Answer::json(200, &state.faults()),
        ("/__admin/faults", Method::Put) => match parse_faults(request.body) {
            Ok(faults) => {
                state.set_faults(faults.clone());
                tracing::info!(?faults, "faults changed");
                Answer::json(200, &faults)
            }
            Err(detail) => Answer::problem(400, &detail, &[]),
        },
        ("/__admin/idle-timeout", Method::Get) => Answer::json(
            200,
            &IdleTimeout::of(state.idle_timeout(), state.idle_close()),
        ),
        ("/__admin/idle-timeout", Method::Put) => match parse_idle_timeout(request.body) {
            Ok(timeout) => {
                state.set_idle_timeout(timeout.duration());
                state.set_idle_close(timeout.close);
                tracing::info!(?timeout, "idle timeout changed");
                Answer::json(200, &timeout)
            }
            Err(detail) => Answer::problem(400, &detail, &[]),
        },
        ("/__admin/faults" | "/__admin/idle-timeout", _) => {
            Answer::method_not_allowed(&[("allow", "GET, PUT")])
        }
        ("/__admin/stats", Method::Get) => Answer::json(200, &state.stats()),
        ("/__admin/reset", Method::Post) => {
            state.reset();
            Answer::json(200, &Done { status: "reset" })
        }
        ("/__admin/reset-peaks", Method::Post) => {
            state.reset_peaks();
            Answer::json(
                200,
                &Done {
                    status: "peaks reset",
                },
            )
        }
        ("/__admin/reset" | "/__admin/reset-peaks", _) => {
            Answer::method_not_allowed(&[("allow", "POST")])
        }
        ("/__admin/ca", Method::Get) => match state.ca_pem() {
            Some(pem) => Answer::bytes(
                200,
                "application/x-pem-file",
                pem.as_bytes().to_vec().into(),
            ),
            None => Answer::problem(404, "TLS is off: there is no CA", &[]),
        },
        ("/__admin/stats" | "/__admin/ca", _) => Answer::method_not_allowed(&[("allow", "GET")]),
        _ => Answer::problem(404, "no such admin resource", &[]),
    }
}

/// Whether a request may use the admin endpoints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    Granted,
    /// A token is set, and the request did not carry it.
    NeedsToken,
    /// No token is set, and the peer is not on loopback.
    LoopbackOnly,
}

/// With a token, every peer must present it (`Bearer TOKEN`, the scheme in any case, as RFC
/// 9110 reads auth schemes); without one, only loopback peers are answered.
pub(crate) fn access(
    token: Option<&str>,
    peer_loopback: bool,
    authorization: Option<&[u8]>,
) -> Access {
    match token {
        Some(token) => {
            let presented = authorization
                .and_then(|value| value.split_at_checked(b"Bearer ".len()))
                .filter(|(scheme, _)| scheme.eq_ignore_ascii_case(b"Bearer "))
                .map(|(_, presented)| presented);
            if presented.is_some_and(|presented| same_secret(presented, token.as_bytes())) {
                Access::Granted
            } else {
                Access::NeedsToken
            }
        }
        None if peer_loopback => Access::Granted,
        None => Access::LoopbackOnly,
    }
}

/// Compares in time that depends on the lengths only, not on where the first difference is.
fn same_secret(presented: &[u8], token: &[u8]) -> bool {
    presented.len() == token.len()
        && presented
            .iter()
            .zip(token)
            .fold(0u8, |differ, (a, b)| differ | (a ^ b))
            == 0
}

#[derive(Serialize)]
struct Done {
    status: &'static str,
}

fn parse_idle_timeout(body: &[u8]) -> Result<IdleTimeout, String> {
    let timeout: IdleTimeout = serde_json::from_slice(body)
        .map_err(|error| format!("invalid idle timeout JSON: {error}"))?;
    timeout.validate()?;
    Ok(timeout)
}

fn parse_faults(body: &[u8]) -> Result<Faults, String> {
    let faults: Faults =
        serde_json::from_slice(body).map_err(|error| format!("invalid faults JSON: {error}"))?;
    faults.validate()?;
    Ok(faults)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_token_only_loopback_peers_are_answered() {
        assert_eq!(access(None, true, None), Access::Granted);
        assert_eq!(
            access(None, true, Some(b"Bearer anything")),
            Access::Granted
        );
        assert_eq!(access(None, false, None), Access::LoopbackOnly);
        assert_eq!(
            access(None, false, Some(b"Bearer anything")),
            Access::LoopbackOnly
        );
    }

    #[test]
    fn with_a_token_every_peer_must_present_it() {
        let token = Some("s3cret");
        for loopback in [true, false] {
            for right in [&b"Bearer s3cret"[..], b"bearer s3cret", b"BEARER s3cret"] {
                assert_eq!(
                    access(token, loopback, Some(right)),
                    Access::Granted,
                    "{right:?}"
                );
            }
            for wrong in [
                &b"Bearer s3cre"[..],
                b"Bearer s3cret ",
                b"s3cret",
                b"Basic s3cret",
                b"Bearer ",
            ] {
                assert_eq!(
                    access(token, loopback, Some(wrong)),
                    Access::NeedsToken,
                    "{wrong:?}"
                );
            }
            assert_eq!(access(token, loopback, None), Access::NeedsToken);
        }
    }
}
