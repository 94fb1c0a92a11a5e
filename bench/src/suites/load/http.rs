//! The generator's HTTP side: one pooled hyper-util client, each scenario's requests, and the
//! check of every answer, read with the api's own response types. A request counts as ok only
//! when its whole response was read within the timeout, its status is 200 and its body is the
//! expected one.

use std::net::{SocketAddr, ToSocketAddrs as _};
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response, Uri, header};
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use rates_common::describe;

use api::routes::health::HealthStatus;
use api::routes::payment_dto::PaymentResponse;

use crate::error::BenchError;
use bench_model::{FailureKind, Scenario};

/// The generator's client: HTTP/1.1, TCP_NODELAY, an unbounded idle pool, so that a request is
/// never queued behind another: when no idle connection is free, a new one opens.
pub type LoadClient = Client<HttpConnector, Full<Bytes>>;

/// Limit on one request, connect to last body byte: nothing hangs.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
/// Below actix's 5 s keep-alive, so that the generator never reuses a connection the api is
/// about to close.
const POOL_IDLE_TIMEOUT: Duration = Duration::from_secs(4);

/// Builds the client; call inside the runtime that will drive it.
pub fn client() -> LoadClient {
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    connector.set_connect_timeout(Some(CONNECT_TIMEOUT));
    Client::builder(TokioExecutor::new())
        .pool_max_idle_per_host(usize::MAX)
        .pool_idle_timeout(POOL_IDLE_TIMEOUT)
        // Without a timer the idle timeout is never enforced.
        .pool_timer(TokioTimer::new())
        .build(connector)
}

/// One payment of the round-robin mix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MixedPayment {
    pub amount: &'static str,
    pub currency: &'static str,
    pub target_currency: &'static str,
    /// How the service resolves its rate.
    pub resolution: &'static str,
}

/// The payments each payments scenario cycles through, request by request: every way the
/// service resolves a rate.
pub const PAYMENT_MIX: [MixedPayment; 4] = [
    MixedPayment {
        amount: "100.00",
        currency: "EUR",
        target_currency: "USD",
        resolution: "direct EURUSD",
    },
    MixedPayment {
        amount: "100.00",
        currency: "GBP",
        target_currency: "EUR",
        resolution: "inverse of EURGBP",
    },
    MixedPayment {
        amount: "10000",
        currency: "JPY",
        target_currency: "USD",
        resolution: "inverse of USDJPY",
    },
    MixedPayment {
        amount: "100.00",
        currency: "EUR",
        target_currency: "JPY",
        resolution: "cross EURUSD x USDJPY",
    },
];

/// The outcome of one request.
#[derive(Debug)]
pub struct Exchange {
    /// The response's status, when one arrived.
    pub status: Option<u16>,
    /// Bytes of the response as received: status line, headers and body.
    pub bytes: u64,
    pub failure: Option<(FailureKind, String)>,
}

impl Exchange {
    pub fn failed(status: Option<u16>, bytes: u64, kind: FailureKind, message: String) -> Self {
        Self {
            status,
            bytes,
            failure: Some((kind, message)),
        }
    }
}

/// A scenario made ready to send: its URI, address and bodies built once.
#[derive(Debug)]
pub struct ReadyScenario {
    pub scenario: Scenario,
    uri: Uri,
    /// The URL's host, resolved once: where the resilience suite's slow connections connect.
    pub address: SocketAddr,
    /// One body per payment of the mix; empty for health.
    bodies: Vec<Bytes>,
}

impl ReadyScenario {
    pub fn new(base_url: &str, scenario: Scenario) -> Result<Self, BenchError> {
        let url = format!("{}{}", base_url.trim_end_matches('/'), scenario.path());
        let invalid = |why: String| BenchError::Load(format!("invalid URL {url:?}: {why}"));
        let uri: Uri = url.parse().map_err(|error| invalid(format!("{error}")))?;
        let authority = uri
            .authority()
            .ok_or_else(|| invalid("no host".to_owned()))?
            .clone();
        let port = authority.port_u16().unwrap_or(80);
        let address = (authority.host(), port)
            .to_socket_addrs()
            .map_err(|error| invalid(format!("cannot resolve its host: {error}")))?
            .next()
            .ok_or_else(|| invalid("its host resolves to no address".to_owned()))?;
        let bodies = match scenario {
            Scenario::Health => Vec::new(),
            Scenario::Payments(_) => PAYMENT_MIX
                .iter()
                .map(|payment| {
                    Bytes::from(format!(
                        r#"{{"amount":"{}","currency":"{}","target_currency":"{}"}}"#,
                        payment.amount, payment.currency, payment.target_currency
                    ))
                })
                .collect(),
        };
        Ok(Self {
            scenario,
            uri,
            address,
            bodies,
        })
    }

    /// Request `index`, with an absolute URI, for the pooled client.
    fn request(&self, index: u64) -> Result<Request<Full<Bytes>>, http::Error> {
        self.request_to(index, self.uri.clone())
    }

    fn request_to(&self, index: u64, uri: Uri) -> Result<Request<Full<Bytes>>, http::Error> {
        let builder = Request::builder().method(self.scenario.method()).uri(uri);
        match self.body(index) {
            Some(body) => builder
                .header(header::CONTENT_TYPE, "application/json")
                .body(Full::new(body.clone())),
            None => builder.body(Full::new(Bytes::new())),
        }
    }

    /// The URL and the body of request `index` (none for health), for a tool of its own
    /// (wrk).
    pub fn url_and_body(&self, index: u64) -> (String, Option<&Bytes>) {
        (self.uri.to_string(), self.body(index))
    }

    fn body(&self, index: u64) -> Option<&Bytes> {
        let slot = (index % self.bodies.len().max(1) as u64) as usize;
        self.bodies.get(slot)
    }

    /// Checks a 200's body: health says `ok`; a payment names the scenario's client and the
    /// currencies that were sent.
    pub fn check(&self, index: u64, body: &[u8]) -> Result<(), String> {
        match self.scenario {
            Scenario::Health => {
                let answer: HealthStatus = serde_json::from_slice(body)
                    .map_err(|error| format!("health body is not the expected JSON: {error}"))?;
                if answer.status == "ok" {
                    Ok(())
                } else {
                    Err(format!(
                        "health status {:?}, expected \"ok\"",
                        answer.status
                    ))
                }
            }
            Scenario::Payments(client) => {
                let answer: PaymentResponse = serde_json::from_slice(body)
                    .map_err(|error| format!("payment body is not the expected JSON: {error}"))?;
                if answer.client != client.as_str() {
                    return Err(format!(
                        "answered by client {:?}, expected {:?}",
                        answer.client,
                        client.as_str()
                    ));
                }
                let sent = PAYMENT_MIX[(index % PAYMENT_MIX.len() as u64) as usize];
                if answer.currency != sent.currency
                    || answer.target_currency != sent.target_currency
                {
                    return Err(format!(
                        "converted {} -> {}, expected {} -> {}",
                        answer.currency,
                        answer.target_currency,
                        sent.currency,
                        sent.target_currency
                    ));
                }
                Ok(())
            }
        }
    }
}

/// Sends request `index` of `target`, reads the whole response and checks it, within
/// [`REQUEST_TIMEOUT`].
pub async fn exchange(client: &LoadClient, target: &ReadyScenario, index: u64) -> Exchange {
    exchange_within(client, target, index, REQUEST_TIMEOUT).await
}

/// [`exchange`] within `limit` instead: for a service whose time is not what is measured
/// (the cost suite's, under callgrind).
pub async fn exchange_within(
    client: &LoadClient,
    target: &ReadyScenario,
    index: u64,
    limit: Duration,
) -> Exchange {
    match tokio::time::timeout(limit, send(client, target, index)).await {
        Ok(exchange) => exchange,
        Err(_) => Exchange::failed(
            None,
            0,
            FailureKind::Timeout,
            format!("no complete response within {} s", limit.as_secs()),
        ),
    }
}

async fn send(client: &LoadClient, target: &ReadyScenario, index: u64) -> Exchange {
    let request = match target.request(index) {
        Ok(request) => request,
        Err(error) => {
            return Exchange::failed(None, 0, FailureKind::Connect, describe(&error));
        }
    };
    let response = match client.request(request).await {
        Ok(response) => response,
        Err(error) => {
            let kind = if error.is_connect() {
                FailureKind::Connect
            } else {
                FailureKind::Reset
            };
            return Exchange::failed(None, 0, kind, describe(&error));
        }
    };
    read(response, target, index).await
}

/// Reads a response to request `index` of `target` whole and checks it.
pub async fn read(response: Response<Incoming>, target: &ReadyScenario, index: u64) -> Exchange {
    let status = response.status();
    let head_bytes = head_bytes(
        status,
        response
            .headers()
            .iter()
            .map(|(name, value)| (name.as_str().len(), value.len())),
    );
    let body = match response.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(error) => {
            return Exchange::failed(
                Some(status.as_u16()),
                head_bytes,
                FailureKind::Reset,
                format!("reading the body: {}", describe(&error)),
            );
        }
    };
    let bytes = head_bytes + body.len() as u64;
    if status != http::StatusCode::OK {
        // The service's problem says why (its title and detail: the upstream's error).
        let why = serde_json::from_slice::<api::problem::Problem>(&body)
            .map(|problem| format!(": {}: {}", problem.title, problem.detail))
            .unwrap_or_default();
        return Exchange::failed(
            Some(status.as_u16()),
            bytes,
            FailureKind::Status,
            format!("status {status}{why}"),
        );
    }
    match target.check(index, &body) {
        Ok(()) => Exchange {
            status: Some(status.as_u16()),
            bytes,
            failure: None,
        },
        Err(message) => Exchange::failed(Some(status.as_u16()), bytes, FailureKind::Body, message),
    }
}

/// Bytes of a response head on the wire: `HTTP/1.1 200 OK\r\n`, `name: value\r\n` per header
/// (given as name and value lengths), and the blank line.
pub fn head_bytes(status: http::StatusCode, headers: impl Iterator<Item = (usize, usize)>) -> u64 {
    let reason = status.canonical_reason().map_or(0, str::len);
    let status_line = "HTTP/1.1 200 ".len() + reason + 2;
    let header_lines: usize = headers.map(|(name, value)| name + 2 + value + 2).sum();
    (status_line + header_lines + 2) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::ClientName;
    use http::Method;

    fn payments(client: ClientName) -> ReadyScenario {
        ReadyScenario::new("http://127.0.0.1:1/", Scenario::Payments(client)).unwrap()
    }

    #[test]
    fn scenarios_are_named_by_method_and_path() {
        assert_eq!(Scenario::Health.to_string(), "GET /health/live");
        assert_eq!(
            Scenario::Payments(ClientName::Ureq).to_string(),
            "POST /payments/ureq"
        );
    }

    #[test]
    fn payments_cycle_through_the_mix() {
        let target = payments(ClientName::Hyper);
        assert_eq!(target.uri.to_string(), "http://127.0.0.1:1/payments/hyper");
        let body = |index| String::from_utf8(target.body(index).unwrap().to_vec()).unwrap();
        assert_eq!(
            body(0),
            r#"{"amount":"100.00","currency":"EUR","target_currency":"USD"}"#
        );
        assert_eq!(
            body(2),
            r#"{"amount":"10000","currency":"JPY","target_currency":"USD"}"#
        );
        assert_eq!(body(4), body(0));
        let request = target.request(3).unwrap();
        assert_eq!(request.method(), Method::POST);
        assert_eq!(request.headers()[header::CONTENT_TYPE], "application/json");
        let health = ReadyScenario::new("http://127.0.0.1:1", Scenario::Health).unwrap();
        assert!(health.body(0).is_none());
        assert_eq!(health.request(0).unwrap().method(), Method::GET);
    }

    #[test]
    fn checks_the_answer_of_each_scenario() {
        let health = ReadyScenario::new("http://127.0.0.1:1", Scenario::Health).unwrap();
        assert_eq!(health.check(0, br#"{"status":"ok"}"#), Ok(()));
        assert!(health.check(0, br#"{"status":"down"}"#).is_err());
        assert!(health.check(0, b"ok").is_err());

        let target = payments(ClientName::Awc);
        let answer = |client: &str, from: &str, to: &str| {
            format!(
                r#"{{"id":"x","reference":null,"amount":"100.00","currency":"{from}",
                "target_currency":"{to}","rate":"1.1","converted_amount":"110.00",
                "rate_timestamp":null,"client":"{client}","processed_at":"now"}}"#
            )
        };
        assert_eq!(
            target.check(0, answer("awc", "EUR", "USD").as_bytes()),
            Ok(())
        );
        assert_eq!(
            target.check(5, answer("awc", "GBP", "EUR").as_bytes()),
            Ok(())
        );
        let wrong_client = target.check(0, answer("hyper", "EUR", "USD").as_bytes());
        assert!(wrong_client.unwrap_err().contains("\"hyper\""));
        assert!(
            target
                .check(1, answer("awc", "EUR", "USD").as_bytes())
                .is_err()
        );
        assert!(target.check(0, br#"{"client":"awc"}"#).is_err());
        assert!(target.check(0, b"").is_err());
    }

    #[test]
    fn counts_the_bytes_of_a_response_head() {
        // "HTTP/1.1 200 OK\r\n" (17) + "content-length: 15\r\n" (20) + "\r\n" (2).
        let bytes = head_bytes(http::StatusCode::OK, [(14, 2)].into_iter());
        assert_eq!(bytes, 39);
        // "HTTP/1.1 503 Service Unavailable\r\n" (34) + "\r\n".
        assert_eq!(
            head_bytes(http::StatusCode::SERVICE_UNAVAILABLE, std::iter::empty()),
            36
        );
    }
}
