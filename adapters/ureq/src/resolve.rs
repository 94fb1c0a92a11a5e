//! Where ureq resolves the upstream's host: as ureq does, or an IP address used as it is.

use std::net::{IpAddr, SocketAddr};

use ureq::Error;
use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;

/// Where ureq resolves the upstream's host. ureq resolves it on every call, before it looks in
/// its pool (`connect` in `src/run.rs`), and with any timeout that covers the call
/// (`timeout_global` here) it does so on a thread spawned for that call (`resolve_async` in
/// `src/unversioned/resolver.rs`), even for a host that is an IP address: a thread created and
/// joined per call, pooled or not (docs/findings/ureq-resolver-thread.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Resolve {
    /// As ureq does it: a thread per call.
    ThreadPerCall,
    /// A host that is an IP address is used as it is, on the calling thread (there is nothing
    /// to look up); a host name goes to ureq's own resolver, thread and timeout included.
    /// Through `Agent::with_parts`, ureq's low-level (unversioned) API.
    IpAddressInline,
}

/// [`Resolve::IpAddressInline`]: an IP address as it is, a host name to ureq's resolver.
#[derive(Debug, Default)]
pub(crate) struct IpAddressInline(DefaultResolver);

impl Resolver for IpAddressInline {
    fn resolve(
        &self,
        uri: &Uri,
        config: &Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, Error> {
        match ip_address(uri) {
            Some(address) => {
                let mut addresses = self.0.empty();
                addresses.push(address);
                Ok(addresses)
            }
            None => self.0.resolve(uri, config, timeout),
        }
    }
}

/// The socket address of `uri` when its host is an IP address, with the scheme's port if it
/// names none.
fn ip_address(uri: &Uri) -> Option<SocketAddr> {
    // A URI writes an IPv6 host in brackets.
    let host = uri.host()?.trim_start_matches('[').trim_end_matches(']');
    let ip = host.parse::<IpAddr>().ok()?;
    let port = uri.port_u16().or(match uri.scheme_str() {
        Some("https") => Some(443),
        Some("http") => Some(80),
        _ => None,
    })?;
    Some(SocketAddr::new(ip, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_ip_address_is_used_as_it_is() {
        let address = |uri: &str| ip_address(&uri.parse().unwrap()).map(|a| a.to_string());
        assert_eq!(
            address("http://127.0.0.1:8081/api").as_deref(),
            Some("127.0.0.1:8081")
        );
        assert_eq!(address("https://[::1]/api").as_deref(), Some("[::1]:443"));
        assert_eq!(address("http://localhost:8081/api"), None);
    }
}
