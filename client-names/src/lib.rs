//! The clients under comparison, by name: every client library with each of its TLS backends,
//! and the adapter settings the findings pages describe. The one list of them: the api's
//! registry and the bench build them from `rates-catalogue`, which gives each name its
//! adapter, and the bench's results name their rows with it. Links no HTTP client, so that the
//! bench's model and reports can use it.

use std::fmt;

use serde::{Deserialize, Serialize};

/// One adapter of the `RatesProvider` port with one TLS backend, named as the api's registry
/// names it: the library's bare name for its default backend, the library's and the backend's
/// for the others. hyper (hyper-util's client) is the baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum ClientName {
    /// hyper-util's legacy client with hyper-rustls: the low-level baseline.
    Hyper,
    /// actix-web's client, with rustls.
    Awc,
    /// reqwest with rustls.
    Reqwest,
    /// Blocking, with rustls; runs on the runtime's blocking pool.
    Ureq,
    /// reqwest's blocking client (`reqwest::blocking`, its own runtime on a thread of its
    /// own), with rustls; runs on the runtime's blocking pool, as ureq does. A client of its
    /// own: what a program without an async runtime gets from reqwest.
    ReqwestBlocking,
    /// libcurl through isahc, with libcurl's rustls backend (isahc's default TLS).
    Isahc,
    /// awc with the system's OpenSSL.
    AwcOpenssl,
    /// reqwest with native-tls (the system's OpenSSL).
    ReqwestNativeTls,
    /// ureq with native-tls (the system's OpenSSL).
    UreqNativeTls,
    /// ureq with the adapter's setting of docs/findings/ureq-resolver-thread.md: a host that
    /// is an IP address used as it is, not resolved on a thread per call. A row only when named.
    UreqInlineIp,
    /// ureq-native-tls with the adapter's setting of
    /// docs/findings/ureq-native-tls-connector-storm.md: over https the first call goes alone,
    /// so one TLS connector is built. A row only when named.
    UreqNativeTlsFirstAlone,
    /// reqwest (rustls) with its `hickory-dns` resolver instead of the system's: the
    /// resolution suite's row of it. A row only when named, elsewhere.
    ReqwestHickoryDns,
    /// reqwest (rustls) with the adapter's setting of docs/findings/idle-close-race.md: its
    /// retry policy resends a GET that failed on a connection before any answer (the request
    /// an upstream's idle close dropped). The idle suite's row of it; a row only when named,
    /// elsewhere.
    ReqwestRetry,
}

impl ClientName {
    /// Every client and backend: the libraries' defaults first (baseline first), then the other
    /// backends. The default table order.
    pub const ALL: [ClientName; 13] = [
        ClientName::Hyper,
        ClientName::Awc,
        ClientName::Reqwest,
        ClientName::Ureq,
        ClientName::ReqwestBlocking,
        ClientName::Isahc,
        ClientName::AwcOpenssl,
        ClientName::ReqwestNativeTls,
        ClientName::UreqNativeTls,
        ClientName::UreqInlineIp,
        ClientName::UreqNativeTlsFirstAlone,
        ClientName::ReqwestHickoryDns,
        ClientName::ReqwestRetry,
    ];

    /// The baseline that Ratio columns divide by.
    pub const BASELINE: ClientName = ClientName::Hyper;

    /// The name the api's registry and routes use (`/payments/{name}`).
    pub fn as_str(self) -> &'static str {
        match self {
            ClientName::Hyper => "hyper",
            ClientName::Awc => "awc",
            ClientName::Reqwest => "reqwest",
            ClientName::Ureq => "ureq",
            ClientName::ReqwestBlocking => "reqwest-blocking",
            ClientName::Isahc => "isahc",
            ClientName::AwcOpenssl => "awc-openssl",
            ClientName::ReqwestNativeTls => "reqwest-native-tls",
            ClientName::UreqNativeTls => "ureq-native-tls",
            ClientName::UreqInlineIp => "ureq-inline-ip",
            ClientName::UreqNativeTlsFirstAlone => "ureq-native-tls-first-alone",
            ClientName::ReqwestHickoryDns => "reqwest-hickory-dns",
            ClientName::ReqwestRetry => "reqwest-retry",
        }
    }

    /// The client with its library's default TLS backend: itself, or `awc` for `awc-openssl`.
    /// reqwest's blocking client is its own: another API, another way of running (a thread
    /// per call on the blocking pool), measured beside the async one, not a backend of it.
    #[must_use]
    pub fn library_default(self) -> ClientName {
        match self {
            ClientName::AwcOpenssl => ClientName::Awc,
            ClientName::ReqwestNativeTls
            | ClientName::ReqwestHickoryDns
            | ClientName::ReqwestRetry => ClientName::Reqwest,
            ClientName::UreqNativeTls
            | ClientName::UreqInlineIp
            | ClientName::UreqNativeTlsFirstAlone => ClientName::Ureq,
            other => other,
        }
    }

    /// For a row of an adapter setting that a findings page describes, the pair as users get
    /// it (library and TLS backend) that the setting changes; `None` for the pairs themselves.
    pub fn setting_of(self) -> Option<ClientName> {
        match self {
            ClientName::UreqInlineIp => Some(ClientName::Ureq),
            ClientName::UreqNativeTlsFirstAlone => Some(ClientName::UreqNativeTls),
            ClientName::ReqwestHickoryDns | ClientName::ReqwestRetry => Some(ClientName::Reqwest),
            _ => None,
        }
    }

    /// Whether this is its library's default TLS backend (the bare name).
    pub fn is_library_default(self) -> bool {
        self.library_default() == self
    }

    /// Whether a user can call it without an async runtime of their own: ureq and
    /// reqwest-blocking (blocking only) and isahc (blocking or async, on its own agent thread).
    pub fn is_blocking_capable(self) -> bool {
        self.is_blocking() || self.library_default() == ClientName::Isahc
    }

    /// Whether each call blocks its caller's thread, so that the service runs it on the
    /// runtime's blocking pool: ureq and reqwest-blocking.
    pub fn is_blocking(self) -> bool {
        matches!(
            self.library_default(),
            ClientName::Ureq | ClientName::ReqwestBlocking
        )
    }

    /// Whether it speaks HTTP/2: all but ureq, which speaks HTTP/1.1 only, by design.
    pub fn speaks_http2(self) -> bool {
        self.library_default() != ClientName::Ureq
    }
}

impl fmt::Display for ClientName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_json_are_the_names() {
        for name in ClientName::ALL {
            assert_eq!(
                serde_json::to_string(&name).unwrap(),
                format!("\"{}\"", name.as_str())
            );
        }
    }

    #[test]
    fn every_name_once_the_baseline_first_and_every_library_a_name() {
        for (index, name) in ClientName::ALL.into_iter().enumerate() {
            assert!(!ClientName::ALL[..index].contains(&name), "{name} twice");
            assert!(ClientName::ALL.contains(&name.library_default()), "{name}");
            assert!(name.library_default().is_library_default(), "{name}");
            if let Some(plain) = name.setting_of() {
                assert_eq!(plain.library_default(), name.library_default(), "{name}");
                assert!(plain.setting_of().is_none(), "{name}");
            }
        }
        assert_eq!(ClientName::ALL[0], ClientName::BASELINE);
    }

    #[test]
    fn settings_are_their_pairs_and_ureq_alone_speaks_no_http2() {
        assert_eq!(
            ClientName::UreqNativeTlsFirstAlone.setting_of(),
            Some(ClientName::UreqNativeTls)
        );
        assert_eq!(ClientName::UreqInlineIp.library_default(), ClientName::Ureq);
        let retry = ClientName::ReqwestRetry;
        assert_eq!(retry.as_str(), "reqwest-retry");
        assert_eq!(retry.setting_of(), Some(ClientName::Reqwest));
        assert_eq!(retry.library_default(), ClientName::Reqwest);
        assert!(retry.speaks_http2() && !retry.is_blocking_capable());
        assert!(!ClientName::UreqInlineIp.speaks_http2());
        assert!(ClientName::AwcOpenssl.speaks_http2());
        assert!(ClientName::UreqInlineIp.is_blocking_capable());
        assert!(!ClientName::ReqwestNativeTls.is_blocking_capable());
    }

    #[test]
    fn reqwest_blocking_is_a_blocking_client_of_its_own_that_speaks_http2() {
        let blocking = ClientName::ReqwestBlocking;
        assert_eq!(blocking.as_str(), "reqwest-blocking");
        assert!(blocking.is_library_default());
        assert_eq!(blocking.setting_of(), None);
        assert!(blocking.is_blocking() && blocking.is_blocking_capable());
        assert!(blocking.speaks_http2());
        assert!(ClientName::Ureq.is_blocking());
        // isahc can be called without a runtime, but its calls do not block a pool thread.
        assert!(ClientName::Isahc.is_blocking_capable() && !ClientName::Isahc.is_blocking());
        assert!(!ClientName::Reqwest.is_blocking_capable());
    }
}
