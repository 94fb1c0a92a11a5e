//! Fanout results for the report's tests.

use bench_model::{ClientName, FanoutMode, FanoutRow, Protocol, Results, SuiteName};

pub fn row(client: ClientName, mode: FanoutMode, size: u32, wall: f64, ideal: f64) -> FanoutRow {
    FanoutRow {
        protocol: Protocol::Http,
        stream_limit: None,
        tls: None,
        client,
        mode,
        group_size: size,
        repetitions: 1,
        wall_ms_median: Some(wall),
        request_ms_median: Some(wall + 1.0),
        ideal_ms: ideal,
        efficiency: Some(ideal / wall),
        failures: 0,
        upstream_calls: Some(u64::from(size)),
        connections_opened: Some(1),
        h2: None,
        warm_up_connections: None,
        max_connections: Some(100),
        blocking_threads: (client == ClientName::Ureq).then_some(64),
        wall_ms: vec![wall],
        request_ms: vec![wall + 1.0],
        first_error: None,
        unchecked: None,
    }
}

pub fn results(latency: &str) -> Results {
    // As `bench --suite fanout --clients hyper,ureq --group-sizes 5,70
    // --upstream-latency-ms LATENCY` resolves them.
    let mut settings = bench_model::test_rows::default_settings();
    settings.suites = vec![SuiteName::Fanout];
    settings.clients = vec![ClientName::Hyper, ClientName::Ureq];
    settings.clients_named = true;
    settings.fanout.group_sizes = vec![5, 70];
    settings.fanout.upstream_latency_ms = latency.parse().expect("a number of milliseconds");
    let mut results = Results::new(
        bench_model::test_rows::environment("2026-01-01T00:00:00Z"),
        settings,
    );
    results.fanout = vec![
        row(ClientName::Hyper, FanoutMode::Concurrent, 5, 361.0, 360.0),
        row(ClientName::Hyper, FanoutMode::Concurrent, 70, 372.0, 360.0),
        row(ClientName::Hyper, FanoutMode::Sequential, 5, 1805.0, 1800.0),
        row(
            ClientName::Hyper,
            FanoutMode::Sequential,
            70,
            25_270.0,
            25_200.0,
        ),
        row(ClientName::Ureq, FanoutMode::Concurrent, 5, 362.0, 360.0),
        row(ClientName::Ureq, FanoutMode::Concurrent, 70, 730.0, 360.0),
        row(ClientName::Ureq, FanoutMode::Sequential, 5, 1806.0, 1800.0),
        FanoutRow {
            failures: 3,
            first_error: Some("payment 2: status 503".to_owned()),
            ..row(
                ClientName::Ureq,
                FanoutMode::Sequential,
                70,
                25_300.0,
                25_200.0,
            )
        },
    ];
    results
}
