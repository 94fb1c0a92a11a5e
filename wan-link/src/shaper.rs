//! One direction of the link as it runs: a packet offered at a time is dropped, or due on the
//! other side at a later time. The bottleneck first (a drop-tail queue in front of a rate),
//! then the wire's loss (a packet lost on the wire took its turn at the bottleneck), then the
//! delay and jitter, never before the packet offered before it.

use std::time::Duration;

use crate::loss::Losing;
use crate::profile::{Direction, Rate};

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dropped {
    /// The loss model lost it.
    Lost,
    /// The bottleneck's queue had no room for it.
    QueueFull,
    /// The link was partitioned.
    Partitioned,
    /// The middlebox had forgotten its flow (or never saw it open).
    Forgotten,
    /// The middlebox's table was full of live flows when it opened.
    TableFull,
}

/// What became of a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// To be written on the other side at this time since the link started.
    Due(Duration),
    Dropped(Dropped),
}

/// What a direction did with the packets offered to it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub offered: u64,
    pub offered_bytes: u64,
    pub delivered: u64,
    pub lost: u64,
    pub queue_full: u64,
    pub partitioned: u64,
    pub forgotten: u64,
    pub table_full: u64,
}

impl Counts {
    /// Counts a packet's fate.
    pub fn count(&mut self, bytes: usize, fate: Fate) {
        self.offered += 1;
        self.offered_bytes += bytes as u64;
        match fate {
            Fate::Due(_) => self.delivered += 1,
            Fate::Dropped(why) => *self.dropped_for(why) += 1,
        }
    }

    /// A packet counted delivered that was dropped after all, for `why`.
    pub fn undeliver(&mut self, why: Dropped) {
        self.delivered = self.delivered.saturating_sub(1);
        *self.dropped_for(why) += 1;
    }

    fn dropped_for(&mut self, why: Dropped) -> &mut u64 {
        match why {
            Dropped::Lost => &mut self.lost,
            Dropped::QueueFull => &mut self.queue_full,
            Dropped::Partitioned => &mut self.partitioned,
            Dropped::Forgotten => &mut self.forgotten,
            Dropped::TableFull => &mut self.table_full,
        }
    }

    /// Packets dropped, for whatever reason.
    pub fn dropped(&self) -> u64 {
        self.offered - self.delivered
    }
}

/// One direction: its settings and where its bottleneck, loss chain and last packet stand.
#[derive(Debug)]
pub struct Shaper {
    direction: Direction,
    losing: Losing,
    jitter: fastrand::Rng,
    /// When the bottleneck has sent everything queued so far.
    busy_until: Duration,
    /// When the packet offered last is due: no later packet is due before it.
    last_due: Duration,
}

impl Shaper {
    /// The direction, its random numbers from `seed`.
    pub fn new(direction: Direction, seed: u64) -> Self {
        Self {
            direction,
            losing: Losing::new(direction.loss, seed),
            jitter: fastrand::Rng::with_seed(seed ^ 0x9e37_79b9_7f4a_7c15),
            busy_until: Duration::ZERO,
            last_due: Duration::ZERO,
        }
    }

    /// A packet of `bytes` offered at `at` (time since the link started; offers come in time
    /// order).
    pub fn offer(&mut self, at: Duration, bytes: usize) -> Fate {
        let sent = match self.direction.rate {
            Some(rate) => {
                let queued = queued_bytes(rate, self.busy_until.saturating_sub(at));
                if queued + bytes as u64 > rate.queue_bytes {
                    return Fate::Dropped(Dropped::QueueFull);
                }
                self.busy_until = self.busy_until.max(at) + serialization(rate, bytes);
                self.busy_until
            }
            None => at,
        };
        if self.losing.lose() {
            return Fate::Dropped(Dropped::Lost);
        }
        let jitter = if self.direction.jitter.is_zero() {
            Duration::ZERO
        } else {
            self.direction.jitter.mul_f64(self.jitter.f64())
        };
        let due = (sent + self.direction.delay + jitter).max(self.last_due);
        self.last_due = due;
        Fate::Due(due)
    }
}

/// How long the bottleneck takes to send `bytes`.
fn serialization(rate: Rate, bytes: usize) -> Duration {
    let nanos = (bytes as u128 * 8 * 1_000_000_000) / u128::from(rate.bits_per_second.max(1));
    Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
}

/// Bytes still waiting at the bottleneck when it has `backlog` of sending left.
fn queued_bytes(rate: Rate, backlog: Duration) -> u64 {
    let bits = backlog.as_nanos() * u128::from(rate.bits_per_second) / 1_000_000_000;
    u64::try_from(bits / 8).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loss::Loss;

    fn ms(ms: u64) -> Duration {
        Duration::from_millis(ms)
    }

    #[test]
    fn a_delay_holds_every_packet_that_long() {
        let mut shaper = Shaper::new(Direction::delaying(ms(15)), 1);
        assert_eq!(shaper.offer(ms(0), 1500), Fate::Due(ms(15)));
        assert_eq!(shaper.offer(ms(3), 60), Fate::Due(ms(18)));
    }

    #[test]
    fn jitter_delays_up_to_its_bound_and_never_reorders() {
        let direction = Direction {
            jitter: ms(10),
            ..Direction::delaying(ms(20))
        };
        // Dense packets (every 0.5 ms) keep their order: a packet waits for the one before.
        let mut shaper = Shaper::new(direction, 9);
        let mut previous = Duration::ZERO;
        for packet in 0..2_000u64 {
            let at = Duration::from_micros(packet * 500);
            let Fate::Due(due) = shaper.offer(at, 100) else {
                panic!("nothing is lost");
            };
            assert!(due >= previous, "packet {packet} overtook the one before");
            assert!(due >= at + ms(20) && due <= at + ms(30));
            previous = due;
        }
        // Sparse ones (every 15 ms, more than the jitter) each meet the whole of it.
        let mut shaper = Shaper::new(direction, 9);
        let mut spread = (Duration::MAX, Duration::ZERO);
        for packet in 0..500u64 {
            let at = ms(packet * 15);
            let Fate::Due(due) = shaper.offer(at, 100) else {
                panic!("nothing is lost");
            };
            let added = due.saturating_sub(at);
            spread = (spread.0.min(added), spread.1.max(added));
        }
        assert!(spread.0 < ms(21) && spread.1 > ms(29), "{spread:?}");
    }

    #[test]
    fn a_rate_spaces_packets_and_its_full_queue_drops_the_tail() {
        // 1.2 Mbit/s: 10 ms per 1500-byte packet; room for three of them, the one being sent
        // included.
        let direction = Direction {
            rate: Some(Rate {
                bits_per_second: 1_200_000,
                queue_bytes: 4_500,
            }),
            ..Direction::delaying(ms(5))
        };
        let mut shaper = Shaper::new(direction, 1);
        let fates: Vec<Fate> = (0..5).map(|_| shaper.offer(ms(0), 1_500)).collect();
        assert_eq!(
            fates,
            [
                Fate::Due(ms(15)),
                Fate::Due(ms(25)),
                Fate::Due(ms(35)),
                Fate::Dropped(Dropped::QueueFull),
                Fate::Dropped(Dropped::QueueFull),
            ]
        );
        // Once the bottleneck has sent one, there is room for one more.
        assert_eq!(shaper.offer(ms(10), 1_500), Fate::Due(ms(45)));
        assert_eq!(
            shaper.offer(ms(10), 1_500),
            Fate::Dropped(Dropped::QueueFull)
        );
        // Idle, it sends at once.
        assert_eq!(shaper.offer(ms(100), 1_500), Fate::Due(ms(115)));
    }

    #[test]
    fn loss_drops_the_models_share_and_counts_say_why() {
        let direction = Direction {
            loss: Loss::Independent { probability: 0.1 },
            ..Direction::delaying(ms(1))
        };
        let mut shaper = Shaper::new(direction, 3);
        let mut counts = Counts::default();
        for packet in 0..20_000u64 {
            let fate = shaper.offer(Duration::from_micros(packet * 100), 100);
            counts.count(100, fate);
        }
        assert_eq!(counts.offered, 20_000);
        assert_eq!(counts.offered_bytes, 2_000_000);
        assert_eq!(counts.dropped(), counts.lost);
        let share = counts.lost as f64 / counts.offered as f64;
        assert!((share - 0.1).abs() < 0.01, "{share}");
    }
}
