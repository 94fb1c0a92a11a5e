//! The documented settings the picks "with documented settings" weigh, named as a reader
//! copies them into their own code.

use bench_model::ClientName;

/// For a row of an adapter setting, the setting as its library documents it; `None` for the
/// pairs as users get them.
pub fn setting(client: ClientName) -> Option<&'static str> {
    match client {
        ClientName::UreqInlineIp => Some(
            "a host that is an IP address connected to as it is, not resolved on a thread per \
             call (the adapter's, docs/findings/ureq-resolver-thread.md)",
        ),
        ClientName::UreqNativeTlsFirstAlone => Some(
            "the first https call made alone, so that one TLS connector is built \
             (docs/findings/ureq-native-tls-connector-storm.md)",
        ),
        ClientName::ReqwestHickoryDns => Some(
            "`reqwest::ClientBuilder::hickory_dns(true)` (feature `hickory-dns`): reqwest's \
             own resolver, which keeps answers for their TTL",
        ),
        ClientName::ReqwestRetry => Some(
            "`reqwest::ClientBuilder::retry` with a policy for the upstream's host that resends \
             a GET or HEAD that failed before any answer came (rates_reqwest's \
             `resend_unanswered`, docs/findings/idle-close-race.md)",
        ),
        ClientName::Hyper
        | ClientName::Awc
        | ClientName::Reqwest
        | ClientName::Ureq
        | ClientName::ReqwestBlocking
        | ClientName::Isahc
        | ClientName::AwcOpenssl
        | ClientName::ReqwestNativeTls
        | ClientName::UreqNativeTls => None,
    }
}

/// How `client`'s library sets the idle timeout of its pooled connections.
pub fn idle_timeout_setting(client: ClientName) -> &'static str {
    match client.library_default() {
        ClientName::Hyper => "`hyper_util::client::legacy::Builder::pool_idle_timeout`",
        ClientName::Awc => "`awc::Connector::conn_keep_alive`",
        ClientName::ReqwestBlocking => "`reqwest::blocking::ClientBuilder::pool_idle_timeout`",
        ClientName::Ureq => "`ureq::config::ConfigBuilder::max_idle_age`",
        ClientName::Isahc => {
            "`isahc::HttpClientBuilder::connection_cache_ttl`, in whole seconds (libcurl's \
             CURLOPT_MAXAGE_CONN)"
        }
        _ => "`reqwest::ClientBuilder::pool_idle_timeout`",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_setting_row_names_its_setting_and_no_pair_has_one() {
        for client in ClientName::ALL {
            assert_eq!(
                setting(client).is_some(),
                client.setting_of().is_some(),
                "{client}"
            );
        }
    }

    #[test]
    fn each_library_names_its_own_idle_timeout() {
        assert!(idle_timeout_setting(ClientName::AwcOpenssl).contains("awc"));
        assert!(idle_timeout_setting(ClientName::ReqwestNativeTls).contains("reqwest::Client"));
        assert!(idle_timeout_setting(ClientName::ReqwestBlocking).contains("blocking"));
        assert!(idle_timeout_setting(ClientName::UreqInlineIp).contains("ureq"));
    }
}
