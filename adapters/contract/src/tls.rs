//! Cases only an upstream over TLS has: one handshake per connection, and the certificates a
//! client must refuse. Certificate and host-name verification are never off, so a client that
//! is not given mock-rates' CA, or reaches it under a name its certificate lacks, fails with
//! the port's `Tls` kind before any request is sent.

use mock_rates::{MockServer, Settings, TlsSettings};
use rates_common::ClientSettings;

use crate::MakeProvider;
use crate::support::{assert_exact, assert_kind, fetch, fetch_error, settings_for, start};
use application::RatesErrorKind;

/// Ten calls over one kept-alive connection: one TLS handshake, a full one.
pub(crate) async fn one_handshake_per_kept_alive_connection(make: &MakeProvider) {
    let mock = start(Settings::default());
    assert!(
        mock.base_url().starts_with("https://"),
        "{}",
        mock.base_url()
    );
    let rates = make(&settings_for(&mock));
    for _ in 0..10 {
        assert_exact(&fetch(&*rates, &["EURUSD"]).await, "EURUSD");
    }
    let stats = mock.state().stats();
    assert_eq!(
        (stats.live_requests, stats.connections),
        (10, 1),
        "{stats:?}"
    );
    assert_eq!(
        (stats.tls_handshakes_full, stats.tls_handshakes_resumed),
        (1, 0),
        "{stats:?}"
    );
}

/// Without mock-rates' CA, its certificate is signed by no root the client trusts: the call
/// fails as `Tls` and no request is sent. (Whether the server sees a failed handshake is the
/// client's affair: libcurl lets OpenSSL finish it and checks the certificate after, then
/// closes the connection unused.)
pub(crate) async fn an_untrusted_certificate_is_tls(make: &MakeProvider) {
    let mock = start(Settings::default());
    let rates = make(&ClientSettings {
        extra_ca_pem: None,
        ..settings_for(&mock)
    });
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_kind(&error, RatesErrorKind::Tls);
    assert_eq!(mock.state().stats().live_requests, 0, "a request went out");
}

/// The certificate names `localhost` and `127.0.0.1`; reached as `127.0.0.2` (loopback too),
/// it does not match the host, and the client refuses it.
pub(crate) async fn a_certificate_for_another_host_is_tls(make: &MakeProvider) {
    let listener = std::net::TcpListener::bind(("127.0.0.2", 0)).expect("binds 127.0.0.2");
    let mock = MockServer::start_on(
        listener,
        Settings {
            tls: Some(TlsSettings::default()),
            ..Settings::default()
        },
    )
    .expect("mock-rates starts on 127.0.0.2");
    let rates = make(&settings_for(&mock));
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_kind(&error, RatesErrorKind::Tls);
    assert_eq!(mock.state().stats().live_requests, 0);
}

/// A server that answers the client's hello in plain HTTP (mock-rates without TLS): the
/// handshake fails for another reason than the certificate, and is `Tls` all the same.
pub(crate) async fn a_server_answering_in_plain_http_is_tls(make: &MakeProvider) {
    // Over TLS on this thread: started for its CA, so that the client has roots to use.
    let tls_mock = start(Settings::default());
    let plain = MockServer::start(Settings::default()).expect("mock-rates starts");
    let rates = make(&ClientSettings {
        base_url: format!("https://{}", plain.addr()),
        ..settings_for(&tls_mock)
    });
    let error = fetch_error(&*rates, &["EURUSD"]).await;
    assert_kind(&error, RatesErrorKind::Tls);
    assert_eq!(plain.state().stats().live_requests, 0);
}
