//! The suite's link: two network namespaces of its own, the service's and the upstream's, a
//! TUN device in each (`10.77.0.1` and `10.77.0.2`, each the other's peer: no other route, no
//! other address), and a relay between the devices carrying every packet through a profile.
//! Nothing here reaches an address outside these namespaces.

use std::io;
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};
use std::time::Duration;

use wan_link::calibrate::Ends;
use wan_link::namespace::in_namespace;
use wan_link::{Link, Profile, Relay, Tun};

use crate::process::Namespace;
use crate::servers::child::Wrapper;

/// The service's end of the link.
pub const SERVICE_ADDRESS: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 1);
/// The upstream's end of the link, where mock-rates listens.
pub const UPSTREAM_ADDRESS: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 2);
/// The devices' name in each namespace.
const DEVICE: &str = "wan0";
/// How long a service started inside the namespace may take to listen (`ip` first execs).
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// The two namespaces and their devices. Dropping it closes the devices, then deletes the
/// namespaces.
#[derive(Debug)]
pub struct BenchLink {
    /// Declared first, dropped first: the devices close before their namespaces go.
    service_device: Tun,
    upstream_device: Tun,
    service: Namespace,
    upstream: Namespace,
}

impl BenchLink {
    /// Makes the namespaces and the devices, addressed and up. The error says what failed.
    pub fn create() -> Result<Self, String> {
        let service = Namespace::create("wan-service")?;
        let upstream = Namespace::create("wan-upstream")?;
        let device = |namespace: &Namespace| {
            Tun::make_in(&namespace.handle(), DEVICE)
                .map_err(|error| format!("a TUN device in {}: {error}", namespace.name()))
        };
        let service_device = device(&service)?;
        let upstream_device = device(&upstream)?;
        for (namespace, own, peer) in [
            (&service, SERVICE_ADDRESS, UPSTREAM_ADDRESS),
            (&upstream, UPSTREAM_ADDRESS, SERVICE_ADDRESS),
        ] {
            namespace.ip(&[
                "addr",
                "add",
                &own.to_string(),
                "peer",
                &peer.to_string(),
                "dev",
                DEVICE,
            ])?;
            namespace.ip(&["link", "set", DEVICE, "up"])?;
        }
        Ok(Self {
            service_device,
            upstream_device,
            service,
            upstream,
        })
    }

    /// Starts carrying packets through `profile` (the seed fixes its losses).
    pub fn relay(&self, profile: Profile, seed: u64) -> io::Result<Relay> {
        Relay::start(
            Link::new(profile, seed),
            &self.service_device,
            &self.upstream_device,
        )
    }

    /// The two ends, for the link's calibration.
    pub fn ends(&self) -> (PathBuf, PathBuf) {
        (self.service.handle(), self.upstream.handle())
    }

    /// Runs `work` on a thread inside the service's namespace: the sockets it opens (and the
    /// threads it starts) are there.
    pub fn in_service<T: Send>(
        &self,
        work: impl FnOnce() -> io::Result<T> + Send,
    ) -> io::Result<T> {
        in_namespace(&self.service.handle(), work)
    }

    /// Runs `work` on a thread inside the upstream's namespace.
    pub fn in_upstream<T: Send>(
        &self,
        work: impl FnOnce() -> io::Result<T> + Send,
    ) -> io::Result<T> {
        in_namespace(&self.upstream.handle(), work)
    }

    /// What starts a child (the payment service) inside the service's namespace.
    pub fn service_wrapper(&self) -> Wrapper {
        Wrapper {
            command: self.service.exec(),
            start_timeout: START_TIMEOUT,
        }
    }
}

/// The calibration's ends: each namespace's handle and its address on the link.
pub fn ends<'a>(service: &'a Path, upstream: &'a Path) -> Ends<'a> {
    Ends {
        service: (service, IpAddr::V4(SERVICE_ADDRESS)),
        upstream: (upstream, IpAddr::V4(UPSTREAM_ADDRESS)),
    }
}
