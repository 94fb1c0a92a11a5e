use api::configuration::Settings;
use api::startup::Application;
use mock_rates::{FaultMode, Faults, MockServer};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A running service and the mock-rates it calls.
pub struct TestApp {
    pub address: String,
    pub http: reqwest::Client,
    pub mock: MockServer,
}

/// The upstream timeouts of a test service: far above any call on loopback, so that a test
/// expecting an answer gets it however loaded the machine is. A test of a timeout sets its own,
/// short ones.
pub const UPSTREAM_TIMEOUT_MS: u64 = 10_000;

/// Starts mock-rates and the service (one worker) on free ports.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(mock_rates::Settings::default(), |_| {}).await
}

pub async fn spawn_app_with(
    mock_settings: mock_rates::Settings,
    customize: impl FnOnce(&mut Settings),
) -> TestApp {
    let mock = MockServer::start(mock_settings).expect("mock-rates starts");
    spawn_app_on(mock, customize).await
}

/// The service in front of a mock-rates already running.
pub async fn spawn_app_on(mock: MockServer, customize: impl FnOnce(&mut Settings)) -> TestApp {
    let mut settings = Settings::defaults().expect("defaults load");
    settings.server.port = 0;
    settings.server.workers = 1;
    settings.rates.base_url = mock.base_url();
    settings.rates.timeout_ms = UPSTREAM_TIMEOUT_MS;
    settings.rates.connect_timeout_ms = UPSTREAM_TIMEOUT_MS;
    customize(&mut settings);
    let application = Application::build(&settings).expect("service builds");
    let address = format!("http://127.0.0.1:{}", application.port());
    actix_web::rt::spawn(application.run_until_stopped());
    TestApp {
        address,
        http: reqwest::Client::new(),
        mock,
    }
}

impl TestApp {
    pub async fn post_payment(&self, client: &str, body: &str) -> reqwest::Response {
        self.http
            .post(format!("{}/payments/{client}", self.address))
            .header("content-type", "application/json")
            .body(body.to_owned())
            .send()
            .await
            .expect("request sent")
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.http
            .get(format!("{}{path}", self.address))
            .send()
            .await
            .expect("request sent")
    }

    pub fn set_fault(&self, mode: FaultMode, status: u16) {
        self.mock.state().set_faults(Faults {
            mode,
            status,
            ..Faults::default()
        });
    }
}

/// An upstream on 127.0.0.1:0 that answers every request with `body` (200, application/json)
/// and closes the connection: for answers that mock-rates' table of real rates never gives.
/// Returns its base URL.
pub async fn spawn_fixed_upstream(body: &'static str) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("binds a free port");
    let address = listener.local_addr().expect("a bound address");
    actix_web::rt::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            actix_web::rt::spawn(async move {
                let mut head = Vec::new();
                let mut chunk = [0u8; 1024];
                while !head.windows(4).any(|window| window == b"\r\n\r\n") {
                    match stream.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(read) => head.extend_from_slice(&chunk[..read]),
                    }
                }
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\
                     content-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                // The client may hang up first; the test judges what it answered.
                let _ = stream.write_all(response.as_bytes()).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    format!("http://{address}")
}

/// Checks an error response is a problem+json with the given status and type slug; returns it.
pub async fn assert_problem(response: reqwest::Response, status: u16, slug: &str) -> Value {
    assert_eq!(response.status().as_u16(), status, "status");
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert_eq!(content_type, "application/problem+json");
    let problem: Value = response.json().await.expect("problem body is JSON");
    assert_eq!(problem["type"], format!("/problems/{slug}"), "{problem}");
    assert_eq!(problem["status"], status);
    assert!(problem["title"].as_str().is_some_and(|t| !t.is_empty()));
    assert!(problem["detail"].as_str().is_some_and(|t| !t.is_empty()));
    problem
}

pub const CLIENTS: [&str; 13] = [
    "hyper",
    "awc",
    "reqwest",
    "ureq",
    "reqwest-blocking",
    "isahc",
    "awc-openssl",
    "reqwest-native-tls",
    "ureq-native-tls",
    "ureq-inline-ip",
    "ureq-native-tls-first-alone",
    "reqwest-hickory-dns",
    "reqwest-retry",
];
