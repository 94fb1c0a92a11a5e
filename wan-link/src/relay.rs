//! The link running between two TUN devices: a thread per direction reads each packet from
//! one side as it comes, asks the [`Link`] its fate, holds it until it is due and writes it
//! into the other side. Each thread sleeps until the next packet is due or one arrives (with
//! the kernel's timer slack at 1 ns, so that a 0.5 ms delay is not 0.55), and counts the CPU
//! it spends, so that what the relay costs per packet is shown beside what it carried.

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nix::poll::{PollFd, PollFlags, ppoll};
use nix::sys::time::TimeSpec;
use nix::time::{ClockId, clock_gettime};

use crate::link::{Link, Side};
use crate::shaper::{Counts, Dropped, Fate};
use crate::tun::Tun;

/// The most bytes a direction holds waiting for their due time (100 ms of a 2.5 Gbit/s flow):
/// past it a packet is dropped as a full queue's would be, so that the relay's memory is
/// bounded whatever the traffic.
pub const HELD_BYTES_LIMIT: usize = 32 * 1024 * 1024;

/// The longest a thread sleeps before it looks whether it should stop.
const WAKE_AT_LEAST_EVERY: Duration = Duration::from_millis(50);

/// The largest packet a TUN device hands over (its MTU is far below).
const PACKET_LIMIT: usize = 65_536;

/// A running link between the service's side and the upstream's.
#[derive(Debug)]
pub struct Relay {
    link: Arc<Mutex<Link>>,
    started: Instant,
    stop: Arc<AtomicBool>,
    /// CPU the two threads spent, in nanoseconds.
    cpu_nanos: Arc<AtomicU64>,
    threads: Vec<JoinHandle<io::Result<()>>>,
}

/// What the relay did, read when it stopped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Carried {
    /// What went up (from the service's side) and down.
    pub up: Counts,
    pub down: Counts,
    /// Flows the middlebox forgot.
    pub flows_forgotten: u64,
    /// CPU the relay's threads spent.
    pub cpu: Duration,
    /// How long it ran.
    pub ran: Duration,
}

impl Carried {
    /// The relay's CPU per packet it was offered, in microseconds.
    pub fn cpu_us_per_packet(&self) -> Option<f64> {
        let packets = self.up.offered + self.down.offered;
        (packets > 0).then(|| self.cpu.as_secs_f64() * 1e6 / packets as f64)
    }
}

impl Relay {
    /// Starts relaying between `service` (the service's namespace's device) and `upstream`,
    /// through `link`.
    ///
    /// # Errors
    /// A device's descriptor cannot be duplicated, or a thread cannot start.
    pub fn start(link: Link, service: &Tun, upstream: &Tun) -> io::Result<Self> {
        let link = Arc::new(Mutex::new(link));
        let started = Instant::now();
        let stop = Arc::new(AtomicBool::new(false));
        let cpu_nanos = Arc::new(AtomicU64::new(0));
        let mut threads = Vec::new();
        for (side, from, to) in [
            (Side::Service, service.try_clone()?, upstream.try_clone()?),
            (Side::Upstream, upstream.try_clone()?, service.try_clone()?),
        ] {
            let direction = Direction {
                side,
                from,
                to,
                link: Arc::clone(&link),
                started,
                stop: Arc::clone(&stop),
                cpu_nanos: Arc::clone(&cpu_nanos),
            };
            threads.push(
                std::thread::Builder::new()
                    .name(format!("wan-link-{side:?}").to_lowercase())
                    .spawn(move || direction.run())?,
            );
        }
        Ok(Self {
            link,
            started,
            stop,
            cpu_nanos,
            threads,
        })
    }

    /// Partitions the link from now on for `lasting`: every packet either way dropped.
    pub fn partition(&self, lasting: Duration) {
        let now = self.started.elapsed();
        self.lock().partition(now, lasting);
    }

    /// What the direction from `side` did so far.
    pub fn counts(&self, side: Side) -> Counts {
        self.lock().counts(side)
    }

    /// The CPU the relay's threads spent so far (to their last wake-up).
    pub fn cpu(&self) -> Duration {
        Duration::from_nanos(self.cpu_nanos.load(Ordering::Relaxed))
    }

    /// Stops both threads and says what the relay carried.
    ///
    /// # Errors
    /// A thread met an error reading or writing a device (the first is returned).
    pub fn stop(self) -> io::Result<Carried> {
        self.stop.store(true, Ordering::Relaxed);
        let mut failed = None;
        for thread in self.threads {
            let outcome = thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            if let Err(error) = outcome {
                failed.get_or_insert(error);
            }
        }
        if let Some(error) = failed {
            return Err(error);
        }
        let link = self.link.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(Carried {
            up: link.counts(Side::Service),
            down: link.counts(Side::Upstream),
            flows_forgotten: link.flows_forgotten(),
            cpu: Duration::from_nanos(self.cpu_nanos.load(Ordering::Relaxed)),
            ran: self.started.elapsed(),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Link> {
        self.link.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One direction's thread.
struct Direction {
    side: Side,
    from: Tun,
    to: Tun,
    link: Arc<Mutex<Link>>,
    started: Instant,
    stop: Arc<AtomicBool>,
    cpu_nanos: Arc<AtomicU64>,
}

impl Direction {
    fn run(self) -> io::Result<()> {
        // Sleep to the nanosecond asked: the default slack (50 us) would add to every delay.
        let _ = nix::sys::prctl::set_timerslack(1);
        let mut cpu_counted = thread_cpu();
        let mut count_cpu = || {
            let now = thread_cpu();
            let spent = now.saturating_sub(cpu_counted);
            cpu_counted = now;
            self.cpu_nanos.fetch_add(
                u64::try_from(spent.as_nanos()).unwrap_or(u64::MAX),
                Ordering::Relaxed,
            );
        };
        let outcome = self.relay(&mut count_cpu);
        count_cpu();
        outcome
    }

    /// Relays until told to stop, `count_cpu` after each wake-up (so that [`Relay::cpu`] is
    /// current while it runs).
    fn relay(&self, count_cpu: &mut dyn FnMut()) -> io::Result<()> {
        let mut held: VecDeque<(Duration, Vec<u8>)> = VecDeque::new();
        let mut held_bytes = 0usize;
        let mut buffer = vec![0u8; PACKET_LIMIT];
        let (mut reader, mut writer) = (self.from.file(), self.to.file());
        while !self.stop.load(Ordering::Relaxed) {
            count_cpu();
            // What is due goes out; dues never go back in time, so the queue is in order.
            let now = self.started.elapsed();
            while held.front().is_some_and(|(due, _)| *due <= now) {
                if let Some((_, packet)) = held.pop_front() {
                    held_bytes -= packet.len();
                    write_packet(&mut writer, &packet)?;
                }
            }
            let wait = held.front().map_or(WAKE_AT_LEAST_EVERY, |(due, _)| {
                due.saturating_sub(now).min(WAKE_AT_LEAST_EVERY)
            });
            let mut fds = [PollFd::new(self.from.as_fd(), PollFlags::POLLIN)];
            match ppoll(&mut fds, Some(TimeSpec::from_duration(wait)), None) {
                Ok(0) | Err(nix::errno::Errno::EINTR) => continue,
                Ok(_) => {}
                Err(errno) => return Err(io::Error::from(errno)),
            }
            loop {
                let read = match reader.read(&mut buffer) {
                    Ok(read) => read,
                    Err(error) if error.kind() == io::ErrorKind::WouldBlock => break,
                    Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                    Err(error) => return Err(error),
                };
                let packet = &buffer[..read];
                let at = self.started.elapsed();
                let mut link = self.link.lock().unwrap_or_else(PoisonError::into_inner);
                match link.offer(self.side, at, packet) {
                    Fate::Due(due) if held_bytes + read <= HELD_BYTES_LIMIT => {
                        held_bytes += read;
                        held.push_back((due, packet.to_vec()));
                    }
                    Fate::Due(_) => link.recount(self.side, Dropped::QueueFull),
                    Fate::Dropped(_) => {}
                }
            }
        }
        Ok(())
    }
}

/// Writes one packet into a TUN device; a packet the namespace's stack refuses (no route, the
/// device down) is dropped as a router would, and the relay goes on.
fn write_packet(writer: &mut &std::fs::File, packet: &[u8]) -> io::Result<()> {
    match writer.write(packet) {
        Ok(_) => Ok(()),
        Err(error)
            if matches!(
                error.raw_os_error(),
                Some(libc::EINVAL | libc::EIO | libc::EAGAIN)
            ) =>
        {
            Ok(())
        }
        Err(error) => Err(error),
    }
}

/// The calling thread's CPU time.
fn thread_cpu() -> Duration {
    clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID).map_or(Duration::ZERO, Duration::from)
}
