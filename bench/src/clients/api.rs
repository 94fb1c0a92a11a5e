//! The payment service's HTTP API, read with the service's own response types.

use std::time::{Duration, Instant};

use api::problem::Problem;
use api::routes::batch::BatchResponse;
use api::routes::health::ClientList;
use api::routes::payment_dto::PaymentResponse;

use crate::clients::loopback;
use bench_model::ClientName;

/// Limit on reading the service's settings.
const SETTINGS_TIMEOUT: Duration = Duration::from_secs(5);

/// What the service answered, read whole, and how long the exchange took.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
    pub elapsed: Duration,
}

impl Answer {
    /// The body as a problem, if it is one.
    pub fn problem(&self) -> Option<Problem> {
        serde_json::from_slice(&self.body).ok()
    }

    /// The body as a converted payment, if it is one.
    pub fn payment(&self) -> Option<PaymentResponse> {
        serde_json::from_slice(&self.body).ok()
    }

    /// The body as a batch answer.
    pub fn batch(&self) -> Result<BatchResponse, String> {
        serde_json::from_slice(&self.body).map_err(|error| format!("unexpected body: {error}"))
    }

    /// The start of the body, for an error message.
    pub fn body_excerpt(&self) -> String {
        String::from_utf8_lossy(&self.body)
            .chars()
            .take(300)
            .collect()
    }
}

/// Why an exchange with the service gave no answer.
#[derive(Debug)]
pub enum Failure {
    /// No complete answer within the call's bound.
    TimedOut { after: Duration },
    /// The connection failed, or broke before the answer was complete.
    Broken { error: String, after: Duration },
}

impl Failure {
    pub fn describe(&self) -> String {
        match self {
            Failure::TimedOut { after } => {
                format!("no answer within {} ms", after.as_millis())
            }
            Failure::Broken { error, .. } => error.clone(),
        }
    }
}

/// The payment service at `base_url`.
#[derive(Debug)]
pub struct ApiClient {
    base_url: String,
    agent: ureq::Agent,
    fresh_connections: bool,
}

impl ApiClient {
    /// Keeps one connection alive, so that every request lands on the same api worker.
    pub fn kept_alive(base_url: &str) -> Self {
        Self {
            base_url: base_url.to_owned(),
            agent: loopback::agent(None, 1),
            fresh_connections: false,
        }
    }

    /// A fresh connection per request, closed after the answer (so that the service's
    /// descriptor count holds none of the bench's), each request bounded by `bound`.
    pub fn fresh(base_url: &str, bound: Duration) -> Self {
        Self {
            base_url: base_url.to_owned(),
            agent: loopback::agent(Some(bound), 0),
            fresh_connections: true,
        }
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// `GET /clients`: every client and its effective settings.
    pub fn clients(&self) -> Result<ClientList, String> {
        let url = format!("{}/clients", self.base_url);
        let mut request = self
            .agent
            .get(&url)
            .config()
            .timeout_global(Some(SETTINGS_TIMEOUT))
            .build();
        if self.fresh_connections {
            request = request.header("connection", "close");
        }
        let answer = exchange(|| request.call())
            .map_err(|failure| format!("GET {url}: {}", failure.describe()))?;
        if answer.status != 200 {
            return Err(format!("GET {url}: status {}", answer.status));
        }
        serde_json::from_slice(&answer.body)
            .map_err(|error| format!("GET {url}: unexpected body: {error}"))
    }

    /// `POST /payments/{client}` with `body`.
    pub fn pay(&self, client: ClientName, body: &[u8]) -> Result<Answer, Failure> {
        self.post(&format!("/payments/{client}"), body, None)
    }

    /// `POST /payments/{client}/batch` with `body`, bounded by `limit`.
    pub fn batch(
        &self,
        client: ClientName,
        body: &[u8],
        limit: Duration,
    ) -> Result<Answer, Failure> {
        self.post(&format!("/payments/{client}/batch"), body, Some(limit))
    }

    fn post(&self, path: &str, body: &[u8], limit: Option<Duration>) -> Result<Answer, Failure> {
        let url = format!("{}{path}", self.base_url);
        let mut request = self.agent.post(&url);
        if let Some(limit) = limit {
            request = request.config().timeout_global(Some(limit)).build();
        }
        request = request.header("content-type", "application/json");
        if self.fresh_connections {
            request = request.header("connection", "close");
        }
        exchange(|| request.send(body))
    }
}

/// Sends with `send` and reads the response whole; the time covers both.
fn exchange(
    send: impl FnOnce() -> Result<ureq::http::Response<ureq::Body>, ureq::Error>,
) -> Result<Answer, Failure> {
    let started = Instant::now();
    let failure = |error: ureq::Error| match error {
        ureq::Error::Timeout(_) => Failure::TimedOut {
            after: started.elapsed(),
        },
        other => Failure::Broken {
            error: other.to_string(),
            after: started.elapsed(),
        },
    };
    let mut response = send().map_err(failure)?;
    let status = response.status().as_u16();
    let body = response.body_mut().read_to_vec().map_err(failure)?;
    Ok(Answer {
        status,
        body,
        elapsed: started.elapsed(),
    })
}
