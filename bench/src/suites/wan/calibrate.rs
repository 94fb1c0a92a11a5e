//! Each profile's link measured before its payments: what the relay and the two stacks add on
//! their own (UDP echoes through a 1 ms link, just before), taken off the profile's delays;
//! then through the compensated profile the TCP connects' and the UDP echoes' round trips
//! against the configured one, and the loss over numbered datagrams each way. A profile whose
//! round trip is off by more than its bound (5% or 0.1 ms) is refused, and its payments are
//! not measured.

use std::io;
use std::time::Duration;

use wan_link::calibrate::{
    Ends, connect_round_trips, echo_round_trips, honoured, median, udp_delivery,
};
use wan_link::{Profile, Side};

use crate::measure::machine::CpuTimes;
use crate::suites::wan::link::{self, BenchLink};
use bench_model::{WanCheck, WanLink, WanSettings};

/// Datagrams per second of the loss measurement.
const DATAGRAMS_PER_SECOND: u64 = 5_000;
/// UDP echoes through the 1 ms link that measure the link's own excess.
const EXCESS_ECHOES: usize = 50;

/// A profile measured: its figures, and the profile the payments then run through (its delays
/// shortened by the excess measured).
pub struct Calibrated {
    pub link: WanLink,
    pub compensated: Profile,
    /// The TCP connects' median: what the payments' times are divided by.
    pub round_trip: Duration,
}

/// The most calibrations of one profile: a profile refused once is measured once more.
const ATTEMPTS: u32 = 2;

/// Measures `profile` on `bench_link`, once more if it is refused.
///
/// # Errors
/// A namespace cannot be entered, a socket or the relay fails.
pub fn calibrate(
    bench_link: &BenchLink,
    profile: &Profile,
    settings: &WanSettings,
    seed: u64,
) -> io::Result<Calibrated> {
    let mut attempt = 1;
    loop {
        let mut calibrated = calibrate_once(bench_link, profile, settings, seed)?;
        calibrated.link.attempts = attempt;
        if !calibrated.link.is_refused() || attempt == ATTEMPTS {
            return Ok(calibrated);
        }
        attempt += 1;
    }
}

fn calibrate_once(
    bench_link: &BenchLink,
    profile: &Profile,
    settings: &WanSettings,
    seed: u64,
) -> io::Result<Calibrated> {
    let cpu_before = CpuTimes::now();
    let (service, upstream) = bench_link.ends();
    let ends = link::ends(&service, &upstream);
    let zone = Profile::named("zone").ok_or_else(|| io::Error::other("no zone profile"))?;
    let relay = bench_link.relay(zone.clone(), seed)?;
    let through_zone = echo_round_trips(ends, EXCESS_ECHOES);
    relay.stop()?;
    let excess = median(&through_zone?)
        .unwrap_or_default()
        .saturating_sub(zone.round_trip());
    let compensated = profile.compensated(excess);
    let relay = bench_link.relay(compensated.clone(), seed)?;
    let measured = measure(ends, profile, settings);
    let carried = relay.stop()?;
    let Measured {
        connects,
        echoes,
        up_lost,
        down_lost,
    } = measured?;
    let configured = profile.round_trip();
    let bound = profile.round_trip_bound();
    let refused = [
        (WanCheck::TcpConnect, &connects),
        (WanCheck::UdpEcho, &echoes),
    ]
    .into_iter()
    .filter(|(_, measured)| !honoured(measured, configured, bound))
    .map(|(check, _)| check)
    .collect();
    let round_trip = median(&connects).unwrap_or_default();
    let steal_percent = CpuTimes::now()
        .zip(cpu_before)
        .and_then(|(after, before)| after.steal_percent_since(before));
    Ok(Calibrated {
        link: WanLink {
            profile: profile.name.to_owned(),
            configured_rtt_ms: millis(configured),
            bound_ms: millis(bound),
            excess_ms: millis(excess),
            connect_rtt_ms: millis(round_trip),
            echo_rtt_ms: millis(median(&echoes).unwrap_or_default()),
            loss_configured: profile.up.loss.mean(),
            loss_up: up_lost,
            loss_down: down_lost,
            datagrams: settings.datagrams,
            relay_cpu_us_per_packet: carried.cpu_us_per_packet(),
            refused,
            attempts: 1,
            steal_percent,
        },
        compensated,
        round_trip,
    })
}

struct Measured {
    connects: Vec<Duration>,
    echoes: Vec<Duration>,
    up_lost: f64,
    down_lost: f64,
}

fn measure(ends: Ends<'_>, profile: &Profile, settings: &WanSettings) -> io::Result<Measured> {
    let count = settings.round_trips as usize;
    let connects = connect_round_trips(ends, count)?;
    let echoes = echo_round_trips(ends, count)?;
    // Long enough after the last datagram for any still on the link to arrive.
    let settle = profile.round_trip() * 2 + Duration::from_millis(100);
    let datagrams = u64::from(settings.datagrams);
    let up = udp_delivery(
        ends.service,
        ends.upstream,
        datagrams,
        DATAGRAMS_PER_SECOND,
        settle,
    )?;
    let down = udp_delivery(
        ends.upstream,
        ends.service,
        datagrams,
        DATAGRAMS_PER_SECOND,
        settle,
    )?;
    Ok(Measured {
        connects,
        echoes,
        up_lost: up.lost_share(),
        down_lost: down.lost_share(),
    })
}

/// Packets the link dropped as the middlebox's, both ways: sent on a flow it had forgotten.
pub fn forgotten(relay: &wan_link::Relay) -> u64 {
    relay.counts(Side::Service).forgotten + relay.counts(Side::Upstream).forgotten
}

pub fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}
