//! A link's settings, each a typed field: per direction a delay, jitter, loss and a rate with
//! its queue; for the link a partition's length and the middlebox's idle timeout. The named
//! profiles are the WAN suite's.

use std::fmt;
use std::time::Duration;

use crate::loss::Loss;

/// One direction of the link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Direction {
    /// Every packet held this long (half the round trip the profile names).
    pub delay: Duration,
    /// And up to this much more, uniformly; a packet is never due before the one offered
    /// before it (no reordering).
    pub jitter: Duration,
    pub loss: Loss,
    /// A bottleneck: `None` for none.
    pub rate: Option<Rate>,
}

impl Direction {
    /// A direction that only delays.
    pub const fn delaying(delay: Duration) -> Self {
        Self {
            delay,
            jitter: Duration::ZERO,
            loss: Loss::None,
            rate: None,
        }
    }
}

/// A bottleneck: the rate packets leave at, and a drop-tail queue of this many bytes in front
/// of it (a packet that would overflow it is dropped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate {
    pub bits_per_second: u64,
    pub queue_bytes: u64,
}

/// A link: both directions, and what it does to both.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    pub name: &'static str,
    /// From the service's side to the upstream's.
    pub up: Direction,
    /// From the upstream's side to the service's.
    pub down: Direction,
    /// A partition the suite starts under load: every packet either way dropped for this long.
    pub partition: Option<Duration>,
    /// A middlebox forgetting a TCP flow idle longer than this: `None` for none.
    pub forget_idle: Option<Duration>,
}

impl Profile {
    /// The named profiles, shortest round trip first.
    pub const NAMES: [&'static str; 6] = [
        "zone",
        "region",
        "continent",
        "lossy",
        "partition",
        "forgetful",
    ];

    /// The profile of that name: `zone` (a 1 ms round trip), `region` (30 ms), `continent`
    /// (100 ms, 0.1% of packets lost each way), `lossy` (50 ms, 2% lost each way in bursts of
    /// 4 packets on average), `partition` (30 ms, 3 s of total loss when the suite starts it),
    /// `forgetful` (30 ms, flows idle over 5 s forgotten).
    pub fn named(name: &str) -> Option<Self> {
        let ms = Duration::from_millis;
        let symmetric = |name, round_trip: Duration, loss| Self {
            name,
            up: Direction {
                loss,
                ..Direction::delaying(round_trip / 2)
            },
            down: Direction {
                loss,
                ..Direction::delaying(round_trip / 2)
            },
            partition: None,
            forget_idle: None,
        };
        Some(match name {
            "zone" => symmetric("zone", ms(1), Loss::None),
            "region" => symmetric("region", ms(30), Loss::None),
            "continent" => symmetric(
                "continent",
                ms(100),
                Loss::Independent { probability: 0.001 },
            ),
            "lossy" => symmetric("lossy", ms(50), Loss::bursty(0.02, 4.0)),
            "partition" => Self {
                partition: Some(ms(3_000)),
                ..symmetric("partition", ms(30), Loss::None)
            },
            "forgetful" => Self {
                forget_idle: Some(ms(5_000)),
                ..symmetric("forgetful", ms(30), Loss::None)
            },
            _ => return None,
        })
    }

    /// The profile with each direction's delay shortened by half of `excess`: what the relay
    /// and the two stacks add to a round trip on their own (measured through a profile of
    /// known delay), so that the round trip measured through the link is the one configured.
    #[must_use]
    pub fn compensated(&self, excess: Duration) -> Self {
        let shorten = |direction: Direction| Direction {
            delay: direction.delay.saturating_sub(excess / 2),
            ..direction
        };
        Self {
            up: shorten(self.up),
            down: shorten(self.down),
            ..self.clone()
        }
    }

    /// The round trip the profile adds to a packet and its answer, jitter and queueing apart.
    pub fn round_trip(&self) -> Duration {
        self.up.delay + self.down.delay
    }

    /// The bound a measured round trip must keep to the configured one for the link to be
    /// used: 5% of it or 0.1 ms, whichever is larger.
    pub fn round_trip_bound(&self) -> Duration {
        (self.round_trip() / 20).max(Duration::from_micros(100))
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: round trip {:.1} ms",
            self.name,
            self.round_trip().as_secs_f64() * 1e3
        )?;
        for (way, direction) in [("up", &self.up), ("down", &self.down)] {
            if !direction.jitter.is_zero() {
                write!(
                    f,
                    ", {way} jitter up to {:.1} ms",
                    direction.jitter.as_secs_f64() * 1e3
                )?;
            }
            match direction.loss {
                Loss::None => {}
                Loss::Independent { probability } => {
                    write!(f, ", {way} {:.2}% lost", probability * 100.0)?;
                }
                loss @ Loss::GilbertElliott { .. } => write!(
                    f,
                    ", {way} {:.2}% lost in bursts of {:.1}",
                    loss.mean() * 100.0,
                    loss.mean_burst()
                )?,
            }
            if let Some(rate) = direction.rate {
                write!(
                    f,
                    ", {way} {:.1} Mbit/s, queue {} B",
                    rate.bits_per_second as f64 / 1e6,
                    rate.queue_bytes
                )?;
            }
        }
        if let Some(partition) = self.partition {
            write!(f, ", a partition of {:.1} s", partition.as_secs_f64())?;
        }
        if let Some(idle) = self.forget_idle {
            write!(f, ", flows idle over {:.1} s forgotten", idle.as_secs_f64())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_a_profile_and_says_what_it_is() {
        for name in Profile::NAMES {
            let profile = Profile::named(name).unwrap();
            assert_eq!(profile.name, name);
        }
        assert_eq!(Profile::named("moon"), None);
        let continent = Profile::named("continent").unwrap();
        assert_eq!(continent.round_trip(), Duration::from_millis(100));
        assert_eq!(continent.round_trip_bound(), Duration::from_millis(5));
        assert_eq!(
            continent.to_string(),
            "continent: round trip 100.0 ms, up 0.10% lost, down 0.10% lost"
        );
        assert_eq!(
            Profile::named("lossy").unwrap().to_string(),
            "lossy: round trip 50.0 ms, up 2.00% lost in bursts of 4.0, down 2.00% lost in \
             bursts of 4.0"
        );
        assert_eq!(
            Profile::named("zone").unwrap().round_trip_bound(),
            Duration::from_micros(100),
            "0.1 ms where 5% is less"
        );
        assert!(
            Profile::named("forgetful")
                .unwrap()
                .to_string()
                .ends_with("flows idle over 5.0 s forgotten")
        );
        assert!(
            Profile::named("partition")
                .unwrap()
                .to_string()
                .ends_with("a partition of 3.0 s")
        );
    }

    #[test]
    fn compensation_takes_the_links_own_excess_off_each_direction() {
        let region = Profile::named("region").unwrap();
        let compensated = region.compensated(Duration::from_micros(300));
        assert_eq!(compensated.up.delay, Duration::from_micros(14_850));
        assert_eq!(compensated.down.delay, Duration::from_micros(14_850));
        assert_eq!(compensated.up.loss, region.up.loss);
        let zone = Profile::named("zone").unwrap();
        assert_eq!(
            zone.compensated(Duration::from_millis(2)).round_trip(),
            Duration::ZERO,
            "never below nothing"
        );
    }
}
