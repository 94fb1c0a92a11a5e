//! The link measured against its profile, from inside the two namespaces it joins: TCP
//! connects through it (a connect returns after one round trip: SYN out, SYN-ACK back), and
//! numbered UDP datagrams each way at a steady rate (the share that arrived against the share
//! the profile loses), and UDP echoes (a ping through the link). A thread enters each namespace
//! for its part; nothing leaves them.

use std::io;
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::namespace::in_namespace;

/// The two ends of the link: each namespace's handle and its address on the link.
#[derive(Clone, Copy, Debug)]
pub struct Ends<'a> {
    pub service: (&'a Path, IpAddr),
    pub upstream: (&'a Path, IpAddr),
}

/// The time of each of `count` TCP connects from the service's side to a listener on the
/// upstream's: each one round trip through the link.
///
/// # Errors
/// A namespace cannot be entered, or a socket fails.
pub fn connect_round_trips(ends: Ends<'_>, count: usize) -> io::Result<Vec<Duration>> {
    let listener = in_namespace(ends.upstream.0, || {
        TcpListener::bind(SocketAddr::new(ends.upstream.1, 0))
    })?;
    listener.set_nonblocking(true)?;
    let address = listener.local_addr()?;
    // Accepts and closes each connection, so that the backlog never fills.
    let accept = |done: &AtomicBool| {
        while !done.load(Ordering::Relaxed) {
            match listener.accept() {
                Ok(_) => {}
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(error) => return Err(error),
            }
        }
        Ok(())
    };
    while_serving(accept, || {
        in_namespace(ends.service.0, || {
            (0..count)
                .map(|_| {
                    let started = Instant::now();
                    let stream = TcpStream::connect_timeout(&address, Duration::from_secs(5))?;
                    let took = started.elapsed();
                    drop(stream);
                    Ok(took)
                })
                .collect::<io::Result<Vec<_>>>()
        })
    })
}

/// Runs `serve` on a thread of its own until `measure` is done (`serve` is told by the flag
/// it is given), and gives what `measure` measured, or the first error of either.
fn while_serving<T: Send>(
    serve: impl FnOnce(&AtomicBool) -> io::Result<()> + Send,
    measure: impl FnOnce() -> io::Result<T>,
) -> io::Result<T> {
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let serving = scope.spawn(|| serve(&done));
        let measured = measure();
        done.store(true, Ordering::Relaxed);
        serving
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        measured
    })
}

/// Datagrams sent one way and how many arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub sent: u64,
    pub received: u64,
    /// From the first arrival to the last.
    pub arriving: Duration,
}

impl Delivery {
    /// Datagrams that arrived per second, first to last: with the sender unpaced, the rate
    /// the link carries.
    pub fn arrival_rate(&self) -> Option<f64> {
        let seconds = self.arriving.as_secs_f64();
        (self.received > 1 && seconds > 0.0).then(|| (self.received - 1) as f64 / seconds)
    }

    /// The share that did not arrive.
    pub fn lost_share(&self) -> f64 {
        if self.sent == 0 {
            return 0.0;
        }
        (self.sent - self.received.min(self.sent)) as f64 / self.sent as f64
    }
}

/// `count` numbered UDP datagrams of 64 bytes from one namespace to the other, `per_second`
/// of them (0: as fast as the sender can), and how many arrived (waiting `settle` after the
/// last for stragglers).
///
/// # Errors
/// A namespace cannot be entered, or a socket fails.
pub fn udp_delivery(
    from: (&Path, IpAddr),
    to: (&Path, IpAddr),
    count: u64,
    per_second: u64,
    settle: Duration,
) -> io::Result<Delivery> {
    let receiver = in_namespace(to.0, || UdpSocket::bind(SocketAddr::new(to.1, 0)))?;
    receiver.set_read_timeout(Some(Duration::from_millis(20)))?;
    let address = receiver.local_addr()?;
    let sending_done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let receiving = scope.spawn(|| {
            let mut seen = vec![false; usize::try_from(count).unwrap_or(usize::MAX)];
            let mut buffer = [0u8; 64];
            let mut quiet_since: Option<Instant> = None;
            let mut arrivals: Option<(Instant, Instant)> = None;
            loop {
                match receiver.recv(&mut buffer) {
                    Ok(read) if read >= 8 => {
                        quiet_since = None;
                        let now = Instant::now();
                        arrivals = Some(arrivals.map_or((now, now), |(first, _)| (first, now)));
                        let number = u64::from_be_bytes(buffer[..8].try_into().unwrap_or([0; 8]));
                        if let Some(slot) =
                            usize::try_from(number).ok().and_then(|n| seen.get_mut(n))
                        {
                            *slot = true;
                        }
                    }
                    Ok(_) => {}
                    Err(error) if timed_out(&error) => {
                        if sending_done.load(Ordering::Relaxed) {
                            let since = *quiet_since.get_or_insert_with(Instant::now);
                            if since.elapsed() >= settle {
                                break;
                            }
                        }
                    }
                    Err(error) => return Err(error),
                }
            }
            let arriving = arrivals.map_or(Duration::ZERO, |(first, last)| last - first);
            Ok((
                seen.iter().filter(|&&arrived| arrived).count() as u64,
                arriving,
            ))
        });
        let sent = in_namespace(from.0, || {
            let socket = UdpSocket::bind(SocketAddr::new(from.1, 0))?;
            let gap = if per_second == 0 {
                Duration::ZERO
            } else {
                Duration::from_secs(1) / u32::try_from(per_second).unwrap_or(u32::MAX)
            };
            let started = Instant::now();
            let mut payload = [0u8; 64];
            for number in 0..count {
                let due = started + gap * u32::try_from(number).unwrap_or(u32::MAX);
                if let Some(wait) = due.checked_duration_since(Instant::now()) {
                    std::thread::sleep(wait);
                }
                payload[..8].copy_from_slice(&number.to_be_bytes());
                match socket.send_to(&payload, address) {
                    Ok(_) => {}
                    // Unpaced, the device's queue can be full: that datagram is lost.
                    Err(error) if error.raw_os_error() == Some(libc::ENOBUFS) => {}
                    Err(error) => return Err(error),
                }
            }
            Ok(count)
        });
        sending_done.store(true, Ordering::Relaxed);
        let (arrived, arriving) = receiving
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        Ok(Delivery {
            sent: sent?,
            received: arrived,
            arriving,
        })
    })
}

/// The time of each of `count` UDP echoes, one after another, from the service's side to an
/// echo on the upstream's: a ping through the link (a datagram out, the same back).
///
/// # Errors
/// A namespace cannot be entered, a socket fails, or an echo is lost five times.
pub fn echo_round_trips(ends: Ends<'_>, count: usize) -> io::Result<Vec<Duration>> {
    let echo = in_namespace(ends.upstream.0, || {
        UdpSocket::bind(SocketAddr::new(ends.upstream.1, 0))
    })?;
    echo.set_read_timeout(Some(Duration::from_millis(20)))?;
    let address = echo.local_addr()?;
    let answer = |done: &AtomicBool| {
        let mut buffer = [0u8; 64];
        while !done.load(Ordering::Relaxed) {
            match echo.recv_from(&mut buffer) {
                Ok((read, from)) => {
                    echo.send_to(&buffer[..read], from)?;
                }
                Err(error) if timed_out(&error) => {}
                Err(error) => return Err(error),
            }
        }
        Ok(())
    };
    while_serving(answer, || {
        in_namespace(ends.service.0, || {
            let socket = UdpSocket::bind(SocketAddr::new(ends.service.1, 0))?;
            socket.set_read_timeout(Some(ECHO_WAIT))?;
            let mut buffer = [0u8; 64];
            (0..count as u64)
                .map(|number| {
                    // An echo lost on the way (a lossy profile) is sent again after a wait; the
                    // time is the try that came back.
                    for _ in 0..ECHO_TRIES {
                        let started = Instant::now();
                        socket.send_to(&number.to_be_bytes(), address)?;
                        loop {
                            match socket.recv(&mut buffer) {
                                Ok(8) if buffer[..8] == number.to_be_bytes() => {
                                    return Ok(started.elapsed());
                                }
                                Ok(_) => {}
                                Err(error) if timed_out(&error) => {
                                    break;
                                }
                                Err(error) => return Err(error),
                            }
                        }
                    }
                    Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("echo {number}: no answer to {ECHO_TRIES} tries"),
                    ))
                })
                .collect::<io::Result<Vec<_>>>()
        })
    })
}

/// How long an echo is waited for before it is sent again, and how many times.
const ECHO_WAIT: Duration = Duration::from_secs(1);
const ECHO_TRIES: usize = 5;

/// Whether a read with a timeout gave up waiting (the kind depends on the socket).
fn timed_out(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// The median of some durations.
pub fn median(durations: &[Duration]) -> Option<Duration> {
    let mut sorted = durations.to_vec();
    sorted.sort_unstable();
    sorted.get(sorted.len().checked_sub(1)? / 2).copied()
}

/// Whether round trips measured against the profile's honour it: their median within `bound`
/// of the configured round trip (nothing measured does not).
pub fn honoured(measured: &[Duration], configured: Duration, bound: Duration) -> bool {
    median(measured).is_some_and(|median| median.abs_diff(configured) <= bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lost_share_is_what_did_not_arrive() {
        let delivery = Delivery {
            sent: 10_000,
            received: 9_800,
            arriving: Duration::from_secs(1),
        };
        assert!((delivery.lost_share() - 0.02).abs() < 1e-12);
        // 9 799 gaps between the first arrival and the last, in a second.
        let rate = delivery.arrival_rate().unwrap_or_default();
        assert!((rate - 9_799.0).abs() < 1e-6, "{rate}");
        let nothing = Delivery {
            sent: 0,
            received: 0,
            arriving: Duration::ZERO,
        };
        assert!(nothing.lost_share().abs() < f64::EPSILON);
        assert_eq!(nothing.arrival_rate(), None);
    }

    #[test]
    fn a_round_trip_off_by_more_than_its_bound_is_not_honoured() {
        let ms = |ms: f64| Duration::from_secs_f64(ms / 1e3);
        let measured = [ms(30.2), ms(30.4), ms(31.0), ms(29.9), ms(30.3)];
        assert_eq!(median(&measured), Some(ms(30.3)));
        assert!(honoured(&measured, ms(30.0), ms(1.5)));
        assert!(honoured(&measured, ms(30.0), ms(0.3)));
        assert!(!honoured(&measured, ms(30.0), ms(0.1)));
        assert!(!honoured(&measured, ms(30.5), ms(0.1)));
        assert!(!honoured(&[], ms(1.0), ms(0.1)));
    }
}
