//! HTTP/2 by ALPN: the same answers as HTTP/1.1, streams multiplexed on one connection and
//! counted, the stream limit, each fault as HTTP/2 has it, and the idle close. Driven with the
//! `h2` crate's client over tokio-rustls, on a runtime of the test's own.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use h2::client::SendRequest;
use h2::{Reason, RecvStream};
use mock_rates::{FaultMode, Faults, Framing, MockServer, Settings, TlsSettings};
use rustls::pki_types::ServerName;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use crate::helpers::{Client, server_with};
use crate::tls_client;

const LIVE: &str = "/api/live?pairs=EURUSD,USDJPY";

pub(crate) fn h2_server(tls: TlsSettings, settings: Settings) -> MockServer {
    server_with(Settings {
        tls: Some(tls),
        ..settings
    })
}

pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

/// A TLS connection offering `alpn`, and the protocol the server chose.
pub(crate) async fn tls_connect(
    server: &MockServer,
    alpn: &[&[u8]],
) -> std::io::Result<(tokio_rustls::client::TlsStream<TcpStream>, Option<Vec<u8>>)> {
    let mut config = Arc::unwrap_or_clone(tls_client::trusting(server.ca_pem().unwrap()));
    config.alpn_protocols = alpn.iter().map(|protocol| protocol.to_vec()).collect();
    let socket = TcpStream::connect(server.addr()).await?;
    let stream = TlsConnector::from(Arc::new(config))
        .connect(ServerName::try_from("localhost").unwrap(), socket)
        .await?;
    let chosen = stream.get_ref().1.alpn_protocol().map(<[u8]>::to_vec);
    Ok((stream, chosen))
}

/// An HTTP/2 connection, driven on its own task until the server or the client ends it.
async fn connect(
    server: &MockServer,
) -> (
    SendRequest<Bytes>,
    tokio::task::JoinHandle<Result<(), h2::Error>>,
) {
    let (stream, chosen) = tls_connect(server, &[b"h2", b"http/1.1"]).await.unwrap();
    assert_eq!(chosen.as_deref(), Some(&b"h2"[..]), "the server prefers h2");
    let (send, connection) = h2::client::handshake(stream).await.unwrap();
    let driver = tokio::spawn(connection);
    (send, driver)
}

/// Sends a GET on a new stream; the answer's head, or why the stream failed.
async fn get(
    send: &SendRequest<Bytes>,
    path: &str,
) -> Result<http::Response<RecvStream>, h2::Error> {
    let mut send = send.clone().ready().await?;
    let request = http::Request::get(format!("https://localhost{path}"))
        .body(())
        .unwrap();
    let (response, _body) = send.send_request(request, true)?;
    response.await
}

/// The body's DATA frames, or the error that ended it.
async fn frames(body: &mut RecvStream) -> Result<Vec<Bytes>, h2::Error> {
    let mut frames = Vec::new();
    while let Some(frame) = body.data().await {
        let frame = frame?;
        body.flow_control().release_capacity(frame.len())?;
        frames.push(frame);
    }
    Ok(frames)
}

async fn text(response: http::Response<RecvStream>) -> String {
    let frames = frames(&mut response.into_body()).await.unwrap();
    String::from_utf8(frames.concat()).unwrap()
}

fn with_faults(faults: Faults) -> Settings {
    Settings {
        faults,
        ..Settings::default()
    }
}

fn fault(mode: FaultMode) -> Settings {
    with_faults(Faults {
        mode,
        ..Faults::default()
    })
}

#[test]
fn h2_by_alpn_answers_like_http_1_1() {
    let server = h2_server(TlsSettings::default(), Settings::default());
    runtime().block_on(async {
        let (send, _driver) = connect(&server).await;
        let response = get(&send, LIVE).await.unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.version(), http::Version::HTTP_2);
        assert_eq!(response.headers()["content-type"], "application/json");
        let length: usize = response.headers()["content-length"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        let body = text(response).await;
        assert_eq!(body.len(), length);
        let json: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(json["code"], 200);
        assert!(json["rates"]["EURUSD"]["rate"].is_number(), "{body}");

        let missing = get(&send, "/nowhere").await.unwrap();
        assert_eq!(missing.status(), 404);
        assert_eq!(
            missing.headers()["content-type"],
            "application/problem+json"
        );
    });
    let stats = server.state().stats();
    assert_eq!(
        (stats.connections, stats.h2_connections, stats.h2_streams),
        (1, 1, 2)
    );
    assert_eq!(stats.tls_alpn_h2, 1);
    assert_eq!(stats.requests, 2);
}

#[test]
fn a_client_offering_only_http_1_1_gets_http_1_1() {
    let server = h2_server(TlsSettings::default(), Settings::default());
    runtime().block_on(async {
        let (_stream, chosen) = tls_connect(&server, &[b"http/1.1"]).await.unwrap();
        assert_eq!(chosen.as_deref(), Some(&b"http/1.1"[..]));
        // A client that chose h2 and left before its preface is counted by its handshake.
        let (_stream, chosen) = tls_connect(&server, &[b"h2"]).await.unwrap();
        assert_eq!(chosen.as_deref(), Some(&b"h2"[..]));
        // The server counts a handshake once it has the client's Finished, which may be a
        // moment after the client is done: wait for it (a hang guard, not a timing).
        let started = Instant::now();
        while server.state().stats().tls_alpn_h2 == 0 && started.elapsed() < Duration::from_secs(5)
        {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    });
    let stats = server.state().stats();
    assert_eq!((stats.tls_alpn_h2, stats.h2_connections), (1, 0));
}

#[test]
fn with_http2_off_a_client_insisting_on_h2_is_refused() {
    let server = h2_server(
        TlsSettings {
            http2: false,
            ..TlsSettings::default()
        },
        Settings::default(),
    );
    runtime().block_on(async {
        let error = tls_connect(&server, &[b"h2"]).await.unwrap_err();
        let refused = error
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<rustls::Error>());
        assert!(
            matches!(
                refused,
                Some(rustls::Error::AlertReceived(
                    rustls::AlertDescription::NoApplicationProtocol
                ))
            ),
            "{error:?}"
        );
        let (_stream, chosen) = tls_connect(&server, &[b"h2", b"http/1.1"]).await.unwrap();
        assert_eq!(chosen.as_deref(), Some(&b"http/1.1"[..]));
    });
}

/// Sends `count` GETs at once on one connection, each on a task of its own; their statuses.
async fn concurrently(send: &SendRequest<Bytes>, count: usize) -> Vec<u16> {
    let calls: Vec<_> = (0..count)
        .map(|_| {
            let send = send.clone();
            tokio::spawn(async move {
                let response = get(&send, LIVE).await.unwrap();
                let status = response.status().as_u16();
                text(response).await;
                status
            })
        })
        .collect();
    let mut statuses = Vec::new();
    for call in calls {
        statuses.push(call.await.unwrap());
    }
    statuses
}

#[test]
fn concurrent_requests_are_streams_of_one_connection() {
    let server = h2_server(
        TlsSettings::default(),
        with_faults(Faults {
            latency_ms: 100,
            ..Faults::default()
        }),
    );
    let started = Instant::now();
    runtime().block_on(async {
        let (send, _driver) = connect(&server).await;
        assert_eq!(concurrently(&send, 30).await, vec![200; 30]);
    });
    // Thirty answers 100 ms late each, at once: well under the 3 s they would take in turn.
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    let stats = server.state().stats();
    assert_eq!((stats.h2_connections, stats.h2_streams), (1, 30));
    assert_eq!(stats.h2_peak_streams, 30, "all thirty were open at once");
    assert_eq!(stats.h2_peak_connections, 1);
}

/// More requests at once than the server's task may serve in one go (tokio's budget runs out
/// on the way): every one is answered, on the one connection.
#[test]
fn a_flood_of_streams_on_one_connection_is_served() {
    let server = h2_server(TlsSettings::default(), Settings::default());
    runtime().block_on(async {
        let (send, _driver) = connect(&server).await;
        let flood = tokio::time::timeout(Duration::from_secs(30), concurrently(&send, 1000));
        let statuses = flood.await.expect("every stream is answered");
        assert_eq!(statuses, vec![200; 1000]);
    });
    let stats = server.state().stats();
    assert_eq!((stats.h2_connections, stats.h2_streams), (1, 1000));
}

#[test]
fn peaks_are_per_burst_after_a_peaks_reset() {
    let server = h2_server(
        TlsSettings::default(),
        with_faults(Faults {
            latency_ms: 50,
            ..Faults::default()
        }),
    );
    runtime().block_on(async {
        let (first, _first_driver) = connect(&server).await;
        let (second, _second_driver) = connect(&server).await;
        // Two connections busy at once, eight streams on the busier.
        let (a, b) = tokio::join!(concurrently(&first, 8), concurrently(&second, 3));
        assert_eq!((a.len(), b.len()), (8, 3));
        let stats = server.state().stats();
        assert_eq!((stats.h2_peak_connections, stats.h2_peak_streams), (2, 8));

        // The endpoint zeroes the peaks and nothing else (over HTTP/1.1: it is the bench's).
        let mut admin = Client::connect(&server);
        let response = admin.request("POST", "/__admin/reset-peaks", "");
        assert_eq!(response.status, 200);
        let after = server.state().stats();
        assert_eq!((after.h2_peak_connections, after.h2_peak_streams), (0, 0));
        assert_eq!(after.h2_streams, 11);
        assert_eq!(server.state().faults().latency_ms, 50);

        assert_eq!(concurrently(&second, 2).await.len(), 2);
        let stats = server.state().stats();
        assert_eq!((stats.h2_peak_connections, stats.h2_peak_streams), (1, 2));
    });
}

#[test]
fn the_stream_limit_is_announced_and_kept() {
    let server = h2_server(
        TlsSettings {
            max_concurrent_streams: Some(10),
            ..TlsSettings::default()
        },
        with_faults(Faults {
            latency_ms: 50,
            ..Faults::default()
        }),
    );
    runtime().block_on(async {
        let (send, _driver) = connect(&server).await;
        // The client learns the limit from the server's SETTINGS with the first answer.
        get(&send, "/health").await.unwrap();
        assert_eq!(send.current_max_send_streams(), 10);
        // The h2 client queues what the limit does not let through.
        assert_eq!(concurrently(&send, 25).await, vec![200; 25]);
    });
    let stats = server.state().stats();
    assert_eq!((stats.h2_connections, stats.h2_streams), (1, 26));
    assert_eq!(
        stats.h2_peak_streams, 10,
        "never more than the limit, and it was reached"
    );
    assert_eq!(
        stats.h2_peak_connections, 1,
        "the client queued on one connection"
    );
}

#[test]
fn reset_and_refused_reset_the_stream_and_keep_the_connection() {
    for (mode, reason) in [
        (FaultMode::Reset, Reason::INTERNAL_ERROR),
        (FaultMode::Refused, Reason::REFUSED_STREAM),
    ] {
        let server = h2_server(TlsSettings::default(), fault(mode));
        runtime().block_on(async {
            let (send, _driver) = connect(&server).await;
            let error = get(&send, LIVE).await.unwrap_err();
            assert_eq!(error.reason(), Some(reason), "{mode:?}: {error}");
            assert!(error.is_reset(), "{mode:?}: {error}");
            // Only the stream was hit: the same connection still answers.
            assert_eq!(get(&send, "/health").await.unwrap().status(), 200);
        });
        assert_eq!(server.state().stats().h2_connections, 1);
    }
}

#[test]
fn goaway_ends_the_connection_unanswered() {
    let server = h2_server(TlsSettings::default(), fault(FaultMode::Goaway));
    runtime().block_on(async {
        let (send, driver) = connect(&server).await;
        let error = get(&send, LIVE).await.unwrap_err();
        assert!(!error.is_reset(), "the stream itself is not reset: {error}");
        // The stream fails as the connection closes; the connection says why.
        let ended = tokio::time::timeout(Duration::from_secs(2), driver)
            .await
            .expect("the server closes the connection after its GOAWAY")
            .unwrap()
            .unwrap_err();
        assert!(ended.is_go_away() && ended.is_remote(), "{ended:?}");
        assert_eq!(ended.reason(), Some(Reason::INTERNAL_ERROR), "{ended}");
    });
}

/// The head (announcing the whole length) and, for `truncated`, half the body reach the
/// client before the reset: the reset waits until the connection has written them.
#[test]
fn eof_and_truncated_reset_the_stream_after_what_was_sent() {
    let whole = {
        let server = h2_server(TlsSettings::default(), Settings::default());
        runtime().block_on(async {
            let (send, _driver) = connect(&server).await;
            text(get(&send, LIVE).await.unwrap()).await.len()
        })
    };
    for (mode, expected) in [(FaultMode::Eof, 0), (FaultMode::Truncated, whole / 2)] {
        let server = h2_server(TlsSettings::default(), fault(mode));
        runtime().block_on(async {
            let (send, _driver) = connect(&server).await;
            let response = get(&send, LIVE).await.unwrap();
            assert_eq!(response.status(), 200, "{mode:?}");
            assert_eq!(
                response.headers()["content-length"],
                whole.to_string().as_str(),
                "{mode:?}"
            );
            let mut body = response.into_body();
            let mut received = 0;
            let error = loop {
                match body.data().await {
                    Some(Ok(frame)) => received += frame.len(),
                    Some(Err(error)) => break error,
                    None => panic!("{mode:?}: the body ended cleanly"),
                }
            };
            assert!(error.is_reset(), "{mode:?}: {error}");
            assert_eq!(error.reason(), Some(Reason::INTERNAL_ERROR), "{mode:?}");
            assert_eq!(received, expected, "{mode:?}");
        });
    }
}

#[test]
fn status_latency_malformed_and_chunked_work_as_over_http_1_1() {
    let status = h2_server(
        TlsSettings::default(),
        with_faults(Faults {
            mode: FaultMode::Status,
            status: 503,
            ..Faults::default()
        }),
    );
    let malformed = h2_server(TlsSettings::default(), fault(FaultMode::Malformed));
    let chunked = h2_server(
        TlsSettings::default(),
        Settings {
            framing: Framing::Chunked,
            ..Settings::default()
        },
    );
    let slow = h2_server(
        TlsSettings::default(),
        with_faults(Faults {
            latency_ms: 200,
            ..Faults::default()
        }),
    );
    runtime().block_on(async {
        let (send, _driver) = connect(&status).await;
        let response = get(&send, LIVE).await.unwrap();
        assert_eq!(response.status(), 503);
        assert_eq!(response.headers()["retry-after"], "1");

        let (send, _driver) = connect(&malformed).await;
        let body = text(get(&send, LIVE).await.unwrap()).await;
        assert!(serde_json::from_str::<serde_json::Value>(&body).is_err());
        assert!(body.ends_with("<html>"), "{body}");

        let (send, _driver) = connect(&chunked).await;
        let response = get(&send, LIVE).await.unwrap();
        assert!(response.headers().get("content-length").is_none());
        let parts = frames(&mut response.into_body()).await.unwrap();
        let non_empty = parts.iter().filter(|part| !part.is_empty()).count();
        assert_eq!(non_empty, 2, "a chunked body goes out in two DATA frames");
        serde_json::from_slice::<serde_json::Value>(&parts.concat()).unwrap();

        let (send, _driver) = connect(&slow).await;
        let started = Instant::now();
        assert_eq!(get(&send, LIVE).await.unwrap().status(), 200);
        assert!(started.elapsed() >= Duration::from_millis(200));
    });
}

#[test]
fn drip_and_hang_hold_the_stream_not_the_connection() {
    let drip = h2_server(TlsSettings::default(), fault(FaultMode::Drip));
    let hang = h2_server(TlsSettings::default(), fault(FaultMode::Hang));
    runtime().block_on(async {
        let (send, _driver) = connect(&drip).await;
        let response = get(&send, LIVE).await.unwrap();
        let mut body = response.into_body();
        let started = Instant::now();
        let mut received = 0;
        while started.elapsed() < Duration::from_millis(450) {
            let frame = body.data().await.unwrap().unwrap();
            assert_eq!(frame.len(), 1, "one byte per DATA frame");
            received += 1;
        }
        // One byte each 100 ms: at most 5 in 450 ms (fewer on a busy machine), never the body.
        assert!((1..=6).contains(&received), "{received}");
        // Other streams on the connection are not held up.
        assert_eq!(get(&send, "/health").await.unwrap().status(), 200);

        let (send, _driver) = connect(&hang).await;
        let hanging = tokio::time::timeout(Duration::from_millis(300), get(&send, LIVE)).await;
        assert!(hanging.is_err(), "no answer to a hanging stream");
        assert_eq!(get(&send, "/health").await.unwrap().status(), 200);
    });
}

#[test]
fn an_idle_connection_is_closed_after_the_keep_alive() {
    let server = h2_server(
        TlsSettings::default(),
        Settings {
            keep_alive: Duration::from_millis(300),
            ..Settings::default()
        },
    );
    runtime().block_on(async {
        let (send, driver) = connect(&server).await;
        assert_eq!(get(&send, LIVE).await.unwrap().status(), 200);
        let started = Instant::now();
        tokio::time::timeout(Duration::from_secs(3), driver)
            .await
            .expect("the server closes an idle HTTP/2 connection")
            .unwrap()
            .expect("a graceful GOAWAY: no error");
        assert!(started.elapsed() >= Duration::from_millis(250));
    });
}

/// Over HTTP/2 the admin token is read from the request's headers as over HTTP/1.1.
#[test]
fn the_admin_token_is_asked_for_over_h2_too() {
    let server = h2_server(
        TlsSettings::default(),
        Settings {
            admin_token: mock_rates::AdminToken::new("h2-token"),
            ..Settings::default()
        },
    );
    runtime().block_on(async {
        let (send, _driver) = connect(&server).await;
        let refused = get(&send, "/__admin/stats").await.unwrap();
        assert_eq!(refused.status(), 401);
        assert!(refused.headers().contains_key("www-authenticate"));
        let mut ready = send.clone().ready().await.unwrap();
        let request = http::Request::get("https://localhost/__admin/stats")
            .header("authorization", "Bearer h2-token")
            .body(())
            .unwrap();
        let (response, _body) = ready.send_request(request, true).unwrap();
        assert_eq!(response.await.unwrap().status(), 200);
    });
}

/// Idle past the idle timeout (far shorter than the keep-alive here): GOAWAY(NO_ERROR) naming
/// the last stream taken, then the close; counted.
#[test]
fn the_idle_timeout_ends_an_idle_h2_connection_with_goaway() {
    let server = h2_server(
        TlsSettings::default(),
        Settings {
            keep_alive: Duration::from_secs(60),
            idle_timeout: Some(Duration::from_millis(200)),
            ..Settings::default()
        },
    );
    runtime().block_on(async {
        let (send, driver) = connect(&server).await;
        assert_eq!(get(&send, LIVE).await.unwrap().status(), 200);
        let ended = tokio::time::timeout(Duration::from_secs(20), driver)
            .await
            .expect("closed by the idle timeout, long before the keep-alive")
            .unwrap();
        // The h2 client ends cleanly on GOAWAY(NO_ERROR); a close without it would be an error.
        ended.expect("GOAWAY(NO_ERROR) before the close");
        assert!(
            send.clone().ready().await.is_err(),
            "no new stream after it"
        );
    });
    assert_eq!(server.state().stats().idle_closes, 1);
}

/// A stream whose answer takes longer than the idle timeout is answered: the connection is not
/// idle while it is open. It is closed once idle after the answer.
#[test]
fn an_h2_stream_in_flight_outlasts_the_idle_timeout() {
    let server = h2_server(
        TlsSettings::default(),
        Settings {
            keep_alive: Duration::from_secs(60),
            idle_timeout: Some(Duration::from_millis(100)),
            faults: Faults {
                latency_ms: 400,
                ..Faults::default()
            },
            ..Settings::default()
        },
    );
    runtime().block_on(async {
        let (send, driver) = connect(&server).await;
        let response = get(&send, LIVE).await.unwrap();
        assert_eq!(response.status(), 200);
        assert!(text(response).await.contains("EURUSD"));
        assert_eq!(server.state().stats().idle_closes, 0);
        tokio::time::timeout(Duration::from_secs(20), driver)
            .await
            .expect("closed once idle")
            .unwrap()
            .ok();
    });
    assert_eq!(server.state().stats().idle_closes, 1);
}

/// A large answer over h2: the whole size, sent as the client's flow-control window lets it.
#[test]
fn a_large_answer_goes_out_over_h2_within_the_window() {
    const MEGABYTE: usize = 1024 * 1024;
    let server = h2_server(TlsSettings::default(), Settings::default());
    runtime().block_on(async {
        let (send, _driver) = connect(&server).await;
        for path in [
            format!("/size/{MEGABYTE}/api/live?pairs=EURUSD,USDJPY"),
            format!("/api/live?pairs=EURUSD,USDJPY&size={MEGABYTE}"),
        ] {
            let response = get(&send, &path).await.unwrap();
            assert_eq!(response.status(), 200);
            assert_eq!(
                response.headers()["content-length"],
                MEGABYTE.to_string().as_str()
            );
            let body = text(response).await;
            assert_eq!(body.len(), MEGABYTE, "{path}");
            let json: serde_json::Value = serde_json::from_str(&body).unwrap();
            assert_eq!(json["rates"]["USDJPY"]["rate"].to_string(), "156.4295");
        }
        // The stream limit's count saw each stream close once its last frame went out.
        assert_eq!(get(&send, "/health").await.unwrap().status(), 200);
    });
    let stats = server.state().stats();
    assert_eq!((stats.h2_streams, stats.h2_peak_streams), (3, 1));
}

/// `truncated` on a large answer over h2: the whole length announced, then RST_STREAM after
/// part of the body (at most half: what the connection had written when the reset came).
#[test]
fn a_truncated_large_answer_over_h2_ends_in_a_reset() {
    const MEGABYTE: usize = 1024 * 1024;
    let server = h2_server(TlsSettings::default(), fault(FaultMode::Truncated));
    runtime().block_on(async {
        let (send, _driver) = connect(&server).await;
        let response = get(&send, &format!("/size/{MEGABYTE}/api/live?pairs=EURUSD"))
            .await
            .unwrap();
        assert_eq!(
            response.headers()["content-length"],
            MEGABYTE.to_string().as_str()
        );
        let error = frames(&mut response.into_body()).await.unwrap_err();
        assert!(error.is_reset(), "{error}");
        assert_eq!(error.reason(), Some(Reason::INTERNAL_ERROR));
    });
}

/// Sends a request with a body on a new stream, in DATA frames of `piece` bytes; its answer.
async fn with_body(
    send: &SendRequest<Bytes>,
    method: &str,
    path: &str,
    body: &[u8],
    piece: usize,
) -> Result<http::Response<RecvStream>, h2::Error> {
    let mut send = send.clone().ready().await?;
    let request = http::Request::builder()
        .method(method)
        .uri(format!("https://localhost{path}"))
        .body(())
        .unwrap();
    let (response, mut stream) = send.send_request(request, false)?;
    let pieces: Vec<&[u8]> = body.chunks(piece.max(1)).collect();
    for (index, part) in pieces.iter().enumerate() {
        stream.reserve_capacity(part.len());
        let last = index + 1 == pieces.len();
        stream.send_data(Bytes::copy_from_slice(part), last)?;
    }
    if pieces.is_empty() {
        stream.send_data(Bytes::new(), true)?;
    }
    response.await
}

/// A request body in several DATA frames is read whole before the request is routed: the
/// admin endpoints take their JSON over h2 as over HTTP/1.1.
#[test]
fn a_request_body_in_data_frames_is_read_whole() {
    let server = h2_server(TlsSettings::default(), Settings::default());
    runtime().block_on(async {
        let (send, _driver) = connect(&server).await;
        let body = br#"{"mode":"status","status":502,"percent":100}"#;
        let response = with_body(&send, "PUT", "/__admin/faults", body, 7)
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{}", text(response).await);
        assert_eq!(get(&send, LIVE).await.unwrap().status(), 502);
    });
    assert_eq!(server.state().faults().status, 502);
}

/// A body larger than the routes accept gets the 413 HTTP/1.1 gives, before the rest of it is
/// sent; the connection goes on.
#[test]
fn a_request_body_too_large_gets_413() {
    let server = h2_server(TlsSettings::default(), Settings::default());
    runtime().block_on(async {
        let (send, _driver) = connect(&server).await;
        let body = vec![b' '; 200 * 1024];
        let response = with_body(&send, "PUT", "/__admin/faults", &body, 16 * 1024).await;
        // The answer may come before the client has sent everything (then the server's
        // RST_STREAM(NO_ERROR) ends the upload), or after.
        match response {
            Ok(response) => assert_eq!(response.status(), 413),
            Err(error) => assert_eq!(error.reason(), Some(Reason::NO_ERROR), "{error}"),
        }
        assert_eq!(get(&send, "/health").await.unwrap().status(), 200);
    });
}

/// One frame read: type, flags, stream, payload.
type RawFrame = (u8, u8, u32, Vec<u8>);

pub(crate) fn raw_frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let mut frame = u32::try_from(payload.len()).unwrap().to_be_bytes()[1..].to_vec();
    frame.extend([kind, flags]);
    frame.extend(stream.to_be_bytes());
    frame.extend(payload);
    frame
}

/// `GET /health` as HPACK: method and scheme indexed, path and authority raw literals.
fn health_head() -> Vec<u8> {
    let mut block = vec![0x82, 0x87, 0x04, 7];
    block.extend(b"/health");
    block.extend([0x01, 9]);
    block.extend(b"localhost");
    block
}

/// Reads frames until one matches `last` (included), within 5 s.
async fn frames_until(
    stream: &mut (impl tokio::io::AsyncRead + Unpin),
    buffer: &mut Vec<u8>,
    last: impl Fn(&RawFrame) -> bool,
) -> Vec<RawFrame> {
    use tokio::io::AsyncReadExt as _;
    let mut frames = Vec::new();
    let read = async {
        loop {
            while buffer.len() >= 9 {
                let len = usize::from(buffer[0]) << 16
                    | usize::from(buffer[1]) << 8
                    | usize::from(buffer[2]);
                if buffer.len() < 9 + len {
                    break;
                }
                let stream_id = u32::from_be_bytes(buffer[5..9].try_into().unwrap());
                let frame = (buffer[3], buffer[4], stream_id, buffer[9..9 + len].to_vec());
                buffer.drain(..9 + len);
                let done = last(&frame);
                frames.push(frame);
                if done {
                    return;
                }
            }
            let mut chunk = [0; 4096];
            let read = stream.read(&mut chunk).await.unwrap();
            assert!(read > 0, "closed before the frame awaited: {frames:?}");
            buffer.extend_from_slice(&chunk[..read]);
        }
    };
    tokio::time::timeout(Duration::from_secs(5), read)
        .await
        .expect("the frame awaited came");
    frames
}

/// A graceful close (idle past the keep-alive) goes as RFC 9113 §6.8 has it: GOAWAY naming the
/// highest stream id, and a PING; a request the client sent before it answered the PING is
/// served; then GOAWAY naming the last stream taken, and the close.
#[test]
fn a_graceful_close_serves_what_came_before_its_ping_came_back() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let server = h2_server(
        TlsSettings::default(),
        Settings {
            keep_alive: Duration::from_millis(200),
            ..Settings::default()
        },
    );
    runtime().block_on(async {
        let (mut stream, chosen) = tls_connect(&server, &[b"h2"]).await.unwrap();
        assert_eq!(chosen.as_deref(), Some(&b"h2"[..]));
        let mut opening = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
        opening.extend(raw_frame(0x4, 0, 0, &[]));
        opening.extend(raw_frame(0x1, 0x5, 1, &health_head()));
        stream.write_all(&opening).await.unwrap();
        let mut buffer = Vec::new();
        let ends_stream = |id| move |frame: &RawFrame| frame.2 == id && frame.1 & 0x1 != 0;
        frames_until(&mut stream, &mut buffer, ends_stream(1)).await;

        let is_ping = |frame: &RawFrame| frame.0 == 0x6 && frame.1 & 0x1 == 0;
        let frames = frames_until(&mut stream, &mut buffer, is_ping).await;
        let goaway = frames.iter().find(|frame| frame.0 == 0x7).expect("GOAWAY");
        assert_eq!(
            goaway.3[..8],
            [0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0],
            "{frames:?}"
        );
        let ping = frames.last().unwrap().3.clone();

        let mut late = raw_frame(0x1, 0x5, 3, &health_head());
        late.extend(raw_frame(0x6, 0x1, 0, &ping));
        stream.write_all(&late).await.unwrap();
        let is_goaway = |frame: &RawFrame| frame.0 == 0x7;
        let frames = frames_until(&mut stream, &mut buffer, is_goaway).await;
        assert!(
            frames.iter().any(|frame| frame.0 == 0x1 && frame.2 == 3),
            "stream 3 answered: {frames:?}"
        );
        let last = &frames.last().unwrap().3;
        assert_eq!(
            last[..8],
            [0, 0, 0, 3, 0, 0, 0, 0],
            "the last stream taken, NO_ERROR"
        );
        let mut rest = Vec::new();
        tokio::time::timeout(Duration::from_secs(3), stream.read_to_end(&mut rest))
            .await
            .expect("the server closes the connection")
            .ok();
    });
    assert_eq!(server.state().stats().idle_closes, 1);
}
