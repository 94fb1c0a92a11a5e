//! A link between two namespaces of its own, measured: `cargo run --release -p wan-link
//! --example through -- PROFILE` (as root). Makes the namespaces `wan-a-PID` and `wan-b-PID`,
//! a TUN device in each (10.77.0.1 and 10.77.0.2, each the other's peer), relays between
//! them through PROFILE (its delays shortened by what the relay and the stacks add on their own,
//! measured first through the 1 ms zone profile), and prints the TCP connect and UDP echo round trips against the
//! profile's (and whether it is honoured), the UDP datagrams lost each way against its loss,
//! the relay's CPU per packet and the rate it carries unpaced. The
//! namespaces are deleted at the end.

use std::net::{IpAddr, Ipv4Addr};
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use wan_link::calibrate::{
    Ends, connect_round_trips, echo_round_trips, honoured, median, udp_delivery,
};
use wan_link::{Link, Profile, Relay, Side, Tun};

fn ip(args: &[&str]) -> Result<(), String> {
    let status = Command::new("ip")
        .args(args)
        .status()
        .map_err(|error| format!("ip {}: {error}", args.join(" ")))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("ip {}: {status}", args.join(" ")))
    }
}

fn main() -> Result<(), String> {
    let name = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "region".to_owned());
    let profile = Profile::named(&name).ok_or_else(|| format!("no profile {name}"))?;
    let pid = std::process::id();
    let namespaces = Namespaces::add([format!("wan-a-{pid}"), format!("wan-b-{pid}")])?;
    let [a, b] = &namespaces.0;
    measure(&profile, a, b)
}

/// The two namespaces, deleted when dropped (also when the measuring panics).
struct Namespaces([String; 2]);

impl Namespaces {
    fn add(names: [String; 2]) -> Result<Self, String> {
        ip(&["netns", "add", &names[0]])?;
        let made = Self(names);
        ip(&["netns", "add", &made.0[1]])?;
        Ok(made)
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for name in &self.0 {
            let _ = ip(&["netns", "del", name]);
        }
    }
}

/// The namespaces' handles.
fn handle(name: &str) -> PathBuf {
    PathBuf::from("/var/run/netns").join(name)
}

const SERVICE_ADDRESS: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 1);
const UPSTREAM_ADDRESS: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 2);

/// A TUN device in each namespace, each address the other's peer, up.
fn devices(a: &str, b: &str) -> Result<(Tun, Tun), String> {
    let service = Tun::make_in(&handle(a), "wan0").map_err(|error| error.to_string())?;
    let upstream = Tun::make_in(&handle(b), "wan0").map_err(|error| error.to_string())?;
    for (namespace, own, peer) in [
        (a, SERVICE_ADDRESS, UPSTREAM_ADDRESS),
        (b, UPSTREAM_ADDRESS, SERVICE_ADDRESS),
    ] {
        ip(&["-n", namespace, "link", "set", "lo", "up"])?;
        ip(&[
            "-n",
            namespace,
            "addr",
            "add",
            &own.to_string(),
            "peer",
            &peer.to_string(),
            "dev",
            "wan0",
        ])?;
        ip(&["-n", namespace, "link", "set", "wan0", "up"])?;
    }
    Ok((service, upstream))
}

fn measure(profile: &Profile, a: &str, b: &str) -> Result<(), String> {
    let (service, upstream) = devices(a, b)?;
    let (service_ns, upstream_ns) = (handle(a), handle(b));
    let ends = Ends {
        service: (&service_ns, IpAddr::V4(SERVICE_ADDRESS)),
        upstream: (&upstream_ns, IpAddr::V4(UPSTREAM_ADDRESS)),
    };
    // What the relay and the two stacks add on their own: measured through the zone profile
    // (a known 1 ms), and taken off the profile's delays.
    let zone = Profile::named("zone").ok_or("no zone profile")?;
    let relay = Relay::start(Link::new(zone.clone(), 1), &service, &upstream)
        .map_err(|error| error.to_string())?;
    let through_zone = echo_round_trips(ends, 50).map_err(|error| error.to_string())?;
    relay.stop().map_err(|error| error.to_string())?;
    let excess = median(&through_zone)
        .unwrap_or_default()
        .saturating_sub(zone.round_trip());
    println!(
        "the link's own excess: {:.3} ms (UDP echoes through zone, median)",
        ms(excess)
    );
    let relay = Relay::start(
        Link::new(profile.compensated(excess), 1),
        &service,
        &upstream,
    )
    .map_err(|error| error.to_string())?;
    let configured = profile.round_trip();
    let bound = profile.round_trip_bound();
    let connects = connect_round_trips(ends, 50).map_err(|error| error.to_string())?;
    let echoes = echo_round_trips(ends, 50).map_err(|error| error.to_string())?;
    println!("{profile}");
    for (what, measured) in [("TCP connect", &connects), ("UDP echo", &echoes)] {
        let mut sorted = measured.clone();
        sorted.sort_unstable();
        println!(
            "{what}, {}: min {:.3} ms, median {:.3} ms, max {:.3} ms; configured {:.3} ms, bound {:.3} ms: {}",
            sorted.len(),
            ms(sorted[0]),
            ms(median(&sorted).unwrap_or_default()),
            ms(sorted[sorted.len() - 1]),
            ms(configured),
            ms(bound),
            if honoured(&sorted, configured, bound) {
                "honoured"
            } else {
                "refused"
            }
        );
    }
    let settle = configured * 2 + Duration::from_millis(100);
    let cpu_before = relay.cpu();
    let packets_before = relay.counts(Side::Service).offered + relay.counts(Side::Upstream).offered;
    let up = udp_delivery(ends.service, ends.upstream, 10_000, 5_000, settle)
        .map_err(|error| error.to_string())?;
    let down = udp_delivery(ends.upstream, ends.service, 10_000, 5_000, settle)
        .map_err(|error| error.to_string())?;
    let packets =
        relay.counts(Side::Service).offered + relay.counts(Side::Upstream).offered - packets_before;
    let cpu = relay.cpu().saturating_sub(cpu_before);
    println!(
        "UDP, 10 000 each way at 5 000/s: up {:.3}% lost (configured {:.3}%), down {:.3}% lost (configured {:.3}%); relay CPU {:.2} us per packet",
        up.lost_share() * 100.0,
        profile.up.loss.mean() * 100.0,
        down.lost_share() * 100.0,
        profile.down.loss.mean() * 100.0,
        cpu.as_secs_f64() * 1e6 / packets.max(1) as f64
    );
    let unpaced = udp_delivery(ends.service, ends.upstream, 100_000, 0, settle)
        .map_err(|error| error.to_string())?;
    println!(
        "UDP, 100 000 up unpaced: {:.0} packets/s arrived, {:.2}% lost",
        unpaced.arrival_rate().unwrap_or(0.0),
        unpaced.lost_share() * 100.0
    );
    let carried = relay.stop().map_err(|error| error.to_string())?;
    println!(
        "relay: {} packets up ({} dropped), {} down ({} dropped), CPU {:.2} us per packet over {:.1} s",
        carried.up.offered,
        carried.up.dropped(),
        carried.down.offered,
        carried.down.dropped(),
        carried.cpu_us_per_packet().unwrap_or(0.0),
        carried.ran.as_secs_f64()
    );
    Ok(())
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}
