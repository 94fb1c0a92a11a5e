//! `/__admin/*`: faults, stats, reset.

use mock_rates::{AdminToken, FaultMode, Faults, Settings, Stats};

use crate::helpers::{Client, get, server, server_with, set_faults};

#[test]
fn get_faults_shows_the_current_value() {
    let server = server();
    let json = get(&server, "/__admin/faults").json();
    assert_eq!(
        json,
        serde_json::json!({"mode":"none","percent":100,"status":500,"latency_ms":0,"jitter_ms":0})
    );
}

#[test]
fn put_faults_fills_defaults_and_takes_effect() {
    let server = server();
    let mut client = Client::connect(&server);
    let response = client.request("PUT", "/__admin/faults", r#"{"mode":"hang","percent":100}"#);
    assert_eq!(response.status, 200);
    let expected = Faults {
        mode: FaultMode::Hang,
        ..Faults::default()
    };
    assert_eq!(
        serde_json::from_slice::<Faults>(&response.body).unwrap(),
        expected
    );
    assert_eq!(server.state().faults(), expected);
    let json = client.get("/__admin/faults").json();
    assert_eq!(json["mode"], "hang");
}

#[test]
fn bad_faults_are_400_problems_and_change_nothing() {
    let server = server();
    let mut client = Client::connect(&server);
    for body in [
        "not json",
        r#"{"mode":"explode"}"#,
        r#"{"percent":101}"#,
        r#"{"status":42}"#,
        r#"{"latency":5}"#,
    ] {
        let response = client.request("PUT", "/__admin/faults", body);
        assert_eq!(response.status, 400, "{body}");
        assert_eq!(
            response.header("content-type"),
            Some("application/problem+json")
        );
        assert!(response.json()["detail"].is_string());
    }
    assert_eq!(server.state().faults(), Faults::default());
}

#[test]
fn stats_count_requests_connections_and_live_requests() {
    let server = server();
    let mut client = Client::connect(&server);
    client.get("/api/live?pairs=EURUSD");
    client.get("/health");
    get(&server, "/api/live");
    let stats: Stats = serde_json::from_slice(&client.get("/__admin/stats").body).unwrap();
    // The stats request counts itself.
    assert_eq!(
        stats,
        Stats {
            requests: 4,
            connections: 2,
            live_requests: 2,
            faults_injected: 0,
            ..Stats::default()
        }
    );
}

#[test]
fn reset_clears_counters_and_faults() {
    let server = server();
    let mut client = Client::connect(&server);
    assert_eq!(
        set_faults(
            &server,
            &Faults {
                mode: FaultMode::Status,
                ..Faults::default()
            }
        )
        .status,
        200
    );
    assert_eq!(client.get("/api/live?pairs=EURUSD").status, 500);
    let response = client.request("POST", "/__admin/reset", "");
    assert_eq!(response.status, 200);
    assert_eq!(server.state().stats(), Stats::default());
    assert_eq!(server.state().faults(), Faults::default());
    assert_eq!(client.get("/api/live?pairs=EURUSD").status, 200);
}

#[test]
fn the_rust_api_matches_the_admin_endpoints() {
    let server = server();
    let faults = Faults {
        mode: FaultMode::Truncated,
        percent: 25,
        status: 503,
        latency_ms: 3,
        jitter_ms: 2,
    };
    server.state().set_faults(faults.clone());
    let json: Faults = serde_json::from_slice(&get(&server, "/__admin/faults").body).unwrap();
    assert_eq!(json, faults);
    server.state().reset();
    assert_eq!(get(&server, "/__admin/faults").json()["mode"], "none");
}

/// With a token, every admin call must carry it, loopback included; `/api/live` and `/health`
/// need nothing.
#[test]
fn a_token_guards_every_admin_endpoint() {
    let server = server_with(Settings {
        admin_token: AdminToken::new("s3cret-token"),
        ..Settings::default()
    });
    let mut client = Client::connect(&server);
    for (method, path, body) in [
        ("GET", "/__admin/stats", ""),
        ("GET", "/__admin/faults", ""),
        ("PUT", "/__admin/faults", r#"{"mode":"hang"}"#),
        ("POST", "/__admin/reset", ""),
        ("POST", "/__admin/reset-peaks", ""),
    ] {
        for presented in [
            None,
            Some("Bearer wrong-token!"),
            Some("s3cret-token"),
            Some("Bearer s3cret-toke"),
        ] {
            let headers: Vec<(&str, &str)> = presented
                .map(|value| ("Authorization", value))
                .into_iter()
                .collect();
            client.send(method, path, &headers, body);
            let response = client.read_response().expect("a response");
            assert_eq!(response.status, 401, "{method} {path} with {presented:?}");
            assert_eq!(
                response.header("www-authenticate"),
                Some("Bearer realm=\"mock-rates admin\""),
                "{method} {path}"
            );
            assert_eq!(response.json()["status"], 401);
        }
        client.send(
            method,
            path,
            &[("Authorization", "Bearer s3cret-token")],
            body,
        );
        let response = client.read_response().expect("a response");
        assert_eq!(response.status, 200, "{method} {path} with the token");
    }
    assert_eq!(get(&server, "/health").status, 200);
    assert_eq!(get(&server, "/api/live?pairs=EURUSD").status, 200);
}

/// The token is never printed where the settings are.
#[test]
fn the_token_stays_out_of_debug_output() {
    let settings = Settings {
        admin_token: AdminToken::new("s3cret-token"),
        ..Settings::default()
    };
    assert!(!format!("{settings:?}").contains("s3cret"));
    assert!(AdminToken::new("").is_none());
}

/// The idle timeout is read and set at run time, checked, and cleared by a reset.
#[test]
fn the_idle_timeout_is_read_and_set_at_run_time() {
    let server = server();
    let mut client = Client::connect(&server);
    assert_eq!(
        client.get("/__admin/idle-timeout").json(),
        serde_json::json!({"idle_timeout_ms": null, "close": "timer"})
    );
    // Long enough that this connection, which it governs from its next idle wait, stays up.
    let response = client.request(
        "PUT",
        "/__admin/idle-timeout",
        r#"{"idle_timeout_ms":60000}"#,
    );
    assert_eq!(response.status, 200);
    assert_eq!(
        response.json(),
        serde_json::json!({"idle_timeout_ms": 60000, "close": "timer"})
    );
    let response = client.request(
        "PUT",
        "/__admin/idle-timeout",
        r#"{"idle_timeout_ms":60000,"close":"on_arrival"}"#,
    );
    assert_eq!(response.status, 200);
    assert_eq!(
        server.state().idle_close(),
        mock_rates::IdleClose::OnArrival
    );
    assert_eq!(
        client.get("/__admin/idle-timeout").json()["close"],
        "on_arrival"
    );
    assert_eq!(
        server.state().idle_timeout(),
        Some(std::time::Duration::from_secs(60))
    );
    assert_eq!(
        client.get("/__admin/idle-timeout").json()["idle_timeout_ms"],
        60000
    );
    for bad in [
        r#"{"idle_timeout_ms":0}"#,
        r#"{"idle_timeout_ms":-1}"#,
        r#"{"idle_timeout_ms":86400001}"#,
        r#"{"idle_timeout":5}"#,
        r#"{"idle_timeout_ms":5,"close":"later"}"#,
        "not json",
    ] {
        let response = client.request("PUT", "/__admin/idle-timeout", bad);
        assert_eq!(response.status, 400, "{bad}");
        assert!(response.json()["detail"].is_string());
    }
    assert_eq!(
        server.state().idle_timeout(),
        Some(std::time::Duration::from_secs(60))
    );
    assert_eq!(
        client
            .request(
                "PUT",
                "/__admin/idle-timeout",
                r#"{"idle_timeout_ms":null}"#
            )
            .status,
        200
    );
    assert_eq!(server.state().idle_timeout(), None);
    server
        .state()
        .set_idle_timeout(Some(std::time::Duration::from_secs(60)));
    assert_eq!(client.request("POST", "/__admin/reset", "").status, 200);
    assert_eq!(server.state().idle_timeout(), None);
    assert_eq!(server.state().idle_close(), mock_rates::IdleClose::Timer);
    assert_eq!(
        client.request("DELETE", "/__admin/idle-timeout", "").status,
        405
    );
}
